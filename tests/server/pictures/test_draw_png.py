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
import itertools
import json
import operator
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
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


DRAW_COLD = """
import sys, json
sys.path.insert(0, {root!r})
import games
from server.pictures import draw_png
specs = json.loads(sys.stdin.read())
out = []
for spec in specs:  # each from nothing: every cache emptied first
    draw_png.forget()
    game = games.load_game(spec["game"])
    out.append(draw_png.to_png(game.draw(game.load(spec["state"]), spec["seat"], spec["players"])).hex())
print(json.dumps(out))
"""


@pytest.mark.parametrize("name", [g.name for g in GAMES])
def test_the_same_bytes_cold_and_after_any_other_positions_in_any_order(name: str) -> None:
    """Off a square grid a tile is painted again only where shapes came or went, every game's palette
    takes fixed slots, and tiles and bands keep their palette indices (issue 25): what a process drew
    before, in whatever order, must not reach the bytes.  Every view of positions of two games, drawn
    in play order, backwards and shuffled in one warm process, is the bytes a fresh process draws from
    nothing for each."""
    game = games.load_game(name)
    views = [(state, seat) for seed in (11, 12) for state in positions(game, 8, seed=seed)
             for seat in seats(game)]
    specs = [{"game": name, "state": game.dump(state), "players": names(game), "seat": seat} for state, seat in views]
    cold = json.loads(subprocess.run([sys.executable, "-c", DRAW_COLD.format(root=str(ROOT))],
                                     input=json.dumps(specs).encode(), capture_output=True, check=True,
                                     timeout=300).stdout)
    rng = random.Random(5)
    shuffled = list(range(len(views)))
    rng.shuffle(shuffled)
    for order in (list(range(len(views))), shuffled, list(reversed(range(len(views))))):
        for i in order:
            state, seat = views[i]
            assert draw_png.to_png(game.draw(state, seat, names(game))).hex() == cold[i], (name, seat, i)


