"""Engine hooks for TriMac 3 Friends: material plus an attack on each enemy General.

Three seats: ``evaluate`` gives each army its own value (a defeated or
resigned army 0), which the max^n-style search maximises seat by seat.

Why more than material: a win needs *both* other armies checkmated, and a
material lead alone does not mate -- with material only, the computer won
4 of 10 games against two random movers within 400 plies, the rest still
running.  So the evaluation also scores, per army, how hard it presses
each enemy General:

* its attacking pieces' closeness to that General (Rooks most, Pawns
  least), which walks the army toward the enemy fortresses;
* the General's freedom: each of its fortress steps that is blocked or
  attacked counts against its owner, and check counts more;

and a checkmate shows at once as the victor's material jump (the defeated
army's Rooks, Cannons, Knights, Banners and Pawns change colour, §5.5).
The search scores a position directly with it (``PLAYOUT_DEPTH`` 0): random
playout plies only added noise to these terms.  Moves are tried checks
first, then captures.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.engine.common import material_words
from games.trimac.geometry import (
    BANNER_FROM,
    DIAG_NEXT,
    FORTRESS,
    GENERAL_STEPS,
    KNIGHT_FROM,
    LINES,
    NPOINTS,
    ORTHO_NEXT,
    PAWN_FROM,
    SEAT_NAMES,
)
from games.trimac.moves import GENERAL_CODE, checkers, general_point, has_legal_move
from games.trimac.notation import parse_move
from games.trimac.state import ALIVE

#: General, Guard, Bishop, Knight, Rook, Cannon, Pawn, Banner (by kind 0-7).
VALUES = (0, 2, 2, 4, 9, 4.5, 1, 3)
#: How much each kind's closeness to an enemy General counts (Guards and
#: Bishops never leave home, the General never its fortress).
REACH = (0.0, 0.0, 0.0, 0.8, 1.0, 0.8, 0.3, 0.8)
#: Steps (orthogonal or diagonal) within which a piece counts as close.
RADIUS = 8
#: Weights of the attack terms, in units of material (a Pawn is 1).
ATTACK = 1.2
BLOCKED = 1.0
CHECK = 3.0
#: A General in check with no legal move, its turn still to come.
MATED = 25.0
#: A lead (in score points) that makes a ~73% favourite.
SCALE = 12.0
PLAYOUT_DEPTH = 0
#: UCT's exploration constant here (games/engine/hooks.py): a Pawn moves a value by ~0.02
#: (SCALE), and the default 0.7 let a node 3 plies down choose among moves 12 points apart
#: as if they were alike, so the search saw no reply to its own move.
EXPLORATION = 0.3


def _closeness() -> dict[int, tuple[float, ...]]:
    """Per fortress point g: (RADIUS - steps from g) / RADIUS for every point, at least 0."""
    out: dict[int, tuple[float, ...]] = {}
    for fortress in FORTRESS:
        for g in fortress:
            dist = [-1] * NPOINTS
            dist[g] = 0
            todo = deque([g])
            while todo:
                p = todo.popleft()
                near = [q for d in range(6) for q, _ in ORTHO_NEXT[p][d]] + [q for q in DIAG_NEXT[p] if q >= 0]
                for q in near:
                    if dist[q] < 0:
                        dist[q] = dist[p] + 1
                        todo.append(q)
            out[g] = tuple(max(0.0, (RADIUS - d) / RADIUS) if d >= 0 else 0.0 for d in dist)
    return out


CLOSE = _closeness()


def material(state: Any) -> list[float]:
    out = [0.0, 0.0, 0.0]
    for c in state.board:
        if c >= 8:
            out[(c >> 3) - 1] += VALUES[c & 7]
    return out


def cornered(board: bytes, seat: int, g: int) -> tuple[int, bool]:
    """How many of the General's fortress steps are closed (own piece or attacked), and whether it is in check."""
    work = bytearray(board)
    work[g] = 0
    mine = seat + 1
    closed = 0
    for q in GENERAL_STEPS[g]:
        t = work[q]
        if t and t >> 3 == mine:
            closed += 1
            continue
        work[q] = GENERAL_CODE[seat]
        if checkers(work, seat, q, first=True):
            closed += 1
        work[q] = t
    return closed, bool(checkers(board, seat, g, first=True))


@lru_cache(maxsize=4096)
def _worth(gens: tuple[int, int, int]) -> tuple[tuple[float, ...] | None, ...]:
    """Per piece code and point: what the piece standing there adds to its army's score.

    Its value plus ATTACK * its reach * its closeness to each enemy General
    in play (``gens``: each army's General's point, -1 when out of play),
    summed in the order ``scores`` once summed them per piece.  Generals
    seldom move, so a search asks for a handful of these tables, and an
    evaluation is one lookup per piece (it was 40% of TriMac's search).
    """
    near = [CLOSE[g] if g >= 0 else None for g in gens]
    out: list[tuple[float, ...] | None] = [None] * 32
    for c in range(8, 32):
        o, kind = (c >> 3) - 1, c & 7
        row = []
        for p in range(NPOINTS):
            value = VALUES[kind]
            if REACH[kind]:
                for e in range(3):
                    table = near[e]
                    if e != o and table is not None:
                        value += ATTACK * REACH[kind] * table[p]
            row.append(value)
        out[c] = tuple(row)
    return tuple(out)


