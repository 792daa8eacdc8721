"""Weave & Dungeon speed: perft from the start and random-playout rate.

Run: ``python bench/bench_weavedungeon.py [seconds-per-line]``.  The
baseline is python-chess (the style model) playing random legal games through
its own API in the same process, so the ratio compares across machines.
"""

from __future__ import annotations

import random
import sys
import time

from baseline import chess_rate  # noqa: E402  (bench/ is on sys.path when run as a script)

from games.weavedungeon import GAME


def perft(state, depth: int) -> int:
    if depth == 0:
        return 1
    seat = GAME.to_move(state)
    if seat is None:
        return 0
    moves = GAME.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(GAME.play(state, seat, mv), depth - 1) for mv in moves)


def playout_rate(seconds: float) -> tuple[float, float, dict[str, int]]:
    """(plies/s, games/s, how games ended) of random play via the plugin API."""
    rng = random.Random(1)
    options = GAME.parse_options([])
    plies = games = 0
    ends: dict[str, int] = {}
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GAME.start(options, 2)
        for _ in range(1000):
            seat = GAME.to_move(state)
            if seat is None:
                out = GAME.outcome(state)
                key = next(w for w in ("checkmated", "stalemated", "repeated") if w in out.reason)
                ends[f"{key}/{out.grade}"] = ends.get(f"{key}/{out.grade}", 0) + 1
                break
            state = GAME.play(state, seat, rng.choice(GAME.legal_moves(state)))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return plies / elapsed, games / elapsed, ends


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    start = GAME.start(GAME.parse_options([]), 2)
    for depth in (1, 2, 3, 4):
        t0 = time.perf_counter()
        n = perft(start, depth)
        print(f"perft({depth}) = {n:>9,}  {time.perf_counter() - t0:7.3f} s")
    base = chess_rate(seconds)
    print(f"python-chess random play: {base:,.0f} plies/s" if base else "no python-chess")
    plies, games, ends = playout_rate(seconds)
    ratio = f"  ({plies / base:.2f}x chess)" if base else ""
    print(f"weavedungeon random play: {plies:,.0f} plies/s, {games:.1f} games/s{ratio}")
    print("endings:", ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))


if __name__ == "__main__":
    main()
