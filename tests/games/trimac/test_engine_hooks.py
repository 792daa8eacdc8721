"""TriMac's engine hooks: what the evaluation and the move ordering claim to do.

Positions are built from the spec's position strings (§6.1) on the
``BASE`` fixture of §8 (the three Generals with their central Guards).
"""

from __future__ import annotations

from games import load_game
from games.trimac import engine_hooks as hooks
from games.trimac.state import State

TRIMAC = load_game("trimac")
BASE = "rK@Rf1 rA@Rf4 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4"


def position(extra: str, to: str = "R") -> State:
    return TRIMAC.start(TRIMAC.parse_options([f"-position={BASE} {extra} to={to}"]), 3)


def test_a_big_lead_still_tells_an_attack_from_a_retreat() -> None:
    # Red is far ahead either way (two Rooks, two Cannons against two Guards).  The old
    # evaluation (a softmax stretched for three seats) read 1.0 for both, so the search
    # moved at random in won positions; now the Rooks in Blue's lattice are worth more.
    far = hooks.evaluate(TRIMAC, position("rR@Ra1 rR@Rk1 rC@Rc1 rC@Ri1"))
    near = hooks.evaluate(TRIMAC, position("rR@Bf6 rR@Bd5 rC@Rc1 rC@Ri1"))
    assert 0.5 < far[0] < near[0] < 1.0
    assert near[1] < far[1] and near[2] < far[2]


def test_a_general_with_its_steps_closed_counts_against_its_army() -> None:
    # The same material; in the second position a Red Rook stands on Blue's f-file
    # beyond the Guard, attacking nothing, and one on Blue's back rank closes steps.
    free = hooks.scores(position("rR@Ra1"))
    pressed = hooks.scores(position("rR@Ba1"))
    assert pressed[1] < free[1]


def test_an_army_out_of_the_game_is_worth_nothing() -> None:
    state = TRIMAC.resign(position("rR@Ra1"), 2)
    assert hooks.evaluate(TRIMAC, state)[2] == 0.0
    assert hooks.in_play(TRIMAC, state) == [0, 1]


def test_checks_come_first_then_captures_then_the_rest() -> None:
    # A Red Rook on Blue's a4 checks the Blue General from Ba1 and the Green one
    # from Gk1 and by taking the Green Guard on Gf4 (a capture and a check); it can
    # also take the Blue Pawn on Bb4 (a capture only).
    state = position("rR@Ba4 bP@Bb4")
    moves = TRIMAC.legal_moves(state)
    checks = {m for m in moves if TRIMAC.play(state, 0, m).history[-1][1].endswith("+")}
    assert checks == {"Ba4-Ba1", "Ba4xGf4", "Ba4-Gk1"}
    ordered = hooks.order(TRIMAC, state, list(reversed(moves)))
    assert sorted(ordered) == sorted(moves)
    assert set(ordered[:3]) == checks
    assert ordered[3] == "Ba4xBb4"
    assert not any("x" in m for m in ordered[4:])
