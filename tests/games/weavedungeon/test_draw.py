"""Weave & Dungeon's picture: the weave, the Dungeon, thrones, pieces as the spec sets them."""

from __future__ import annotations

from games.weavedungeon import GAME
from tests.games.svgread import elements, pieces, size, squares_with, start, svg_of


def test_start_array_thrones_and_the_weave() -> None:
    root = svg_of(GAME, start(GAME))
    drawn = pieces(root)
    for f, letter in zip("abcdefghi", "PSTCKCTSP", strict=True):
        assert drawn[f"{f}1"] == letter and drawn[f"{f}9"] == letter
        assert drawn[f"{f}2"] == "D" and drawn[f"{f}8"] == "D"
    assert len(drawn) == 36
    assert squares_with(root, "throne") == {"e1", "e9"}
    # spec 1.1: 16 cells (file and rank even), 25 bridges, 40 slopes
    cells = squares_with(root, "cell")
    assert len(cells) == 16 and "b2" in cells and "h8" in cells and "a2" not in cells
    assert len(squares_with(root, "bridge")) == 25 and len(squares_with(root, "slope")) == 40
    # spec 1.2: on a1 the vertical strand is on top (a tall ribbon), on c1 the horizontal one
    tops = {e.get("data-at"): size(e) for e in elements(root, "bridge")}
    assert tops["a1"][1] > tops["a1"][0] and tops["c1"][0] > tops["c1"][1]
    slopes = {e.get("data-at"): size(e) for e in elements(root, "slope")}
    assert slopes["a2"][1] > slopes["a2"][0] and slopes["b1"][0] > slopes["b1"][1]


def test_t2_opening_one_final_position() -> None:
    state = start(GAME)
    moves = ["Da2-a3", "Da8-a7", "Db2-b3", "Db8-b7", "Pa1-a4", "Pa9-a6", "Sb1-b4", "Sb9-b6", "Tc1-b2", "Tc9-b8"]
    for i, m in enumerate(moves):
        state = GAME.play(state, i % 2, m)
    root = svg_of(GAME, state)
    drawn = pieces(root)
    white = "Ke1 Cd1 Cf1 Tg1 Sh1 Pi1 Tb2 Dc2 Dd2 De2 Df2 Dg2 Dh2 Di2 Da3 Db3 Pa4 Sb4"
    black = "Ke9 Cd9 Cf9 Tg9 Sh9 Pi9 Tb8 Dc8 Dd8 De8 Df8 Dg8 Dh8 Di8 Da7 Db7 Pa6 Sb6"
    expected = {w[1:]: w[0] for w in (white + " " + black).split()}
    assert drawn == expected
    assert squares_with(root, "last") == {"c9", "b8"}


def test_every_piece_letter_is_readable_and_the_rings_are_explained() -> None:
    """Issue 26 item 10: T and K were drawn at 0.22 of a square; the throne ring was in no legend."""
    from games.weavedungeon import GAME as WD
    from games.weavedungeon.draw import CELL
    from tests.games.svgread import elements, svg_of

    state = WD.start(WD.parse_options([]), 2)
    root = svg_of(WD, state)
    letters = {e.text: float(e.get("font-size")) for e in elements(root, "piece-letter")}
    assert set(letters) >= {"K", "T", "C", "S", "P", "D"}
    assert min(letters.values()) >= 0.28 * CELL, letters
    legend = " ".join(e.text or "" for e in elements(root, "legend"))
    assert "throne" in legend.lower() and "ring" in legend.lower()
    width = float(root.get("width"))
    assert all(len(e.text or "") * 12 * 0.5 < width for e in elements(root, "legend"))  # fits the picture