@pytest.mark.parametrize("name", ["trimac", "warpandweft"])
def test_colours_without_a_slot_take_free_ones_the_same_cold_and_warm(name: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A table that lacks some of a picture's colours (stale, or a game's rare colour) still gives its
    pixels, and the same bytes whatever was drawn before: those colours are written into the bands'
    kept palette indices where they are (tiles, plain background and text lines), with the slots the
    picture gives them.  The table here lacks every third colour and the background."""
    game = games.load_game(name)
    views = [(state, seat) for state in positions(game, 10, seed=21) for seat in seats(game)]
    keys = {game.draw(state, seat, names(game)).base_key for state, seat in views}
    for key in keys:
        table = draw_png._slot_table(key)
        assert table is not None, key
        listed = (draw_png.SLOTS.get(key) or draw_png.SLOTS[key.partition("-")[0]]).split()
        background = game.draw(views[0][0], None, names(game)).background.lstrip("#").lower()
        monkeypatch.setitem(draw_png.SLOTS, key, " ".join(
            w for i, w in enumerate(listed) if i % 3 and w != background))
    draw_png._slot_table.cache_clear()
    draw_png._slots.cache_clear()
    try:
        draw_png.forget()
        warm = [draw_png.to_png(game.draw(state, seat, names(game))) for state, seat in views]
        wider = 0
        for (state, seat), got in zip(views, warm, strict=True):
            drawing = game.draw(state, seat, names(game))
            png = Image.open(io.BytesIO(got))
            diff = ImageChops.difference(reference(drawing), png.convert("RGB"))
            assert diff.getbbox() is None, f"{name} seen by {seat}: pixels differ in {diff.getbbox()}"
            table = draw_png._slot_table(drawing.base_key)
            wider += len(png.getpalette() or []) > 3 * table.size  # type: ignore[union-attr]
            draw_png.forget()
            assert draw_png.to_png(drawing) == got, (name, seat)
        # where the table leaves room, a colour without a slot takes one past it
        assert wider > 0 or name == "trimac"
    finally:
        monkeypatch.undo()
        draw_png._slot_table.cache_clear()
        draw_png._slots.cache_clear()
        draw_png.forget()


def draw_watched(game, monkeypatch, sides, seeds, moves: int) -> None:  # type: ignore[no-untyped-def]
    """Draw the games of ``seeds`` in order from every side of ``sides``, from empty caches, with what
    the test patched in; then the patches undone and the caches emptied again."""
    try:
        draw_png.forget()
        for seed in seeds:
            for seat in sides:
                for state in positions(game, moves, seed=seed):
                    draw_png.to_png(game.draw(state, seat, names(game)))
    finally:
        monkeypatch.undo()
        draw_png._slot_table.cache_clear()
        draw_png._slots.cache_clear()
        draw_png.forget()


def fresh_tables(game, monkeypatch, thinned: bool) -> None:  # type: ignore[no-untyped-def]
    """The palette tables made again; ``thinned``: the game's without every third colour, so pictures
    carry colours without a slot."""
    if thinned:
        for key in {game.draw(state, seat, names(game)).base_key for state in positions(game, 1, seed=1)
                    for seat in seats(game)}:
            listed = (draw_png.SLOTS.get(key) or draw_png.SLOTS[key.partition("-")[0]]).split()
            monkeypatch.setitem(draw_png.SLOTS, key, " ".join(w for i, w in enumerate(listed) if i % 3))
    draw_png._slot_table.cache_clear()
    draw_png._slots.cache_clear()


@pytest.mark.parametrize(("name", "thinned"), [(g.name, False) for g in GAMES] + [("trimac", True)])
def test_a_band_made_from_the_last_pictures_band_is_the_band_put_together(name: str, thinned: bool,
                                                                          monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A new band's palette indices are the last picture's band of the same rows with the changed tiles'
    columns written over (``_band_slots_from``): they, the colours without a slot (where they are) and the
    slots mask must be what putting the band together from its tiles gives.  ``thinned``: a table that
    lacks every third colour, so bands carry such colours from the last picture and from new tiles."""
    game = games.load_game(name)
    fresh_tables(game, monkeypatch, thinned)
    made = draw_png._band_slots_from
    checked = []

    def compared(band, source, table):  # type: ignore[no-untyped-def]
        got = made(band, source, table)
        if got is not None:
            band.source = None
            whole = draw_png._band_slots(band, table)  # put together from its tiles
            del band._slots[table.serial]
            assert np.array_equal(got.index, whole.index)
            assert got.spare == whole.spare and got.mask == whole.mask
            spots = [set(zip(*(column.tolist() for column in slotted.spots), strict=True))
                     if slotted.spots is not None else set() for slotted in (got, whole)]
            assert spots[0] == spots[1]
            checked.append(bool(got.spots))
        return got

    monkeypatch.setattr(draw_png, "_band_slots_from", compared)
    draw_watched(game, monkeypatch, seats(game), (3, 4), 25)
    assert len(checked) > 20
    assert any(checked) or not thinned


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


def _same_as_painting_it_whole(drawing) -> None:  # type: ignore[no-untyped-def]
    png = Image.open(io.BytesIO(draw_png.to_png(drawing))).convert("RGB")
    diff = ImageChops.difference(reference(drawing), png)
    assert diff.getbbox() is None, f"pixels differ in {diff.getbbox()}"


@pytest.mark.parametrize("grid", [None, (0, 0, 40)], ids=["tiles", "squares"])
def test_a_layout_kept_from_the_position_before_gives_the_whole_picture(grid) -> None:  # type: ignore[no-untyped-def]
    """The layout starts from the previous position's (issue 25): shapes told apart by identity, only the
    tiles a new or gone shape reaches looked at again.  Whatever changes between two drawings -- shapes
    come, go, swap places, come twice, a lone line of text gets a neighbour -- the picture is the one
    painting it whole gives."""
    from games.drawing import Circle, Drawing, Line, Rect, Text

    board = [Rect(x * 40, y * 40, 40, 40, fill="#e3e9ef" if (x + y) % 2 else "#7f93a8")
             for x in range(6) for y in range(6)]
    pieces = [Circle(20 + 40 * i, 60, 15, fill="#c0392b", stroke="#222222", width=1.5) for i in range(6)]
    names = [Text(20 + 40 * i, 75, f"a{i}", size=8, fill="#555555") for i in range(6)]
    status = [Text(120, 250, f"Red to move {i}", size=14) for i in range(3)]
    ring = Circle(100, 100, 18, stroke="#f2b600", width=3.5)
    near = Line(60, 248, 180, 252, stroke="#2f5fb3", width=2)

    def drawing(others: list) -> Drawing:  # type: ignore[type-arg]
        d = Drawing(240, 270, grid=grid)
        d.extend(board)
        d.mark_base("kept-layout")
        d.extend(others)
        return d

    rng = random.Random(3)
    steps = [
        [status[0], *pieces, *names],
        [status[1], *pieces[:3], ring, *pieces[3:], *names],  # a shape comes, the status line changes
        [status[1], *pieces[:3], *pieces[3:], *names[1:]],  # two go
        [status[1], near, *pieces, *names],  # the lone status line gets a neighbour
        [status[1], *pieces, *names],  # and loses it again
        [status[2], *pieces[3:], *pieces[:3], *names],  # the same shapes in another order
        [status[2], *pieces, pieces[0], *names],  # one twice
        [status[0], *pieces, *names],
    ]
    for _ in range(40):  # then random changes (off the squares, a tile is painted again where they are)
        others = [s for s in [*pieces, *names, ring, near] if rng.random() < 0.7]
        rng.shuffle(others) if rng.random() < 0.2 else None
        steps.append([rng.choice(status), *others])
    draw_png.forget()
    for others in steps:
        _same_as_painting_it_whole(drawing(others))


