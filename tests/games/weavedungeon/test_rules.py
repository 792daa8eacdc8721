"""Every rule of spec section 3 that T1-T13 do not already pin down.

Each expected list below is worked out by hand from the spec's rules (the
derivation is in the comment next to it), not read off the engine.
"""

from __future__ import annotations

import json

import pytest

from games import IllegalMove, OptionError
from games.weavedungeon import GAME
from tests.games.playout import assert_refused
from tests.games.weavedungeon.helpers import dests, fen, play_all, squares, state

START = "pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1"

# -- Square (3.4) -------------------------------------------------------------


def test_square_on_a_bridge_rides_both_strands():
    # e3: rank 3 on top -> d3 b3 a3 / f3 h3 i3 (under c3, g3);
    # file e underneath -> e2 e1 / e4 e5 e6 e8 e9 (under e7).  No Dungeon access.
    st = state("Kb2 Se3", "Kh8")
    assert dests(st, "e3") == squares("a3 b3 d3 f3 h3 i3 e1 e2 e4 e5 e6 e8 e9")
    assert_refused(GAME, st, 0, "Se3-d4", "Square on a bridge has no access to the Dungeon")


def test_square_on_a_slope_rides_and_enters():
    # b1: rank 1 runs under a1, e1 and i1 (pattern uOuOu): c1 d1 f1 g1 h1;
    # entry ray straight up: b2, b4 (under b3), b6, b8.
    st = state("Ki9 Sb1", "Ka9")
    assert dests(st, "b1") == squares("c1 d1 f1 g1 h1 b2 b4 b6 b8")
    assert_refused(GAME, st, 0, "Sb1-a1", "can only ride rank 1")


def test_square_in_the_dungeon():
    # Right: e4 (Weave), f4 own Diamond stops.  Left: c4 enemy (captured, passed
    # under), b4, a4.  Up: d5, d6 enemy stops.  Down: d3, d2, d1.
    st = state("Ki1 Sd4 Df4", "Ka9 Cd6 Tc4")
    assert dests(st, "d4") == squares("a4 b4 c4x e4 d1 d2 d3 d5 d6x")


def test_square_strand_ride_passes_under_pieces_on_troughs():
    # file a from a2: a1 / under a3 (a Diamond there), a4 a5 a6, under a7, a8 a9.
    # Entry rays from a2 run right only: b2 d2 f2 h2 (under c2, e2, g2).
    st = state("Ke9 Sa2 Da3", "Ki1")
    assert dests(st, "a2") == squares("a1 a4 a5 a6 a8 a9 b2 d2 f2 h2")


# -- Triangle in the Dungeon (3.3) ----------------------------------------------


def test_triangle_in_the_dungeon():
    # The four diagonals from d4, alternating bridge and cell, all empty.
    st = state("Ki1 Td4", "Ka9")
    assert dests(st, "d4") == squares("a1 a7 b2 b6 c3 c5 e3 e5 f2 f6 g1 g7 h8 i9")
    st = state("Ki1 Td4 Df6", "Ka9 Cb2")
    # up-right: e5, then own f6 stops;  down-left: c3, b2 enemy captured, stops.
    assert dests(st, "d4") == squares("a7 b2x b6 c3 c5 e3 e5 f2 g1")
    assert_refused(GAME, st, 0, "Td4-d5", "diagonal")


def test_triangle_enters_only_from_a_bridge():
    st = state("Ka9 Tb3", "Ki1")
    assert_refused(GAME, st, 0, "Tb3-b4", "no access to the Dungeon")


# -- Pentagon (3.5) ---------------------------------------------------------------


def test_pentagon_never_enters_the_dungeon():
    st = state("Ki1 Pc3", "Ka9")
    assert_refused(GAME, st, 0, "Pc3-d4", "the Pentagon can never enter the Dungeon")
    cells = {f + r for f in "bdfh" for r in "2468"}
    assert dests(st, "c3") and not dests(st, "c3") & cells


def test_pentagon_combines_square_and_triangle():
    # Square part: ride file c (on top at c3): c2 (c1 is a trough), c4, under
    # c5, c6 c7 c8 (c9 a trough).  Ride rank 3 underneath: b3 a3 / d3 e3 f3,
    # under g3, h3 i3.  Triangle part: step down at c3 onto b3/d3 -> a3 b3 /
    # d3 e3 f3, then a second step at a3 (a2 a1, a4 a5 a6) or e3 (e2 e1, e4 e5 e6).
    st = state("Kb2 Pc3", "Kh8")
    expected = "c2 c4 c6 c7 c8 a3 b3 d3 e3 f3 h3 i3 a1 a2 a4 a5 a6 e1 e2 e4 e5 e6"
    assert dests(st, "c3") == set(expected.split())


