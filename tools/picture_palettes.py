"""Write server/pictures/palettes.py: each listed game's fixed palette slots, per board view.

Why (issue 25): a picture's palette is the exact set of its colours.  Ordered
by where each colour first appears, a TriMac move (226-250 colours, ~14 of
them coming or going every move) renumbered the colours of bands that did
not change, and each such band was mapped and deflated again.  A fixed slot
per colour keeps an unchanged band's bytes, so its kept stream is used.
The slots are data, not history: the same for every process, so a PNG stays
a pure function of its position and view.

The slots of a view are the 256 colours present in the most pictures of
seeded random games (seeds away from bench_pictures' and the tests'), the
most frequent first.  They are only a hint: the renderer puts a colour
without a slot in a free one and falls back to its own order when they do
not fit, so a stale table costs time, never a wrong picture.  Run again
after changing a listed game's drawing:

    python3 tools/picture_palettes.py > server/pictures/palettes.py
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import games  # noqa: E402
from server.pictures import draw_png  # noqa: E402

#: Games whose pictures hold so many colours that their palette renumbered band after band.
GAMES = ["trimac"]
NAMES = ["alice", "bob", "carol"]


def colours(drawing) -> set[int]:  # type: ignore[no-untyped-def]
    """The picture's colours as 0xRRGGBB."""
    rgb = np.asarray(draw_png.to_image(drawing)).reshape(-1, 3).astype(np.uint32)
    return set(np.unique((rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]).tolist())


def slots(game: games.Game, seeds: range, moves: int) -> dict[str, list[int]]:
    """Per base key (one per view): up to 256 colours, the most often present first."""
    counts: dict[str, Counter[int]] = {}
    views = [None, *range(game.players)] if game.oriented else [None]
    for seed in seeds:
        rng = random.Random(seed)
        state = game.start(game.parse_options([]), game.players)
        for _ in range(moves):
            for view in views:
                drawing = game.draw(state, view, NAMES[: game.players])
                counts.setdefault(drawing.base_key, Counter()).update(colours(drawing))
            if game.outcome(state) is not None:
                break
            state = game.play(state, game.to_move(state), rng.choice(game.legal_moves(state)))
    return {key: sorted(seen, key=lambda c: (-seen[c], c))[:256] for key, seen in sorted(counts.items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--moves", type=int, default=80)
    args = parser.parse_args()
    out = ['"""Fixed palette slots per board view (base key), written by tools/picture_palettes.py: do not edit.',
           "",
           "Each string is the colours of slots 0, 1, ... as RRGGBB; see ``draw_png._fixed_palette``.",
           '"""', "", "SLOTS: dict[str, str] = {"]
    for name in GAMES:
        for key, listed in slots(games.load_game(name), range(1001, 1001 + args.seeds), args.moves).items():
            words = [f"{c:06x}" for c in listed]
            out.append(f"    {key!r}: (")
            out.extend(f'        "{" ".join(words[i:i + 12])}{" " if i + 12 < len(words) else ""}"'
                       for i in range(0, len(words), 12))
            out.append("    ),")
    out.append("}")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
