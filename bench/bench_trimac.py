"""TriMac 3 Friends speed: perft from the start and random-playout rate,
next to python-chess random playouts in the same run (if installed).

    python bench/bench_trimac.py [plies]
"""

from __future__ import annotations

import random
import sys
import time

from games.trimac import GAME
from tests.games.playout import perft


def trimac_playouts(plies: int, seed: int = 1) -> tuple[int, int, float]:
    """Random legal games (legal_moves + play every ply); returns plies, games, seconds."""
    rng = random.Random(seed)
    done = games = 0
    t0 = time.perf_counter()
    while done < plies:
        games += 1
        state = GAME.start(GAME.parse_options([]), 3)
        for _ in range(600):
            seat = GAME.to_move(state)
            if seat is None or done >= plies:
                break
            state = GAME.play(state, seat, rng.choice(GAME.legal_moves(state)))
            done += 1
    return done, games, time.perf_counter() - t0


def chess_playouts(plies: int, seed: int = 1) -> tuple[int, int, float] | None:
    try:
        import chess
    except ImportError:
        return None
    rng = random.Random(seed)
    done = games = 0
    t0 = time.perf_counter()
    while done < plies:
        games += 1
        board = chess.Board()
        while not board.is_game_over() and done < plies:
            board.push(rng.choice(list(board.legal_moves)))
            done += 1
    return done, games, time.perf_counter() - t0


def main() -> None:
    plies = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    start = GAME.start(GAME.parse_options([]), 3)
    for depth in (1, 2, 3):
        t0 = time.perf_counter()
        n = perft(GAME, start, depth)
        print(f"perft({depth}) = {n:>7}  {time.perf_counter() - t0:6.2f} s")
    done, games, secs = trimac_playouts(plies)
    print(f"trimac random playout: {done} plies, {games} games, {done / secs:8.0f} plies/s")
    res = chess_playouts(plies)
    if res:
        done, games, secs = res
        print(
            f"python-chess random playout: {done} plies, {games} games, {done / secs:8.0f} plies/s"
        )


if __name__ == "__main__":
    main()
