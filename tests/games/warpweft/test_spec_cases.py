"""The spec's test cases T1..T8, with move lists read from the spec itself.

For each refused entry the expected fragments of the reason are derived from
the case's explanation in the spec; the board must be unchanged and the same
player must still be on move.
"""

from __future__ import annotations

import json

import pytest

from games.warpweft import GAME
from tests.games.playout import assert_refused, assert_roundtrip
from tests.games.warpweft.spec_data import spec_case

SEAT = {"a": 0, "b": 1}

#: per case: fragments for each refused entry in order, and the expected result
EXPECTED: dict[str, dict] = {
    "T1": {"refusals": [["over"]], "winner": 0},
    "T2": {
        "refusals": [
            ["A1", "Weft thread", "you place Warp threads"],
            ["C2", "part of", "C1", "centre"],
            ["B2", "patch", "Threading"],
            ["H1", "off the board"],
            ["A0", "off the board"],
            ["A8", "off the board"],
            ["C1", "already claimed"],
        ],
        "winner": None,
    },
    "T3": {
        "refusals": [
            ["F4", "touches none of your threads"],
            ["D4", "touches none of your threads"],
            ["B2", "already claimed"],
        ],
        "winner": None,
    },
    "T4": {
        "refusals": [
            ["already Threading"],
            ["cannot switch to Patching", "no free patch touches one of your threads"],
            ["cannot switch to Patching"],
            ["already Threading"],
            ["already Patching"],
        ],
        "winner": None,
    },
    "T5": {
        "refusals": [
            ["D4", "touches none of your threads"],
            ["cannot switch to Patching"],
            ["cannot switch to Patching"],
            ["F4", "touches none of your threads"],
        ],
        "winner": None,
    },
    "T6": {
        "refusals": [["not your turn"], ["G1", "Warp thread", "you place Weft threads"]],
        "winner": None,
    },
    "T7": {
        "refusals": [["only the second player"], ["right after move 1"]],
        "winner": None,
    },
    "T8": {"refusals": [["already been swapped"], ["already been swapped"]], "winner": None},
}


def dumped(state) -> str:
    return json.dumps(GAME.dump(state), sort_keys=True)


def run_case(tag: str):
    title, steps = spec_case(tag)
    assert "(N=2, Thread-Primary)" in title
    state = GAME.start(GAME.parse_options(["-size=2"]), 2)
    refusals = iter(EXPECTED[tag]["refusals"])
    board_moves = 0
    for step in steps:
        seat = SEAT[step.user]
        if step.accepted:
            if step.move != "swap":
                board_moves += 1
                assert step.number == board_moves, (tag, step)
            assert GAME.to_move(state) == seat, (tag, step)
            assert step.move.upper() in GAME.legal_moves(state) or step.move in GAME.legal_moves(
                state
            ), (tag, step)
            state = GAME.play(state, seat, step.move)
        else:
            before, mover = dumped(state), GAME.to_move(state)
            fragments = next(refusals)
            assert_refused(GAME, state, seat, step.move, *fragments)
            assert dumped(state) == before and GAME.to_move(state) == mover
            assert step.move.upper() not in GAME.legal_moves(state) or seat != mover
    assert next(refusals, None) is None, "a refusal listed for the case was not met"
    assert_roundtrip(GAME, state)
    return state


@pytest.mark.parametrize("tag", sorted(EXPECTED))
def test_spec_case(tag: str) -> None:
    state = run_case(tag)
    winner = EXPECTED[tag]["winner"]
    out = GAME.outcome(state)
    if winner is None:
        assert out is None and GAME.to_move(state) is not None
    else:
        assert out is not None and out.winners == (winner,) and out.losers == (1 - winner,)


def test_t1_warp_wins_by_connection_and_nothing_follows() -> None:
    state = run_case("T1")
    out = GAME.outcome(state)
    assert out is not None and "connected top and bottom" in out.reason
    assert GAME.to_move(state) is None and GAME.legal_moves(state) == []


def test_t2_final_turn_and_owners() -> None:
    state = run_case("T2")
    dump = GAME.dump(state)
    assert dump["claimed"] == {"C1": "V", "C3": "H", "E3": "V"}
    assert GAME.to_move(state) == 1


def test_t5_bob_has_only_the_switch_back() -> None:
    """After 11.a E3 bob is Patching with every patch next to C3 taken, so
    his only valid play is the switch to Threading (spec T5)."""
    _, steps = spec_case("T5")
    state = GAME.start(GAME.parse_options(["-size=2"]), 2)
    for step in steps:
        if step.accepted and step.number == 12:
            break
        if step.accepted:
            state = GAME.play(state, SEAT[step.user], step.move)
    assert GAME.to_move(state) == 1
    assert GAME.legal_moves(state) == ["threads"]


def test_t5_end_states() -> None:
    state = run_case("T5")
    assert GAME.dump(state)["states"] == {"Warp": "patches", "Weft": "threads"}
    # bob (Weft, Threading) to move: every Weft thread but C3; no switch,
    # since every patch touching C3 (B2 D2 B4 D4) is taken
    assert GAME.to_move(state) == 1
    assert sorted(GAME.legal_moves(state)) == ["A1", "A5", "C7", "E1", "E5", "G3", "G7"]
    # and alice, Patching, has exactly F2 and F4 (the free patches next to E3)
    alice_view = GAME.play(state, 1, "A1")
    assert sorted(GAME.legal_moves(alice_view)) == ["F2", "F4", "threads"]


def test_t6_swap_gives_bob_warp_and_c1() -> None:
    state = run_case("T6")
    assert GAME.seat_names(state) == ["Weft", "Warp"]
    assert GAME.dump(state)["claimed"] == {"C1": "V", "C3": "H", "E3": "V", "E1": "H"}
    assert GAME.dump(state)["history"] == ["C1", "swap", "C3", "E3", "E1"]
    assert GAME.to_move(state) == 1  # bob (Warp) moves 5th


def test_t8_no_swap_offered_after_a_swap() -> None:
    state = run_case("T8")
    assert "swap" not in GAME.legal_moves(state)
