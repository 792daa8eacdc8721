"""Reading turns (spec §2) and refusing every bad one with the rule's name."""

from __future__ import annotations

import pytest

from games import OptionError
from games.interweave import GAME
from tests.games.interweave.helpers import state
from tests.games.playout import assert_refused


def start():
    return GAME.start(GAME.parse_options([]), 2)


T4 = ("Sb2 Kh4 Kh5", "Pb7 Pg2 Kd8 Ke8")
T11 = ("Re4 Ka1 Kb1", "Pe5 Pf4 Kg8 Kh8")
T13 = ("Pd6 Pa7 Sc5 Kh1 Kh2", "Sb7 Sc6 Kg8 Kh8")


def test_forgiving_input_gives_the_canonical_record() -> None:
    st = start()
    for written in ("e2-d3", "E2-D3", "Pe2-d3", "pe2xd3", " e2 - d3 "):
        after = GAME.play(st, 0, written)
        assert GAME.position(after).split()[0] == "srlkklrs/pppppppp/8/8/8/3P4/PPPP1PPP/SRLKKLRS"
        assert "Last move: e2-d3" in GAME.render(after)


def test_dash_may_be_written_for_a_capture() -> None:
    st = state(*T4)
    after = GAME.play(st, 0, "b2-b6")
    assert "Last move: b2xb6" in GAME.render(after)


def test_captured_list_is_checked() -> None:
    st = state(*T13)
    GAME.play(st, 0, "d6xc7{b7,c6}")
    assert_refused(GAME, st, 0, "d6xc7{b7}", "captured list", "b7,c6")
    assert_refused(GAME, state(*T11), 0, "e4*e5*f4{e5}", "captured list")
    GAME.play(state(*T11), 0, "e4*e5{e5}*f4{f4}")


def test_black_promotion_letter_is_upper_case() -> None:
    st = state("Ka1 Kb1", "Pf2 Kg8 Kh8", side="b", reserves="r")
    assert sorted(GAME.legal_moves(st)) == sorted(["f2-e1=R", "f2-g1=R", "g8-f7", "g8-h7", "h8-g7"])
    GAME.play(st, 1, "f2-e1=r")


