"""Talking and following: chat, message, broadcast, subscribe, unsubscribe, notify.

Followers are rows in ``subscriptions``: kind "watch" gets every board mail
(``boards.announce`` adds them), kind "notify" only the mail that ends the
board.  Players get all of that anyway, so they cannot subscribe to their
own boards.
"""

from __future__ import annotations

import textwrap

from sqlalchemy import delete, select

from games import Game
from games.digits import is_digits
from server.accounts import accounts
from server.accounts import computer as accounts_computer
from server.accounts.throttle import SENDER_KEY
from server.boards import boards
from server.boards.watchers import board_watchers
from server.commands.base import Command, CommandError, Context, Result, authenticate
from server.commands.registry import GENERAL, GameCommand, game_verb, general
from server.mail.quota import ADDRESS_RECIPIENTS_DAY, MESSAGES_TO_USER_DAY, spend, spend_recipients
from server.mail.replies import Mail, board_root
from server.mail.wrapping import wrap
from server.store.model import Board, GameFollow, Seat, Subscription, User

#: Most recipients one ``message`` may name.
MAX_RECIPIENTS = 20


def quoted(userid: str, text: str) -> str:
    return f"{userid} writes:\n\n" + "\n".join("  " + line for line in text.splitlines()) + "\n"


def require_body(ctx: Context, what: str, title: str | None = None, board: Board | None = None) -> str:
    text = ctx.request.comment.strip()
    if not text:
        raise CommandError(f"Nothing to send: the body of your mail is the {what} (the subject holds the command)",
                           title=title, board=board)
    return text


def open_board(ctx: Context, game: Game, args: list[str], usage: str) -> tuple[Board, User]:
    """BOARD USERID PASSWORD for someone who need not play on the board."""
    if len(args) != 3:
        raise CommandError(f"Usage: {game.name} {usage}", title=game.title)
    number, at = boards.parse_board_ref(args[0])
    if at is not None:
        raise CommandError(f"{args[0]}: name the board without #N here", title=game.title)
    board = boards.find_board(ctx.session, game, number)
    user = authenticate(ctx, args[1], args[2], board)
    return board, user


def subscription(ctx: Context, board: Board, user: User, kind: str) -> Subscription | None:
    return ctx.session.scalars(select(Subscription).where(
        Subscription.board_id == board.id, Subscription.user_id == user.id, Subscription.kind == kind)).first()


def check_can_follow(ctx: Context, game: Game, board: Board, user: User, kind: str) -> None:
    if boards.seat_of(board, user) is not None:
        raise CommandError(f"{user.userid} plays on {game.title} Board {board.number} and gets its mail anyway",
                           board=board, title=game.title)
    if board.status != "active":
        raise CommandError(f"{game.title} Board {board.number} is over: {game.name} show {board.number} "
                           "mails it to you", board=board, title=game.title)
    if subscription(ctx, board, user, kind) is not None:
        what = "watches" if kind == "watch" else "is to be told of the end of"
        raise CommandError(f"{user.userid} already {what} {game.title} Board {board.number}",
                           board=board, title=game.title)


