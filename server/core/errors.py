"""The refusal every layer raises and the worker turns into an error reply.

It lives apart from ``server.commands`` so that the modules commands use
(accounts, boards) can raise it without importing the command package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.store.model import Board


class CommandError(Exception):
    """A refusal the player reads as it is; nothing the command did is kept."""

    def __init__(self, message: str, board: Board | None = None, title: str | None = None) -> None:
        super().__init__(message)
        self.board = board
        self.title = title
        #: What must be kept although the command is rolled back (e.g. a counted
        #: password guess): called with the worker's session, returns mails to queue.
        self.aftermath: Callable[[Any], list[Any]] | None = None
