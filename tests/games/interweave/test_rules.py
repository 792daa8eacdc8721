"""Every rule of the spec beyond §8's listed cases, each from a hand-built position.

Expected turn lists were worked out by hand from spec §3-§5 (the reasoning
is in the comments), never taken from the plugin's output.
"""

from __future__ import annotations

from games.interweave import GAME
from games.interweave.board import DARK, SQUARE_OF
from tests.games.interweave.helpers import play_all, state, words


def legal(st) -> list[str]:
    return sorted(GAME.legal_moves(st))


def fields(st) -> list[str]:
    return GAME.position(st).split()


# -- §1 board and set-up ---------------------------------------------------


def test_a1_is_dark_and_colouring_alternates() -> None:
    assert DARK[SQUARE_OF["a1"]] and DARK[SQUARE_OF["h8"]] and DARK[SQUARE_OF["e1"]]
    assert not DARK[SQUARE_OF["h1"]] and not DARK[SQUARE_OF["a8"]] and not DARK[SQUARE_OF["d1"]]


def test_start_position_and_colour_split() -> None:
    st = GAME.start(GAME.parse_options([]), 2)
    assert GAME.position(st) == "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1"
    assert GAME.seat_names(st) == ["White", "Black"]
    assert GAME.to_move(st) == 0
    dark_white = {"a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2"}
    light_white = {"b1", "d1", "f1", "h1", "a2", "c2", "e2", "g2"}
    assert all(DARK[SQUARE_OF[s]] for s in dark_white)
    assert not any(DARK[SQUARE_OF[s]] for s in light_white)


# -- §3.1 King ---------------------------------------------------------------


def test_king_is_not_royal_it_may_step_next_to_an_enemy_king() -> None:
    # W Kd4 may go to e5 even though Black's King on e6 could then leap it.
    st = state("Kd4 Ka1", "Ke6 Kh8")
    assert "d4-e5" in legal(st)
    after = GAME.play(st, 0, "d4-e5")
    assert legal(after) == ["e6xe4"]  # compulsory: Black must take it


def test_king_cannot_leap_a_friend() -> None:
    st = state("Ke5 Pe6 Kh1", "Kg8 Kh8")
    assert not any(t.startswith("e5x") for t in legal(st))


# -- §3.3 Leaper ------------------------------------------------------------


def test_leaper_leaps_an_enemy_at_distance_one() -> None:
    # a2 is at distance 1 (odd): landings a3, a5, a7 (even distances), all empty.
    st = state("La1 Kh1 Kh2", "Pa2 Kc8 Kd8")
    assert legal(st) == ["a1xa3", "a1xa5", "a1xa7"]


def test_leaper_chain_from_spec_example_and_no_maximum_rule() -> None:
    # Worked by hand from §3.3 / §4: every maximal chain, long or short, is legal.
    st = state("La1 Kh5 Kh6", "Pa2 Pb3 Pc2 Kd8 Ke8")
    expected = words(
        "a1xa3xc3xc1 a1xa3xe3xa1 a1xa3xg3 a1xa3xe1 a1xa5xc1xc3 a1xa5xc1xc5 "
        "a1xa5xc1xc7 a1xa7 a1xc5xc1 a1xe3xa3xa1"
    )
    assert legal(st) == expected
    after = GAME.play(st, 0, "a1xa3xc3xc1")
    # a2, b3 and c2 gone; the Leaper ends on c1 (Kings h6, h5 and d8, e8 unchanged)
    assert fields(after)[0] == "3kk3/8/7K/7K/8/8/8/2L5"


# -- §3.4 Remover -----------------------------------------------------------


def test_remover_does_not_capture_diagonally() -> None:
    st = state("Re4 Ka1 Kb1", "Pd5 Kg8 Kh8")
    assert not any("*" in t for t in legal(st))


# -- §3.5 Pawn custodian ---------------------------------------------------


