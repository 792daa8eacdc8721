"""A small fixed-seed "beats random" check for every installed game.

The full figures (50+ games a level, level 3 against level 1) are the
benchmark's (bench/bench_computer.py); this only proves, quickly, that
the engine plays each game for real: it wins against a uniform-random mover
in a few fixed-seed games.  TriMac's win needs both opponents checkmated,
which takes a few hundred plies (176 in the fixed-seed game, ~3 s of
CPU).
"""

from __future__ import annotations

import random

import pytest

from games import available
from games.contract import Game
from games.engine import Level, choose
from games.engine.hooks import hooks_for

TWO_PLAYER = [g for g in available() if g.players == 2 and g.name != "tictactoe"]
#: Smaller boards where a game has them, to keep the test to seconds.
OPTIONS = {"warpandweft": ["-size=3"]}
#: Iterations, not seconds, so the games replay the same on any machine.
QUICK = Level(0, iterations=120, cpu_seconds=30.0, accepts_undo=True)


def play(game: Game, computer: int, seed: int, max_plies: int) -> object:
    rng = random.Random(seed)
    state = game.start(game.parse_options(OPTIONS.get(game.name, [])), game.players)
    for ply in range(max_plies):
        seat = game.to_move(state)
        if seat is None:
            break
        if seat == computer:
            move = choose(game, state, QUICK, seed=seed * 1000 + ply)
        else:
            move = rng.choice(game.legal_moves(state))
        state = game.play(state, seat, move)
    return state


@pytest.mark.parametrize("game", TWO_PLAYER, ids=lambda g: g.name)
def test_the_computer_beats_a_random_mover(game: Game) -> None:
    # The computer takes the first seat in one game, the second in the next (by name).
    computer = TWO_PLAYER.index(game) % 2
    state = play(game, computer, seed=7, max_plies=400)
    outcome = game.outcome(state)
    assert outcome is not None, "the game did not end within 400 plies"
    assert outcome.winners == (computer,), outcome


def test_trimac_checkmates_both_random_armies() -> None:
    """A whole TriMac game: the computer (Red) defeats both random armies within 400 plies.

    Without its hooks it does not: with the earlier material-only hooks this
    game is still running at ply 400, and so it is with no hooks at all
    (checked with playouts cut at 8 plies and no evaluation: the bare
    search's 1000-ply playouts take hours here).
    """
    trimac = next(g for g in available() if g.name == "trimac")
    assert hooks_for(trimac).evaluate is not None
    state = play(trimac, computer=0, seed=1, max_plies=400)
    outcome = trimac.outcome(state)
    assert outcome is not None, "the game did not end within 400 plies"
    assert outcome.winners == (0,), outcome
