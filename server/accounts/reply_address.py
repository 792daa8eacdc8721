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

A reply address is good only for what its mail invited (issue 32): anyone
who sees it (a forwarded mail, a mailing list, a shared inbox) once could
play every later move of that player and resign the game.  Now whatever
acts on the board (a move, ``#N`` typed or not, the server's words, a
queued move, a chat) is accepted only while the board is still at the move
the mail was sent for; and the words that end a game for good
(:data:`IRREVERSIBLE`) need the mail to come from one of the player's own
confirmed addresses as well.  Looking (``show``, ``preview``, ``help``) is
allowed at any time.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, joinedload

import games
from server.accounts.throttle import is_owner
from server.core.config import Settings
from server.core.errors import CommandError
from server.mail import tokens
from server.mail.replies import Mail
from server.mail.tokens import Failure, TokenError
from server.store.model import Board, Move, Seat, User
from server.store.queries import remember_board

#: What stands in the password slot of a command proven by its reply address.
#: Never a password: the command carries ``Request.identity`` instead.
PROVEN = "********"
#: Words that are a move to the server (the plugin or the server's own words).
MOVE_WORDS = ("swap", "pass")
SERVER_WORDS = ("resign", "propose", "undo", "accept", "reject")
#: Words whose effect cannot be taken back: the reply address alone is not enough for them.
IRREVERSIBLE = ("resign", "accept")
#: First words of a reply that are reply commands even where they also name a full command.
REPLY_VERBS = ("move", "board", "mvoe", *MOVE_WORDS, *SERVER_WORDS, "queue", "preview", "show", "chat", "help",
               "conditional", "if", "moves", "why", "record", "hint", "review")
