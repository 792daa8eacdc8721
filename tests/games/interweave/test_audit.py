"""Audit of spec rules not pinned down elsewhere; every expectation is hand-derived.

Each test names the spec section it checks.  Piece-level "steps of X" lists
(spec §8 wording) are checked through the generator, ignoring the
compulsory rule, exactly as the spec states them.
"""

from __future__ import annotations

from games.interweave import GAME
from games.interweave.board import NAMES, SQUARE_OF
from games.interweave.moves import piece_steps
from tests.games.interweave.helpers import play_all, state, words
from tests.games.playout import assert_refused


def legal(st) -> list[str]:
    return sorted(GAME.legal_moves(st))


def fields(st) -> list[str]:
    return GAME.position(st).split()


def steps_of(st, square: str) -> list[str]:
    """The spec's "steps of X": every step of that piece, ignoring compulsion."""
    pos = st.pos
    s = SQUARE_OF[square]
    return sorted(
        st_.text(True) for st_ in piece_steps(pos.board, s, pos.ep, pos.reserves[pos.side], False)
    )


# -- §8 "steps of" lists ------------------------------------------------------


def test_t2_steps_of_the_king_include_its_non_captures() -> None:
    st = state("Ke5 Kh1", "Re6 Ld5 Kg8 Kh8")
    assert steps_of(st, "e5") == words("e5-d4 e5-d6 e5-f4 e5-f6 e5xc5 e5xe7")


def test_t3_t6_t8_steps_of_smasher_and_leaper() -> None:
    st = state("Sb2 Kh4 Kh5", "Pf6 Pf2 Kg8 Kh8")
    assert steps_of(st, "b2") == words(
        "b2-a1 b2-c1 b2-a3 b2-c3 b2-d4 b2-e5 b2-b4 b2-b6 b2-b8 b2-d2"
    )
    st = state("La1 Pb3 Kh4 Kh5", "Pa7 Pf6 Rg1 Kc8 Kd8")
    assert steps_of(st, "a1") == words("a1-a3 a1-a5 a1-c1 a1-e1 a1-b2 a1-c3 a1-d4 a1-e5 a1-e3")
    st = state("La1 Kh4 Kh5", "Pa2 Pa3 Rc1 Kc8 Kd8")
    assert steps_of(st, "a1") == words("a1-b2 a1-c3 a1-d4 a1-e5 a1-f6 a1-g7 a1-h8 a1-c5 a1-e3")


def test_t10_leaper_slide_next_to_an_enemy_does_not_capture_it() -> None:
    st = state("La1 Pa5 Kh1 Kh2", "Pa4 Kc8 Kd8")
    after = GAME.play(st, 0, "a1-a3")
    assert fields(after)[0] == "2kk4/8/8/P7/p7/L7/7K/7K"
    assert fields(after)[3] == "-" and fields(after)[4] == "1"


# -- §1 set-up ------------------------------------------------------------------


