"""The admin tool's one way to name a game: every ``pbmserv`` command that takes a
game word (``game list``, ``game show``, ``challenge``, ``draw``) refuses an
unknown one alike, with the list of games and the closest one, as mail does."""

from __future__ import annotations

import click

import games
from server.commands.resolve import suggest


def cli_game(name: str) -> games.Game:
    """The game, or a usage error that lists the games (and says which one was meant)."""
    try:
        return games.load_game(name)
    except games.UnknownGame:
        words = [w for g in games.available() for w in (g.name, *g.aliases)]
        guess = suggest(name.lower(), words)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        known = ", ".join(g.name for g in games.available())
        raise click.ClickException(f"unknown game {name!r}; games: {known}{hint}") from None
