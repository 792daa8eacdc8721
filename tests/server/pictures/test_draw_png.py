"""The tiled PNG renderer: faithful to painting the whole drawing at once, and a pure function.

The reference is the plain way to draw a picture: every shape painted on one
canvas at twice the size, reduced.  The tiled renderer must give the same
picture (up to the palette's rounding), and the same bytes for a position
whichever positions the process drew before -- a mail drawn again after a
crash must be identical -- which a fresh interpreter checks.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

import games
from server.pictures import draw_png

ROOT = Path(__file__).resolve().parents[3]
GAMES = [g for g in games.available() if g.name != "tictactoe"]


def positions(game: games.Game, count: int, seed: int) -> list:
    state = game.start(game.parse_options([]), game.players)
    rng, out = random.Random(seed), [state]
    for _ in range(count):
        if game.outcome(state) is not None:
            break
        state = game.play(state, game.to_move(state), rng.choice(game.legal_moves(state)))
        out.append(state)
    return out


def names(game: games.Game) -> list[str]:
    return ["alice", "bob", "carol"][: game.players]


def reference(drawing) -> Image.Image:  # type: ignore[no-untyped-def]
    """Every shape on one canvas at twice the size, reduced: no tiles, no overlays."""
    img = Image.new("RGB", (drawing.width * 2, drawing.height * 2), drawing.background)
    draw_png._draw(img, drawing.shapes)
    return img.reduce(2)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_tiled_picture_is_the_whole_picture(game: games.Game) -> None:
    for state in positions(game, 12, seed=3)[-3:]:
        drawing = game.draw(state, None, names(game))
        png = Image.open(io.BytesIO(draw_png.to_png(drawing)))
        assert png.format == "PNG" and png.mode == "P" and png.size == (drawing.width, drawing.height)
        diff = ImageChops.difference(reference(drawing), png.convert("RGB")).convert("L")
        # A tile seam or a shape cut at a tile's edge shows as a large difference;
        # the palette's lookup may round a colour by a few levels, no more.
        assert diff.getextrema()[1] <= 12, f"{game.name}: a pixel differs by {diff.getextrema()[1]}"
        assert ImageStat.Stat(diff).mean[0] < 1.0


DRAW_ONE = """
import sys, json
sys.path.insert(0, {root!r})
import games
from server.pictures.draw_png import to_png
spec = json.loads(sys.stdin.read())
game = games.load_game(spec["game"])
sys.stdout.buffer.write(to_png(game.draw(game.load(spec["state"]), None, spec["players"])))
"""


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_same_position_is_the_same_bytes_in_a_fresh_process(game: games.Game) -> None:
    states = positions(game, 20, seed=5)
    for state in states:  # this process's caches now hold tiles and bands of many positions
        draw_png.to_png(game.draw(state, None, names(game)))
    last = states[-1]
    here = draw_png.to_png(game.draw(last, None, names(game)))
    spec = json.dumps({"game": game.name, "state": game.dump(last), "players": names(game)})
    fresh = subprocess.run([sys.executable, "-c", DRAW_ONE.format(root=str(ROOT))], input=spec.encode(),
                           capture_output=True, check=True, timeout=120).stdout
    assert fresh == here


def test_pictures_change_with_the_move_and_keep_their_colours() -> None:
    game = games.load_game("interweave")
    before, after = positions(game, 1, seed=1)
    a = draw_png.to_png(game.draw(before, None, ["alice", "bob"]))
    b = draw_png.to_png(game.draw(after, None, ["alice", "bob"]))
    assert a != b
    # The gold last-move frame is a colour of the drawing: it is in the palette exactly.
    palette = Image.open(io.BytesIO(b)).getpalette() or []
    colours = {tuple(palette[i:i + 3]) for i in range(0, len(palette), 3)}
    assert (0xF2, 0xB6, 0x00) in colours
