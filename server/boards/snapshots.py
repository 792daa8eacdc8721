"""Positions of a board's past, rebuilt from snapshots instead of from move 0.

``show 101#N`` and the web's position pictures rebuilt the position after
N moves by replaying the game from its start: 500 ``show 101#N`` lines on
a 1,300-ply board cost 64 s of CPU (issue 32).  A replay now keeps a
snapshot every SNAPSHOT_EVERY moves (the game's own ``dump``, the form the
board's state is stored in, so ``load`` gives the position back exactly)
and the next replay of that board starts from the nearest one at or
before the wanted move.  Snapshots are per process and keyed on the board
and its whole move list, so a take-back or a new move makes new ones; at
most MAX_BOARDS boards are kept.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from games import Game
from server.store.model import Board, Move

SNAPSHOT_EVERY = 50
MAX_BOARDS = 64

_kept: OrderedDict[tuple[Any, ...], dict[int, str]] = OrderedDict()
_lock = threading.Lock()


def _snapshots(key: tuple[Any, ...]) -> dict[int, str]:
    with _lock:
        snaps = _kept.pop(key, None) or {}
        _kept[key] = snaps
        while len(_kept) > MAX_BOARDS:
            _kept.popitem(last=False)
        return snaps


def replay(game: Game, board: Board, moves: list[Move], upto: int | None = None) -> Any:
    """The state after ``upto`` moves (all of them by default), from the nearest snapshot."""
    target = len(moves) if upto is None else upto
    # The whole move list, not its length and last id: SQLite may give a taken-back move's id again.
    key = (board.id, board.game, hash(tuple((mv.seat, mv.move) for mv in moves)))
    snaps = _snapshots(key)
    start = max((ply for ply in list(snaps) if ply <= target), default=0)
    state = game.load(json.loads(snaps[start])) if start else game.start(board.options, len(board.seats))
    for ply, mv in enumerate(moves[start:target], start + 1):
        if mv.move == "resign":  # only stored where the game plays on (see boards.resign_state)
            state = game.resign(state, mv.seat)
        else:
            state = game.play(state, mv.seat, mv.move)
        if ply % SNAPSHOT_EVERY == 0 and ply not in snaps:
            snaps[ply] = json.dumps(game.dump(state))
    return state
