"""Pieces, move templates and the rules engine (spec sections 3.0-3.8).

Every way a piece can move from a square is precomputed once, from the
geometry tables, as a *template*: destination, the squares that must be
empty on the way (a bit mask), whether it may end on an empty square and
whether it may capture.  Walks along strands and rays become one template
per destination whose mask holds the squares walked before it, which is
exactly "the first occupied square stops the walk".  Move generation is then
a scan over templates with one ``&`` per candidate, and check detection uses
the same templates indexed by destination, so attacks can never disagree
with moves.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from games.weavedungeon import geometry as g

WHITE, BLACK = 0, 1
COLOUR_NAMES = ("White", "Black")

STAR, CIRCLE, TRIANGLE, SQUARE, PENTAGON, DIAMOND = 1, 2, 3, 4, 5, 6
PIECE_TYPES = (STAR, CIRCLE, TRIANGLE, SQUARE, PENTAGON, DIAMOND)
LETTERS = {STAR: "K", CIRCLE: "C", TRIANGLE: "T", SQUARE: "S", PENTAGON: "P", DIAMOND: "D"}
TYPE_OF_LETTER = {v: k for k, v in LETTERS.items()}
PIECE_NAMES = {
    STAR: "Star",
    CIRCLE: "Circle",
    TRIANGLE: "Triangle",
    SQUARE: "Square",
    PENTAGON: "Pentagon",
    DIAMOND: "Diamond",
}
#: Types that can be captured into a rescue pool, in pool order (3.6, 3.10).
POOL_TYPES = (CIRCLE, TRIANGLE, SQUARE, PENTAGON)
THRONE = (g.square(4, 0), g.square(4, 8))  # e1, e9
FAR_RANK = (8, 0)
FORWARD = (1, -1)


def code(piece_type: int, colour: int) -> int:
    return piece_type | (colour << 3)


def ptype(c: int) -> int:
    return c & 7


def colour_of(c: int) -> int:
    return c >> 3


class Template(NamedTuple):
    """One way to move from a square, on any board (see module docstring)."""

    dest: int
    req: int  # bit mask of squares that must be empty
    can_move: bool  # may end on an empty square
    can_capture: bool  # may end on an enemy piece
    how: str  # what kind of motion, for messages


def bit(sq: int) -> int:
    return 1 << sq


# -- template builders (one per motion of spec 3.0) --------------------------


def _walk(walk: tuple[int, ...], req: int, how: str) -> list[Template]:
    """Squares in order; each needs the earlier ones empty."""
    out = []
    for q in walk:
        out.append(Template(q, req, True, True, how))
        req |= bit(q)
    return out


def segment_steps(x: int, second: bool) -> list[Template]:
    """SegmentStep(X, second): step down from X's segment (and maybe again)."""
    b1 = g.segment_bridge(x)
    base = 0 if x == b1 else bit(b1)
    out: list[Template] = []
    for s2, walk2 in g.STEP_DOWN[b1]:
        out += _walk(walk2, base, "step")
        if second:
            b2 = g.segment_bridge(s2)
            req2 = base | bit(s2) | bit(b2)
            for _s3, walk3 in g.STEP_DOWN[b2]:
                out += _walk(walk3, req2, "step2")
    return out


def strand_ride(x: int, strand: int) -> list[Template]:
    """StrandRide in both directions, passing under the strand's troughs."""
    line = g.strand_line(strand)
    i = line.index(x)
    out: list[Template] = []
    for d in (-1, 1):
        own = []
        j = i + d
        while 0 <= j < g.SIZE:
            if g.OWNER.get(line[j]) == strand:  # else a trough: pass under it
                own.append(line[j])
            j += d
        out += _walk(tuple(own), 0, "ride")
    return out


def entry_ray(x: int, df: int, dr: int) -> list[Template]:
    """From the Weave into the Dungeon: cells X+d, X+3d, ... (ends there)."""
    out: list[Template] = []
    req = 0
    k = 1
    while (q := g.offset(x, df * k, dr * k)) is not None:
        out.append(Template(q, req, True, True, "entry"))
        req |= bit(q)
        k += 2
    return out


