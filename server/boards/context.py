"""What a change to a board happens within: the transaction, the settings,
the time, and who asked (with what comment).

A mail command and a run of ``pbmserv remind`` change boards the same way
(a forfeit is a resignation, a stalled offer is settled like an accepted
one), so the context lives here, beside the lifecycle both of them call,
and not with the commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from server.accounts.reply_address import Identity
from server.core.config import Settings

__all__ = ["Context", "Request"]


@dataclass
class Request:
    """One command line and what the worker knows of the mail it came in."""

    words: list[str]
    line: str
    sender: str
    comment: str = ""
    message_id: str = ""
    #: True for the admin's own command-line tool (no mail to answer).
    admin: bool = False
    #: Set when the mail came to a player's reply address: that proves who
    #: sent it, for that one board, in place of a password.
    identity: Identity | None = None
    #: What the mail carries besides its commands: its first text attachment,
    #: else its body (``preview record`` and ``challenge --record`` read a game record from it).
    document: str = ""


@dataclass
class Context:
    session: Session
    settings: Settings
    request: Request
    now: datetime