@pytest.mark.parametrize(
    ("setup", "seat", "move", "fragments"),
    [
        (None, 0, "hello", ["Cannot read"]),
        (None, 0, "e2", ["Cannot read"]),
        (None, 0, "e2-d3=", ["Cannot read"]),
        (None, 0, "e2-d3=K", ["Cannot read"]),
        (None, 1, "e7-d6", ["not your turn", "White"]),
        (None, 0, "e3-d4", ["no piece on e3"]),
        (None, 0, "e7-d6", ["Black's"]),
        (None, 0, "Le2-d3", ["Pawn on e2, not a Leaper"]),
        (None, 0, "c1-d3", ["Leaper on c1 cannot land on d3", "not on its own colour"]),
        (None, 0, "c1-e1", ["occupied"]),
        (None, 0, "b1-d3", ["blocked at c2"]),
        (None, 0, "e2-e3", ["Pawn on e2 cannot land on e3", "not on its own colour"]),
        (None, 0, "e2-d3-c4", ["e2-d3 captures nothing", "turn ends"]),
        (None, 0, "e2*e3", ["Only a Remover"]),
        (None, 0, "b1*b2", ["Remover", "own"]),
        (None, 0, "b1*c1", ["your own"]),
        (None, 0, "b1*b3", ["not next to it"]),
        (None, 0, "e2-e4", ["Pawn on e2 cannot move to e4", "diagonally forward"]),
        (T4, 0, "b2-b4", ["You must capture: b2x"]),
        (T13, 0, "d6-e7", ["You must capture: d6xc7 is available"]),
        (T11, 0, "e4*e5", ["e4*e5 stops a capture chain that can continue (e4*e5*f4)"]),
        (T11, 0, "e4xe5", ["captures without moving", "e4*e5"]),
        (T11, 0, "e4*d4", ["nothing on d4"]),
        (T11, 0, "e4*e6", ["next to it"]),
        (("Pd6 Pb2 Kh1 Kh2", "Ka8 Kb8"), 0, "d6-c5", ["only moves forward"]),
        (("Pd6 Pb2 Kh1 Kh2", "Ka8 Kb8"), 0, "b2-a3=L", ["7th or 8th rank"]),
        (("Pd6 Pb2 Kh1 Kh2", "Ka8 Kb8"), 0, "d6-c7=L", ["no captured Leaper"]),
        (("Pc7 Ka1 Kb1", "Kg8 Kh8"), 0, "c7-b8", ["may not enter the last rank"]),
        (("Pc7 Ka1 Kb1", "Kg8 Kh8"), 0, "c7-b8=S", ["no captured Smasher"]),
        (("Pc7 Ka1 Kb1", "Kg8 Kh8", "SL"), 0, "c7-b8", ["must promote", "=S or =L"]),
        (
            ("Pc7 Ka1 Kb1", "Kg8 Kh8", "SL"),
            0,
            "c7-b8=R",
            ["no captured Remover", "Smasher, Leaper"],
        ),
        (("Ld4 Pc6 Kh1 Kh2", "Pe6 Ka8 Kh8"), 0, "d4-b8", ["midpoint c6"]),
        (("Ld4 Pc6 Kh1 Kh2", "Pe6 Ka8 Kh8"), 0, "d4-d6", ["You must capture: d4xf8"]),
        (("La1 Kh4 Kh5", "Pa2 Pa3 Rc1 Kc8 Kd8"), 0, "a1-a5", ["exactly one piece"]),
        (("La1 Pa3 Kh4 Kh5", "Kc8 Kd8"), 0, "a1-a5", ["own piece on a3"]),
        (("La1 Kh4 Kh5", "Pa3 Kc8 Kd8"), 0, "a1-a5", ["own colour, so it cannot be leapt"]),
        (("Re4 Ka1 Kb1", "Ke5 Pf4 Kh8"), 0, "e4*e5*f4", ["captures a King", "nothing may follow"]),
        (("La1 Kh5 Kh6", "Pa2 Pb3 Pc2 Kd8 Ke8"), 0, "a1xa3-a5", ["only go on capturing"]),
        (("Ke5 Kh1", "Ld5 Pc5 Re6 Le7 Kg8 Kh8"), 0, "e5-e7", ["occupied"]),
        (("Ke5 Kh1", "Ld5 Pc5 Re6 Le7 Kg8 Kh8"), 0, "e5-g7", ["King steps one square"]),
    ],
)
def test_refusals_name_the_rule(setup, seat, move, fragments) -> None:
    if setup is None:
        st = start()
    else:
        st = state(setup[0], setup[1], reserves=setup[2] if len(setup) > 2 else "-")
    before = GAME.dump(st)
    assert_refused(GAME, st, seat, move, *fragments)
    assert GAME.dump(st) == before


def test_no_move_after_the_game_ended() -> None:
    st = state("Re4 Ka1 Kb1", "Ke5 Pf4 Kh8")
    st = GAME.play(st, 0, "e4*e5")
    assert GAME.to_move(st) is None and GAME.legal_moves(st) == []
    assert_refused(GAME, st, 1, "h8-g7", "game is over")


def test_a_far_square_that_is_occupied_says_why_it_is_out_of_reach() -> None:
    # e8xf1 once said "the square is occupied": true, but the King could never
    # get there anyway.  A reachable occupied square still says "occupied".
    st = GAME.play(GAME.start(GAME.parse_options([]), 2), 0, "e2-d3")
    text = assert_refused(GAME, st, 1, "e8xf1")
    assert text == (
        "The King on e8 cannot move to f1: a King steps one square diagonally, "
        "or leaps over an orthogonally adjacent enemy"
    )
    assert_refused(GAME, st, 1, "d8-e7", "occupied")


LONG = "e2" + "-x" * 150