def test_enemy_moving_into_a_sandwich_is_safe() -> None:
    # Black's Remover slides c3-e5 between White Pawns d5 and f5: nothing happens.
    st = state("Pd5 Pf5 Ka1 Kb1", "Rc3 Kg8 Kh8", side="b")
    after = GAME.play(st, 1, "c3-e5")
    assert fields(after)[0].split("/")[3] == "3PrP2"


def test_existing_sandwich_is_not_captured_by_another_move() -> None:
    # Black Remover e5 sits between White d5 and f5; a White King move takes nothing.
    st = state("Pd5 Pf5 Ka1 Kb1", "Re5 Ke8 Kh8")
    # White has no capture: Pawns d5/f5 step to c6/e6/g6 with no sandwich.
    after = GAME.play(st, 0, "a1-b2")
    assert fields(after)[0].split("/")[3] == "3PrP2"


# -- §3.5 promotion -----------------------------------------------------------


def test_last_rank_promotion_is_compulsory_with_one_variant_per_reserve_type() -> None:
    st = state("Pc7 Ka1 Kb1", "Kg8 Kh8", reserves="SL")
    assert legal(st) == words("c7-b8=S c7-b8=L c7-d8=S c7-d8=L a1-b2 b1-a2 b1-c2")
    after = GAME.play(st, 0, "c7-b8=L")
    assert fields(after)[3] == "S"  # the Leaper left the reserve
    assert fields(after)[0].startswith("1L4kk/")


def test_empty_reserve_freezes_a_pawn_before_the_last_rank() -> None:
    st = state("Pc7 Ka1 Kb1", "Kg8 Kh8")
    assert legal(st) == words("a1-b2 b1-a2 b1-c2")


def test_back_rank_rule_removes_a_capture_and_its_obligation() -> None:
    # c6xc8 would take c7 but needs a promotion; with an empty reserve it does not exist.
    st = state("Pc6 Ka1 Kb1", "Rc7 Kg8 Kh8")
    assert legal(st) == words("c6-b7 c6-d7 a1-b2 b1-a2 b1-c2")
    # With a Smasher in reserve it exists and is compulsory; the new Smasher on c8
    # has no capture (it cannot stop at odd distances), so the turn ends.
    st = state("Pc6 Ka1 Kb1", "Rc7 Kg8 Kh8", reserves="S")
    assert legal(st) == ["c6xc8=S"]


def test_promotion_inside_a_chain_uses_the_new_powers() -> None:
    # Pawn leaps c7, promotes to Remover on c8, which must remove b8 and d8.
    st = state("Pc6 Ka1 Kb1", "Pc7 Lb8 Sd8 Kh4 Kh5", reserves="R")
    assert legal(st) == ["c6xc8=R*b8*d8", "c6xc8=R*d8*b8"]
    after = GAME.play(st, 0, "c6xc8=R*b8*d8")
    assert fields(after)[3] == "sl"  # White's R used; Black's S and L captured
    assert fields(after)[0].startswith("2R5/")


def test_different_promotions_lead_to_different_continuations() -> None:
    # As a Smasher the piece on c8 has no capture, so that turn stops at once.
    st = state("Pc6 Ka1 Kb1", "Pc7 Lb8 Sd8 Kh4 Kh5", reserves="SR")
    assert legal(st) == ["c6xc8=R*b8*d8", "c6xc8=R*d8*b8", "c6xc8=S"]


def test_non_capturing_promotion_ends_the_turn() -> None:
    st = state("Pc7 Ka1 Kb1", "Sa8 Kg8 Kh8", reserves="R")
    assert legal(st) == words("c7-b8=R c7-d8=R a1-b2 b1-a2 b1-c2")


def test_promoted_piece_captured_returns_to_the_reserve() -> None:
    st = state("Pc7 Ka1 Kb1", "Re8 Kh4 Kh5", reserves="L")
    st = GAME.play(st, 0, "c7-d8=L")
    assert fields(st)[3] == "-"
    assert legal(st) == ["e8*d8"]
    st = GAME.play(st, 1, "e8*d8")
    assert fields(st)[3] == "L"