def scores(state: Any) -> list[float]:
    """Per army: material + ATTACK * closeness to the enemy Generals - the cost of its own General's plight."""
    board = state.board
    alive = [s == ALIVE for s in state.status]
    gens = [general_point(board, s) if alive[s] else -1 for s in range(3)]
    worth = _worth(tuple(gens))
    out = [0.0, 0.0, 0.0]
    for p, c in enumerate(board):
        if c >= 8:
            out[(c >> 3) - 1] += worth[c][p]  # type: ignore[index]
    for s in range(3):
        if gens[s] >= 0:
            closed, check = cornered(board, s, gens[s])
            out[s] -= BLOCKED * closed + (CHECK if check else 0.0)
            if check and s != state.to and not has_legal_move(board, s):
                # Mated unless a player moving before it lifts the net: its
                # defeat is decided only at its turn (spec 5.3).
                out[s] -= MATED
    return out


def evaluate(game: Any, state: Any) -> Sequence[float]:
    """Per army: the logistic of its score's lead over the mean of the other armies still in play.

    Not over the strongest other army: every army's evaluation is this one,
    so with the strongest both of level 3's level-1 opponents played against
    whoever led, i.e. against it (bench/README.md, issue 27, fourth session).

    Not ``engine.common.shares``: that softmax, stretched for three seats,
    reads 1.0 for every move once one army leads by some 15 points, and the
    search then played at random in exactly the positions it had to win.
    """
    score = scores(state)
    alive = [s for s in range(3) if state.status[s] == ALIVE]
    out = [0.0, 0.0, 0.0]
    for s in alive:
        others = [score[o] for o in alive if o != s]
        lead = score[s] - sum(others) / len(others) if others else SCALE * 10
        out[s] = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, lead / SCALE))))
    return out


def _zone(g: int) -> frozenset[int]:
    """Points from which some piece could give check to a General on g (its lines, Knight, Banner and Pawn sources)."""
    pts = set(LINES[g])
    pts.update(src for src, _ in KNIGHT_FROM[g])
    pts.update(src for src, _, _ in BANNER_FROM[g])
    for owner in range(3):
        pts.update(PAWN_FROM[owner][g])
    return frozenset(pts)


ZONE = {g: _zone(g) for fortress in FORTRESS for g in fortress}
#: Move text -> (from, to) points, filled as moves are seen (a few thousand at most).
_POINTS: dict[str, tuple[int, int]] = {}


def _points(move: str) -> tuple[int, int]:
    pq = _POINTS.get(move)
    if pq is None:
        p, q, _ = parse_move(move)
        pq = _POINTS[move] = (p, q)
    return pq


def order(game: Any, state: Any, moves: list[str]) -> list[str]:
    """Checks first, then captures, then the rest (a stable sort).

    A check is told without playing the move: the moved piece, put on its
    destination, attacks an enemy General (discovered checks are not seen;
    they are rare and the search still tries those moves).  Only a move
    landing where a check is possible at all (``ZONE``) is looked at.
    """
    board = state.board
    me = state.to
    gens = [(e, g) for e in range(3) if e != me and state.status[e] == ALIVE
            and (g := general_point(board, e)) >= 0]
    work = bytearray(board)
    checks, captures, quiet = [], [], []
    for move in moves:
        p, q = _points(move)
        t = work[q]
        if REACH[work[p] & 7] and any(q in ZONE[g] for _, g in gens):
            c = work[p]
            work[q], work[p] = c, 0
            check = any(me in checkers(work, e, g) for e, g in gens)
            work[p], work[q] = c, t
            if check:
                checks.append(move)
                continue
        (captures if t else quiet).append(move)
    return checks + captures + quiet


def explain(game: Any, state: Any, seat: int) -> str:
    m = material(state)
    words = material_words(m[seat], [m[i] for i in range(3) if i != seat])
    board = state.board
    checked = [e for e in range(3) if e != seat and state.status[e] == ALIVE
               and seat in checkers(board, e, general_point(board, e))]
    if checked:
        words += "; " + " and ".join(SEAT_NAMES[e] for e in checked) + " in check"
    return words


def in_play(game: Any, state: Any) -> list[int]:
    """The armies not yet defeated or resigned."""
    return [seat for seat, status in enumerate(state.status) if status == ALIVE]
