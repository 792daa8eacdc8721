"""The computer's levels: how much it may think per move.

A level is a budget of search iterations *and* of CPU seconds, whichever
runs out first: iterations make a fixed-seed game repeatable (tests), CPU
seconds keep a slow game's move within bounds on a loaded machine.  Level 3's
3 s of CPU is the ceiling the issue sets for one move on the 2-core host.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    number: int
    iterations: int
    cpu_seconds: float
    #: Whether the computer accepts a take-back ("undo" by vote) at this level.
    accepts_undo: bool
    #: In a game of three or more: search as if the other seats played together against
    #: this one (a "paranoid" search), not each for itself (max^n).  See games/engine/search.py.
    paranoid: bool = False


LEVELS: dict[int, Level] = {
    1: Level(1, iterations=150, cpu_seconds=0.25, accepts_undo=True),
    2: Level(2, iterations=2_000, cpu_seconds=1.0, accepts_undo=False),
    # Level 3 is bounded by its CPU seconds: a search as fast as TriMac's (11,500 nodes/s) reached
    # 20,000 iterations in 1.8 s.  Its iteration cap only stops a runaway.
    3: Level(3, iterations=100_000, cpu_seconds=2.5, accepts_undo=False, paranoid=True),
}


def level(number: int) -> Level:
    """The level by its number (1-3); ValueError names the choice."""
    try:
        return LEVELS[number]
    except KeyError:
        raise ValueError(f"level {number}: choose 1, 2 or 3") from None
