"""The tiled PNG renderer: faithful to painting the whole drawing at once, and a pure function.

The reference is the plain way to draw a picture: every shape painted on one
canvas at twice the size, reduced.  The tiled renderer must give the very
same pixels (its palette is the exact set of the picture's colours), and the
same bytes for a position whichever positions the process drew before -- a
mail drawn again after a crash must be identical -- which a fresh
interpreter checks.  And the pictures a player sees must not change with the
renderer's work (issue 25): the PNGs in before_issue25/ were drawn by the
renderer before it, whose palette lookup rounded colours by a few levels.
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


def seats(game: games.Game) -> list[int | None]:
    """Every view a move's mails may need: each seat's own side where the game turns the board."""
    return [None, *range(game.players)] if game.oriented else [None]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_tiled_picture_is_the_whole_picture(game: games.Game) -> None:
    for state in positions(game, 30, seed=3)[-12:]:
        for seat in seats(game):
            drawing = game.draw(state, seat, names(game))
            png = Image.open(io.BytesIO(draw_png.to_png(drawing)))
            assert png.format == "PNG" and png.mode == "P" and png.size == (drawing.width, drawing.height)
            # A tile seam, a shape cut at a tile's edge, a tile taken for another
            # that shows something else, a colour rounded by the palette: any differs.
            diff = ImageChops.difference(reference(drawing), png.convert("RGB"))
            assert diff.getbbox() is None, f"{game.name} seen by {seat}: pixels differ in {diff.getbbox()}"


BEFORE = Path(__file__).parent / "before_issue25"


@pytest.mark.parametrize("picture", sorted(p.name for p in BEFORE.glob("*.png")))
def test_a_player_sees_the_same_picture_as_before_the_renderer_was_rebuilt(picture: str) -> None:
    """Start and mid-game positions of each game (seed 7, 24 random moves), from the first seat's
    side or the last one's, as drawn before issue 25: the same within the old palette's rounding."""
    name, when, seat = picture.removesuffix(".png").split("-")
    game = games.load_game(name)
    states = positions(game, 24, seed=7)
    state = states[0] if when == "start" else states[-1]
    drawing = game.draw(state, None if seat == "None" else int(seat), names(game))
    now = Image.open(io.BytesIO(draw_png.to_png(drawing))).convert("RGB")
    before = Image.open(BEFORE / picture).convert("RGB")
    assert now.size == before.size
    diff = ImageChops.difference(before, now).convert("L")
    # The old palette lookup moved colours by up to 6 levels; a piece, a frame
    # or a letter that moved, went or came differs by far more.
    assert diff.getextrema()[1] <= 8, f"{picture}: a pixel differs by {diff.getextrema()[1]} at {diff.getbbox()}"
    assert ImageStat.Stat(diff).mean[0] < 0.5


DRAW_ONE = """
import sys, json
sys.path.insert(0, {root!r})
import games
from server.pictures.draw_png import to_png
spec = json.loads(sys.stdin.read())
game = games.load_game(spec["game"])
sys.stdout.buffer.write(to_png(game.draw(game.load(spec["state"]), spec["seat"], spec["players"])))
"""


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_same_position_is_the_same_bytes_in_a_fresh_process(game: games.Game) -> None:
    states = positions(game, 20, seed=5)
    seat = seats(game)[-1]
    for state in states:  # this process's caches now hold tiles, colours and bands of many positions
        for view in seats(game):
            draw_png.to_png(game.draw(state, view, names(game)))
    last = states[-1]
    here = draw_png.to_png(game.draw(last, seat, names(game)))
    spec = json.dumps({"game": game.name, "state": game.dump(last), "players": names(game), "seat": seat})
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


def test_a_drawing_whose_fixed_part_changes_is_laid_out_again() -> None:
    """The fixed part is kept by its key, but checked to be the same shapes: a drawing that reuses a
    key for other shapes still gets its own picture (the renderer never trusts the key alone)."""
    from games.drawing import Drawing, Rect

    def board(fill: str) -> Drawing:
        d = Drawing(96, 96, grid=(0, 0, 48))
        d.add(Rect(0, 0, 48, 48, fill=fill))
        d.mark_base("same-key")
        d.add(Rect(48, 48, 48, 48, fill="#000000"))
        return d

    red, blue = board("#ff0000"), board("#0000ff")
    assert draw_png.to_image(red).getpixel((10, 10)) == (255, 0, 0)
    assert draw_png.to_image(blue).getpixel((10, 10)) == (0, 0, 255)


def test_a_picture_of_more_than_256_colours_is_still_drawn() -> None:
    """Past 256 colours a palette PNG cannot hold them all: the picture falls back to an octree
    palette (rare: the games draw at most about 250)."""
    from games.drawing import Drawing, Rect

    d = Drawing(300, 20)
    for i in range(300):
        d.add(Rect(i, 0, 1, 20, fill=f"#{i % 256:02x}{i // 256 * 90:02x}40"))
    png = Image.open(io.BytesIO(draw_png.to_png(d)))
    assert png.size == (300, 20) and png.mode == "P"
    assert len(png.getcolors(256) or []) <= draw_png.COLOURS