# -- Diamond (3.6) ------------------------------------------------------------------


def test_diamond_captures_only_by_stepping():
    # c2-c3 is a slide inside [c2 c3 c4]: no capture, and c4 is blocked.
    # Sideways onto the cells b2/d2 are steps: captures.
    st = state("Ki1 Dc2", "Ka9 Tc3 Sb2 Cd2")
    assert dests(st, "c2") == {"b2x", "d2x"}
    assert_refused(GAME, st, 0, "Dc2xc3", "captures only when stepping", "slide")


def test_diamond_forward_step_captures():
    # a2 -> a3: file a passes under a3, a normal pair: a step.
    st = state("Ki1 Da2", "Ka9 Ca3")
    assert dests(st, "a2") == {"a3x"}


def test_diamond_sideways_slide_never_captures():
    # b1 sits in [b1 c1 d1]: c1 is continuous (slide), a1 is normal (step).
    st = state("Ki9 Db1", "Ke5 Ca1 Cc1")
    assert dests(st, "b1") == {"a1x", "b2"}
    assert_refused(GAME, st, 0, "Db1xc1", "only when stepping")


def test_diamond_cell_moves_never_capture():
    st = state("Ki1 Db2", "Ka9 Cb4")
    assert dests(st, "b2") == {"b3"}
    assert_refused(GAME, st, 0, "Db2xb4", "never captures")


def test_diamond_no_backward_no_sideways_move():
    st = state("Ki1 Da3", "Ka9")
    assert dests(st, "a3") == {"a4"}
    assert_refused(GAME, st, 0, "Da3-a2", "never moves backwards")
    assert_refused(GAME, st, 0, "Da3-b3", "sideways only to capture")


def test_black_diamonds_move_down():
    st = state("Ki1", "Ka9 Dc8 Db8", side="b")
    assert dests(st, "c8") == {"c7", "c6"}
    assert dests(st, "b8") == {"b7", "b6"}


# -- rescue (3.6) --------------------------------------------------------------------


def test_rescue_choices_on_the_far_row():
    st = state("Ki1 Db8", "Ka9 Cc9", pool="TSc")
    moves = {m for m in GAME.legal_moves(st) if m.startswith("Db8")}
    # Forward onto the slope b9 (the far row), plain or swapped for T or S.
    assert moves == {"Db8-b9", "Db8-b9=T", "Db8-b9=S"}
    new = GAME.play(st, 0, "db8-b9=t")
    assert GAME.position(new).split()[0].startswith("kTc")
    assert GAME.position(new).split()[2] == "Sc"  # the Triangle left the pool
    plain = GAME.play(st, 0, "Db8-b9")
    assert GAME.position(plain).split()[0].startswith("kDc")


def test_rescue_refusals():
    st = state("Ki1 Db8 Dc4", "Ka9", pool="T")
    assert_refused(GAME, st, 0, "Db8-b9=S", "no captured Square")
    assert_refused(GAME, st, 0, "Dc4-c5=T", "far row")
    assert_refused(GAME, st, 0, "Db8-b9=K", "cannot be rescued")
    assert_refused(GAME, st, 0, "Db8-b9=D", "cannot be rescued")
    st2 = state("Ki1 Db9 Cc5", "Ka7", pool="T")
    assert dests(st2, "b9") == set()  # already on the far row: no later rescue
    assert_refused(GAME, st2, 0, "Cc5-c7=T", "only a Diamond")


def test_captured_pieces_enter_the_pool_but_diamonds_do_not():
    st = state("Ki1 Ca3", "Ka9 Ta5 Da4", side="w")
    st = GAME.play(st, 0, "Ca3xa5")
    assert GAME.position(st).split()[2] == "t"
    st = state("Ki1 Ca3", "Ka9 Da5", side="w")
    st = GAME.play(st, 0, "Ca3xa5")
    assert GAME.position(st).split()[2] == "-"


def test_black_rescue_onto_rank_1():
    st = state("Ki9", "Ka9 Dh2", side="b", pool="p")
    assert {m for m in GAME.legal_moves(st) if m.startswith("Dh2")} == {"Dh2-h1", "Dh2-h1=P"}


# -- check, the Star, the diagonal check rule (3.7) -----------------------------------


