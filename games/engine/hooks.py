"""Optional per-game hooks, found by convention beside the game's plugin.

A plugin package may hold a module ``engine_hooks`` (as it may hold
``draw``) with any of:

``evaluate(game, state) -> Sequence[float]``
    A value in [0, 1] per seat (1: that seat is winning) for a position that
    is not over.  The search stops a playout after ``PLAYOUT_DEPTH`` plies
    and scores the position with it; a game without it plays every playout
    to the end (a game whose random games run for hundreds of plies will
    want one).
``PLAYOUT_DEPTH: int``
    Plies of playout before ``evaluate`` scores the position (0: score at
    once).  Read only with ``evaluate``.
``playout_move(game, state, moves, rng) -> str``
    The playout policy (e.g. prefer captures); default: uniform at random.
``order(game, state, moves) -> list[str]``
    The order in which the search tries a node's moves (most promising
    first); default: the order of ``legal_moves`` shuffled.
``in_play(game, state) -> list[int]``
    The seats still playing, in a game of more than two where a seat can
    be out while the others play on (TriMac's defeated armies).  The server
    uses it to end a board where only the computer is left.
``EXPLORATION: float``
    UCT's exploration constant for this game's searches (default
    ``search.EXPLORATION``, 0.7).  An evaluation whose values crowd near 0.5
    (TriMac's: a Pawn moves it by 0.02) wants a smaller one, or the search
    spreads its visits evenly below the root and sees no reply.
``explain(game, state, seat) -> str``
    A few words, in the game's terms, on what ``evaluate`` sees for
    ``seat`` ("material 39 against 35"), for hints and reviews.

A third-party game may omit the module altogether: the search needs only
the contract.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.contract import Game

Evaluate = Callable[[Game, Any], Sequence[float]]
PlayoutMove = Callable[[Game, Any, list[str], random.Random], str]
Order = Callable[[Game, Any, list[str]], list[str]]
Explain = Callable[[Game, Any, int], str]
InPlay = Callable[[Game, Any], list[int]]

#: Plies a playout may run without an evaluation before it is called a draw
#: (every game here ends by its own rules well before; this is a guard).
MAX_PLAYOUT = 1000


@dataclass(frozen=True)
class Hooks:
    evaluate: Evaluate | None = None
    playout_depth: int = MAX_PLAYOUT
    playout_move: PlayoutMove | None = None
    order: Order | None = None
    explain: Explain | None = None
    in_play: InPlay | None = None
    #: UCT's exploration constant; None: the search's own.
    exploration: float | None = None

    @property
    def names(self) -> list[str]:
        """Which hooks are present (for the benchmark's notes)."""
        return [n for n in ("evaluate", "playout_move", "order", "explain") if getattr(self, n) is not None]


_cache: dict[str, Hooks] = {}


def hooks_for(game: Game) -> Hooks:
    """The hooks of ``game``'s package, or none; looked up once per game class."""
    package = type(game).__module__
    key = f"{package}.{type(game).__qualname__}"
    if key not in _cache:
        target = f"{package}.engine_hooks"
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name not in (target, package):
                raise
            module = None
        _cache[key] = _from_module(module)
    return _cache[key]


def _from_module(module: Any) -> Hooks:
    if module is None:
        return Hooks()
    evaluate = getattr(module, "evaluate", None)
    return Hooks(
        evaluate=evaluate,
        playout_depth=int(getattr(module, "PLAYOUT_DEPTH", 8)) if evaluate else MAX_PLAYOUT,
        playout_move=getattr(module, "playout_move", None),
        order=getattr(module, "order", None),
        explain=getattr(module, "explain", None),
        in_play=getattr(module, "in_play", None),
        exploration=float(module.EXPLORATION) if hasattr(module, "EXPLORATION") else None,
    )