@game_verb
class Chat(GameCommand):
    name = "chat"
    abbrev = 4  # "cha" is too close to chall[enge]
    argument_description = "BOARD USERID PASSWORD"
    description = "The body of your mail goes to the players and watchers of the board."
    password_args = (2,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        board, user = open_board(ctx, game, args, "chat BOARD USERID PASSWORD")
        watchers = board_watchers(ctx.session, board)
        audience = boards.seat_users(board) + watchers
        if user.id not in {u.id for u in audience} and subscription(ctx, board, user, "notify") is None:
            raise CommandError(f"{user.userid} neither plays on nor watches {game.title} Board {board.number}",
                               board=board, title=game.title)
        people = [u for u in audience if u.id != user.id and not accounts_computer.is_computer(u)]
        if not people:
            raise CommandError("The computer does not read chat, and nobody else plays on or watches "
                               f"{game.title} Board {board.number}: your message went nowhere. "
                               f"'{game.name} hint' asks the computer for advice instead.", board=board,
                               title=game.title)
        text = require_body(ctx, "chat message", game.title, board)
        root = board_root(ctx.settings, game.name, board.number)
        subject = f"{game.title} Board {board.number} chat from {user.userid}"
        body = quoted(user.userid, text)
        spend_recipients(ctx.session, user.userid, sum(1 for u in audience if u.id != user.id), ctx.now,
                         new=not has_played(ctx, user))
        mails = [Mail(to=accounts.addresses_of(u), subject=subject, body=body, references=[root], users=[u.userid])
                 for u in audience if u.active and u.addresses]
        names = ", ".join(u.userid for u in audience if u.id != user.id) or "nobody else"
        return Result(f"Your chat on {game.title} Board {board.number} went to: {names}.\n\n{body}",
                      subject=subject, mails=mails, references=[root])


def whole_game(args: list[str], word: str | None) -> bool:
    """``USERID PASSWORD all`` (subscribe) / ``USERID PASSWORD`` (notify): the game, not a board."""
    if word is None:
        return len(args) == 2
    return len(args) == 3 and args[2].lower() == word and not is_digits(args[0])


GAME_FOLLOW_SAID = {
    "watch": ("{u} now gets the mail of every new {t} board (as a subscriber). "
              "'{g} unsubscribe {u} PASSWORD all' stops it.",
              "{u} already follows every new {t} board."),
    "notify": ("{u} will be told of the end of every {t} board. The same command again stops it.",
               "{u} is no longer told of the end of every {t} board."),
}


def follow_game(ctx: Context, game: Game, args: list[str], kind: str, user: User | None = None) -> Result:
    """Follow every board of ``game``: "watch" (boards started from now on) or "notify" (a toggle);
    ``user``: already authenticated (``subscribe USERID PASSWORD B1 ... all``)."""
    user = user or accounts.authenticate(ctx.session, args[0], args[1])
    row = ctx.session.scalars(select(GameFollow).where(GameFollow.game == game.name, GameFollow.user_id == user.id,
                                                       GameFollow.kind == kind)).first()
    said, again = GAME_FOLLOW_SAID[kind]
    words = {"u": user.userid, "t": game.title, "g": game.name}
    if row is None:
        ctx.session.add(GameFollow(game=game.name, user_id=user.id, kind=kind, created_at=ctx.now))
        text = said.format(**words)
    elif kind == "notify":
        ctx.session.delete(row)
        text = again.format(**words)
    else:
        raise CommandError(again.format(**words), title=game.title)
    return Result(wrap(text), subject=f"{game.title}: {kind} all boards")


class Follow(GameCommand):
    """Subscribe a user to a board (or the whole game); ``kind`` is "watch" or "notify"."""

    kind = "watch"
    subject_word = "subscribed"
    password_args = (2,)
    #: The word after USERID PASSWORD that means the whole game (None: no board named at all).
    game_word: str | None = "all"

    def password_positions(self, args: list[str]) -> tuple[int, ...]:
        return (1,) if whole_game(args, self.game_word) else self.password_args

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if whole_game(args, self.game_word):
            return follow_game(ctx, game, args, self.kind)
        board, user = open_board(ctx, game, args, f"{self.name} BOARD USERID PASSWORD")
        check_can_follow(ctx, game, board, user, self.kind)
        ctx.session.add(Subscription(board_id=board.id, user_id=user.id, kind=self.kind))
        return Result(self.confirmation(game, board.number, user.userid),
                      subject=f"{game.title} Board {board.number} {self.subject_word}")

    def confirmation(self, game: Game, number: int, userid: str) -> str:
        raise NotImplementedError


@game_verb
class Subscribe(Follow):
    """``subscribe``: one board (``BOARD USERID PASSWORD``), the whole game (``USERID PASSWORD all``),
    or the original's ``USERID PASSWORD B1 B2 ...`` (several boards, ``all`` among them if wanted;
    none: just the summary).  Every answer ends with the user's whole subscription summary, so a
    player sees what mail they will get without a second command."""

    name = "subscribe"
    argument_description = "BOARD USERID PASSWORD | USERID PASSWORD all | USERID PASSWORD BOARD ..."
    description = ("Watch boards: receive every move mail (until 'unsubscribe' or the end); 'all': every "
                   "board of this game started from now on. The answer lists all you follow.")
    kind = "watch"

    def password_positions(self, args: list[str]) -> tuple[int, ...]:
        return (1,) if args and not is_digits(args[0].split("#")[0]) else self.password_args

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) >= 2 and not is_digits(args[0].split("#")[0]):
            return self.several(ctx, game, args)
        result = super().run(ctx, game, args)
        user = accounts.find_user(ctx.session, args[1])  # BOARD USERID PASSWORD (authenticated by run)
        if user is not None:
            ctx.session.flush()
            result.text = result.text.rstrip("\n") + "\n\n" + subscription_summary(ctx, user)
        return result

    def several(self, ctx: Context, game: Game, args: list[str]) -> Result:
        """``USERID PASSWORD B1 B2 ... [all]``: each board that can be watched is; the others are named
        with the reason.  Nothing at all watchable (and no ``all``) is refused and changes nothing."""
        user = accounts.authenticate(ctx.session, args[0], args[1])
        words = list(dict.fromkeys(w.lower() for w in args[2:]))
        bad = [w for w in words if w != "all" and not is_digits(w)]
        if bad:
            raise CommandError(f"{bad[0]!r} is not a board number (usage: {game.name} subscribe USERID PASSWORD "
                               "BOARD ... or all)", title=game.title)
        done: list[str] = []
        problems: list[str] = []
        whole = ""
        for word in words:
            if word == "all":
                try:
                    whole = follow_game(ctx, game, [user.userid, "", "all"], self.kind, user).text
                except CommandError as exc:
                    problems.append(str(exc))
                continue
            try:
                board = boards.find_board(ctx.session, game, int(word))
                check_can_follow(ctx, game, board, user, self.kind)
            except CommandError as exc:
                problems.append(str(exc))
                continue
            ctx.session.add(Subscription(board_id=board.id, user_id=user.id, kind=self.kind))
            done.append(f"{game.title} Board {board.number}")
        ctx.session.flush()
        if words and not done and not whole and any("already" not in p for p in problems):
            raise CommandError("Nothing was subscribed: " + "; ".join(problems), title=game.title)
        lines = [f"{user.userid} now watches {', '.join(done)}: every move mail comes to you too."] if done else []
        lines += [whole] if whole else []
        lines += [f"Not subscribed: {p}." for p in problems]
        lines.append(subscription_summary(ctx, user))
        return Result("\n\n".join(wrap(line) for line in lines), subject=f"{game.title}: subscriptions")

    def confirmation(self, game: Game, number: int, userid: str) -> str:
        return (f"{userid} now watches {game.title} Board {number}: every move mail comes to "
                f"you too. {game.name} unsubscribe {number} {userid} PASSWORD stops it.")


