"""What every mail command is: a small class whose attributes build the help.

As in Mailman, a command has a ``name``, an ``argument_description``, a
one-line ``description`` and a ``process`` method; ``help commands`` is made
from these, so the help never drifts from the code.  Which arguments are
passwords is declared too, so every quoted command is masked the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from server.accounts import accounts
from server.boards.context import Context, Request
from server.core.errors import CommandError
from server.mail.replies import Mail
from server.pictures.cache import Picture
from server.store.model import Board, User

__all__ = ["Command", "CommandError", "Context", "Request", "Result", "authenticate", "mask"]


@dataclass
class Result:
    """What a command did: text for the sender, and mails for everyone else."""

    text: str
    subject: str = "pbmserv reply"
    mails: list[Mail] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    #: The text goes to the sender even when one of ``mails`` does too
    #: (signoff: the board mails do not say the account is closed).
    confirm: bool = False
    #: The sender is this player of this board: their copy of ``text`` gets
    #: their reply address (``show``).  Set only when ``sender`` is one of the
    #: player's own addresses, so a token never goes anywhere else.
    invite: tuple[User, Board] | None = None
    #: Board pictures for the reply to the sender (server.pictures.cache).
    pictures: list[Picture] = field(default_factory=list)
    #: Text files attached to the reply to the sender, (filename, text): a game record.
    attachments: list[tuple[str, str]] = field(default_factory=list)
    #: The text is the server's own fixed text (help): sent whole even to a stranger.
    fixed: bool = False


class Command:
    """Base class of mail commands."""

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    #: The shortest prefix of ``name`` accepted for it (pbmserv's minimum:
    #: ``chall``, ``prev``, ``sub``); see server.commands.resolve.
    abbrev: ClassVar[int] = 3
    argument_description: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: Positions (0-based, in the arguments after the command words) that hold passwords.
    password_args: ClassVar[tuple[int, ...]] = ()
    #: Arguments from this position on are the sender's own business (a
    #: conditional tree): answered to them, but never written to the log.
    private_from: ClassVar[int | None] = None

    def process(self, ctx: Context, args: list[str]) -> Result:
        raise NotImplementedError

    def password_positions(self, args: list[str]) -> tuple[int, ...]:
        """Where the passwords are in these arguments (a command with two forms overrides it)."""
        return self.password_args


def authenticate(ctx: Context, userid: str, password: str, board: Board) -> User:
    """The player of a board command, proven by the password or by the reply address.

    The one place the two proofs meet: a reply's equivalent command holds a
    placeholder where the password goes, and is good only for the user and
    the board its reply address names.
    """
    identity = ctx.request.identity
    if identity is None:
        return accounts.authenticate(ctx.session, userid, password)
    user = ctx.session.get(User, identity.user_id)  # loaded with the reply address: no statement
    if user is None or not user.active or user.userid != userid.lower():
        user = accounts.require_user(ctx.session, userid)
    if user.id != identity.user_id or board.id != identity.board_id:
        raise CommandError("A reply address is good only for its own player and board")
    return user


def mask(words: list[str], prefix: int, command: type[Command] | Command | None) -> str:
    """The command as typed, with every password replaced by ********.

    For a command we do not know, everything after the first two words is
    hidden: it may well hold a password.
    """
    if command is None:
        shown = words[:2] + (["..."] if len(words) > 2 else [])
        return " ".join(shown)
    out = list(words)
    positions = (command.password_positions(words[prefix:]) if isinstance(command, Command)
                 else command.password_args)
    for index in positions:
        if prefix + index < len(out):
            out[prefix + index] = "********"
    return " ".join(out)