def test_frozen_pawns_only_means_stalemate() -> None:
    # Black's b2 Pawn cannot enter rank 1 without a reserve; both Kings are boxed in.
    st = state("Pb7 Pg7 Kd1 Ke1", "Pb2 Ka8 Kh8", side="b")
    out = GAME.outcome(st)
    assert out is not None and out.winners == (0,) and out.losers == (1,)
    assert "stalemate" in out.reason and GAME.to_move(st) is None
    st = state("Pb7 Pg7 Kd1 Ke1", "Pb2 Ka8 Kh8", side="b", reserves="s")
    assert legal(st) == ["b2-a1=S", "b2-c1=S"]


# -- §3.5.4 en passant --------------------------------------------------------


def test_en_passant_by_short_leap() -> None:
    st = state("Pb2 Kh1 Kh2", "Pc4 Ka8 Kb8")
    st = GAME.play(st, 0, "b2-d4")
    assert fields(st)[2] == "c3:d4"
    assert legal(st) == ["c4xc2"]  # compulsory
    st = GAME.play(st, 1, "c4xc2")
    assert fields(st)[0] == "kk6/8/8/8/8/8/2p4K/7K"


def test_en_passant_right_is_written_even_when_unusable_and_kings_cannot_use_it() -> None:
    st = state("Pb2 Kh1 Kh2", "Kc4 Pe4 Kh8")
    st = GAME.play(st, 0, "b2-d4")
    assert fields(st)[2] == "c3:d4"
    # The King on c4 stands where a Pawn could take en passant, but Kings cannot.
    assert legal(st) == words("c4-b3 c4-b5 c4-d3 c4-d5 e4-d3 e4-f3 h8-g7")


def test_en_passant_right_lapses_after_one_turn() -> None:
    st = state("Pb2 Sf7 Kh1 Kh2", "Pc4 Rf8 Ka8 Kb8")
    st = GAME.play(st, 0, "b2-d4")
    assert sorted(GAME.legal_moves(st)) == ["c4xc2", "f8*f7"]
    st = GAME.play(st, 1, "f8*f7")
    assert fields(st)[2] == "-"
    st = GAME.play(st, 0, "h1-g2")
    assert not any("x" in t for t in legal(st))


def test_en_passant_only_as_the_first_step() -> None:
    # c6xc4 lands beside d4, but the chain may not go on with en passant.
    st = state("Pb2 Sc5 Kh1 Kh2", "Pc6 Kg8 Kh8")
    st = GAME.play(st, 0, "b2-d4")
    assert legal(st) == ["c6xc4"]


def test_double_step_with_custodian_capture_keeps_the_right() -> None:
    # T31: b2-d4 sandwiches e4 against f4 and still gives Black c4xc2.
    st = state("Pb2 Sf4 Kh1 Kh2", "Le4 Pc4 Ka8 Kb8")
    assert legal(st) == ["b2xd4"]
    st = GAME.play(st, 0, "b2xd4{e4}")
    assert fields(st)[2] == "c3:d4"
    # Black's reserve now holds the Leaper, so landing on c2 may promote.
    assert legal(st) == ["c4xc2", "c4xc2=L"]


def test_double_step_that_continues_its_chain_gives_no_right() -> None:
    st = state("Pb2 Sf4 Kh1 Kh2", "Le4 Pd5 Pc4 Ka8 Kb8")
    assert legal(st) == ["b2xd4xd6"]
    st = GAME.play(st, 0, "b2xd4xd6")
    assert fields(st)[2] == "-"


# -- §4 turn procedure -------------------------------------------------------


def test_king_capture_ends_the_chain_and_the_game() -> None:
    st = state("Re4 Ka1 Kb1", "Ke5 Pf4 Kh8")
    assert legal(st) == ["e4*e5", "e4*f4*e5"]
    for turn in legal(st):
        out = GAME.outcome(GAME.play(st, 0, turn))
        assert out is not None and out.winners == (0,) and out.losers == (1,)
        assert "King" in out.reason