def exit_ray(c: int, df: int, dr: int) -> list[Template]:
    """From a cell along a line: every Weave square and cell, cells block."""
    out: list[Template] = []
    req = 0
    k = 1
    while True:
        w = g.offset(c, df * k, dr * k)
        if w is None:
            break
        out.append(Template(w, req, True, True, "exit"))
        n = g.offset(c, df * (k + 1), dr * (k + 1))
        if n is None:
            break
        out.append(Template(n, req, True, True, "dungeon"))
        req |= bit(n)
        k += 2
    return out


ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _cells_next_to(x: int, dirs: tuple[tuple[int, int], ...], how: str) -> list[Template]:
    return [
        Template(q, 0, True, True, how)
        for df, dr in dirs
        if (q := g.offset(x, df, dr)) is not None and g.is_cell(q)
    ]


def star_templates(x: int) -> list[Template]:
    if g.is_cell(x):
        out = [
            Template(q, 0, True, True, "dungeon")
            for df, dr in ORTHO
            if (q := g.offset(x, 2 * df, 2 * dr)) is not None
        ]
        out += [
            Template(q, 0, True, True, "dungeon-diagonal")
            for df, dr in DIAG
            if (q := g.offset(x, 2 * df, 2 * dr)) is not None
        ]
        return out
    dirs = DIAG if g.KIND[x] == g.BRIDGE else ORTHO
    return segment_steps(x, False) + _cells_next_to(x, dirs, "enter")


def circle_templates(x: int) -> list[Template]:
    return [
        Template(q, 0, True, True, "circle")
        for df, dr in ORTHO
        for k in (1, 2)
        if (q := g.offset(x, df * k, dr * k)) is not None
    ]


def _rides(x: int) -> list[Template]:
    out = strand_ride(x, g.OWNER[x])
    if g.KIND[x] == g.BRIDGE:
        out += strand_ride(x, g.UNDER[x])
    return out


def triangle_templates(x: int) -> list[Template]:
    if g.is_cell(x):
        return [t for df, dr in DIAG for t in exit_ray(x, df, dr)]
    out = segment_steps(x, True)
    if g.KIND[x] == g.BRIDGE:
        out += [t for df, dr in DIAG for t in entry_ray(x, df, dr)]
    return out


def square_templates(x: int) -> list[Template]:
    if g.is_cell(x):
        return [t for df, dr in ORTHO for t in exit_ray(x, df, dr)]
    out = _rides(x)
    if g.KIND[x] == g.SLOPE:
        # Entry rays run across the slope's own strand.
        dirs = ((1, 0), (-1, 0)) if g.OWNER[x] < g.SIZE else ((0, 1), (0, -1))
        out += [t for df, dr in dirs for t in entry_ray(x, df, dr)]
    return out


def pentagon_templates(x: int) -> list[Template]:
    if g.is_cell(x):
        return []
    return _rides(x) + segment_steps(x, True)


def diamond_templates(x: int, colour: int) -> list[Template]:
    fwd = FORWARD[colour]
    out: list[Template] = []
    f1 = g.offset(x, 0, fwd)
    if f1 is not None:
        out.append(Template(f1, 0, True, g.is_step(x, f1), "forward"))
        f2 = g.offset(x, 0, 2 * fwd)
        if f2 is not None:
            if g.is_cell(x):
                out.append(Template(f2, 0, True, False, "cell"))
            elif g.is_weave(f1) and g.SEGMENT[x] is g.SEGMENT[f1] is g.SEGMENT.get(f2):
                out.append(Template(f2, bit(f1), True, False, "slide2"))
    for df in (-1, 1):
        q = g.offset(x, df, 0)
        if q is not None:
            out.append(Template(q, 0, False, g.is_step(x, q), "side"))
    return out


def _build_templates() -> dict[int, tuple[tuple[Template, ...], ...]]:
    table: dict[int, tuple[tuple[Template, ...], ...]] = {}
    makers = {
        STAR: star_templates,
        CIRCLE: circle_templates,
        TRIANGLE: triangle_templates,
        SQUARE: square_templates,
        PENTAGON: pentagon_templates,
    }
    for colour in (WHITE, BLACK):
        for t in PIECE_TYPES:
            per_square = []
            for x in g.SQUARES:
                made = diamond_templates(x, colour) if t == DIAMOND else makers[t](x)
                per_square.append(tuple(made))
            table[code(t, colour)] = tuple(per_square)
    return table


TEMPLATES = _build_templates()