def subscription_summary(ctx: Context, user: User) -> str:
    """Everything ``user`` follows: watched boards (per game), whole games, ends they are told of."""
    rows = ctx.session.execute(select(Board.game, Board.number, Subscription.kind).join(
        Subscription, Subscription.board_id == Board.id).where(
        Subscription.user_id == user.id, Board.status == "active").order_by(Board.game, Board.number)).all()
    follows = ctx.session.execute(select(GameFollow.game, GameFollow.kind).where(
        GameFollow.user_id == user.id).order_by(GameFollow.game)).all()

    def title(name: str) -> str:
        try:
            return boards.plugin_for(name).title
        except CommandError:
            return name

    def boards_of(kind: str) -> str:
        per_game: dict[str, list[str]] = {}
        for game, number, k in rows:
            if k == kind:
                per_game.setdefault(game, []).append(str(number))
        return "; ".join(f"{title(g)} Board{'s' if len(n) > 1 else ''} {', '.join(n)}" for g, n in per_game.items())

    watched, told = boards_of("watch"), boards_of("notify")
    whole = ", ".join(title(g) for g, k in follows if k == "watch")
    ends = ", ".join(title(g) for g, k in follows if k == "notify")
    lines = [f"Subscriptions of {user.userid}:",
             f"  Watching: {watched or 'no board'}",
             f"  Every new board (all) of: {whole or 'no game'}"]
    if told or ends:
        lines.append(f"  Told of the end of: {'; '.join(filter(None, [told, ends and 'every board of ' + ends]))}")
    return "\n".join("\n".join(textwrap.wrap(line, 78, subsequent_indent="    ", break_on_hyphens=False))
                     for line in lines)


