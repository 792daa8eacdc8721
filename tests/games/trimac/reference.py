"""An independent TriMac 3 Friends referee, written from the spec alone.

Nothing here comes from ``games.trimac``: the 207-point board is rebuilt from
the spec's own description (§2.1 lattice inequalities, §2.2 direction
vectors, §2.4 step rules, §2.5 fortress), the pieces follow §4 word by word,
and the turn driver follows §5. It is deliberately naive -- points are
``(lattice, x, y)`` tuples, the board a dict, legality by making every move
and asking "is my General attacked or facing?" by generating every enemy
piece's captures -- so that it shares no shortcut, table or bug with the
engine. tests/games/trimac/test_reference.py pins it against the spec's
tables and then compares it with the engine move by move.

Where the spec is silent the reference follows the project's DECISIONs, each
marked DECISION below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

LATS = "RBG"
COLOURS = "rbg"
SEATS = ("Red", "Blue", "Green")
FILES = "abcdefghijk"
KINDS = "KAEHRCPF"  # General Guard Bishop Knight Rook Cannon Pawn Banner
QUIET_LIMIT = 300

# §2.2 -- orthogonal steps (along triangle sides) and diagonals (to the far
# corner of the next triangle), as local (dx, dy).
ORTHO = {"N": (0, 2), "NE": (1, 1), "SE": (1, -1), "S": (0, -2), "SW": (-1, -1), "NW": (-1, 1)}
DIAG = {"E": (2, 0), "NNE": (1, 3), "NNW": (-1, 3), "W": (-2, 0), "SSW": (-1, -3), "SSE": (1, -3)}


def _angle(v: tuple[int, int]) -> float:
    """Plane angle of a local step: X = sqrt(3)/2 * x, Y = y / 2 (§2.1)."""
    return math.degrees(math.atan2(v[1] / 2, v[0] * math.sqrt(3) / 2)) % 360


def _outward() -> dict[str, tuple[str, ...]]:
    """The two diagonals 30 degrees either side of each orthogonal (§2.2)."""
    out = {}
    for o, ov in ORTHO.items():
        near = []
        for d, dv in DIAG.items():
            diff = abs(_angle(ov) - _angle(dv)) % 360
            if abs(min(diff, 360 - diff) - 30) < 1e-6:
                near.append(d)
        out[o] = tuple(sorted(near))
    return out


OUTWARD = _outward()

Point = tuple[int, int, int]  # (lattice 0..2, x, y)


def in_lattice(x: int, y: int) -> bool:
    """§2.1: x + y even, |x| <= y <= 16 - |x|, -5 <= x <= 5."""
    return (x + y) % 2 == 0 and -5 <= x <= 5 and abs(x) <= y <= 16 - abs(x)


LOCAL = [(x, y) for x in range(-5, 6) for y in range(0, 17) if in_lattice(x, y)]
POINTS = [(lat, x, y) for lat in range(3) for x, y in LOCAL]


def name(p: Point) -> str:
    lat, x, y = p
    return f"{LATS[lat]}{FILES[x + 5]}{(y - abs(x)) // 2 + 1}"


BY_NAME = {name(p).lower(): p for p in POINTS}


def point(text: str) -> Point:
    return BY_NAME[text.lower()]


def left(lat: int) -> int:
    """§2.3: the next player in turn order sits across the left front."""
    return (lat + 1) % 3


def right(lat: int) -> int:
    return (lat + 2) % 3


def is_front(x: int, y: int) -> bool:
    """The top point of its file (§2.1's front edges)."""
    return y == 16 - abs(x)


def flip(d: str) -> str:
    """After a crossing (dx, dy) becomes (dx, -dy) (§2.4)."""
    dx, dy = ORTHO[d]
    return next(k for k, v in ORTHO.items() if v == (dx, -dy))


@cache  # geometry only: a pure function of its arguments, cached for speed
def ortho_step(p: Point, d: str) -> list[tuple[Point, str]]:
    """§2.4's orthogonal step rule: the next point(s) and the new direction."""
    lat, x, y = p
    dx, dy = ORTHO[d]
    if in_lattice(x + dx, y + dy):
        return [((lat, x + dx, y + dy), d)]
    if x < 0 and is_front(x, y) and d in ("N", "NW"):
        return [((left(lat), -x, y), flip(d))]
    if x > 0 and is_front(x, y) and d in ("N", "NE"):
        return [((right(lat), -x, y), flip(d))]
    if x == 0 and y == 16:
        if d == "NW":
            return [((left(lat), 0, 16), "SW")]
        if d == "NE":
            return [((right(lat), 0, 16), "SE")]
        if d == "N":
            return [((left(lat), 0, 16), "S"), ((right(lat), 0, 16), "S")]
    return []


@cache
def diag_step(p: Point, d: str) -> Point | None:
    """A diagonal step never leaves its lattice (D5)."""
    lat, x, y = p
    dx, dy = DIAG[d]
    return (lat, x + dx, y + dy) if in_lattice(x + dx, y + dy) else None


@cache
def lines(p: Point, d: str) -> list[list[Point]]:
    """Every line from p in direction d (branching at an apex going N)."""
    out = []
    stack: list[tuple[list[Point], Point, str]] = [([], p, d)]
    while stack:
        path, q, dd = stack.pop()
        nxt = ortho_step(q, dd)
        if not nxt:
            if path:
                out.append(path)
            continue
        for r, rd in nxt:
            stack.append((path + [r], r, rd))
    return out


# §2.5 -- the fortress kite, local coordinates.
FORTRESS = {(0, 0), (-1, 1), (1, 1), (0, 2), (-1, 3), (1, 3), (0, 4), (-2, 4), (2, 4),
            (-1, 5), (1, 5), (0, 6)}


def in_fortress(p: Point, owner: int) -> bool:
    return p[0] == owner and (p[1], p[2]) in FORTRESS


# -- pieces (§4) ----------------------------------------------------------------
Board = dict[Point, tuple[int, str]]  # point -> (owner seat, kind letter)


def reach(board: Board, p: Point) -> set[Point]:
    """Every point the piece on p could move to or capture on, General or not.

    An occupied point is included whatever its colour; the callers drop own
    pieces and (for moves, D9) Generals. Cannons include only screen captures.
    """
    owner, kind = board[p]
    out: set[Point] = set()
    if kind == "K":
        for d in ORTHO:
            for q, _ in ortho_step(p, d):
                if in_fortress(q, owner):
                    out.add(q)
    elif kind == "A":
        for d in DIAG:
            q = diag_step(p, d)
            if q is not None and in_fortress(q, owner):
                out.add(q)
    elif kind == "E":
        for d in DIAG:
            eye = diag_step(p, d)
            if eye is not None and eye not in board:
                q = diag_step(eye, d)
                if q is not None:
                    out.add(q)
    elif kind == "H":
        for d in ORTHO:
            for q1, d1 in ortho_step(p, d):
                if q1 in board:
                    continue
                for od in OUTWARD[d1]:
                    q = diag_step(q1, od)
                    if q is not None:
                        out.add(q)
    elif kind == "F":
        for d in ORTHO:
            for q1, d1 in ortho_step(p, d):
                if q1 in board:
                    continue
                for q2, d2 in ortho_step(q1, d1):
                    if q2 in board:
                        continue
                    for od in OUTWARD[d2]:
                        q = diag_step(q2, od)
                        if q is not None:
                            out.add(q)
    elif kind in "RC":
        for d in ORTHO:
            for line in lines(p, d):
                screened = False
                for q in line:
                    if q not in board:
                        if not screened:
                            out.add(q)
                        continue
                    if kind == "R":
                        out.add(q)
                        break
                    if screened:
                        out.add(q)
                        break
                    screened = True
    elif kind == "P":
        if p[0] == owner:  # at home: forward is local N, NE, NW
            for d in ("N", "NE", "NW"):
                out.update(q for q, _ in ortho_step(p, d))
        else:  # across the river: S, SE, SW and sideways E, W
            for d in ("S", "SE", "SW"):
                out.update(q for q, _ in ortho_step(p, d))
            for d in ("E", "W"):
                q = diag_step(p, d)
                if q is not None:
                    out.add(q)
    return out


def general(board: Board, seat: int) -> Point | None:
    return next((p for p, pc in board.items() if pc == (seat, "K")), None)


@cache
def unblocked(p: Point, owner: int, kind: str) -> frozenset[Point]:
    """What the piece could reach on an otherwise empty board: a superset of
    its reach on any board (pieces only block; a Cannon's captures lie on
    its lines), used to skip pieces that cannot possibly attack a point."""
    return frozenset(reach({p: (owner, kind)}, p))


def checkers(board: Board, seat: int) -> set[int]:
    """Opponents attacking ``seat``'s General or facing it (§5.2, §2.7)."""
    g = general(board, seat)
    found: set[int] = set()
    if g is None:
        return found
    for p, (owner, kind) in board.items():
        if owner != seat and owner not in found and g in unblocked(p, owner, kind) \
                and g in reach(board, p):
            found.add(owner)
    for line in lines(g, "N"):
        for q in line:
            if q in board:
                owner, kind = board[q]
                if kind == "K" and owner != seat:
                    found.add(owner)
                break
    return found


def pseudo_moves(board: Board, seat: int) -> list[tuple[Point, Point]]:
    out = []
    for p, (owner, _kind) in list(board.items()):
        if owner != seat:
            continue
        for q in reach(board, p):
            t = board.get(q)
            if t is not None and (t[0] == seat or t[1] == "K"):
                continue
            out.append((p, q))
    return out


def moved(board: Board, p: Point, q: Point) -> Board:
    new = dict(board)
    new[q] = new.pop(p)
    return new


def legal_moves(board: Board, seat: int) -> list[tuple[Point, Point]]:
    if general(board, seat) is None:
        return []
    return [(p, q) for p, q in pseudo_moves(board, seat) if not checkers(moved(board, p, q), seat)]


def move_text(board: Board, p: Point, q: Point) -> str:
    return f"{name(p)}{'x' if q in board else '-'}{name(q)}"


# -- position strings (§6.1) ----------------------------------------------------
def parse_position(text: str) -> tuple[Board, int, list[int], int]:
    board: Board = {}
    to, alive, last = 0, [0, 1, 2], None
    for tok in text.split():
        if tok.startswith("to="):
            to = LATS.index(tok[3].upper())
        elif tok.startswith("alive="):
            alive = sorted(LATS.index(c.upper()) for c in tok[6:])
        elif tok.startswith("last="):
            last = LATS.index(tok[5].upper())
        else:
            board[point(tok[3:])] = (COLOURS.index(tok[0].lower()), tok[1].upper())
    if last is None:  # "the surviving player before to= in turn order"
        last = next(s for s in ((to + 2) % 3, (to + 1) % 3) if s in alive)
    return board, to, alive, last


def position_tokens(board: Board) -> set[str]:
    return {f"{COLOURS[o]}{k}@{name(p)}" for p, (o, k) in board.items()}


# -- the game (§5) ----------------------------------------------------------------
@dataclass
class Game:
    """The whole game: board, turn, who is out and how, and the draw counters."""

    board: Board
    to: int
    out: dict[int, str] = field(default_factory=dict)  # seat -> "defeated by X" / "resigned"
    recency: dict[int, int] = field(default_factory=dict)  # seat -> turn number of its last turn
    turns: int = 0
    quiet: int = 0
    run_of_passes: int = 0
    seen: dict[tuple, int] = field(default_factory=dict)
    events: list[tuple] = field(default_factory=list)
    result: tuple[tuple[int, ...], tuple[int, ...], str] | None = None
    _legal: list[str] | None = None  # the legal moves of the player to move, once computed

    @classmethod
    def from_position(cls, text: str) -> Game:
        board, to, alive, last = parse_position(text)
        g = cls(board=board, to=to, out={s: "resigned" for s in range(3) if s not in alive})
        # The player named by last= had the most recent turn, the one before it
        # in turn order the one before that (D10's tie-break).
        for i in range(3):
            g.recency[(last - i) % 3] = -i
        g.start_of_turn()
        return g

    @property
    def alive(self) -> list[int]:
        return [s for s in range(3) if s not in self.out]

    def next_after(self, seat: int) -> int:
        for i in (1, 2, 3):
            if (seat + i) % 3 not in self.out:
                return (seat + i) % 3
        return seat

    def legal(self) -> list[str]:
        if self.result is not None:
            return []
        if self._legal is None:
            self._legal = sorted(
                move_text(self.board, p, q) for p, q in legal_moves(self.board, self.to)
            )
        return list(self._legal)

    def finish_draw(self, kind: str) -> None:
        # DECISION (spec silent): armies already out of the game -- defeated or
        # resigned -- are listed as losers of a draw; the survivors share it.
        self.result = ((), tuple(sorted(self.out)), kind)

    def start_of_turn(self) -> None:
        """§5.3: mate, pass, and the end conditions of §5.6."""
        while self.result is None:
            alive = self.alive
            if len(alive) == 1:
                self.result = (tuple(alive), tuple(sorted(self.out)), "win")
                return
            if self.quiet >= QUIET_LIMIT:
                self.finish_draw("quiet")
                return
            seat = self.to
            key = (frozenset(self.board.items()), seat, tuple(alive))
            self.seen[key] = self.seen.get(key, 0) + 1
            if self.seen[key] >= 3:
                self.finish_draw("repetition")
                return
            self._legal = None
            if self.legal():
                return
            who = checkers(self.board, seat)
            if who:
                victor = max(who, key=lambda o: self.recency[o])
                self.defeat(seat, victor)
                self.to = self.next_after(seat)
                continue
            self.events.append(("pass", seat))
            self.turns += 1
            self.recency[seat] = self.turns
            self.quiet += 1
            self.run_of_passes += 1
            if self.run_of_passes >= len(alive):
                self.finish_draw("passes")
                return
            self.to = self.next_after(seat)

    def defeat(self, victim: int, victor: int) -> None:
        """§5.5: General -> victor's Banner, Guards/Bishops off, the rest change colour."""
        for p, (owner, kind) in list(self.board.items()):
            if owner != victim:
                continue
            if kind == "K":
                self.board[p] = (victor, "F")
            elif kind in "AE":
                del self.board[p]
            else:
                self.board[p] = (victor, kind)
        self.out[victim] = f"defeated by {SEATS[victor]}"
        self.events.append(("defeat", victim, victor))
        self.quiet = 0
        self.run_of_passes = 0

    def play(self, text: str) -> str:
        """Play the legal move ``text`` (canonical form); returns it with '+' if it checks."""
        seat = self.to
        p, q = point(text[:3]), point(text[4:])
        assert text in self.legal(), text
        captured = q in self.board
        self.board = moved(self.board, p, q)
        mark = "+" if any(checkers(self.board, o) for o in self.alive if o != seat) else ""
        self.events.append(("move", seat, text + mark))
        self.turns += 1
        self.recency[seat] = self.turns
        self.run_of_passes = 0
        self.quiet = 0 if captured else self.quiet + 1
        self.to = self.next_after(seat)
        self.start_of_turn()
        return text + mark

    def resign(self, seat: int) -> None:
        """D15: the army leaves the board; nobody inherits it."""
        self.board = {p: pc for p, pc in self.board.items() if pc[0] != seat}
        self.out[seat] = "resigned"
        self.events.append(("resign", seat))
        self.run_of_passes = 0
        if self.to == seat:
            self.to = self.next_after(seat)
        self.start_of_turn()