def _build_captures() -> dict[int, tuple[dict[int, tuple[int, ...]], ...]]:
    """Per piece code and square: target -> masks of the ways to capture there.

    A Star's diagonal Dungeon move is left out: it only ever matters between
    two Dungeon Stars, and there the diagonal check rule says it is no check
    (3.7).  Everything else that can capture is an attack.
    """
    table: dict[int, tuple[dict[int, tuple[int, ...]], ...]] = {}
    for pc, per_square in TEMPLATES.items():
        maps = []
        for temps in per_square:
            m: dict[int, list[int]] = {}
            for t in temps:
                if t.can_capture and t.how != "dungeon-diagonal":
                    reqs = m.setdefault(t.dest, [])
                    if t.req not in reqs:
                        reqs.append(t.req)
            maps.append(
                {dest: tuple(sorted(r, key=lambda v: v.bit_count())) for dest, r in m.items()}
            )
        table[pc] = tuple(maps)
    return table


CAPTURES = _build_captures()


def attackers(board: list[int] | tuple[int, ...], occ: int, target: int, by: int) -> list[int]:
    """Squares of the ``by`` pieces that could capture on ``target``."""
    out = []
    for x, pc in enumerate(board):
        if pc and pc >> 3 == by:
            reqs = CAPTURES[pc][x].get(target)
            if reqs and any(not occ & r for r in reqs):
                out.append(x)
    return out


def attacked(board: list[int] | tuple[int, ...], occ: int, target: int, by: int) -> bool:
    """Whether a piece of colour ``by`` could capture on ``target``."""
    return bool(attackers(board, occ, target, by))


# -- positions ---------------------------------------------------------------

_CHAR = ["."] * 16
for _t, _l in LETTERS.items():
    _CHAR[code(_t, WHITE)] = _l
    _CHAR[code(_t, BLACK)] = _l.lower()
_EMPTY_RUN = re.compile(r"\.+")

Move = tuple[int, int, int]  # (from, to, rescued piece type or 0)


