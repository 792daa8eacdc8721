"""Engine hooks for Tri-Dimensional Chess: material, capture-first playouts.

Random games of 3D chess run ~600 plies and mostly end in the 100-ply draw,
so a playout is cut after PLAYOUT_DEPTH plies and scored by material.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine.common import capture_first, captures_first, material_words, shares
from games.tridchess.rules import BLACK

#: Pawn, Knight, Bishop, Rook, Queen, King (by the rules' piece codes 1-6).
VALUES = (0, 1, 3, 3, 5, 9, 0)
PLAYOUT_DEPTH = 6
playout_move = capture_first
order = captures_first


def material(state: Any) -> list[float]:
    out = [0.0, 0.0]
    for piece in state.board.values():
        out[1 if piece & BLACK else 0] += VALUES[piece & 7]
    return out


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares(material(state), scale=2.5)


def explain(game: Any, state: Any, seat: int) -> str:
    m = material(state)
    return material_words(m[seat], [m[1 - seat]])