@game_verb
class Notify(Follow):
    name = "notify"
    argument_description = "BOARD USERID PASSWORD | USERID PASSWORD"
    description = ("Be told (once, with the final board) when the board ends; 'unsubscribe' undoes it. "
                   "With no board: a toggle for the end of every board of this game.")
    kind = "notify"
    subject_word = "notify"
    game_word = None

    def confirmation(self, game: Game, number: int, userid: str) -> str:
        return f"{userid} will be told when {game.title} Board {number} ends."


@game_verb
class Unsubscribe(GameCommand):
    name = "unsubscribe"
    abbrev = 5
    argument_description = "BOARD USERID PASSWORD | USERID PASSWORD all"
    description = "Stop watching a board (and drop a 'notify' on it); 'all': stop following the whole game."
    password_args = (2,)

    def password_positions(self, args: list[str]) -> tuple[int, ...]:
        return (1,) if whole_game(args, "all") else self.password_args

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if whole_game(args, "all"):
            user = accounts.authenticate(ctx.session, args[0], args[1])
            gone = ctx.session.execute(delete(GameFollow).where(
                GameFollow.game == game.name, GameFollow.user_id == user.id)).rowcount
            if not gone:
                raise CommandError(f"{user.userid} does not follow the whole of {game.title}", title=game.title)
            return Result(f"{user.userid} no longer follows every {game.title} board.",
                          subject=f"{game.title}: unsubscribed")
        board, user = open_board(ctx, game, args, "unsubscribe BOARD USERID PASSWORD")
        gone = ctx.session.execute(delete(Subscription).where(
            Subscription.board_id == board.id, Subscription.user_id == user.id)).rowcount
        if not gone:
            raise CommandError(f"{user.userid} does not follow {game.title} Board {board.number}",
                               board=board, title=game.title)
        return Result(f"{user.userid} no longer follows {game.title} Board {board.number}.",
                      subject=f"{game.title} Board {board.number} unsubscribed")


def has_played(ctx: Context, user: User) -> bool:
    """The account sits at a board where a move was made (a fresh account made to send mail does not)."""
    return ctx.session.scalar(select(Seat.id).join(Board, Board.id == Seat.board_id)
                              .where(Seat.user_id == user.id, Board.ply > 0).limit(1)) is not None


def spend_messages(ctx: Context, sender: User, to: list[User]) -> None:
    """A ``message``'s caps: the account's (small until it has played), its From address's
    (shared by every account mailing from it) and each recipient's (from everyone)."""
    now = ctx.now
    spend_recipients(ctx.session, sender.userid, len(to), now, new=not has_played(ctx, sender))
    address = str(ctx.session.info.get(SENDER_KEY) or ctx.request.sender or "").lower()
    if address:
        spend(ctx.session, f"recipients-from:{address}", len(to), ADDRESS_RECIPIENTS_DAY,
              f"Mail from {address} has reached today's limit of {ADDRESS_RECIPIENTS_DAY} message "
              "recipients; try again tomorrow", now)
    for user in to:
        spend(ctx.session, f"messages-to:{user.userid}", 1, MESSAGES_TO_USER_DAY,
              f"{user.userid} has received today's limit of {MESSAGES_TO_USER_DAY} messages; "
              "nothing was sent. Try again tomorrow", now)


