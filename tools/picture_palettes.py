"""Write server/pictures/palettes.py: each listed game's fixed palette slots, per board view.

Why (issue 25): a picture's palette is the exact set of its colours.  Ordered
by where each colour first appears, a TriMac move (226-250 colours, ~14 of
them coming or going every move) renumbered the colours of bands that did
not change, and each such band was mapped and deflated again; in the other
games a changed tile moved where a colour first appears (Warp and Weft: 9.1
bands deflated a move where 6.0 had changed).  A fixed slot per colour keeps
an unchanged band's bytes, so its kept stream is used, and lets a tile be
worked out into palette indices once.  The slots are data, not history: the
same for every process, so a PNG stays a pure function of its position and view.

The slots are the 256 colours present in the most pictures of seeded random
games (seeds away from bench_pictures' and the tests'), those with the most
pixels first; one table per game where all its views have at most 256
colours, else one per view (base key).  They are only a hint: the renderer
puts a colour without a slot in a free one and falls back to its own order
when they do not fit, so a stale table costs time, never a wrong picture.
Run again after changing a game's drawing (a new game: add it to GAMES):

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

#: Every game with a picture.  A game with more than 256 colours in all its views (TriMac) has a table per
#: view (base key); the others one table under the base key's first word (``draw_png._slot_table``).
GAMES = ["interweave", "tridchess", "trimac", "warpandweft", "weavedungeon"]
NAMES = ["alice", "bob", "carol"]


def colours(drawing) -> dict[int, int]:  # type: ignore[no-untyped-def]
    """The picture's colours as 0xRRGGBB, and how many pixels have each."""
    rgb = np.asarray(draw_png.to_image(drawing)).reshape(-1, 3).astype(np.uint32)
    values, counts = np.unique((rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2], return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


def slots(game: games.Game, seeds: range, moves: int) -> dict[str, list[int]]:
    """Per base key (one per view), or one for the game: the 256 colours present in the most pictures,
    those with the most pixels first (the background in slot 0, as the rows' filter bytes: deflate finds
    longer runs, and the files were 4-7% larger with the colours in the order they are present in)."""
    counts: dict[str, Counter[int]] = {}
    pixels: dict[str, Counter[int]] = {}
    views = [None, *range(game.players)] if game.oriented else [None]
    for seed in seeds:
        rng = random.Random(seed)
        state = game.start(game.parse_options([]), game.players)
        for _ in range(moves):
            for view in views:
                drawing = game.draw(state, view, NAMES[: game.players])
                seen = colours(drawing)
                counts.setdefault(drawing.base_key, Counter()).update(seen.keys())
                pixels.setdefault(drawing.base_key, Counter()).update(seen)
            if game.outcome(state) is not None:
                break
            state = game.play(state, game.to_move(state), rng.choice(game.legal_moves(state)))
    every: Counter[int] = sum(counts.values(), Counter())
    if len(every) <= 256:  # one table for every view: a colour has the same slot whichever side is seen
        name = next(iter(counts)).partition("-")[0]
        counts, pixels = {name: every}, {name: sum(pixels.values(), Counter())}
    out = {}
    for key, seen in sorted(counts.items()):
        kept = sorted(seen, key=lambda c: (-seen[c], c))[:256]
        out[key] = sorted(kept, key=lambda c: (-pixels[key][c], c))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--moves", type=int, default=80)
    args = parser.parse_args()
    out = ['"""Fixed palette slots per game, or per board view (base key), written by tools/picture_palettes.py: do not edit.',
           "",
           "Each string is the colours of slots 0, 1, ... as RRGGBB; see ``draw_png._slotted_png``.",
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
