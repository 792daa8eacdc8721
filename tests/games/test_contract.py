"""Every installed rules plugin honours the contract the server relies on."""

from __future__ import annotations

import pytest

from games import OptionError, available, load_game
from games.contract import Game

PLUGINS = [g for g in available() if g.name != "tictactoe"]
EXPECTED = {"warpandweft", "interweave", "weavedungeon", "trimac", "tridchess"}


def test_every_seed_game_is_installed() -> None:
    assert {g.name for g in PLUGINS} >= EXPECTED


@pytest.mark.parametrize("game", PLUGINS, ids=lambda g: g.name)
def test_plugin_roles(game: Game) -> None:
    assert game.name == game.name.lower() and game.title
    assert load_game(game.name.upper()) is game
    for alias in game.aliases:
        assert load_game(alias) is game
    assert game.players in (2, 3)
    assert game.help().strip()
    with pytest.raises(OptionError):
        game.parse_options(["-no-such-option-here"])
    state = game.start(game.parse_options([]), game.players)
    assert game.to_move(state) == 0
    assert game.outcome(state) is None
    for compact in (False, True):
        board = game.render(state, compact=compact)
        assert board.strip()
        assert max(len(line) for line in board.splitlines()) <= 79


@pytest.mark.parametrize("game", [g for g in PLUGINS if g.has_position], ids=lambda g: g.name)
def test_position_option_round_trips(game: Game) -> None:
    state = game.start(game.parse_options([]), game.players)
    text = game.position(state)
    again = game.start(game.parse_options([f"-position={text}"]), game.players)
    assert game.position(again) == text
    assert sorted(game.legal_moves(again)) == sorted(game.legal_moves(state))