@pytest.mark.parametrize("grid", [None, (0, 0, 40)], ids=["tiles", "squares"])
def test_a_layout_kept_by_runs_gives_the_whole_picture(grid, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Drawings handed as runs (``Drawing.runs``: a game's kept tuples, one per square) are laid out from the
    position before by their runs alone, never shape by shape (issue 25: Warp and Weft's diff walked 770
    shapes); whatever the runs do -- come, go, swap, come twice, share a shape, hand a shape over to
    another run, hand an empty one -- the picture is the one painting it whole gives."""
    from games.drawing import Circle, Drawing, Rect, Text

    board = [Rect(x * 40, y * 40, 40, 40, fill="#e3e9ef" if (x + y) % 2 else "#7f93a8")
             for x in range(6) for y in range(6)]
    ring = Circle(100, 100, 18, stroke="#f2b600", width=3.5)
    squares = [(Circle(20 + 40 * i, 60 + 20 * (i % 3), 15, fill="#c0392b", stroke="#222222", width=1.5),
                Text(20 + 40 * i, 75 + 20 * (i % 3), f"a{i}", size=8, fill="#555555")) for i in range(6)]
    marked = [(ring, *square) for square in squares]  # the ring handed over from run to run
    status = [Text(120, 250, f"Red to move {i}", size=14) for i in range(3)]

    def drawing(runs: list) -> Drawing:  # type: ignore[type-arg]
        d = Drawing(240, 270, grid=grid)
        d.extend(board)
        d.mark_base("kept-runs")
        for run in runs:
            d.extend(run) if isinstance(run, tuple) else d.add(run)
        return d

    steps = [
        [status[0], *squares],
        [status[1], *squares[:2], marked[2], *squares[3:]],  # a run goes, another comes (with the ring)
        [status[1], *squares[:2], squares[2], marked[3], *squares[4:]],  # the ring moves to another run
        [status[1], *squares[:3], ring, *squares[3:]],  # the ring on its own
        [status[2], *squares[3:], *squares[:3]],  # runs in another order
        [status[0], (), *squares],  # an empty run
    ]
    rng = random.Random(11)
    for _ in range(40):
        ringed = rng.randrange(8)  # the ring on one square at most
        runs = [marked[i] if i == ringed else squares[i] for i in range(6) if rng.random() < 0.8]
        rng.shuffle(runs) if rng.random() < 0.1 else None
        steps.append([rng.choice(status), *runs])
    steps += [  # a shape or a run twice: laid out from nothing, the next one shape by shape, then by runs again
        [status[1], *squares],
        [status[2], *squares, squares[0][1]],  # a shape twice (in a run and on its own)
        [status[1], *squares],
        [status[1], *squares[1:]],
        [status[2], *squares[1:], squares[1]],  # a run twice
        [status[1], *squares],
        [status[1], *squares[2:]],
    ]
    by_shape = []
    monkeypatch.setattr(draw_png, "_step", lambda *a: by_shape.append(a) or None)  # (then laid out from nothing)
    draw_png.forget()
    for runs in steps:
        _same_as_painting_it_whole(drawing(runs))
    assert len(by_shape) == 2, "a drawing handed as runs was laid out shape by shape"


@pytest.mark.parametrize("name", ["trimac", "warpandweft", "tridchess"])
def test_a_layout_from_the_position_before_is_the_layout_from_nothing(name: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The layout the next position's starts from the last one's (``_step_runs``, with shapes that take a
    gone shape's place put there: ``_swaps``) must be the one ``_full`` makes from nothing: every tile's
    shapes in the drawing's order, the same lone texts, the same tiles."""
    game = games.load_game(name)
    swapped = []
    swaps = draw_png._swaps

    def counted(*args):  # type: ignore[no-untyped-def]
        got = swaps(*args)
        swapped.append(len(got))
        return got

    monkeypatch.setattr(draw_png, "_swaps", counted)
    draw_png.forget()
    for seat in seats(game):
        for state in positions(game, 30, seed=5):
            drawing = game.draw(state, seat, names(game))
            draw_png.to_png(drawing)
            grid = draw_png._grid(drawing.width, drawing.height, drawing.grid)
            base = draw_png._base(drawing, grid)
            laid = draw_png._LAID[(base.serial, None)]
            others = drawing.shapes[len(base.shapes):]
            runs = drawing.runs[drawing.base_runs:] if base.shapes else drawing.runs
            whole = draw_png._full(drawing.background, base, others, runs)
            assert [[id(e[0]) for e in here] for here in laid.near] == [[id(e[0]) for e in here]
                                                                        for here in whole.near]
            assert laid.lone.keys() == whole.lone.keys()
            assert all(map(operator.is_, laid.tiles, whole.tiles))
    assert sum(swapped) > 0


@pytest.mark.parametrize("name", ["trimac", "warpandweft"])
def test_boards_drawn_in_turn_each_from_its_own_last_layout_are_the_same_bytes(name: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A deliverer draws its boards' moves in turn; each picture's layout starts from its own board's
    last one (the lineage), not from another board's.  The bytes are those drawn with no lineage, and
    each lineage is laid out from nothing once, then kept."""
    game = games.load_game(name)
    seat = seats(game)[-1]
    boards = [positions(game, 10, seed=seed) for seed in (21, 22, 23)]
    turns = [(b, i) for i in range(10) for b in range(len(boards)) if i < len(boards[b])]
    draw_png.forget()
    plain = [draw_png.to_png(game.draw(boards[b][i], seat, names(game))) for b, i in turns]
    laid_out = []
    full = draw_png._full
    monkeypatch.setattr(draw_png, "_full", lambda *args: laid_out.append(1) or full(*args))
    draw_png.forget()
    by_board = [draw_png.to_png(game.draw(boards[b][i], seat, names(game)), ("board", b)) for b, i in turns]
    assert by_board == plain
    assert len(laid_out) == len(boards)  # once per board: every later picture stepped from its own
    assert {key[1] for key in draw_png._LAID} == {("board", b) for b in range(len(boards))}


def test_the_deliverers_pictures_follow_their_board(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """cache.spec_png draws with the board's players and the side it is seen from as the lineage."""
    from server.pictures import cache

    game = games.load_game("warpandweft")
    state = positions(game, 3, seed=4)[-1]
    seen = []
    monkeypatch.setattr(cache, "to_png", lambda drawing, lineage=None: seen.append(lineage) or b"png")
    cache.spec_png({"game": "warpandweft", "state": game.dump(state), "players": ["ann", "ben"]})
    cache.spec_png({"game": "warpandweft", "state": game.dump(state), "players": ["cy", "di"], "seat": 1})
    assert seen == [(("ann", "ben"), None), (("cy", "di"), 1)]


def test_text_put_together_from_glyphs_is_freetypes() -> None:
    """A new line of text (a status, a legend) is put together from kept glyphs as FreeType lays them
    out (issue 25); for any text, size and fraction of a pixel, the mask is the one FreeType renders,
    or FreeType renders it."""
    import string

    rng = random.Random(5)
    chars = string.ascii_letters + string.digits + " .,:;-()!?'/+#&_\"@%*=<>[]"
    composed = 0
    for i in range(1500):
        text = "".join(rng.choice(chars) for _ in range(rng.randint(1, 40)))
        size = rng.choice([14, 16, 20, 22, 24, 26, 28, 32])
        anchor = rng.choice(["lm", "mm", "rm"])
        if i % 3:  # fractions of a pixel, some right at FreeType's rounding of 1/64
            fx, fy = rng.random(), rng.random()
        else:
            fx, fy = ((rng.randint(0, 63) + 0.5) / 64 + rng.choice([-1e-7, 0, 1e-7])) % 1, rng.choice([0, 0.5])
        got = draw_png._glyph_mask(text, size, anchor, fx, fy)
        if got is None:
            continue
        composed += 1
        mask, left, top = got
        want, want_left, want_top = draw_png._rendered_mask(text, size, anchor, fx, fy)
        assert (left, top, mask.size) == (want_left, want_top, want.size), repr(text)
        assert ImageChops.difference(mask, want).getbbox() is None, repr(text)
    assert composed > 1200  # the glyphs make nearly every line


def test_free_slots_are_the_first_ones_past_the_table_then_within_it() -> None:
    """``_free_slots`` finds the free slots bit by bit: they must be the ones the plain loop over every slot
    gives (past the table first, then within it, ascending), as many as wanted or all there are."""
    import itertools

    rng = random.Random(25)
    for _ in range(5000):
        size = rng.choice([0, 1, 100, 200, 255, 256])
        used = rng.choice([0, rng.getrandbits(256), rng.getrandbits(256) & rng.getrandbits(256)])
        wanted = rng.randrange(0, 300)
        every = [slot for slot in itertools.chain(range(size, 256), range(size)) if not used >> slot & 1]
        assert draw_png._free_slots(used, size, wanted) == every[:wanted], (size, wanted)


@pytest.mark.parametrize("thinned", [False, True])
def test_a_patched_tiles_slots_from_the_tile_before_are_its_own(thinned: bool, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A tile painted again in its changed boxes (``_patched``) gets its palette slots from the tile it was
    made from, with the boxes looked up (``_patched_slots``): they must be the lookup of the whole tile.
    ``thinned``: a TriMac table lacking every third colour (then such tiles are looked up whole, and must
    still be right where the boxes' colours all have slots)."""
    game = games.load_game("trimac")
    fresh_tables(game, monkeypatch, thinned)
    made = draw_png._patched_slots
    checked = []

    def compared(patch, table):  # type: ignore[no-untyped-def]
        got = made(patch, table)
        if got is not None:
            slots = table.lookup().take(patch.ids, mode="clip")
            assert slots.max() < 256 and got.spots is None and not got.spare
            assert np.array_equal(got.index, slots.astype(np.uint8))
            checked.append(patch)
        return got

    monkeypatch.setattr(draw_png, "_patched_slots", compared)
    draw_watched(game, monkeypatch, (0, 1), (6,), 30)
    assert len(checked) > 100 or thinned  # (thinned: the background lacks a slot, so tiles are looked up whole)


def test_text_put_together_a_word_at_a_time_is_glyph_by_glyph() -> None:
    """``_words_inked`` (a line's words' kept ink) must give the mask ``_glyphs_inked`` gives glyph by glyph,
    and be used for most lines (the legend: it fails if a word is pasted a pixel off or a pair across words
    is missed, which test_text_put_together_from_glyphs_is_freetypes would catch only against FreeType)."""
    import string

    rng = random.Random(28)
    chars = string.ascii_letters + string.digits + "  .,:;-()!?'/j"
    words = 0
    for _ in range(800):
        text = "".join(rng.choice(chars) for _ in range(rng.randint(1, 50)))
        size = rng.choice([16, 22, 24, 26, 32])
        glyphs = [draw_png._glyph(size, c) for c in text]
        if any(g.advance & 63 for g in glyphs):
            continue
        pens = [0, *itertools.accumulate(g.advance >> 6 for g in glyphs[:-1])]
        shape = (sum(g.advance >> 6 for g in glyphs) + 80, 80)
        by_words, by_glyphs = Image.new("L", shape, 0), Image.new("L", shape, 0)
        if not draw_png._glyphs_inked(by_glyphs.im, size, text, glyphs, pens, 30, 30):
            continue
        if draw_png._words_inked(by_words.im, size, text, pens, 30, 30):
            words += 1
            assert ImageChops.difference(by_words, by_glyphs).getbbox() is None, repr(text)
    assert words > 500
