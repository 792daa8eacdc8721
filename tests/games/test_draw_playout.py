"""Every position of a random game of every game draws, and every drawing differs from the last.

A cheap guard for the mail pictures: the drawing code meets the positions
real play reaches (captures, promotions, attack-board moves, defeats), and
the picture changes with every move (the last move is marked).
"""

from __future__ import annotations

import random

import pytest

import games
from server.pictures.draw_svg import to_svg

GAMES = [g for g in games.available() if g.name != "tictactoe"]
PLIES = 40


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_random_game_draws_every_position(game: games.Game) -> None:
    rng = random.Random(7)
    state = game.start(game.parse_options([]), game.players)
    previous = to_svg(game.draw(state, None, None))
    for _ in range(PLIES):
        seat = game.to_move(state)
        if seat is None:
            break
        state = game.play(state, seat, rng.choice(game.legal_moves(state)))
        drawing = game.draw(state, None, None)
        assert drawing.width >= 320 and drawing.find(role="status")
        svg = to_svg(drawing)
        assert svg != previous
        previous = svg