class Position:
    """An immutable game position plus the repetition history leading to it.

    ``pools[c]`` counts colour c's own captured pieces (C, T, S, P) it could
    rescue.  ``moved[c]`` says whether c's Star ever left its throne.
    ``history`` maps repetition keys to how often they occurred, this
    position included.  Legal moves are computed once, on demand.
    """

    __slots__ = (
        "board", "side", "pools", "fullmove", "moved", "history",
        "occ", "stars", "pieces", "last_move", "_legal", "_key",
    )  # fmt: skip

    def __init__(
        self,
        board: tuple[int, ...],
        side: int,
        pools: tuple[tuple[int, ...], tuple[int, ...]],
        fullmove: int,
        moved: tuple[bool, bool],
        history: dict[str, int] | None = None,
    ) -> None:
        self.board = board
        self.side = side
        self.pools = pools
        self.fullmove = fullmove
        self.moved = moved
        occ = 0
        stars = [-1, -1]
        pieces: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
        for sq, pc in enumerate(board):
            if pc:
                occ |= 1 << sq
                pieces[pc >> 3].append((sq, pc))
                if pc & 7 == STAR:
                    stars[pc >> 3] = sq
        self.occ = occ
        self.pieces = pieces
        self.stars = (stars[0], stars[1])
        self._legal: list[Move] | None = None
        self._key: str | None = None
        #: The move that led here, as written in the record (for the board).
        self.last_move: str | None = None
        if history is None:
            history = {self.key(): 1}
        self.history = history

    # -- keys ---------------------------------------------------------------
    def placement(self) -> str:
        board = self.board
        rows = []
        for rank in range(g.SIZE - 1, -1, -1):
            row = "".join(_CHAR[pc] for pc in board[rank * 9 : rank * 9 + 9])
            rows.append(_EMPTY_RUN.sub(lambda m: str(len(m.group())), row))
        return "/".join(rows)

    def pool_text(self) -> str:
        text = ""
        for colour in (WHITE, BLACK):
            for t, n in zip(POOL_TYPES, self.pools[colour], strict=True):
                letter = LETTERS[t]
                text += (letter if colour == WHITE else letter.lower()) * n
        return text or "-"

    def key(self) -> str:
        """What counts as "the same position" for repetition (3.8)."""
        if self._key is None:
            self._key = f"{self.placement()} {'wb'[self.side]} {self.pool_text()}"
        return self._key

    def fen(self) -> str:
        return f"{self.key()} {self.fullmove}"

    # -- rules --------------------------------------------------------------
    def in_check(self, colour: int | None = None) -> bool:
        colour = self.side if colour is None else colour
        star = self.stars[colour]
        return star >= 0 and attacked(self.board, self.occ, star, 1 - colour)

    def pseudo_moves(self) -> list[tuple[int, int]]:
        """(from, to) for every move the pieces allow, ignoring check."""
        board, occ, me = self.board, self.occ, self.side
        out: list[tuple[int, int]] = []
        for x, pc in enumerate(board):
            if not pc or pc >> 3 != me:
                continue
            seen = set()
            for dest, req, can_move, can_capture, _how in TEMPLATES[pc][x]:
                if dest in seen or occ & req:
                    continue
                target = board[dest]
                if target:
                    if target >> 3 == me or not can_capture or target & 7 == STAR:
                        continue
                elif not can_move:
                    continue
                seen.add(dest)
                out.append((x, dest))
        return out

    def leaves_star_safe(
        self, x: int, dest: int, threats: list[tuple[int, tuple[int, ...]]] | None = None
    ) -> bool:
        """Whether moving x -> dest keeps the mover's Star out of check.

        ``threats`` (enemy pieces that could reach the Star's square on some
        board) may be passed in when the Star itself does not move.
        """
        me = self.side
        occ = (self.occ & ~(1 << x)) | (1 << dest)
        if threats is None:
            star = dest if self.board[x] & 7 == STAR else self.stars[me]
            threats = self.threats(star)
        for ex, reqs in threats:
            if ex == dest:
                continue  # captured by this move
            for r in reqs:
                if not occ & r:
                    return False
        return True

    def threats(self, target: int) -> list[tuple[int, tuple[int, ...]]]:
        """Enemy pieces with some capture path onto ``target``, and its masks."""
        if target < 0:
            return []
        out = []
        for ex, epc in self.pieces[1 - self.side]:
            reqs = CAPTURES[epc][ex].get(target)
            if reqs:
                out.append((ex, reqs))
        return out

    def legal_moves(self) -> list[Move]:
        if self._legal is None:
            moves: list[Move] = []
            me = self.side
            far = FAR_RANK[me]
            star_threats = self.threats(self.stars[me])
            for x, dest in self.pseudo_moves():
                if self.board[x] & 7 == STAR:
                    if not self.leaves_star_safe(x, dest):
                        continue
                elif not self.leaves_star_safe(x, dest, star_threats):
                    continue
                moves.append((x, dest, 0))
                # Rescue only on the arriving move: not for a Diamond that
                # already stood on the far row and captures sideways (3.6).
                if self.board[x] & 7 == DIAMOND and dest // g.SIZE == far != x // g.SIZE:
                    for t, n in zip(POOL_TYPES, self.pools[me], strict=True):
                        if n:
                            moves.append((x, dest, t))
            self._legal = moves
        return self._legal

    def play(self, move: Move) -> Position:
        """The position after ``move`` (assumed legal); self is untouched."""
        x, dest, rescue = move
        me = self.side
        board = list(self.board)
        pc = board[x]
        captured = board[dest]
        board[x] = 0
        board[dest] = code(rescue, me) if rescue else pc
        pools = [list(self.pools[0]), list(self.pools[1])]
        if captured and captured & 7 in POOL_TYPES:
            pools[1 - me][POOL_TYPES.index(captured & 7)] += 1
        if rescue:
            pools[me][POOL_TYPES.index(rescue)] -= 1
        moved = list(self.moved)
        if pc & 7 == STAR:
            moved[me] = True
        new = Position(
            tuple(board),
            1 - me,
            (tuple(pools[0]), tuple(pools[1])),
            self.fullmove + (1 if me == BLACK else 0),
            (moved[0], moved[1]),
            history={},
        )
        history = dict(self.history)
        key = new.key()
        history[key] = history.get(key, 0) + 1
        new.history = history
        return new

    def repetitions(self) -> int:
        return self.history.get(self.key(), 0)


def initial_board() -> tuple[int, ...]:
    board = [0] * 81
    back = (PENTAGON, SQUARE, TRIANGLE, CIRCLE, STAR, CIRCLE, TRIANGLE, SQUARE, PENTAGON)
    for f, t in enumerate(back):
        board[g.square(f, 0)] = code(t, WHITE)
        board[g.square(f, 1)] = code(DIAMOND, WHITE)
        board[g.square(f, 7)] = code(DIAMOND, BLACK)
        board[g.square(f, 8)] = code(t, BLACK)
    return tuple(board)


def initial_position() -> Position:
    return Position(initial_board(), WHITE, ((0, 0, 0, 0), (0, 0, 0, 0)), 1, (False, False))
