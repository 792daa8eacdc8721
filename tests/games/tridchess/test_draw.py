"""Tri-D Chess's picture: the start layout of spec 1.4, levels stacked as levels."""

from __future__ import annotations

from games.tridchess import GAME
from tests.games.svgread import centre, elements, pieces, squares_with, start, svg_of

START = ("Rz0QL1,Qa0QL1,Pz1QL1,Pa1QL1,Kd0KL1,Re0KL1,Pd1KL1,Pe1KL1,Na1W,Bb1W,Bc1W,Nd1W,Pa2W,Pb2W,Pc2W,Pd2W,"
         "rz9QL6,qa9QL6,pz8QL6,pa8QL6,kd9KL6,re9KL6,pd8KL6,pe8KL6,na8B,bb8B,bc8B,nd8B,pa7B,pb7B,pc7B,pd7B")


def test_start_position_as_spec_1_4() -> None:
    root = svg_of(GAME, start(GAME))
    drawn = pieces(root)
    expected = {tok[1:]: tok[0].upper() for tok in START.split(",")}
    assert drawn == expected
    discs = {e.get("data-at"): e.get("fill") for e in elements(root, "piece")}
    assert discs["d0KL1"] != discs["d9KL6"]  # white and black kings differ


def test_levels_read_top_down_and_attack_boards_at_their_pins() -> None:
    root = svg_of(GAME, start(GAME, "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10"))
    sq = {e.get("data-at"): centre(e) for e in elements(root, "square")}
    # B (level 5) above N (3) above W (1); same file, same column
    assert sq["a5B"][1] < sq["a5N"][1] and sq["a3N"][1] < sq["a3W"][1]
    assert sq["a5B"][0] == sq["a5N"][0] == sq["a3W"][0]
    # BQ on QL4 (layer 4, ranks 6-7) lies between B and N; WQ on QL1 between N and W
    assert sq["a8B"][1] < sq["z7QL4"][1] < sq["a6N"][1]
    assert sq["a6N"][1] < sq["z1QL1"][1] < sq["a4W"][1]
    assert {"QL1", "KL1", "QL4", "KL6"} == squares_with(root, "side-ab")
    assert squares_with(root, "side-main") == {"W", "N", "B"}


def test_last_move_framed_and_attack_board_move() -> None:
    state = start(GAME)
    state = GAME.play(state, 0, "b2W-b4W")
    root = svg_of(GAME, state)
    assert squares_with(root, "last") == {"b2W", "b4W"}
    assert pieces(root)["b4W"] == "P"
    state = start(GAME, "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10")
    root = svg_of(GAME, GAME.play(state, 1, "QL4-QL6i"))
    assert squares_with(root, "last") == {"z6QL6i", "a6QL6i", "z7QL6i", "a7QL6i"} or \
        squares_with(root, "last") == {"z8QL6i", "a8QL6i", "z9QL6i", "a9QL6i"}