def test_e3_square_pins_the_e8_diamond():
    st = GAME.start(
        GAME.parse_options(["-position=pstckctsp/ddddddddd/9/9/9/9/4S4/DDDDDDDDD/P1TCKCTSP b - 1"]),
        2,
    )
    black = "Da8-a7 Db8-b7 Db8-b6 Dc8-c7 Dc8-c6 Cd9-d7 Dd8-d7 Dd8-d6 Cf9-f7 Df8-f7 Df8-f6 Dg8-g7 Dg8-g6 Dh8-h7 Dh8-h6 Di8-i7"
    assert sorted(GAME.legal_moves(st)) == sorted(black.split())
    assert_refused(GAME, st, 1, "De8-e7", "check", "Square on e3")


def test_e2_diamond_shields_the_throne():
    st = GAME.start(
        GAME.parse_options(["-position=1stckctsp/ddddddddd/4p4/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1"]),
        2,
    )
    white = "Da2-a3 Db2-b3 Db2-b4 Dc2-c3 Dc2-c4 Cd1-d3 Dd2-d3 Dd2-d4 Cf1-f3 Df2-f3 Df2-f4 Dg2-g3 Dg2-g4 Dh2-h3 Dh2-h4 Di2-i3"
    assert sorted(GAME.legal_moves(st)) == sorted(white.split())
    assert_refused(GAME, st, 0, "De2-e3", "would put your own Star in check", "Pentagon on e7")


def test_diagonal_check_rule_between_dungeon_stars():
    # Kd4 and Kf6 may stand diagonally adjacent; d6 and f4 are orthogonally
    # adjacent to f6 (check), f6 itself holds a Star that is never captured.
    st = state("Kd4", "Kf6")
    assert "CHECK" not in GAME.render(st)
    assert dests(st, "d4") == {"b2", "b4", "b6", "d2", "f2"}
    assert_refused(GAME, st, 0, "Kd4xf6", "never be captured")
    assert_refused(GAME, st, 0, "Kd4-d6", "check")


def test_orthogonally_adjacent_dungeon_stars_is_not_a_position():
    with pytest.raises(Exception, match="check"):
        GAME.parse_options(["-position=9/9/9/9/9/3K1k3/9/9/9 w - 1"])


def test_a_star_on_a_bridge_checks_a_diagonal_dungeon_star():
    # W Ke5 (bridge) attacks the cells d4 d6 f4 f6 and steps to d5..b5, f5..h5.
    st = state("Ke5", "Kd4", side="b")
    assert "CHECK" in GAME.render(st)
    assert dests(st, "d4") == {"b2", "b4", "b6", "d2", "f2"}


def test_leaving_the_star_in_check_is_refused():
    # The White Star on e1 is checked by the Square on e4 (file e, e3 is a
    # trough).  It escapes by stepping down at e1 onto d1 or f1 (and on along
    # those segments) or into f2, or the Circle blocks on e2 (a piece on e3
    # would not block).  Nothing can capture e4.
    st = state("Ke1 Dd2 Cc2", "Ka9 Se4")
    assert "CHECK" in GAME.render(st)
    expected = "Ke1-d1 Ke1-c1 Ke1-b1 Ke1-f1 Ke1-g1 Ke1-h1 Ke1-f2 Cc2-e2"
    assert sorted(GAME.legal_moves(st)) == sorted(expected.split())
    for mv in GAME.legal_moves(st):
        after = GAME.play(st, 0, mv)
        assert "White's Star is in CHECK" not in GAME.render(after)
    assert_refused(GAME, st, 0, "Dd2-d3", "in check")


# -- end of game and grades (3.8) ----------------------------------------------------------


def test_checkmate_with_star_on_throne_is_a_triumph():
    # Circles on b7 c7 d7 cover b8 b9 c9 d9; Ca5-a7 then attacks a9.
    st = state("Ke1 Cb7 Cc7 Cd7 Ca5", "Ka9")
    assert GAME.outcome(st) is None
    st = GAME.play(st, 0, "Ca5-a7")
    out = GAME.outcome(st)
    assert GAME.to_move(st) is None
    assert out.winners == (0,) and out.losers == (1,)
    assert "checkmate" in out.reason and out.grade == "Triumph"
    assert GAME.legal_moves(st) == []
    assert_refused(GAME, st, 1, "Ka9-b9", "game is over")
    board = GAME.render(st)
    assert "Triumph" in board and "White wins" in board


def test_a_star_that_came_back_earns_only_an_ovation():
    st = state("Ke1 Cb7 Cc7 Cd7 Ca5", "Ka9")
    data = json.loads(json.dumps(GAME.dump(st)))
    data["star_moved"] = [True, False]
    st = GAME.play(GAME.load(data), 0, "Ca5-a7")
    assert GAME.outcome(st).grade == "Ovation"


