"""Reply to play: a board mail's personal Reply-To, and a reply read back as a command.

Every mail that invites a player to move carries ``Reply-To:
pbmserv+TOKEN@domain`` (see :mod:`server.mail.tokens`; purpose ``reply``, fields
user, board and the board's move count then, bound to the user's password
hash).  A mail to that address is that player's command on that board.

It is not a second command language: the typed line is turned into the
equivalent full command (``GAME move BOARD USERID ******** MOVE#N``) and run
through the same dispatch as a password mail, with the reply address as
the proof of identity in place of the password (``Request.identity``).
So checks, replies, errors and the transaction are those of the password
path, by construction.

A plain move (or ``swap``/``pass``) without ``#N`` gets the number of the
move the board mail invited: a reply to an old board mail, or the same
reply delivered twice under two Message-IDs, is refused instead of played
on a position its sender did not see.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

import games
from server.core.config import Settings
from server.core.errors import CommandError
from server.mail import tokens
from server.mail.replies import Mail
from server.mail.tokens import Failure, TokenError
from server.store.model import Board, User

#: What stands in the password slot of a command proven by its reply address.
#: Never a password: the command carries ``Request.identity`` instead.
PROVEN = "********"
#: Words that are a move to the server (the plugin or the server's own words).
MOVE_WORDS = ("swap", "pass")
SERVER_WORDS = ("resign", "propose", "undo", "accept", "reject")
#: First words of a reply that are reply commands even where they also name a full command.
REPLY_VERBS = ("move", "board", "mvoe", *MOVE_WORDS, *SERVER_WORDS, "queue", "preview", "show", "chat", "help",
               "hint", "review")
#: Subject words of our own board mails, left over when the board title is cut off.
SUBJECT_WORDS = ("new", "error", "reminder", "finished", "**")

#: The one line on every mail with a reply address: both ways to move (at most 78 columns).
FOOTER = "Reply with your move on the first line, or use the move command and password."
#: The same for a reminder digest, whose boards each have their own address.
DIGEST_FOOTER = "Mail your move to the board's address above, or use the move command."

_FAILURES = {
    Failure.TAMPERED: (
        "This reply address is not valid: it was changed on the way, or was never one of ours. "
        "Reply to a board mail as it came, or use the full command with your password."
    ),
    Failure.REVOKED: (
        "This reply address no longer works: the password was changed, or the server's key was "
        "renewed, since the board mail was sent. Reply to the latest board mail you received "
        "(or use the full command with your password)."
    ),
    Failure.WRONG_PURPOSE: (
        "This address is not for moves: it was sent for something else. Reply to a board mail "
        "to play, or use the full command with your password."
    ),
}


@dataclass(frozen=True)
class Identity:
    """Who a reply address proves the sender is, and the one board it is good for."""

    user_id: int
    board_id: int


@dataclass
class ReplyCommand:
    """A reply read back: the equivalent command and what it runs as."""

    words: list[str]
    identity: Identity
    comment: str


def reply_address(session: Session, settings: Settings, user: User, board: Board) -> str | None:
    """The personal reply address of ``user`` on ``board``, or None where nothing can be played."""
    if board.status != "active" or not user.active:
        return None
    token = tokens.issue(session, "reply", (user.id, board.id, board.ply), user.password_hash)
    return tokens.plus_address(settings.address, token, settings.recipient_delimiter)


def invite(session: Session, settings: Settings, mail: Mail, user: User, board: Board) -> Mail:
    """Make ``mail`` (to ``user`` alone) a reply-to-play mail: their Reply-To, and the footer.

    Every mail that invites a move goes through here: board mails, ``show``,
    reminders.  Nothing is added where nothing can be played.
    """
    address = reply_address(session, settings, user, board)
    if address is not None:
        mail.reply_to = address
        mail.body = mail.body.rstrip("\n") + "\n\n" + FOOTER + "\n"
    return mail


def reply_token(settings: Settings, recipients: list[str]) -> str | None:
    """The token of the first reply address among a message's envelope recipients."""
    for rcpt in recipients:
        tag = tokens.token_of(str(rcpt), settings.addresses, settings.recipient_delimiter)
        if tag:
            return tag
    return None


