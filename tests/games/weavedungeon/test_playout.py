"""Perft from the start (spec 2), replays, and random play through the contract."""

from __future__ import annotations

import pytest

from games.weavedungeon import GAME
from tests.games.playout import (
    PLAYOUT_PLIES,
    assert_replays,
    assert_roundtrip,
    perft,
    random_playout,
)
from tests.games.weavedungeon.test_spec_cases import OPENING_1, OPENING_2


def start():
    return GAME.start(GAME.parse_options([]), 2)


@pytest.mark.parametrize("depth, count", [(1, 17), (2, 289), (3, 5997)])
def test_perft_from_the_start(depth, count):
    assert perft(GAME, start(), depth) == count


@pytest.mark.parametrize("opening", [OPENING_1, OPENING_2])
def test_openings_replay(opening):
    moves = []
    st = start()
    for word in opening.split():
        if word[0].isdigit():
            continue
        seat = GAME.to_move(st)
        moves.append((seat, word))
        st = GAME.play(st, seat, word)
    assert_replays(GAME, GAME.parse_options([]), moves, st)
    assert_roundtrip(GAME, st)


def test_replay_from_a_position_option():
    opts = GAME.parse_options(["-position=4k4/9/9/9/2C3c2/9/9/9/8K w - 1"])
    moves = [(0, "Cc5-c6"), (1, "Cg5-g6"), (0, "Cc6-c5"), (1, "Cg6-g5")]
    st = GAME.start(opts, 2)
    for seat, mv in moves:
        st = GAME.play(st, seat, mv)
    assert_replays(GAME, opts, moves, st)
    assert GAME.dump(st)["history"][GAME.position(st).rsplit(" ", 1)[0]] == 2


def test_random_playout():
    result = random_playout(GAME)
    assert result["plies"] == PLAYOUT_PLIES
    if PLAYOUT_PLIES == 3000:  # the default run: seed 1 meets these endings
        assert result["games"] == 8
        assert result["endings"] == [
            "White is stalemated, and stalemate loses",
            "Black is checkmated",
            "Black is checkmated",
            "Black is checkmated",
        ]


def test_random_playout_from_a_middle_game_position():
    opts = GAME.parse_options(
        ["-position=1stckctsp/d1ddddddd/1d1p5/9/2T6/9/D8/1DDDDDDDD/PSTCKC1SP w Tp 12"]
    )
    result = random_playout(GAME, opts, plies=400, seed=7)
    assert result == {"games": 2, "finished": 1, "plies": 400, "endings": ["Black is checkmated"]}