def test_star_move_sets_the_moved_flag():
    # Ke1 starts unmoved on its throne; it walks e1-f1 (step down), f1-g3,
    # g3-d3 (step down f3, slide to d3) and d3-e1 (step down e2, on to e1).
    st = state("Ke1 Cb7 Cc7 Cd7 Ca5", "Ka9 Ci5")
    assert GAME.dump(st)["star_moved"] == [False, True]
    st = GAME.play(st, 0, "Ke1-f1")
    assert GAME.dump(st)["star_moved"] == [True, True]
    st = play_all(st, "Ci5-i4 Kf1-g3 Ci4-i5 Kg3-d3 Ci5-i4 Kd3-e1 Ci4-i5")
    assert GAME.dump(st)["star_moved"] == [True, True]
    assert "back on its throne" in GAME.render(st)
    # Back on the throne after leaving it: the mate is an Ovation, not a Triumph.
    out = GAME.outcome(GAME.play(st, 0, "Ca5-a7"))
    assert (out.winners, out.reason, out.grade) == ((0,), "Black is checkmated", "Ovation")


def test_checkmate_with_star_on_the_weave_is_an_ovation():
    st = GAME.play(state("Ki1 Cb7 Cc7 Cd7 Ca5", "Ka9"), 0, "Ca5-a7")
    assert GAME.outcome(st).grade == "Ovation"


def test_winner_in_dungeon_loser_on_weave_is_a_victory():
    st = GAME.play(state("Kh2 Cb7 Cc7 Cd7 Ca5", "Ka9"), 0, "Ca5-a7")
    assert GAME.outcome(st).grade == "Victory"


def test_mate_between_dungeon_stars_is_a_victory():
    # Kb8's cells: b6 (Circle, guarded by Kd6), d8 (next to Kd6), d6 (a Star).
    st = state("Kd6 Cb4", "Kb8")
    st = GAME.play(st, 0, "Cb4-b6")
    out = GAME.outcome(st)
    assert out.winners == (0,) and "checkmate" in out.reason and out.grade == "Victory"


def test_stalemate_loses():
    st = state("Ki1 Cb7 Cc7 Cd7", "Ka9", side="b")
    out = GAME.outcome(st)
    assert GAME.to_move(st) is None
    assert out.winners == (0,) and out.losers == (1,)
    assert "stalemate" in out.reason and out.grade == "Ovation"


REPEAT = "Cc5-c6 Cg5-g6 Cc6-c5 Cg6-g5 Cc5-c6 Cg5-g6 Cc6-c5"


def test_threefold_repetition_loses_for_the_player_who_makes_it():
    st = play_all(state("Ki1 Cc5", "Ka9 Cg5"), REPEAT)
    assert GAME.outcome(st) is None
    stored = json.loads(json.dumps(GAME.dump(st)))
    st = GAME.play(st, 1, "Cg6-g5")
    out = GAME.outcome(st)
    assert out.winners == (0,) and out.losers == (1,) and "third time" in out.reason
    assert out.grade == "Ovation"
    assert GAME.legal_moves(st) == []
    # The repetition history survives dump/load.
    again = GAME.play(GAME.load(stored), 1, "Cg6-g5")
    assert GAME.outcome(again) == out


def test_repetition_counts_from_a_position_string():
    st = play_all(state("Ki1 Cc5", "Ka9 Cg5"), "Cc5-c6 Cg5-g6 Cc6-c5 Cg6-g5 Cc5-c6 Cg5-g6 Cc6-c5")
    assert GAME.outcome(st) is None  # start occurred twice so far
    fresh = GAME.start(GAME.parse_options([f"-position={GAME.position(st)}"]), 2)
    fresh = GAME.play(fresh, 1, "Cg6-g5")
    assert GAME.outcome(fresh) is None  # history restarts at the given position


# -- turn order and the contract --------------------------------------------------------------


def test_turns_and_seats():
    st = GAME.start(GAME.parse_options([]), 2)
    assert GAME.seat_names(st) == ["White", "Black"]
    assert GAME.to_move(st) == 0
    assert_refused(GAME, st, 1, "Da8-a7", "White's turn")
    st2 = GAME.play(st, 0, "Da2-a3")
    assert GAME.to_move(st2) == 1
    assert GAME.position(st) == START  # the old state is untouched
    with pytest.raises(IllegalMove):
        GAME.play(st2, 1, "Da2-a3")


