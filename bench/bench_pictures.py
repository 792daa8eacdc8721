"""CPU per board picture (PNG) per game: the tiled renderer against painting it whole, in one run.

Run: ``python bench/bench_pictures.py`` (``--moves N``, BENCH_PICTURE_MOVES, 40 by
default: positions of one random game per plugin, drawn in order as a
server draws them).

* whole: what server/pictures/draw_png.py did before issue 25, rebuilt
  here: every shape painted at twice the size on one canvas, reduced, an
  octree palette from a half-size copy, zlib level 3 (the drawing given).
* position: ``Game.draw`` plus ``server.pictures.draw_png.to_png`` as the
  deliverer calls them, for one side's view, caches warm from the earlier
  positions of the same game (as in a running server); cold: the first
  position with every cache empty.
* move: what one move costs when every player sees the board from their
  own side (``oriented`` games: one picture per seat, each drawn and
  encoded), caches warm; ``pictures`` says how many.

Also printed: ``Game.draw`` alone (the plugin's drawing model), and the PNG
sizes.  Target (issue 25): <= 1.5 ms of CPU per position, draw included.
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
    print(f"{'game':<14} {'draw()':>7} {'whole':>7} {'position':>9} {'ratio':>6} {'cold':>6} {'move':>6} pictures"
          "  bytes whole/new")
    for game in games.available():
        names = ["alice", "bob", "carol"][: game.players]
        states = positions(game, args.moves)
        if game.draw(states[0], 0, names) is None:
            continue
        seats = list(range(game.players)) if getattr(game, "oriented", False) else [0]
        drawings = [game.draw(s, 0, names) for s in states]
        model = cpu_ms(lambda s, g=game, n=names: g.draw(s, 0, n), states)
        base = cpu_ms(whole, drawings[1:])
        draw_png.forget()
        cold = cpu_ms(lambda s, g=game, n=names: draw_png.to_png(g.draw(s, 0, n)), states[:1])
        position = cpu_ms(lambda s, g=game, n=names: draw_png.to_png(g.draw(s, 0, n)), states[1:])
        draw_png.forget()
        every_side = [(lambda s, g=game, n=names, seat=seat: draw_png.to_png(g.draw(s, seat, n))) for seat in seats]
        for side in every_side:  # the first position (cold) is not a move's
            side(states[0])
        move = cpu_ms(lambda s, sides=every_side: [side(s) for side in sides], states[1:])
        sizes = f"{len(whole(drawings[-1]))}/{len(draw_png.to_png(drawings[-1]))}"
        print(f"{game.name:<14} {model:7.2f} {base:7.2f} {position:9.2f} {position / base:6.2f} {cold:6.1f}"
              f" {move:6.2f} {len(seats):>8}  {sizes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
