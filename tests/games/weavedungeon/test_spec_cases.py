"""The test cases of spec section 4 (T1-T13), expected values taken from the spec."""

from __future__ import annotations

import pytest

from games.weavedungeon import GAME
from tests.games.playout import assert_refused
from tests.games.weavedungeon.helpers import dests, placement_of, play_all, squares, state, words


def start():
    return GAME.start(GAME.parse_options([]), 2)


T1_MOVES = words(
    "Da2-a3 Db2-b3 Db2-b4 Dc2-c3 Dc2-c4 Cd1-d3 Dd2-d3 Dd2-d4 De2-e3 "
    "Cf1-f3 Df2-f3 Df2-f4 Dg2-g3 Dg2-g4 Dh2-h3 Dh2-h4 Di2-i3"
)


def test_t1_initial_position_has_exactly_17_moves():
    moves = GAME.legal_moves(start())
    assert len(moves) == 17
    assert sorted(moves) == sorted(T1_MOVES)


@pytest.mark.parametrize("move", ["Da2-a4", "De2-e4", "Di2-i4", "Pa1-a4"])
def test_t1_illegal_moves(move):
    assert_refused(GAME, start(), 0, move)


def test_t1_da2_a4_names_the_segments():
    assert_refused(GAME, start(), 0, "Da2-a4", "a2 and a4", "different segments")


def test_t1_star_cannot_move():
    st = start()
    assert not any(m.startswith("K") for m in GAME.legal_moves(st))
    for target in ("e2", "d1", "f1", "d2", "f2", "e3", "c2", "d3"):
        assert_refused(GAME, st, 0, f"Ke1-{target}")


OPENING_1 = "1. Da2-a3 Da8-a7 2. Db2-b3 Db8-b7 3. Pa1-a4 Pa9-a6 4. Sb1-b4 Sb9-b6 5. Tc1-b2 Tc9-b8"
OPENING_2 = "1. Db2-b4 Db8-b6 2. Dc2-c4 Dc8-c6 3. Sb1-b2 Sb9-b8 4. Tc1-e3 Tc9-e7 5. Pa1-c2 Pa9-c8"


def test_t2_opening_1_is_legal_and_ends_where_the_spec_says():
    st = play_all(start(), OPENING_1)
    white = "Ke1 Cd1 Cf1 Tg1 Sh1 Pi1 Tb2 Dc2 Dd2 De2 Df2 Dg2 Dh2 Di2 Da3 Db3 Pa4 Sb4"
    black = "Ke9 Cd9 Cf9 Tg9 Sh9 Pi9 Tb8 Dc8 Dd8 De8 Df8 Dg8 Dh8 Di8 Da7 Db7 Pa6 Sb6"
    assert GAME.position(st) == f"{placement_of(white, black)} w - 6"


def test_t3_opening_2_is_legal_and_ends_where_the_spec_says():
    st = play_all(start(), OPENING_2)
    white = "Ke1 Cd1 Cf1 Tg1 Sh1 Pi1 Da2 Sb2 Pc2 Dd2 De2 Df2 Dg2 Dh2 Di2 Te3 Db4 Dc4"
    black = "Ke9 Cd9 Cf9 Tg9 Sh9 Pi9 Da8 Sb8 Pc8 Dd8 De8 Df8 Dg8 Dh8 Di8 Te7 Db6 Dc6"
    assert GAME.position(st) == f"{placement_of(white, black)} w - 6"


def test_t4_move_order_in_opening_1():
    assert_refused(GAME, start(), 0, "Pa1-a4", "a2")
    st = play_all(start(), "Da2-a3 Da8-a7")
    assert dests(st, "a1") == {"a2", "a4", "a5", "a6", "a8", "a9x"}


def test_t5_move_order_in_opening_2():
    st = play_all(start(), "Db2-b4 Db8-b6 Dc2-c4 Dc8-c6 Sb1-b2 Sb9-b8")
    assert dests(st, "a1") == {"b1"}
    assert_refused(GAME, st, 0, "Pa1-c2", "c1")
    assert dests(st, "c1") == {"a3", "b3", "c2", "c3", "d3", "e3", "f3"}


def test_t6_non_reciprocal_triangles():
    st = state("Ki1 Tc3", "Ka9 Td3")
    assert dests(st, "c3") == squares("a1 a2 a3 a4 a5 a6 b2 b3 b4 d2 d3x d4 f6 h8")
    st = state("Ki1 Tc3", "Ka9 Td3", side="b")
    assert dests(st, "d3") == squares("b1 b5 c1 c5 d1 d5 e1 e2 e4 e5 e6 f1 f5 g1 g5 h1 h5")
    assert_refused(GAME, st, 1, "Td3xc3", "c3")


