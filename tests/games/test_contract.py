"""Every installed rules plugin honours the contract the server relies on."""

from __future__ import annotations

import random

import pytest

import games
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


@pytest.mark.parametrize("game", PLUGINS, ids=lambda g: g.name)
def test_render_takes_the_board_number_and_players(game: Game) -> None:
    """The server passes both; a game may show them, and must stay within 79 columns."""
    state = game.start(game.parse_options([]), game.players)
    names = ["alicewithalongname", "bobwithalongername", "carolwithalongname"][: game.players]
    board = game.render(state, compact=False, seat=1, board=4711, players=names)
    assert board.strip()
    assert max(len(line) for line in board.splitlines()) <= 79


def test_titles_follow_the_specs_when_the_server_names_board_and_players() -> None:
    tri = load_game("tridchess")
    start = tri.start(tri.parse_options([]), 2)
    first = tri.render(start, board=17, players=["alice", "bob"]).splitlines()[0]
    assert first == "TRI-D CHESS game 17  move 1  White (alice) to move   [rules: loidl]"
    trimac = load_game("trimac")
    first = trimac.render(trimac.start(trimac.parse_options([]), 3), board=101).splitlines()[0]
    assert first == "TriMac 3 Friends - game 101 - move 1 - Red to move"
    warp = load_game("warpandweft")
    text = warp.render(warp.start(warp.parse_options([]), 2), players=["alice", "bob"])
    assert "alice, Threading" in text and "bob, Threading" in text


@pytest.mark.parametrize("name", ["interweave", "tridchess", "trimac", "warpandweft", "weavedungeon", "tictactoe"])
def test_picture_title_is_the_drawings_title_without_drawing(name: str) -> None:
    """``picture_title`` (a mail names its picture before the deliverer draws it) is exactly the title
    ``draw`` gives, for every view, with and without player names, along a random game."""
    game = games.load_game(name)
    state = game.start(game.parse_options([]), game.players)
    rng = random.Random(5)
    players = [f"p{i}" for i in range(game.players)]
    for _ in range(40):
        for seat in (None, *range(game.players)):
            for names in (None, players):
                drawing = game.draw(state, seat, names)
                assert game.picture_title(state, seat, names) == (None if drawing is None else drawing.title)
        if game.to_move(state) is None:
            break
        state = game.play(state, game.to_move(state), rng.choice(game.legal_moves(state)))
