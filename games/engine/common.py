"""Helpers the games' own engine hooks share (material values, capture-first playouts).

They live with the engine, not in each game, so four chess-like games score
material and prefer captures the same way.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any


def shares(scores: Sequence[float], scale: float, alive: Sequence[bool] | None = None) -> list[float]:
    """Material per seat -> a value per seat in [0, 1] (a softmax; two seats: the logistic of the difference).

    ``scale`` is how much material makes a ~73% favourite.  A seat out of
    the game (``alive`` False) gets 0.
    """
    top = max(scores)
    weights = [math.exp((s - top) / scale) if alive is None or alive[i] else 0.0 for i, s in enumerate(scores)]
    total = sum(weights) or 1.0
    values = [w / total for w in weights]
    if len(values) == 2:
        return values
    # With three seats a share of 1/3 is an even game: stretch so that the
    # leader's value reads like a two-player one (and stays within [0, 1]).
    return [min(1.0, v * len(values) / 2) for v in values]


def capture_first(game: Any, state: Any, moves: list[str], rng: random.Random,
                  marker: str = "x", chance: float = 0.75) -> str:
    """A playout move: a capture (a move written with ``marker``) with ``chance`` when there is one.

    Pure random playouts in these chess-like games wander for hundreds of
    plies; taking what is offered makes a short playout say more about
    who is ahead.
    """
    if rng.random() < chance:
        captures = [m for m in moves if marker in m]
        if captures:
            return rng.choice(captures)
    return rng.choice(moves)


def material_words(mine: float, others: Sequence[float]) -> str:
    """``material 39 against 35`` (or ``against 30 and 28``), for hints and reviews."""
    def fmt(x: float) -> str:
        return f"{x:g}"
    return f"material {fmt(mine)} against {' and '.join(fmt(o) for o in others)}"


def captures_first(game: Any, state: Any, moves: list[str], marker: str = "x") -> list[str]:
    """Move ordering: captures before quiet moves (a stable sort, so ties keep their order).

    With 20-60 moves a position and a level-1 budget of ~150 searched
    lines, the moves expanded first are most of the moves searched at all.
    """
    return sorted(moves, key=lambda m: marker not in m)
