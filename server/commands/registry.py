"""The tables of commands; modules add their classes with the decorators here."""

from __future__ import annotations

from typing import ClassVar

import games
from server.commands.base import Command, Context, Result

GENERAL: dict[str, Command] = {}
GAME_VERBS: dict[str, GameCommand] = {}


class GameCommand(Command):
    """A ``GAME VERB ...`` command."""

    #: Shown in help: "GAME move BOARD USERID PASSWORD MOVE[#N]".
    argument_description: ClassVar[str] = ""

    def run(self, ctx: Context, game: games.Game, args: list[str]) -> Result:
        raise NotImplementedError

    def process(self, ctx: Context, args: list[str]) -> Result:  # pragma: no cover - not called
        raise TypeError("game commands need a game")


def general(cls: type[Command]) -> type[Command]:
    instance = cls()
    for word in (cls.name, *cls.aliases):
        GENERAL[word] = instance
    return cls


def game_verb(cls: type[GameCommand]) -> type[GameCommand]:
    instance = cls()
    for word in (cls.name, *cls.aliases):
        GAME_VERBS[word] = instance
    return cls
