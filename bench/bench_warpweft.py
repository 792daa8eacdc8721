"""Random-playout rate of Warp and Weft, next to a baseline from the same run.

Run: ``python bench/bench_warpweft.py [seconds-per-line]``.  The baseline is
python-chess (the style model) playing random legal games through its own
API, measured in the same process, so the numbers compare across machines.
"""

from __future__ import annotations

import random
import sys
import time

from baseline import chess_rate  # noqa: E402  (bench/ is on sys.path when run as a script)

from games.warpweft import GAME


def warpweft_rate(size: int, primary: str, seconds: float) -> tuple[float, float]:
    """(plies per second, games per second) of random play via the plugin API."""
    rng = random.Random(size)
    options = GAME.parse_options([f"-size={size}", primary])
    plies = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GAME.start(options, 2)
        while (seat := GAME.to_move(state)) is not None:
            state = GAME.play(state, seat, rng.choice(GAME.legal_moves(state)))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return plies / elapsed, games / elapsed


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    base = chess_rate(seconds)
    print(f"baseline python-chess random play: {base:,.0f} plies/s" if base else "no python-chess")
    for size in range(2, 7):
        for primary in ("-threads", "-patches"):
            plies, games = warpweft_rate(size, primary, seconds)
            ratio = f"  ({plies / base:.2f}x chess)" if base else ""
            print(f"size {size} {primary:9} {plies:9,.0f} plies/s {games:8,.1f} games/s{ratio}")


if __name__ == "__main__":
    main()
