"""Game state and the turn driver (spec §5).

The state is immutable: ``apply_move`` and ``apply_resign`` build a new one.
After every turn the start-of-turn procedure (§5.3) runs for the next
player: checkmate is decided there (with the victor rule D10), a player with
no legal move who is not in check passes automatically (D13) and the pass is
written into the move list, and the draw rules of §5.6 are applied.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from games.contract import IllegalMove
from games.trimac.geometry import NAMES, RAYS, SEAT_NAMES
from games.trimac.moves import (
    KIND_NAMES,
    A,
    C,
    E,
    F,
    H,
    K,
    P,
    R,
    checkers,
    code,
    facing,
    general_point,
    has_legal_move,
    legal_pairs,
    move_text,
    owner_of,
    targets,
)
from games.trimac.notation import parse_move

ALIVE = -1
RESIGNED = -2
#: Turns (passes included) without capture or defeat before the game is drawn.
QUIET_LIMIT = 300


@dataclass(frozen=True)
class State:
    """One position plus everything the rules need about the past.

    ``status[seat]`` is ALIVE, RESIGNED, or the seat of the victor who
    defeated it.  ``last_turn[seat]`` orders the players by their most
    recent turn (D10's tie-break).  ``seen`` holds digests of the positions
    since the last capture or defeat, for threefold repetition.
    ``history`` is the move list: ``(seat, text)`` with moves, automatic
    ``pass`` entries, ``resign`` and ``checkmated`` events.
    """

    board: bytes
    to: int
    status: tuple[int, int, int]
    last_turn: tuple[int, int, int]
    turns: int = 0
    quiet: int = 0
    passes: int = 0
    seen: tuple[str, ...] = ()
    history: tuple[tuple[int, str], ...] = ()
    result: tuple[tuple[int, ...], tuple[int, ...], str] | None = None
    game_no: int = 1
    _legal: list[str] | None = field(default=None, compare=False, repr=False)
    _legal_set: frozenset[str] | None = field(default=None, compare=False, repr=False)

    @property
    def alive(self) -> list[int]:
        return [s for s in range(3) if self.status[s] == ALIVE]

    def legal(self) -> list[str]:
        """Legal moves of the player to move (cached: states are immutable)."""
        if self.result is not None:
            return []
        if self._legal is None:
            moves = [move_text(self.board, p, q) for p, q in legal_pairs(self.board, self.to)]
            object.__setattr__(self, "_legal", moves)
            object.__setattr__(self, "_legal_set", frozenset(moves))
        return list(self._legal)

    def known_legal(self, move: str) -> bool:
        """True when the cached legal list (if computed) holds ``move``."""
        return self._legal_set is not None and move in self._legal_set


def next_alive(status: tuple[int, ...] | list[int], seat: int) -> int:
    for i in range(1, 4):
        s = (seat + i) % 3
        if status[s] == ALIVE:
            return s
    return seat


def _digest(board: bytes | bytearray, to: int, status: list[int]) -> str:
    key = bytes(board) + bytes([to]) + bytes(s + 3 for s in status)
    return hashlib.blake2b(key, digest_size=8).hexdigest()


def _defeat(board: bytearray, victim: int, victor: int) -> None:
    """§5.5: General -> victor's Banner, Guards and Bishops removed, rest converted."""
    me = victim + 1
    for p, c in enumerate(board):
        if c and c >> 3 == me:
            kind = c & 7
            if kind == K:
                board[p] = code(victor, F)
            elif kind in (A, E):
                board[p] = 0
            else:
                board[p] = code(victor, kind)


class _Draft:
    """Mutable working copy used while one turn is resolved."""

    def __init__(self, s: State) -> None:
        self.board = bytearray(s.board)
        self.to = s.to
        self.status = list(s.status)
        self.last_turn = list(s.last_turn)
        self.turns = s.turns
        self.quiet = s.quiet
        self.passes = s.passes
        self.seen = list(s.seen)
        self.history = list(s.history)
        self.result: tuple[tuple[int, ...], tuple[int, ...], str] | None = s.result
        self.game_no = s.game_no

    def freeze(self) -> State:
        return State(
            board=bytes(self.board),
            to=self.to,
            status=(self.status[0], self.status[1], self.status[2]),
            last_turn=(self.last_turn[0], self.last_turn[1], self.last_turn[2]),
            turns=self.turns,
            quiet=self.quiet,
            passes=self.passes,
            seen=tuple(self.seen),
            history=tuple(self.history),
            result=self.result,
            game_no=self.game_no,
        )

    def alive(self) -> list[int]:
        return [s for s in range(3) if self.status[s] == ALIVE]

    def draw(self, reason: str) -> None:
        # DECISION (the spec is silent; issue 18): a draw is shared by the
        # survivors only. An army already defeated or resigned lost, and is
        # listed among the losers -- as the server's draw by agreement does --
        # so a repetition after a defeat does not give it half a point.
        self.result = ((), tuple(s for s in range(3) if self.status[s] != ALIVE), reason)

    def start_of_turn(self) -> None:
        """§5.3: mate, automatic pass or draw until someone must move."""
        while True:
            alive = self.alive()
            if len(alive) == 1:
                winner = alive[0]
                self.to = winner
                self.result = (
                    (winner,),
                    tuple(s for s in range(3) if s != winner),
                    _win_reason(self, winner),
                )
                return
            seat = self.to
            board = bytes(self.board)
            # §5.6, read literally: the game is drawn once 300 quiet turns are
            # played, before the next turn resolves (even into a mate or a
            # pass); and every position with a player to move counts for the
            # repetition, also one that player must pass in.
            if self.quiet >= QUIET_LIMIT:
                self.draw(f"draw: {QUIET_LIMIT} turns without a capture or a defeat")
                return
            key = _digest(board, seat, self.status)
            self.seen.append(key)
            if self.seen.count(key) >= 3:
                self.draw("draw by threefold repetition")
                return
            if has_legal_move(board, seat):
                return
            who = checkers(board, seat, general_point(board, seat))
            if who:
                victor = max(who, key=lambda o: self.last_turn[o])
                _defeat(self.board, seat, victor)
                self.status[seat] = victor
                self.history.append((seat, f"checkmated by {SEAT_NAMES[victor]}"))
                self.quiet = 0
                self.passes = 0
                self.seen = []
                self.to = next_alive(self.status, seat)
                continue
            self.history.append((seat, "pass"))
            self.turns += 1
            self.last_turn[seat] = self.turns
            self.passes += 1
            self.quiet += 1
            if self.passes >= len(alive):
                self.draw("draw: every surviving army passed in succession")
                return
            self.to = next_alive(self.status, seat)


def _win_reason(d: _Draft, winner: int) -> str:
    parts = []
    for s in range(3):
        if s == winner:
            continue
        st = d.status[s]
        if st == RESIGNED:
            parts.append(f"{SEAT_NAMES[s]} resigned")
        else:
            parts.append(f"{SEAT_NAMES[s]} was defeated by {SEAT_NAMES[st]}")
    return f"{SEAT_NAMES[winner]} wins: " + ", ".join(parts)


def initial(board: bytes, to: int, alive: list[int], last: int, game_no: int = 1) -> State:
    """A fresh state; the start-of-turn procedure runs at once."""
    status = tuple(ALIVE if s in alive else RESIGNED for s in range(3))
    recency = [-10, -10, -10]
    s, rank = last, -1
    for _ in range(3):
        if status[s] == ALIVE and recency[s] == -10:
            recency[s] = rank
            rank -= 1
        s = (s + 2) % 3
    d = _Draft(State(board=board, to=to, status=status, last_turn=tuple(recency), game_no=game_no))  # type: ignore[arg-type]
    d.start_of_turn()
    return d.freeze()


def _why_not(board: bytes, p: int, q: int) -> str:
    """A player-facing reason why the piece on p cannot go to q."""
    c = board[p]
    kind = c & 7
    name = KIND_NAMES[kind]
    empty = bytearray(len(board))
    empty[p] = c
    if kind == C and board[q] and any(q in ray for _, ray in RAYS[p]):
        return f"a Cannon captures only by jumping exactly one piece (on the line from {NAMES[p]} to {NAMES[q]})"
    if q in targets(empty, p):
        if kind in (K, A):
            return f"a {name} cannot move from {NAMES[p]} to {NAMES[q]}"
        return (
            f"the {name} on {NAMES[p]} is blocked: it cannot jump over pieces to reach {NAMES[q]}"
        )
    rules = {
        K: "a General moves one orthogonal step and stays in its fortress",
        A: "a Guard moves one diagonal step and stays in its fortress",
        E: "a Bishop moves two diagonal steps and stays in its own lattice",
        H: "a Knight moves one orthogonal step then one diagonal step outward",
        R: "a Rook moves any number of points along a line",
        C: "a Cannon moves like a Rook and captures by jumping one piece",
        P: "a Pawn steps forward (N, NE, NW) at home and S, SE, SW, E or W across the river",
        F: "a Banner moves two orthogonal steps then one diagonal step outward",
    }
    return f"a {name} cannot move from {NAMES[p]} to {NAMES[q]}: {rules[kind]}"


def apply_move(s: State, seat: int, text: str) -> State:
    """Play ``text`` for ``seat``; IllegalMove says why it is refused."""
    if s.result is not None:
        raise IllegalMove(f"the game is over ({s.result[2]})")
    if seat not in (0, 1, 2):
        raise IllegalMove(f"there is no seat {seat}: TriMac has seats 0-2 (Red, Blue, Green)")
    word = text.strip().lower()
    if word == "resign":
        return apply_resign(s, seat)
    if s.status[seat] != ALIVE:
        raise IllegalMove(f"{SEAT_NAMES[seat]} is out of the game")
    if seat != s.to:
        raise IllegalMove(f"it is not your turn: {SEAT_NAMES[s.to]} is to move")
    if word == "pass":
        raise IllegalMove(
            "you cannot pass: you have a legal move (a pass is only made, automatically, when there is none)"
        )
    p, q, written_x = parse_move(text)
    board = s.board
    c = board[p]
    if not c:
        raise IllegalMove(f"there is no piece on {NAMES[p]}")
    if owner_of(c) != seat:
        raise IllegalMove(
            f"the {KIND_NAMES[c & 7]} on {NAMES[p]} is {SEAT_NAMES[owner_of(c)]}'s, not yours"
        )
    t = board[q]
    if t and owner_of(t) == seat:
        raise IllegalMove(f"{NAMES[q]} holds your own {KIND_NAMES[t & 7]}")
    if t and t & 7 == K:
        raise IllegalMove(
            f"{NAMES[q]} holds the {SEAT_NAMES[owner_of(t)]} General: Generals are never captured, they are checkmated"
        )
    if written_x and not t:
        raise IllegalMove(f"there is nothing to capture on {NAMES[q]}: write {NAMES[p]}-{NAMES[q]}")
    known = s.known_legal(move_text(board, p, q))
    if not known and q not in targets(board, p):
        raise IllegalMove(_why_not(board, p, q))
    d = _Draft(s)
    d.board[q] = c
    d.board[p] = 0
    g = q if c & 7 == K else general_point(board, seat)
    if not known and checkers(d.board, seat, g, first=True):
        who = checkers(d.board, seat, g)
        face = facing(d.board, seat, g)
        if face is not None:
            raise IllegalMove(
                f"{move_text(board, p, q)} would leave your General facing the {SEAT_NAMES[face]} General "
                "on an open north-south line"
            )
        names = " and ".join(SEAT_NAMES[o] for o in sorted(who))
        raise IllegalMove(
            f"{move_text(board, p, q)} would leave your General in check (from {names})"
        )
    mark = ""
    for o in d.alive():
        if o != seat and checkers(d.board, o, general_point(d.board, o), first=True):
            mark = "+"
            break
    d.history.append((seat, move_text(board, p, q) + mark))
    d.turns += 1
    d.last_turn[seat] = d.turns
    d.passes = 0
    if t:
        d.quiet = 0
        d.seen = []
    else:
        d.quiet += 1
    d.to = next_alive(d.status, seat)
    d.start_of_turn()
    return d.freeze()


def apply_resign(s: State, seat: int) -> State:
    """D15: the resigning army is removed entirely, without inheritance."""
    if s.result is not None:
        raise IllegalMove(f"the game is over ({s.result[2]})")
    if seat not in (0, 1, 2):
        raise IllegalMove(f"there is no seat {seat}: TriMac has seats 0-2 (Red, Blue, Green)")
    if s.status[seat] != ALIVE:
        raise IllegalMove(f"{SEAT_NAMES[seat]} is already out of the game")
    d = _Draft(s)
    me = seat + 1
    for p, c in enumerate(d.board):
        if c and c >> 3 == me:
            d.board[p] = 0
    d.status[seat] = RESIGNED
    d.history.append((seat, "resign"))
    d.quiet = 0
    d.passes = 0
    d.seen = []
    if d.to == seat:
        d.to = next_alive(d.status, seat)
    d.start_of_turn()
    return d.freeze()