@pytest.mark.parametrize(
    "move", [LONG, "q" + LONG, "e2-d3{" + "z" * 300 + "}", "e2-e3=" + "L" * 300]
)
def test_a_long_move_is_quoted_cut(move: str) -> None:
    text = assert_refused(GAME, GAME.start(GAME.parse_options([]), 2), 0, move)
    assert len(text) < 200 and "..." in text


@pytest.mark.parametrize(
    "option",
    [
        "-" + "q" * 300,
        "-position=srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS " + "w" * 300 + " - - 0 1",
        "-position=srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w " + "c3" * 150 + " - 0 1",
    ],
)
def test_a_long_option_is_quoted_cut(option: str) -> None:
    with pytest.raises(OptionError) as err:
        GAME.parse_options([option])
    assert len(str(err.value)) < 200 and "..." in str(err.value)


@pytest.mark.parametrize(
    ("setup", "seat", "move", "reason"),
    [
        # A captured list on a quiet turn: the engine says what it captured.
        (
            None,
            0,
            "e2-d3{d4}",
            "The captured list {d4} does not match what e2-d3 captures: nothing",
        ),
        # An empty square off every Leaper line: the Leaper's whole rule (§3.3).
        (
            (("La1 Kh4 Kh5", "Kc8 Kd8"), "w"),
            0,
            "a1-b4",
            "The Leaper on a1 cannot move to b4: a Leaper slides diagonally or an even "
            "number of squares orthogonally, leaps over one enemy orthogonally, or makes "
            "a double knight's move",
        ),
        # A King two squares away behind its own piece: the King's rule, not "blocked".
        (
            (("Ke5 Pe6 Kh1", "Kg8 Kh8"), "w"),
            0,
            "e5-e7",
            "The King on e5 cannot move to e7: a King steps one square diagonally, or "
            "leaps over an orthogonally adjacent enemy",
        ),
        # Black's own pieces block Black's Leaper (T6 and T8, mirrored for Black).
        (
            (("Kh4 Kh5", "Ld5 Pc3 Kc8 Kd8"), "b"),
            1,
            "d5-b1",
            "The Leaper on d5 cannot move to b1: the midpoint c3 of the double knight's "
            "move holds your own piece",
        ),
        (
            (("Kh4 Kh5", "La8 Pa6 Kc8 Kd8"), "b"),
            1,
            "a8-a4",
            "The Leaper on a8 cannot move to a4: a Leaper cannot leap over its own piece on a6",
        ),
        # T8: two pieces in the way of a long leap.
        (
            (("La1 Kh4 Kh5", "Pa2 Pa3 Rc1 Kc8 Kd8"), "w"),
            0,
            "a1-a5",
            "The Leaper on a1 cannot move to a5: a Leaper leaps over exactly one piece",
        ),
        # §2 syntax: what is not a turn at all is answered with the turn's shape.
        (
            None,
            0,
            "hello",
            "Cannot read 'hello': a turn looks like e2-d3, a1xa3xc3xc1, e4*e5*f4 or b6-b7=L "
            "(origin, then '-' or 'x' and a landing square, or '*' and a victim)",
        ),
        (None, 0, "e4*e5=S", "Cannot read 'e4*e5=S': a '*' capture cannot promote"),
        (
            None,
            0,
            "d6xc7{b7,zz}",
            "Cannot read 'd6xc7{b7,zz}': 'zz' in the captured list is not a square",
        ),
        # A Smasher's even-distance slide along a rank, leftward, through its own Pawn.
        (
            (("Sh3 Pf3 Ka1 Kb1", "Kg8 Kh8"), "w"),
            0,
            "h3-d3",
            "The Smasher on h3 cannot move to d3: the way is blocked at f3",
        ),
    ],
)
def test_refusal_reasons_word_for_word(setup, seat, move, reason) -> None:
    if setup is None:
        st = start()
    else:
        (white, black), side = setup
        st = state(white, black, side=side)
    assert assert_refused(GAME, st, seat, move) == reason
