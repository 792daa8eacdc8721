"""The python-chess baseline the per-game benchmark scripts compare against.

Scripts here run as ``python bench/NAME.py``, so they import this module by
its bare name.
"""

from __future__ import annotations

import random
import time


def chess_rate(seconds: float) -> float | None:
    """Plies per second of random python-chess games, or None if not installed."""
    try:
        import chess
    except ImportError:
        return None
    rng = random.Random(1)
    plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        board = chess.Board()
        while not board.is_game_over(claim_draw=False) and board.ply() < 400:
            board.push(rng.choice(list(board.legal_moves)))
            plies += 1
    return plies / (time.perf_counter() - start)