def test_refusals_name_the_problem():
    st = GAME.start(GAME.parse_options([]), 2)
    assert_refused(GAME, st, 0, "hello", "not a move")
    assert_refused(GAME, st, 0, "Xa2-a3", "not a piece")
    assert_refused(GAME, st, 0, "Dd4-d5", "no piece on d4")
    assert_refused(GAME, st, 0, "Da8-a7", "Black's")
    assert_refused(GAME, st, 0, "Ta2-a3", "no Triangle on a2")
    assert_refused(GAME, st, 0, "Pa1-b1", "your own Square")
    assert_refused(GAME, st, 0, "Cd1-d1", "another square")
    assert_refused(GAME, st, 0, "Cd1-d4", "one or two squares")
    assert_refused(GAME, st, 0, "Tc1-e3", "blocked", "c2")


def test_triangle_leaves_the_dungeon_capturing_on_a_bridge_or_passes_under():
    # Up-right from d4: e5 (enemy Circle on a bridge) may be taken, and the ray
    # passes under it to f6, g7, h8, i9 all the same.
    st = state("Ki1 Td4", "Ka9 Ce5")
    assert dests(st, "d4") == squares("a1 a7 b2 b6 c3 c5 e3 e5x f2 f6 g1 g7 h8 i9")


def test_square_passes_under_its_own_piece_when_leaving_the_dungeon():
    # Up from d4: d5 holds a White Diamond (not a destination, not a block).
    st = state("Ki1 Sd4 Dd5", "Ka9")
    assert {"d6", "d7", "d8", "d9"} <= dests(st, "d4") and "d5" not in dests(st, "d4")


def test_diamond_two_space_slide_from_the_rear_of_a_segment():
    # a4 a5 a6 is one segment: a4-a6 slides two; a5 is continuous, so no capture.
    st = state("Ki1 Da4", "Ka9")
    assert dests(st, "a4") == {"a5", "a6"}
    st = state("Ki1 Da4", "Ka9 Ca5")
    assert dests(st, "a4") == set()
    assert_refused(GAME, st, 0, "Da4-a6", "blocked", "a5")


def test_rescue_with_a_capture():
    st = state("Ki1 Db8", "Ka7 Cb9", pool="C")
    moves = {m for m in GAME.legal_moves(st) if m.startswith("Db8")}
    assert moves == {"Db8xb9", "Db8xb9=C"}
    after = GAME.play(st, 0, "Db8xb9=C")
    assert GAME.position(after).split()[0].startswith("1C7")
    assert GAME.position(after).split()[2] == "c"  # Black's Circle is in Black's pool now


def test_a_diamond_already_on_the_far_row_captures_sideways_without_rescue():
    # b9 -> a9 is a step (a9 has file a on top), so the capture stands, but the
    # Diamond did not arrive on the far row with this move: no rescue (3.6).
    st = state("Ki1 Db9", "Ke5 Ca9", pool="T")
    assert {m for m in GAME.legal_moves(st) if m.startswith("Db9")} == {"Db9xa9"}
    assert_refused(GAME, st, 0, "Db9xa9=T", "already stands on the far row")
    st = state("Ki9 Cb1", "Ke5 Da1", side="b", pool="t")
    assert {m for m in GAME.legal_moves(st) if m.startswith("Da1")} == {"Da1xb1"}


def test_a_move_that_cannot_reach_the_enemy_star_gets_the_geometric_reason():
    # "Stars are never captured" only where the piece could otherwise land there.
    st = state("Ke1 Di2 Ci1", "Ke9")
    assert_refused(GAME, st, 0, "Di2-e9", "one space (or one cell) forward")
    assert_refused(GAME, st, 0, "Ci1-e9", "one or two squares")
    # A Diamond's slide could reach the Star's square (no capture, no check).
    st = state("Ke1 Da1", "Ka2")
    assert_refused(GAME, st, 0, "Da1xa2", "never be captured")


def test_a_star_on_a1_is_checked_like_any_other():
    # a1 is square 0 of the board: check detection must not skip it.
    st = state("Ka1 Di2", "Ki9 Ca3")
    assert sorted(GAME.legal_moves(st)) == ["Ka1-b1", "Ka1-b2", "Ka1-c1", "Ka1-d1"]
    assert_refused(GAME, st, 0, "Di2-i3", "your Star on a1 is in check and Di2-i3 does not end it")
    with pytest.raises(OptionError, match="Star is in check"):  # Black to move: impossible
        GAME.parse_options(["-position=" + fen("Ka1 Di2", "Ki9 Ca3", side="b")])
