"""Engine hooks for Weave & Dungeon: material, capture-first playouts.

Random games run ~400 plies; a playout is cut short and scored by the
pieces on the board (a captured piece waiting in its owner's pool for a
rescue counts for a little).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine.common import capture_first, captures_first, material_words, shares

#: Star, Circle, Triangle, Square, Pentagon, Diamond (by piece code 1-6).
VALUES = (0, 0, 3, 3, 5, 8, 1)
PLAYOUT_DEPTH = 6
playout_move = capture_first
order = captures_first


def material(state: Any) -> list[float]:
    out = [0.0, 0.0]
    for colour in (0, 1):
        out[colour] = float(sum(VALUES[pc & 7] for _sq, pc in state.pieces[colour]))
    return out


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares(material(state), scale=2.5)


def explain(game: Any, state: Any, seat: int) -> str:
    m = material(state)
    return material_words(m[seat], [m[1 - seat]])
