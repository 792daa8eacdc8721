"""Engine hooks for Interweave: material (a King weighs most: losing one loses), capture-first playouts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine.common import capture_first, captures_first, material_words, shares

VALUES = {"k": 6, "s": 4, "l": 4, "r": 3, "p": 1}
PLAYOUT_DEPTH = 8
playout_move = capture_first
order = captures_first


def material(state: Any) -> list[float]:
    out = [0.0, 0.0]
    for c in state.pos.board:
        value = VALUES.get(c.lower())
        if value:
            out[0 if c.isupper() else 1] += value
    return out


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares(material(state), scale=3.0)


def explain(game: Any, state: Any, seat: int) -> str:
    m = material(state)
    return material_words(m[seat], [m[1 - seat]])
