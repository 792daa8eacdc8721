"""CPU per board picture (PNG) per game: the tiled renderer against painting it whole, in one run.

Run: ``python bench/bench_pictures.py`` (``--moves N``, BENCH_PICTURE_MOVES, 40 by
default: positions of one random game per plugin, drawn in order as a
server draws them, one PNG per move).

* baseline: what server/pictures/draw_png.py did before issue 25, rebuilt
  here: every shape painted at twice the size on one canvas, reduced, an
  octree palette from a half-size copy, zlib level 3.
* tiled: ``server.pictures.draw_png.to_png`` as the deliverer calls it,
  its caches warm from the earlier positions of the same game (as in a
  running server), plus a cold figure (the first position, empty caches).

Also printed: ``Game.draw`` alone (the plugin's drawing model, which both
pay), and the PNG sizes.  Target (issue 25): <= 1.5 ms of CPU per position.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

import games  # noqa: E402
from server.pictures import draw_png  # noqa: E402


def whole(drawing) -> bytes:  # type: ignore[no-untyped-def]
    """The renderer before issue 25: all shapes on one 2x canvas, reduce, octree palette, zlib 3."""
    img = Image.new("RGB", (drawing.width * 2, drawing.height * 2), drawing.background)
    draw_png._draw(img, drawing.shapes)
    img = img.reduce(2)
    palette = img.reduce(2).quantize(colors=96, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    img = img.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=3)
    return out.getvalue()


def positions(game: games.Game, count: int, seed: int = 1) -> list:
    state = game.start(game.parse_options([]), game.players)
    rng, out = random.Random(seed), [state]
    for _ in range(count):
        if game.outcome(state) is not None:
            break
        state = game.play(state, game.to_move(state), rng.choice(game.legal_moves(state)))
        out.append(state)
    return out


def cpu_ms(work, items) -> float:  # type: ignore[no-untyped-def]
    start = time.process_time()
    for item in items:
        work(item)
    return (time.process_time() - start) / max(1, len(items)) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=int(os.environ.get("BENCH_PICTURE_MOVES", "40")))
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"{os.cpu_count()} CPUs, load average {load}; CPU ms per position, {args.moves} moves per game")
    print(f"{'game':<14} {'draw()':>7} {'whole':>7} {'tiled':>7} {'ratio':>6} {'cold':>7}  bytes whole/tiled")
    for game in games.available():
        names = ["alice", "bob", "carol"][: game.players]
        states = positions(game, args.moves)
        drawings = [game.draw(s, None, names) for s in states]
        if drawings[0] is None:
            continue
        model = cpu_ms(lambda s, g=game, n=names: g.draw(s, None, n), states)
        base = cpu_ms(whole, drawings[1:])
        for kept in (draw_png._TILES, draw_png._BANDS):
            kept.clear()
        cold = cpu_ms(draw_png.to_png, drawings[:1])
        tiled = cpu_ms(draw_png.to_png, drawings[1:])
        sizes = f"{len(whole(drawings[-1]))}/{len(draw_png.to_png(drawings[-1]))}"
        print(f"{game.name:<14} {model:7.2f} {base:7.2f} {tiled:7.2f} {tiled / base:6.2f} {cold:7.1f}  {sizes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
