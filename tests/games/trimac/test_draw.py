"""TriMac's picture: the start array of spec 3 on the three lattices, placed as in 2.9."""

from __future__ import annotations

from games.trimac import GAME
from tests.games.svgread import centre, elements, pieces, squares_with, start, svg_of

SETUP = {"K": "f1", "A": "e1 g1 f4", "E": "d1 h1 f7", "H": "b1 j1 f8", "R": "a1 k1 f5", "C": "c1 i1 f3",
         "F": "c3 i3 f6", "P": "a3 b4 c5 e7 g7 i5 j4 k3"}


def test_start_array_on_every_lattice() -> None:
    root = svg_of(GAME, start(GAME), ["red", "blue", "green"])
    drawn = pieces(root)
    expected = {lat + sq: letter for lat in "RBG" for letter, squares in SETUP.items() for sq in squares.split()}
    assert drawn == expected
    assert len(squares_with(root, "point")) == 207 - 81
    assert squares_with(root, "fortress") == {"R", "B", "G"}
    # army colours: every Red piece one colour, different from Blue's and Green's
    fills = {e.get("data-at"): e.get("fill") for e in elements(root, "piece")}
    assert len({fills["Rf1"], fills["Bf1"], fills["Gf1"]}) == 3
    assert {fills[s] for s in drawn if s[0] == "R"} == {fills["Rf1"]}


def test_lattices_sit_where_spec_2_3_puts_them() -> None:
    root = svg_of(GAME, start(GAME))
    at = {e.get("data-at"): centre(e) for e in elements(root, "piece")}
    cx = (at["Rf1"][0] + at["Bf1"][0] + at["Gf1"][0]) / 3
    cy = (at["Rf1"][1] + at["Bf1"][1] + at["Gf1"][1]) / 3
    assert at["Rf1"][1] > cy  # Red at the bottom
    assert at["Bf1"][0] < cx and at["Bf1"][1] < cy  # Blue upper left
    assert at["Gf1"][0] > cx and at["Gf1"][1] < cy  # Green upper right
    # the front apexes f9 meet at the centre, closer than any back point
    apex = [at.get(p) for p in ("Rf9", "Bf9", "Gf9")]
    assert apex == [None] * 3  # empty at the start: drawn as points
    points = {e.get("data-at"): centre(e) for e in elements(root, "point")}
    for name in ("Rf9", "Bf9", "Gf9"):
        x, y = points[name]
        assert abs(x - cx) < 40 and abs(y - cy) < 40


def test_t4_rook_and_last_move_rings() -> None:
    state = start(GAME, "rK@Rf1 rA@Rf4 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 rR@Rc4")
    assert pieces(svg_of(GAME, state))["Rc4"] == "R"
    after = GAME.play(state, 0, "Rc4xBf4")
    root = svg_of(GAME, after)
    assert pieces(root)["Bf4"] == "R" and "Rc4" not in pieces(root)
    assert squares_with(root, "last") == {"Rc4", "Bf4"}


def test_every_empty_point_is_named_and_ranks_are_legible() -> None:
    """Issue 26 item 9: a player names any point (Gj5) from the picture, without the help's key."""
    root = svg_of(GAME, start(GAME))
    occupied = set(pieces(root))
    names = {e.get("data-at"): (e.text, float(e.get("font-size"))) for e in elements(root, "coord")}
    empty = {e.get("data-at") for e in elements(root, "point")}
    assert set(names) == empty and len(empty) == 207 - len(occupied)
    assert names["Gj5"][0] == "Gj5" and names["Rf9"][0] == "Rf9" and all(t == at for at, (t, _) in names.items())
    ranks = [e for e in elements(root, "label") if (e.text or "").isdigit()]
    assert len(ranks) == 27 and min(float(e.get("font-size")) for e in ranks) >= 11