def test_t6_non_reciprocal_pentagons():
    st = state("Ki1 Pc3", "Ka9 Pd3")
    assert "d3x" in dests(st, "c3")
    st = state("Ki1 Pc3", "Ka9 Pd3", side="b")
    black = dests(st, "d3")
    assert {"a3", "b3"} <= black
    assert "c3x" not in black
    assert_refused(GAME, st, 1, "Pd3xc3")


@pytest.mark.parametrize(
    "square, expected",
    [
        ("e3", "d2 d4 e1 e2 e4 e5 e6 f2 f4"),
        ("e4", "b5 c5 d4 d5 f4 f5 g5 h5"),
        ("c3", "a3 b2 b3 b4 d2 d3 d4 e3 f3"),
        ("d3", "d2 d4 e1 e2 e4 e5 e6"),
    ],
)
def test_t7_pinwheel_around_d4(square, expected):
    st = state(f"K{square}", "Ki9")
    assert dests(st, square) == set(expected.split())


def test_t7_wrong_way_round_d4_is_refused_with_the_pinwheel_reason():
    assert_refused(GAME, state("Ke4", "Ki9"), 0, "Ke4-e3", "counterclockwise")
    text = assert_refused(GAME, state("Kd3", "Ki9"), 0, "Kd3-c3")
    assert text == "d4 can only be circled counterclockwise: Kd3-c3 steps down from the wrong side"


@pytest.mark.parametrize(
    "square, expected",
    [
        ("g3", "d3 e3 f2 f3 f4 h2 h3 h4 i3"),
        ("h3", "h2 h4 i1 i2 i4 i5 i6"),
        ("i3", "h2 h4 i1 i2 i4 i5 i6"),
        ("i4", "f5 g5 h4 h5"),
    ],
)
def test_t8_around_h4_as_derived(square, expected):
    st = state(f"K{square}", "Ka9")
    assert dests(st, square) == set(expected.split())


def test_t8_h4_is_counterclockwise_not_clockwise():
    assert_refused(
        GAME, state("Kh3", "Ka9"), 0, "Kh3-g3", "h4 can only be circled counterclockwise"
    )
    assert_refused(GAME, state("Ki4", "Ka9"), 0, "Ki4-i3", "counterclockwise")


def test_t9_star_steps_once_and_leaves_its_segment():
    assert dests(state("Kc1", "Ki9"), "c1") == {"b2", "c2", "c3", "c4", "d2"}
    st = state("Kd1", "Ki9")
    assert dests(st, "d1") == {"c2", "c3", "c4", "d2"}
    assert_refused(GAME, st, 0, "Kd1-c1", "segment")
    assert_refused(GAME, st, 0, "Kd1-b1", "segment")
    assert dests(state("Kd1 Cc1", "Ki9"), "d1") == {"d2"}


def test_t10_star_in_the_dungeon():
    st = state("Kd4", "Ki9")
    assert dests(st, "d4") == squares("b2 b4 b6 d2 d6 f2 f4 f6")
    assert_refused(GAME, st, 0, "Kd4-d5", "never leave the Dungeon")
    assert_refused(GAME, st, 0, "Kd4-e5", "never leave the Dungeon")
    assert_refused(GAME, st, 0, "Kd4-d8", "adjacent cell")


def test_t11_circle():
    assert dests(state("Ka9 Cb3 Tc3", "Ki1"), "b3") == squares("a3 b1 b2 b4 b5 d3")
    assert dests(state("Ka9 Cc3", "Ki1"), "c3") == squares("a3 b3 c1 c2 c4 c5 d3 e3")
    st = state("Ki9 Cd4 Dd5", "Ka1 Tb4 Td6")
    assert dests(st, "d4") == squares("b4x c4 d2 d3 d6x e4 f4")


def test_t12_triangle_from_a_bridge():
    st = state("Ka9 Tc1", "Ki9")
    assert dests(st, "c1") == squares("a3 b2 b3 c2 c3 c4 d2 d3 e3 f3 f4 h6")
    st = state("Ka9 Tc1 Cd3", "Ki9")
    assert dests(st, "c1") == squares("a3 b2 b3 c2 c3 c4 d2 f4 h6")


def test_t13_triangle_on_a_slope():
    st = state("Ka9 Tb3", "Ki1")
    assert dests(st, "b3") == squares("a1 a2 a4 a5 a6 b1 b5 c1 c5 d1 d5")
    st = state("Ka9 Tb3 Da3", "Ki1")
    assert dests(st, "b3") == set()
    assert_refused(GAME, st, 0, "Tb3-a2", "a3")