def test_halfmove_clock_resets_on_capture_and_pawn_move() -> None:
    st = state("Pb2 Re4 Ka1 Kb1", "Pe5 Kg8 Kh8", halfmove=7)
    st2 = GAME.play(st, 0, "e4*e5")
    assert fields(st2)[4] == "0"
    st3 = GAME.play(st2, 1, "g8-f7")
    assert fields(st3)[4] == "1" and fields(st3)[5] == "2"
    st4 = GAME.play(st3, 0, "b2-a3")
    assert fields(st4)[4] == "0"


# -- §5 game end --------------------------------------------------------------


def test_stalemate_after_a_move_loses() -> None:
    st = state("Pb7 Pf6 Kd1 Ke1", "Ka8 Kh8")
    st = GAME.play(st, 0, "f6-g7")
    out = GAME.outcome(st)
    assert out is not None and out.winners == (0,) and out.losers == (1,)
    assert GAME.legal_moves(st) == []


def test_threefold_repetition_loses_for_the_repeating_player() -> None:
    # T29: in a pure shuffle from White's move, Black completes the third occurrence.
    st = state("Ka1 Kc1", "Ka8 Kc8")
    cycle = ["a1-b2", "a8-b7", "b2-a1", "b7-a8"]
    st = play_all(st, *cycle, *cycle[:3])
    assert GAME.outcome(st) is None
    st = GAME.play(st, 1, "b7-a8")
    out = GAME.outcome(st)
    assert out is not None and out.winners == (0,) and out.losers == (1,)
    assert "repet" in out.reason


def test_fifty_move_draw_and_option_off() -> None:
    st = state("Ka1 Kc1", "Ka8 Kc8", halfmove=98)
    st = play_all(st, "a1-b2")
    assert GAME.outcome(st) is None
    st = GAME.play(st, 1, "a8-b7")
    out = GAME.outcome(st)
    assert out is not None and out.winners == () and out.losers == () and out.is_draw
    opts = GAME.parse_options(["-fifty=off", "-position=k1k5/8/8/8/8/8/8/K1K5 w - - 98 60"])
    st = play_all(GAME.start(opts, 2), "a1-b2", "a8-b7")
    assert GAME.outcome(st) is None and fields(st)[4] == "100"


def test_loaded_position_is_checked_at_once() -> None:
    st = state("Ka1 Kc1", "Ka8 Kc8", halfmove=100)
    assert GAME.outcome(st) is not None and GAME.outcome(st).is_draw
    # Stalemate beats the move-count rule.
    st = state("Pb7 Pg7 Kd1 Ke1", "Ka8 Kh8", side="b", halfmove=100)
    assert GAME.outcome(st).losers == (1,)


def test_custodian_partner_may_be_a_king() -> None:
    # b4-c5 sandwiches d5 against the White King on e5; the King can also leap d5.
    st = state("Pb4 Ke5 Kh1", "Ld5 Ka8 Kh8")
    assert legal(st) == ["b4xc5", "e5xc5"]
    assert fields(GAME.play(st, 0, "b4xc5{d5}"))[3] == "l"


def test_en_passant_landing_also_captures_custodially() -> None:
    # f2-d4 passes e3; e4xe2 takes d4 en passant and d2 against Black's c2.
    st = state("Pf2 Pd2 Kh1 Kh2", "Pe4 Pc2 Ka8 Kb8")
    st = GAME.play(st, 0, "f2-d4")
    assert fields(st)[2] == "e3:d4"
    assert legal(st) == ["e4xe2"]
    st = GAME.play(st, 1, "e4xe2{d2,d4}")
    assert fields(st)[0] == "kk6/8/8/8/8/8/2p1p2K/7K"


def test_smasher_cannot_jump() -> None:
    st = state("Sa1 Pa2 Kh1 Kh2", "Pa4 Kc8 Kd8")
    # a4 would be approached from a3, but a2 (own Pawn) blocks the slide.
    assert not any(t.startswith("a1x") for t in legal(st))