@general
class Message(Command):
    name = "message"
    argument_description = "USERID PASSWORD TO ..."
    description = "Mail the body of your mail to those users (their addresses stay private)."
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) < 3:
            raise CommandError("Usage: message USERID PASSWORD TO ... (the body is the message)")
        sender = accounts.authenticate(ctx.session, args[0], args[1])
        names = list(dict.fromkeys(a.lower() for a in args[2:]))
        if len(names) > MAX_RECIPIENTS:
            raise CommandError(f"A message goes to at most {MAX_RECIPIENTS} users; you named {len(names)}")
        to = [accounts.require_user(ctx.session, n) for n in names]
        text = require_body(ctx, "message")
        body = quoted(sender.userid, text) + f"\nTo answer: message YOURID PASSWORD {sender.userid}\n"
        subject = f"pbmserv message from {sender.userid}"
        spend_messages(ctx, sender, to)
        mails = [Mail(to=accounts.addresses_of(u), subject=subject, body=body, users=[u.userid]) for u in to if u.addresses]
        return Result(f"Your message went to: {', '.join(u.userid for u in to)}.", subject="pbmserv: message sent",
                      mails=mails)


def spend_broadcast(ctx: Context, sender: User) -> None:
    """A ``broadcast``'s own daily cap (``--broadcasts-per-day``): per account and per From address,
    so sock-puppet accounts mailing from one address share one allowance."""
    cap = ctx.settings.broadcasts_per_day
    said = f"the limit of {cap} broadcast{'s' if cap != 1 else ''} a day"
    spend(ctx.session, f"broadcasts-of:{sender.userid}", 1, cap,
          f"{sender.userid} has reached {said}; nothing was sent. Try again tomorrow", ctx.now)
    address = str(ctx.session.info.get(SENDER_KEY) or ctx.request.sender or "").lower()
    if address:
        spend(ctx.session, f"broadcasts-from:{address}", 1, cap,
              f"Mail from {address} has reached {said}; nothing was sent. Try again tomorrow", ctx.now)


def broadcast_audience(ctx: Context, sender: User) -> list[User]:
    """Everyone who opted in (``broadcasts ... on``) and can receive mail, the sender and computers aside."""
    users = ctx.session.scalars(select(User).where(User.broadcasts.is_(True), User.active.is_(True),
                                                   User.id != sender.id).order_by(User.userid))
    return [u for u in users if accounts.addresses_of(u) and not accounts_computer.is_computer(u)]


@general
class Broadcast(Command):
    """The original's ``broadcast``: one mail to every player who asked for them.

    Opt-in only (``users.broadcasts``, off by default), a daily cap of its
    own per account and per From address, and one mail per recipient: nobody
    sees another recipient's address, nor the sender's (only their userid).
    ``broadcast USERID PASSWORD on|off`` is the opt-in itself (``broadcasts``).
    """

    name = "broadcast"
    argument_description = "USERID PASSWORD [on|off]"
    description = ("Mail the body of your mail to every player who turned broadcasts on (one a day); "
                   "'on'/'off': receive them or not.")
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) == 3 and args[2].lower() in ("on", "off"):
            return GENERAL["broadcasts"].process(ctx, args)
        if len(args) != 2:
            raise CommandError("Usage: broadcast USERID PASSWORD (the body is the message), or "
                               "broadcast USERID PASSWORD on|off to receive broadcasts or not")
        sender = accounts.authenticate(ctx.session, args[0], args[1])
        if not has_played(ctx, sender):
            raise CommandError(f"{sender.userid} has not played a move yet: a broadcast needs an account "
                               "that has played; nothing was sent")
        text = require_body(ctx, "broadcast")
        audience = broadcast_audience(ctx, sender)
        if not audience:
            raise CommandError("Nobody has turned broadcasts on ('broadcasts USERID PASSWORD on'), so nobody "
                               "would receive yours; nothing was sent and nothing counted")
        spend_broadcast(ctx, sender)
        subject = f"pbmserv broadcast from {sender.userid}"
        body = (quoted(sender.userid, text) + f"\nTo answer {sender.userid} alone: message YOURID PASSWORD "
                f"{sender.userid}\nYou get this because you turned broadcasts on; "
                "'broadcasts YOURID PASSWORD off' stops them.\n")
        mails = [Mail(to=accounts.addresses_of(u), subject=subject, body=body, users=[u.userid]) for u in audience]
        many = len(audience)
        return Result(f"Your broadcast went to {many} player{'s' if many != 1 else ''} who turned broadcasts on "
                      "(each got a mail of their own; no addresses were shown).",
                      subject="pbmserv: broadcast sent", mails=mails)
