"""The mail command language: one small class per command.

``dispatch`` finds the command for a line of words: a general command
(``help``, ``signup``, ...) or ``GAME VERB ...`` for a game plugin.
"""

from __future__ import annotations

from dataclasses import dataclass

import games
from server.commands.base import Command, CommandError, Context, Request, Result, mask
from server.commands.registry import GAME_VERBS, GENERAL, GameCommand
from server.commands.resolve import resolve, unique

__all__ = [
    "Command",
    "CommandError",
    "Context",
    "GameCommand",
    "Request",
    "Result",
    "Lookup",
    "describe",
    "dispatch",
    "lookup",
    "masked_line",
]


@dataclass(frozen=True)
class Lookup:
    """What a line of words names: the command, how many words name it, the game, or the problem."""

    command: Command | None
    prefix: int
    game: games.Game | None
    problem: str = ""


def game_words() -> list[str]:
    return [w for g in games.available() for w in (g.name, *g.aliases)]


def lookup(words: list[str], suggestion: bool = True) -> Lookup:
    """Resolve the command words of a line (see server.commands.resolve); never raises.

    ``suggestion``: name a close command in the problem ("did you mean"); off where
    only the command is wanted (``describe``)."""
    if not words:
        return Lookup(None, 0, None, "No command given")
    first = words[0].lower()
    if first not in GENERAL:
        try:
            game = games.load_game(first)
        except games.GameUnavailable as exc:  # installed but broken: never "unknown"
            return Lookup(None, 1, None, str(exc))
        except games.UnknownGame:
            game = None
        if game is not None:
            return game_lookup(words, game, suggestion)
    found = resolve(first, GENERAL, extra_known=game_words(), suggestion=suggestion)
    if found.command is not None:
        return Lookup(found.command, 1, None)
    problem = found.problem or f"Unknown command {words[0]!r}"
    if found.suggestion:
        problem += f"; did you mean {found.suggestion!r}?"
    return Lookup(None, 1, None, problem + " Send 'help' for the commands, 'help games' for the games.")


def game_lookup(words: list[str], game: games.Game, suggestion: bool = True) -> Lookup:
    if len(words) < 2:
        return Lookup(GAME_VERBS["help"], 1, game)
    found = resolve(words[1], GAME_VERBS, suggestion=suggestion)
    if found.command is not None:
        return Lookup(found.command, 2, game)
    problem = found.problem or f"Unknown {game.title} command {words[1]!r}"
    if found.suggestion:
        return Lookup(None, 2, game, f"{problem}; did you mean {found.suggestion!r}?")
    verbs = ", ".join(c.name for c in unique(GAME_VERBS))
    return Lookup(None, 2, game, f"{problem}. The commands are: {verbs}")


def describe(words: list[str]) -> tuple[Command | None, int, games.Game | None]:
    """The command a line names, how many words name it, and the game if any."""
    found = lookup(words, suggestion=False)
    return found.command, found.prefix, found.game


def masked_line(words: list[str]) -> str:
    command, prefix, _ = describe(words)
    return mask(words, prefix, command)


def dispatch(ctx: Context, words: list[str]) -> Result:
    found = lookup(words)
    command, prefix, game = found.command, found.prefix, found.game
    if command is None:
        raise CommandError(found.problem, title=game.title if game else None)
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
    computer,
    conditional,
    game_records,
    general,
    legal_moves,
    play,
    policy,
    preview,
    queued_moves,
    records,
    seeks,
    social,
    tournaments,
    two_step,
)
