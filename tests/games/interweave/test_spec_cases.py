"""Spec §8 test cases T1-T16, as data: position lists and complete legal turns.

Expected lists are the spec's own (written with ``{captured}`` lists); each
turn is also played in that braced form, which makes the plugin check that
exactly those squares are captured.
"""

from __future__ import annotations

import pytest

from games.interweave import GAME
from tests.games.interweave.helpers import plain, state, words

KING_STEPS_T6 = "b3-a4 b3-c4 h4-g3 h4-g5 h5-g4 h5-g6"

CASES = {
    "T1": (
        None,
        "a2-b3 a2-c4 b2-a3 b2-c3 b2-d4 c1-a5 c1-e5 c2-a4 c2-b3 c2-d3 c2-e4 d2-b4 d2-c3 d2-e3 "
        "d2-f4 e2-c4 e2-d3 e2-f3 e2-g4 f1-d5 f1-h5 f2-d4 f2-e3 f2-g3 f2-h4 g2-e4 g2-f3 g2-h3 "
        "h2-f4 h2-g3",
    ),
    "T2": (("Ke5 Kh1", "Re6 Ld5 Kg8 Kh8"), "e5xc5{d5} e5xe7{e6}"),
    "T2b": (("Ke5 Kh1", "Ld5 Pc5 Re6 Le7 Kg8 Kh8"), "e5-d4 e5-d6 e5-f4 e5-f6 h1-g2"),
    "T3": (
        ("Sb2 Kh4 Kh5", "Pf6 Pf2 Kg8 Kh8"),
        "b2-a1 b2-c1 b2-a3 b2-c3 b2-d4 b2-e5 b2-b4 b2-b6 b2-b8 b2-d2 h4-g3 h4-g5 h5-g4 h5-g6",
    ),
    "T4": (("Sb2 Kh4 Kh5", "Pb7 Pg2 Kd8 Ke8"), "b2xb6{b7} b2xf2{g2}"),
    "T5": (("Sd4 Ka1 Kb1", "Pd7 Ph4 Kg8 Kh8"), "d4xd6{d7}"),
    "T6": (
        ("La1 Pb3 Kh4 Kh5", "Pa7 Pf6 Rg1 Kc8 Kd8"),
        "a1-a3 a1-a5 a1-c1 a1-e1 a1-b2 a1-c3 a1-d4 a1-e5 a1-e3 " + KING_STEPS_T6,
    ),
    "T7": (("La1 Kh4 Kh5", "Pa4 Pc2 Rh1 Kg8 Kh8"), "a1xa5{a4} a1xa7{a4} a1xe3{c2}"),
    "T8": (
        ("La1 Kh4 Kh5", "Pa2 Pa3 Rc1 Kc8 Kd8"),
        "a1-b2 a1-c3 a1-d4 a1-e5 a1-f6 a1-g7 a1-h8 a1-c5 a1-e3 h4-g3 h4-g5 h5-g4 h5-g6",
    ),
    "T9": (("Ld4 Pc6 Kh1 Kh2", "Pe6 Ka8 Kh8"), "d4xf8{e6}"),
    "T10": (
        ("La1 Pa5 Kh1 Kh2", "Pa4 Kc8 Kd8"),
        "a1-a3 a1-b2 a1-c1 a1-c3 a1-c5 a1-d4 a1-e1 a1-e3 a1-e5 a1-f6 a1-g1 a1-g7 a1-h8 a5-b6 "
        "h1-g2 h2-g1 h2-g3",
    ),
    "T11": (("Re4 Ka1 Kb1", "Pe5 Pf4 Kg8 Kh8"), "e4*e5*f4 e4*f4*e5"),
    "T13": (("Pd6 Pa7 Sc5 Kh1 Kh2", "Sb7 Sc6 Kg8 Kh8"), "d6xc7{b7,c6}"),
    "T14": (("Ph3 Sh7 Pe2 Ka1 Kb1", "Rh4 Lh6 Re3 Kc8 Kd8"), "e2xe4{e3} h3xh5{h4,h6}"),
    "T15": (
        ("Pe3 Sc5 Sg5 Pe7 Ka1 Kb1", "Re4 Ld5 Lf5 Se6 Ka8 Kh8"),
        "e3xe5{d5,e4,e6,f5}",
    ),
    "T16": (
        ("Pd4 Sc5 Sg5 Pe7 Se3 Ka1 Kb1", "Ld5 Lf5 Se6 Re4 Ka8 Kh8"),
        "d4xe5{d5,e4,e6,f5} d4xd6{d5}",
    ),
}


def _start(setup):
    if setup is None:
        return GAME.start(GAME.parse_options([]), 2)
    return state(*setup)


@pytest.mark.parametrize("name", list(CASES))
def test_complete_legal_turns(name: str) -> None:
    setup, expected = CASES[name]
    st = _start(setup)
    turns = expected.split()
    assert sorted(GAME.legal_moves(st)) == sorted(plain(t) for t in turns)
    for turn in turns:  # the braced form is accepted: exactly those squares go
        after = GAME.play(st, 0, turn)
        assert GAME.to_move(after) in (1, None)


def test_t1_has_no_capture_and_30_turns() -> None:
    st = _start(None)
    assert len(GAME.legal_moves(st)) == 30
    assert all("x" not in t and "*" not in t for t in GAME.legal_moves(st))


def test_t11_both_orders_give_the_same_position() -> None:
    st = _start(CASES["T11"][0])
    a = GAME.play(st, 0, "e4*e5*f4")
    b = GAME.play(st, 0, "e4*f4*e5")
    assert GAME.position(a) == GAME.position(b)
    assert GAME.position(a).split()[0] == "6kk/8/8/8/4R3/8/8/KK6"


def _turns_from(st, square: str) -> list[str]:
    return sorted(t for t in GAME.legal_moves(st) if t.startswith(square))


def test_t12a_pawn_non_captures() -> None:
    st = state("Pd6 Pb2 Kh1 Kh2", "Ka8 Kb8")
    assert _turns_from(st, "b2") == ["b2-a3", "b2-c3", "b2-d4"]
    assert _turns_from(st, "d6") == ["d6-c7", "d6-e7"]
    assert sorted(GAME.legal_moves(st)) == words("b2-a3 b2-c3 b2-d4 d6-c7 d6-e7 h1-g2 h2-g1 h2-g3")


def test_t12b_penultimate_rank_optional_promotion() -> None:
    st = state("Pd6 Pb2 Kh1 Kh2", "Ka8 Kb8", reserves="L")
    assert _turns_from(st, "d6") == ["d6-c7", "d6-c7=L", "d6-e7", "d6-e7=L"]


def test_t12c_double_step_blocked_by_first_square() -> None:
    st = state("Pb2 Pc3 Kh1 Kh2", "Ka8 Kb8")
    assert _turns_from(st, "b2") == ["b2-a3"]


def test_t13_captured_smashers_go_to_blacks_reserve() -> None:
    st = _start(CASES["T13"][0])
    after = GAME.play(st, 0, "d6xc7")
    fields = GAME.position(after).split()
    assert fields[3] == "ss"
    # b7 and c6 gone, the Pawn on c7 beside a7, no promotion (White's reserve is empty)
    assert fields[0] == "6kk/P1P5/8/2S5/8/8/7K/7K"


def test_t14_short_leap_counts_the_jumped_piece_once() -> None:
    st = _start(CASES["T14"][0])
    after = GAME.play(st, 0, "h3xh5")
    assert GAME.position(after).split()[3] == "lr"  # one Leaper, one Remover
