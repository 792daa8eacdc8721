"""Engine hooks for TriMac 3 Friends: material per army, capture-first playouts.

Three seats: ``evaluate`` gives each army its own value (a defeated or
resigned army 0), which the max^n-style search maximises seat by seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine.common import capture_first, captures_first, material_words, shares
from games.trimac.state import ALIVE

#: General, Guard, Bishop, Knight, Rook, Cannon, Pawn, Banner (by kind 0-7).
VALUES = (0, 2, 2, 4, 9, 4.5, 1, 3)
PLAYOUT_DEPTH = 6
playout_move = capture_first
order = captures_first


def material(state: Any) -> list[float]:
    out = [0.0, 0.0, 0.0]
    for c in state.board:
        if c >= 8:
            out[(c >> 3) - 1] += VALUES[c & 7]
    return out


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares(material(state), scale=4.0, alive=[s == ALIVE for s in state.status])


def explain(game: Any, state: Any, seat: int) -> str:
    m = material(state)
    return material_words(m[seat], [m[i] for i in range(3) if i != seat])


def in_play(game: Any, state: Any) -> list[int]:
    """The armies not yet defeated or resigned."""
    return [seat for seat, status in enumerate(state.status) if status == ALIVE]
