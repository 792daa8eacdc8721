"""Interweave's picture: pieces where the spec puts them, colours, last turn, reserves."""

from __future__ import annotations

from games.interweave import GAME
from tests.games.svgread import elements, pieces, squares_with, start, svg_of


def test_start_array_as_the_spec_lists_it() -> None:
    root = svg_of(GAME, start(GAME), ["alice", "bob"])
    drawn = pieces(root)
    back = dict(zip("abcdefgh", "SRLKKLRS", strict=True))
    for f, letter in back.items():
        assert drawn[f"{f}1"] == letter and drawn[f"{f}8"] == letter
        assert drawn[f"{f}2"] == "P" and drawn[f"{f}7"] == "P"
    assert len(drawn) == 32
    # White light, Black dark: the disc under a1's letter vs a8's
    discs = {e.get("data-at"): e.get("fill") for e in elements(root, "piece")}
    assert discs["a1"] != discs["a8"]
    # a1 is a dark square, b1 light (spec 1)
    fills = {e.get("data-at"): e.get("fill") for e in elements(root, "square")}
    assert fills["a1"] == fills["h8"] != fills["b1"]
    status = elements(root, "status")[0].text
    assert status == "White (alice) to move"


def test_t13_custodian_capture_marks_the_turn_and_fills_blacks_reserve() -> None:
    state = start(GAME, "6kk/Ps6/2sP4/2S5/8/8/7K/7K w - - 0 1")
    before = pieces(svg_of(GAME, state))
    assert before["b7"] == "S" and before["c6"] == "S" and before["d6"] == "P"
    after_state = GAME.play(state, 0, "d6xc7")
    root = svg_of(GAME, after_state)
    after = pieces(root)
    assert "b7" not in after and "c6" not in after and "d6" not in after
    assert after["c7"] == "P"
    assert {"d6", "c7"} <= squares_with(root, "last")
    reserves = elements(root, "reserves")[0].text or ""
    assert "Black s s" in reserves and "White none" in reserves