def open_reply(session: Session, token: str) -> tuple[User, Board, int]:
    """The user, board and move count a reply address names; CommandError if it is not good."""

    def binding(fields: tuple[int, ...]) -> str | None:
        user = session.get(User, fields[0]) if len(fields) == 3 else None
        return user.password_hash if user is not None and user.active else None

    try:
        user_id, board_id, ply = tokens.verify(session, token, "reply", binding)
    except TokenError as exc:
        raise CommandError(_FAILURES[exc.reason]) from None
    user, board = session.get(User, user_id), session.get(Board, board_id)
    if user is None or board is None:
        raise CommandError(_FAILURES[Failure.REVOKED])
    return user, board, ply


def strip_subject(subject: str, game: games.Game, board: Board) -> str:
    """A reply's subject without ``TITLE Board N`` and the other words of our subjects.

    ``Re: Tic Tac Toe Board 101 bob`` -> ``""``; ``Re: Tic Tac Toe Board 101 b2`` -> ``b2``.
    """
    words = subject.split()
    lowered = [w.lower() for w in words]
    head = [*game.title.lower().split(), "board", str(board.number)]
    for start in range(len(words) - len(head) + 1):
        if lowered[start:start + len(head)] == head:
            words = words[start + len(head):]
            break
    names = {s.user.userid for s in board.seats}
    while words and words[0].lower() in SUBJECT_WORDS:
        words = words[1:]
    if len(words) in (1, 2) and words[0].lower() in names:
        words = words[1:]  # the player to move, as our subjects name them
    return " ".join(words)


def command_for(session: Session, token: str, line: str, from_subject: bool, comment: str) -> ReplyCommand:
    """The full command a reply stands for (see the module docstring)."""
    user, board, ply = open_reply(session, token)
    try:
        game = games.load_game(board.game)
    except games.UnknownGame:
        raise CommandError(f"The game of this board ({board.game}) is not installed here any more") from None
    if from_subject:
        line = strip_subject(line, game, board)
    words = line.split()
    if len(words) >= 3 and words[0].lower() == user.userid:
        words = words[2:]  # "USERID PASSWORD MOVE" typed out of habit: the address proves who it is
    if not words:
        raise CommandError(
            f"No move found: type your move on the first line of your reply, above the quoted "
            f"{game.title} Board {board.number} mail.", board=board, title=game.title)
    who = [str(board.number), user.userid, PROVEN]
    verb, rest = words[0].lower(), words[1:]
    if verb in ("move", "board", "mvoe") and rest:
        verb, words, rest = rest[0].lower(), rest, rest[1:]
    if verb == "chat":
        text = "\n".join(t for t in (" ".join(rest), comment) if t.strip())
        return ReplyCommand([game.name, "chat", *who], Identity(user.id, board.id), text)
    if verb == "queue":
        out = [game.name, "queue", *who, *rest]
    elif verb == "preview":
        out = [game.name, "preview", str(board.number), *rest]
    elif verb == "show":
        ref = str(board.number) + (rest[0] if rest and rest[0].startswith("#") else "")
        out = [game.name, "show", ref]
    elif verb == "help":
        out = ["help", *rest]
    elif verb in ("hint", "review"):  # the computer opponent's advice (server/commands/computer.py)
        out = [game.name, verb, *who]
    else:
        move = " ".join(words)
        if verb not in SERVER_WORDS and "#" not in move.rstrip("#+"):
            # No #N typed: the move is for the position the board mail showed.
            if board.ply != ply:
                raise CommandError(
                    f"You replied to the {game.title} Board {board.number} mail of move #{ply + 1}, but the "
                    f"board is at move #{board.ply + 1} now: {move} was not played. Reply to the latest "
                    "board mail.", board=board, title=game.title)
            move = f"{move[:-1] if move.endswith('#') else move}#{ply + 1}"  # a trailing # is a check mark
        out = [game.name, "move", *who, *move.split()]
    return ReplyCommand(out, Identity(user.id, board.id), comment)
