"""The mail command language: one small class per command.

``dispatch`` finds the command for a line of words: a general command
(``help``, ``signup``, ...) or ``GAME VERB ...`` for a game plugin.
"""

from __future__ import annotations

import games
from server.commands.base import Command, CommandError, Context, Request, Result, mask
from server.commands.registry import GAME_VERBS, GENERAL, GameCommand

__all__ = [
    "Command",
    "CommandError",
    "Context",
    "GameCommand",
    "Request",
    "Result",
    "describe",
    "dispatch",
    "masked_line",
]


def describe(words: list[str]) -> tuple[Command | None, int, games.Game | None]:
    """The command a line names, how many words name it, and the game if any."""
    if not words:
        return None, 0, None
    first = words[0].lower()
    if first in GENERAL:
        return GENERAL[first], 1, None
    try:
        game = games.load_game(first)
    except games.UnknownGame:
        return None, 1, None
    if len(words) < 2:
        return GAME_VERBS["help"], 1, game
    return GAME_VERBS.get(words[1].lower()), 2, game


def masked_line(words: list[str]) -> str:
    command, prefix, _ = describe(words)
    return mask(words, prefix, command)


def dispatch(ctx: Context, words: list[str]) -> Result:
    command, prefix, game = describe(words)
    if command is None:
        if game is not None:
            verbs = ", ".join(sorted(GAME_VERBS))
            raise CommandError(
                f"Unknown {game.title} command {words[1]!r}; commands are: {verbs}", title=game.title
            )
        raise CommandError(
            f"Unknown command {words[0]!r}. Send 'help' for the commands, 'help games' for the games."
        )
    args = words[prefix:]
    try:
        if isinstance(command, GameCommand):
            assert game is not None
            return command.run(ctx, game, args)
        return command.process(ctx, args)
    except games.GameError as exc:
        raise CommandError(str(exc), title=game.title if game else None) from None

# The command modules register themselves on import.
from server.commands import (  # noqa: E402,F401
    general,
    play,
    policy,
    preview,
    queued_moves,
    records,
    social,
    two_step,
    votes,
)