#: Reply verbs that are not a move (a twice-sent one of these is not "already played").
NOT_MOVES = ("queue", "preview", "show", "chat", "help", "conditional", "if", "moves", "why", "record",
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
    #: What the player typed (a password they typed masked): what an error quotes.
    shown: str = ""
    #: One sentence for the sender about words of theirs that were not needed (a password, their userid).
    note: str = ""


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


def seated_sender(board: Board, sender: str) -> User | None:
    """The player of ``board`` whose own address ``sender`` is, if any.

    Only such a sender's answers about a board carry a reply address: a
    token never goes to anyone but its player.
    """
    sender = sender.lower()
    return next((s.user for s in sorted(board.seats, key=lambda s: s.seat)
                 if sender in (a.address.lower() for a in s.user.addresses if a.confirmed)), None)


def invite_sender(session: Session, settings: Settings, mail: Mail, sender: str, board: Board) -> Mail:
    """``mail`` (to ``sender`` alone) made a reply-to-play mail if the sender plays ``board``.

    An error about a board (not your move, an illegal move) then works like
    a board mail: the player hits Reply and types the corrected move.
    """
    user = seated_sender(board, sender)
    return invite(session, settings, mail, user, board) if user is not None else mail


def reply_token(settings: Settings, recipients: list[str]) -> str | None:
    """The token of the first reply address among a message's envelope recipients."""
    for rcpt in recipients:
        tag = tokens.token_of(str(rcpt), settings.addresses, settings.recipient_delimiter)
        if tag:
            return tag
    return None


#: The board a reply address names, locked, with its seats, their users and addresses (built once),
#: all in one statement: the addresses loaded "selectin" were a second statement and half the
#: load's CPU (1.06 ms against 0.58 ms joined; a board has two or three seats, a user one or two
#: addresses, so the joined rows stay few).
_LOCKED_BOARD = (select(Board).where(Board.id == bindparam("id"))
                 .options(joinedload(Board.seats).joinedload(Seat.user).joinedload(User.addresses))
                 .with_for_update(of=Board))


def open_reply(session: Session, token: str) -> tuple[User, Board, int]:
    """The user, board and move count a reply address names; CommandError if it is not good."""

    binding = tokens.reply_binding(session)
    found: list[Board | None] = []

    def board_first(fields: tuple[int, ...]) -> str | None:
        # Asked only once the token's tag is good.  Locked as the command on it will lock it
        # (BoardCommand.open finds it again, at no cost).  Its seats and their users come in
        # the same statement, their addresses in one more: the board mails go to them; the
        # token's user, a seat's, is then no statement of its own.  Only the board's row is
        # locked (FOR UPDATE OF: PostgreSQL refuses to lock the nullable side of the seats'
        # outer join).
        if len(fields) == 3:
            found.append(session.scalars(_LOCKED_BOARD, {"id": fields[1]}).unique().one_or_none())
        return binding(fields)

    try:
        user_id, _, ply = tokens.verify(session, token, "reply", board_first)
    except TokenError as exc:
        raise CommandError(_FAILURES[exc.reason]) from None
    user = session.get(User, user_id)
    board = found[0] if found else None
    if user is None or board is None:
        raise CommandError(_FAILURES[Failure.REVOKED])
    remember_board(session, board, locked=True)
    return user, board, ply


def strip_subject(subject: str, game: games.Game, board: Board) -> str:
    """A reply's subject without ``TITLE Board N`` and the other words of our subjects.

    ``Re: Tic Tac Toe Board 101 bob`` -> ``""``; ``Re: Tic Tac Toe Board 101 b2`` -> ``b2``.
    A subject naming another board (``Board 110`` sent to Board 101's address)
    is refused with one sentence, not read as a move.
    """
    words = subject.split()
    lowered = [w.lower() for w in words]
    head = [*game.title.lower().split(), "board", str(board.number)]
    for start in range(len(words) - len(head) + 1):
        if lowered[start:start + len(head)] == head:
            words = words[start + len(head):]
            break
    else:
        other = next((lowered[i + 1] for i in range(len(words) - 1)
                      if lowered[i] == "board" and lowered[i + 1].isdigit()), None)
        if other is not None:
            raise CommandError(
                f"This reply address is for {game.title} Board {board.number}, but your subject names "
                f"Board {other}: nothing was played. Reply to the Board {other} mail to play there.",
                board=board, title=game.title)
    names = {s.user.userid for s in board.seats}
    while words and words[0].lower() in SUBJECT_WORDS:
        words = words[1:]
    if len(words) in (1, 2) and words[0].lower() in names:
        words = words[1:]  # the player to move, as our subjects name them
    return " ".join(words)


def _stale(game: games.Game, board: Board, ply: int, what: str, done: str) -> CommandError:
    return CommandError(
        f"You replied to the {game.title} Board {board.number} mail of move #{ply + 1}, but the "
        f"board is at move #{board.ply + 1} now: {what} was not {done}. Reply to the latest "
        "board mail.", board=board, title=game.title)


def without_credentials(words: list[str], user: User) -> tuple[list[str], str, str]:
    """``USERID [USERID] [PASSWORD] MOVE`` typed out of habit -> the move alone.

    Returns the words left, what an error may quote of the typed words (a
    password masked) and one sentence for the player, or "" when nothing was
    dropped.  The reply address proves who sent it, so a password (right or
    wrong) is not checked, and the player is told it was not needed.
    """
    shown = list(words)
    named = 0
    while named < len(words) and words[named].lower() == user.userid:
        named += 1
    rest = words[named:]
    if not named or not rest:
        return words, " ".join(shown), ""
    notes = []
    if named > 1:
        notes.append(f"Your reply named you ({user.userid}) more than once; the move alone is enough.")
    if len(rest) >= 2:  # the word after the userid stood where the password goes
        shown[named] = PROVEN
        rest = rest[1:]
        notes.append("The password in your reply was not needed and was ignored: the reply address "
                     "already proves who you are.")
    return rest, " ".join(shown), " ".join(notes)


def already_played(session: Session, board: Board, ply: int, user: User, move: str) -> int | None:
    """The number of the move that ``move`` (by ``user``) already was, if the board has it
    as move #ply+1: a reply sent twice, whose first copy was played."""
    row = session.scalars(select(Move).where(Move.board_id == board.id, Move.ply == ply + 1)).first()
    seats = [s.seat for s in board.seats if s.user_id == user.id]
    squash = "".join(move.split()).lower()
    if row is not None and row.seat in seats and "".join(row.move.split()).lower() == squash:
        return row.ply
    return None


def command_for(session: Session, token: str, line: str, from_subject: bool, comment: str,
                sender: str | None = None) -> ReplyCommand:
    """The full command a reply stands for (see the module docstring).

    ``sender`` is the mail's From address: the irreversible words need it to
    be one of the player's confirmed addresses (None: not checked, the admin's tool).
    A refusal once the address is proven carries ``quoted``, the words the
    player typed, for the error mail to quote (the worker masks passwords).
    """
    user, board, ply = open_reply(session, token)
    try:
        return _command_for(session, user, board, ply, line, from_subject, comment, sender)
    except CommandError as exc:
        exc.quoted = line  # type: ignore[attr-defined]
        raise


def _command_for(session: Session, user: User, board: Board, ply: int, line: str, from_subject: bool,
                 comment: str, sender: str | None) -> ReplyCommand:
    try:
        game = games.load_game(board.game)
    except games.GameUnavailable as exc:
        raise CommandError(str(exc)) from None
    except games.UnknownGame:
        raise CommandError(f"The game of this board ({board.game}) is not installed here any more") from None
    if from_subject:
        line = strip_subject(line, game, board)
    words, shown, note = without_credentials(line.split(), user)
    if not words:
        raise CommandError(
            f"No move found: type your move on the first line of your reply, above the quoted "
            f"{game.title} Board {board.number} mail.", board=board, title=game.title)
    who = [str(board.number), user.userid, PROVEN]
    verb, rest = words[0].lower(), words[1:]
    if verb in ("move", "board", "mvoe") and rest:
        verb, words, rest = rest[0].lower(), rest, rest[1:]
    looking = verb in ("preview", "show", "help")
    if not looking and board.ply != ply:
        typed = " ".join(words).rstrip("#+")
        if verb not in (*SERVER_WORDS, *NOT_MOVES) and (number := already_played(session, board, ply, user, typed)) is not None:
            raise CommandError(
                f"This same move, {typed}, was already played as move #{number} of {game.title} "
                f"Board {board.number} (your mail came twice?): it was not played again.",
                board=board, title=game.title)
        raise _stale(game, board, ply, " ".join(words), "sent" if verb == "chat" else
                     "queued" if verb == "queue" else "played")
    if verb in IRREVERSIBLE and sender is not None and not is_owner(user, sender):
        raise CommandError(
            f"{verb} by reply must come from your own address: this mail came from another. "
            f"Use the full command with your password ({game.name} {verb} "
            f"{board.number} {user.userid} PASSWORD), or reply from your registered address.",
            board=board, title=game.title)
    if verb == "chat":
        text = "\n".join(t for t in (" ".join(rest), comment) if t.strip())
        return ReplyCommand([game.name, "chat", *who], Identity(user.id, board.id), text, shown, note)
    if verb in ("conditional", "if"):
        # The first line may hold a branch itself ("if C3 then E5"); the lines below it are more.
        first = words if verb == "if" else rest
        return ReplyCommand([game.name, "conditional", *who, *first], Identity(user.id, board.id), comment, shown, note)
    if verb == "queue":
        out = [game.name, "queue", *who, *rest]
    elif verb == "preview":
        out = [game.name, "preview", str(board.number), *rest]
    elif verb == "show":
        ref = str(board.number) + (rest[0] if rest and rest[0].startswith("#") else "")
        out = [game.name, "show", ref]
    elif verb == "help":
        out = ["help", *rest]
    elif verb in ("moves", "why", "record"):  # questions about this board, answered to the asker only
        out = [game.name, verb, str(board.number), *rest]
    elif verb in ("hint", "review"):  # the computer opponent's advice (server/commands/computer.py)
        out = [game.name, verb, *who]
    else:
        move = " ".join(words)
        # The board is at the mail's move (checked above), so a typed #N other than
        # that one is refused by the move itself ("received as move #N").
        if verb not in SERVER_WORDS and "#" not in move.rstrip("#+"):
            move = f"{move[:-1] if move.endswith('#') else move}#{ply + 1}"  # a trailing # is a check mark
        out = [game.name, "move", *who, *move.split()]
    return ReplyCommand(out, Identity(user.id, board.id), comment, shown, note)