def test_black_has_one_of_each_piece_and_four_pawns_on_each_colour() -> None:
    st = GAME.start(GAME.parse_options([]), 2)
    board = st.pos.board
    for colour in (True, False):
        on = sorted(
            board[s]
            for s in range(64)
            if board[s].islower() and ((s % 8 + s // 8) % 2 == 0) is colour
        )
        assert on == sorted("klrspppp")


# -- §3.2 approach capture is automatic ----------------------------------------


def test_smasher_approach_cannot_be_declined() -> None:
    # T4: b2-b6 always takes b7; claiming it captures nothing is refused.
    st = state("Sb2 Kh4 Kh5", "Pb7 Pg2 Kd8 Ke8")
    assert_refused(GAME, st, 0, "b2-b6{}", "captured list", "b7")
    assert fields(GAME.play(st, 0, "b2-b6"))[0] == "3kk3/8/1S6/7K/7K/8/6p1/8"


# -- §3.5 Black's forward direction, leap plus three custodians ---------------


def test_t15_mirrored_for_black() -> None:
    # T15 reflected top to bottom, Black to move: e6 leaps e5 to e4 and
    # sandwiches d4 (against c4), f4 (against g4) and e3 (against e2).
    st = state(
        "Re5 Ld4 Lf4 Se3 Ka1 Kh1",
        "Pe6 Sc4 Sg4 Pe2 Ka8 Kb8",
        side="b",
    )
    assert legal(st) == ["e6xe4"]
    after = GAME.play(st, 1, "e6xe4{d4,e3,e5,f4}")
    assert fields(after)[3] == "SLLR"  # White's own pieces go to White's reserve
    assert fields(after)[0] == "kk6/8/8/8/2s1p1s1/8/4p3/K6K"


# -- §3.5.2 staying a Pawn on the 7th rank inside a chain ---------------------


def test_chain_pawn_stays_pawn_on_7th_then_must_promote_on_8th() -> None:
    # c5 leaps c6 to c7 (7th rank, reserve L).  Staying a Pawn, it must go on:
    # c7-b8 sandwiches c8 against the King on d8, and b8 needs =L.  Promoting
    # to a Leaper on c7 instead leaves no capture (c8 has no square beyond).
    # The King on d8 may also leap c8.
    st = state("Pc5 Kd8 Ka1", "Lc6 Rc8 Kh4 Kh5", reserves="L")
    assert legal(st) == words("c5xc7xb8=L c5xc7=L d8xb8")
    assert_refused(GAME, st, 0, "c5xc7", "stops a capture chain", "c5xc7xb8=L")
    after = GAME.play(st, 0, "c5xc7{c6}xb8=L{c8}")
    assert fields(after)[0] == "1L1K4/8/8/7k/7k/8/8/K7"
    assert fields(after)[3] == "lr"


# -- §3.5.4 en passant only from behind the passed square ---------------------


def test_en_passant_only_by_the_pawn_behind_the_passed_square() -> None:
    # f7-d5 passes e6: only a White Pawn on e5 may leap e6.  The Pawn on c5,
    # beside d5 on the other side, has no en passant.
    st = state("Pc5 Kh1 Kh2", "Pf7 Ka8 Kb8", side="b")
    st = GAME.play(st, 1, "f7-d5")
    assert fields(st)[2] == "e6:d5"
    assert legal(st) == words("c5-b6 c5-d6 h1-g2 h2-g1 h2-g3")


def test_white_en_passant_lands_on_the_7th_rank_and_may_promote() -> None:
    st = state("Pe5 Kh1 Kh2", "Pf7 Ka8 Kb8", side="b", reserves="L")
    st = GAME.play(st, 1, "f7-d5")
    assert legal(st) == ["e5xe7", "e5xe7=L"]
    after = GAME.play(st, 0, "e5xe7=L{d5}")
    assert fields(after)[0] == "kk6/4L3/8/8/8/8/7K/7K" and fields(after)[3] == "-"


# -- §4 only the capturing piece continues --------------------------------------


def test_other_pieces_captures_never_extend_the_turn() -> None:
    # The Remover e4 takes e5; the King c3 could then leap c4, but the turn
    # has ended.  Each capture is its own turn.
    st = state("Re4 Kc3 Kh1", "Pe5 Pc4 Kg8 Kh8")
    assert legal(st) == words("c3xc5 e4*e5")
    after = GAME.play(st, 0, "e4*e5")
    assert GAME.to_move(after) == 1
    assert_refused(GAME, st, 0, "e4*e5*c4", "Remover")


# -- §5 precedence after a turn ----------------------------------------------------


def test_repetition_beats_the_move_count_draw() -> None:
    # The third occurrence is reached by the turn that makes the counter 100.
    st = state("Ka1 Kc1", "Ka8 Kc8", halfmove=92)
    cycle = ["a1-b2", "a8-b7", "b2-a1", "b7-a8"]
    st = play_all(st, *cycle, *cycle[:3])
    assert GAME.outcome(st) is None
    st = GAME.play(st, 1, "b7-a8")
    assert fields(st)[4] == "100"
    out = GAME.outcome(st)
    assert out.winners == (0,) and out.losers == (1,) and "repetition" in out.reason


def test_stalemate_beats_the_move_count_draw() -> None:
    # Kf6-g7 is the 100th quiet turn and leaves Black's Kings no step or leap.
    st = state("Kf6 Ka1 Pb7", "Ka8 Kh8", halfmove=99)
    st = GAME.play(st, 0, "f6-g7")
    assert fields(st)[4] == "100"
    out = GAME.outcome(st)
    assert out.winners == (0,) and out.losers == (1,) and "stalemate" in out.reason


def test_result_codes_in_reasons() -> None:
    st = GAME.play(state("Re4 Ka1 Kb1", "Ke5 Pf4 Kh8"), 0, "e4*e5")
    assert "1-0" in GAME.outcome(st).reason and "king-capture" in GAME.outcome(st).reason
    st = play_all(state("Ka1 Kc1", "Ka8 Kc8", halfmove=99), "a1-b2")
    assert "1/2-1/2" in GAME.outcome(st).reason and "fifty-move" in GAME.outcome(st).reason


def test_square_names_table() -> None:
    assert NAMES[0] == "a1" and NAMES[63] == "h8" and SQUARE_OF["e4"] == 28
