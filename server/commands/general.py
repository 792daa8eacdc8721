"""Account and general commands: help, signup, change, signoff, list, all, vacation."""

from __future__ import annotations

import textwrap

from sqlalchemy import func, select

import games
from server.accounts import accounts, confirm
from server.boards import boards, conditional, lifecycle, tournaments
from server.commands.base import Command, CommandError, Context, Result
from server.commands.registry import GAME_VERBS, GENERAL, general
from server.commands.resolve import spelled, unique
from server.mail import limits
from server.mail.quota import pictures_for
from server.store.model import Board, Seat, User
from server.store.resources import render_template

#: Widest line of ``help commands`` (every reply line fits in 78 columns).
HELP_WIDTH = 78


def command_entry(head: str, cmd: Command) -> list[str]:
    """One command's usage (wrapped under itself) and description (indented)."""
    usage = textwrap.wrap(f"{head} {cmd.argument_description}".rstrip(), HELP_WIDTH - 2,
                          subsequent_indent="      ", break_on_hyphens=False)
    text = textwrap.wrap(cmd.description, HELP_WIDTH - 6, break_on_hyphens=False)
    return ["  " + line for line in usage] + ["      " + line for line in text]


def commands_help() -> str:
    """``help commands``: built from the command classes and the word resolver.

    A name is shown as ``chall[enge]``: the part before the bracket (or any
    longer unambiguous prefix) is enough, exactly as the parser resolves it.
    """
    lines = ["Command words may be shortened: type at least the part before [...].", "",
             "General commands:", ""]
    for cmd in unique(GENERAL):
        names = "|".join((spelled(cmd, GENERAL), *cmd.aliases))
        lines += command_entry(names, cmd)
    lines += ["", "Game commands (GAME is a game's name, e.g. warpandweft):", ""]
    for cmd in unique(GAME_VERBS):
        names = "|".join((spelled(cmd, GAME_VERBS), *cmd.aliases))
        lines += command_entry(f"GAME {names}", cmd)
    return "\n".join(lines)


def games_help() -> str:
    lines = ["Games on this server:", ""]
    for g in games.available():
        aliases = f" (also: {', '.join(g.aliases)})" if g.aliases else ""
        lines.append(f"  {g.name:<14} {g.title}, {g.players} players{aliases}")
    lines += ["", "Send 'GAME help' (e.g. 'warpandweft help') for a game's rules and moves."]
    return "\n".join(lines)


@general
class Help(Command):
    name = "help"
    argument_description = "[commands | games | tutorial | conditional | tournament | GAME]"
    description = ("This help; 'help commands' lists every command, 'help tutorial' walks through a first "
                   "game by mail, 'help GAME' a game's rules.")

    def process(self, ctx: Context, args: list[str]) -> Result:
        # Help is the server's own fixed text (nothing of the sender's in it): it goes
        # out whole even to an address without an account, the very people who need it.
        if not args:
            return Result(render_template("help.txt", address=ctx.settings.address), subject="pbmserv help",
                          fixed=True)
        parts = []
        for topic in args:
            word = topic.lower()
            if word == "commands":
                parts.append(commands_help())
            elif word == "games":
                parts.append(games_help())
            elif word == "tutorial":
                parts.append(render_template("tutorial.txt", address=ctx.settings.address))
            elif word == "conditional":
                parts.append(render_template("help_conditional.txt", branches=conditional.MAX_BRANCHES,
                                             depth=conditional.MAX_DEPTH))
            elif word in ("tournament", "tournaments"):
                parts.append(render_template("help_tournament.txt", address=ctx.settings.address))
            else:
                try:
                    game = games.load_game(word)
                except games.GameUnavailable as exc:
                    raise CommandError(str(exc)) from None
                except games.UnknownGame:
                    raise CommandError(
                        f"No help on {topic!r}: try 'help', 'help commands', 'help games' or 'help GAME'"
                    ) from None
                parts.append(game.help())
        return Result("\n\n".join(parts), subject=f"pbmserv help {' '.join(args)}", fixed=True)


def waiting_note(user: User) -> str:
    """Which of the user's addresses wait for their confirmation reply."""
    waiting = [a.address for a in user.addresses if not a.confirmed]
    if not waiting:
        return ""
    return "\n\n" + textwrap.fill(
        "Waiting for confirmation (each was sent one mail; a reply to it confirms the address, "
        f"and nothing else goes there until then): {', '.join(waiting)}", width=78, break_on_hyphens=False) + "\n"


def set_addresses(ctx: Context, user: User, addresses: list[str], subject: str) -> Result:
    """``change address`` and ``add``: the account's addresses become ``addresses`` (new ones are
    confirmed by mail), and the answer says where mail goes now."""
    mails = confirm.set_addresses(ctx.session, ctx.settings, user, addresses, ctx.request.sender, ctx.now)
    goes = ", ".join(accounts.addresses_of(user)) or "nowhere until an address is confirmed"
    return Result(f"Mail for {user.userid} now goes to: {goes}{waiting_note(user)}", subject=subject, mails=mails)


@general
class Signup(Command):
    name = "signup"
    argument_description = "USERID PASSWORD [ADDRESS ...]"
    description = "Open an account; mail goes to the addresses given, else to you."
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) < 2:
            raise CommandError("Usage: signup USERID PASSWORD [ADDRESS ...]")
        addresses = accounts.check_addresses(args[2:], ctx.request.sender)
        user = accounts.create_user(ctx.session, args[0], args[1], [])
        mails = confirm.set_addresses(ctx.session, ctx.settings, user, addresses, ctx.request.sender, ctx.now)
        text = render_template(
            "signup.txt", userid=user.userid, addresses=", ".join(accounts.addresses_of(user)) or "(none yet)",
            address=ctx.settings.address
        ) + waiting_note(user)
        for mail in mails:
            # The confirmation to the sign-up's own address is the one mail it gets (issue 32: a From
            # proves nothing): the welcome goes with it, below the part that must not be cut off.
            if ctx.request.sender.lower() in (a.lower() for a in mail.to):
                mail.body = mail.body.rstrip("\n") + "\n\n" + text
        return Result(text, subject=f"pbmserv: welcome, {user.userid}", mails=mails)


@general
class Change(Command):
    name = "change"
    argument_description = "password USERID OLD NEW | address USERID PASSWORD [ADDRESS ...]"
    description = "Change your password, or the addresses your mail goes to."
    password_args = (2, 3)

    def process(self, ctx: Context, args: list[str]) -> Result:
        what = args[0].lower() if args else ""
        if what == "password" and len(args) == 4:
            user = accounts.authenticate(ctx.session, args[1], args[2])
            accounts.set_password(user, args[3])
            return Result(f"The password of {user.userid} is changed.", subject="pbmserv: password changed")
        if what == "address" and len(args) >= 3:
            user = accounts.authenticate(ctx.session, args[1], args[2])
            addresses = accounts.check_addresses(args[3:], ctx.request.sender)
            return set_addresses(ctx, user, addresses, "pbmserv: address changed")
        raise CommandError("Usage: change password USERID OLD NEW, or change address USERID PASSWORD [ADDRESS ...]")


@general
class Add(Command):
    """The original's ``add``: one more address, the others kept (``change address`` replaces them all)."""

    name = "add"
    argument_description = "USERID PASSWORD ADDRESS ..."
    description = "Add addresses to your account (the ones it has are kept; a new one is confirmed by mail)."
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) < 3:
            raise CommandError("Usage: add USERID PASSWORD ADDRESS ...")
        user = accounts.authenticate(ctx.session, args[0], args[1])
        added = accounts.check_addresses(args[2:], ctx.request.sender)
        have = [a.address for a in user.addresses]
        wanted = have + [a for a in added if a.lower() not in {h.lower() for h in have}]
        return set_addresses(ctx, user, wanted, "pbmserv: address added")


@general
class Echo(Command):
    """The original's ``echo``: proof that mail reaches the server and its answers come back."""

    name = "echo"
    argument_description = "[TEXT ...]"
    description = "Answers with what you wrote: a test that your mail reaches the server and replies come back."

    def process(self, ctx: Context, args: list[str]) -> Result:
        said = " ".join(args)
        text = "pbmserv received your mail" + (f" and read: {said}" if said else "") + "."
        if ctx.request.comment.strip():
            text += "\n\nYour mail's text:\n\n" + "\n".join("  " + line for line in ctx.request.comment.splitlines())
        return Result(text, subject="pbmserv echo")


@general
class Signoff(Command):
    name = "signoff"
    aliases = ("delete",)  # the original's word for closing an account
    argument_description = "USERID PASSWORD"
    description = "Close your account ('delete' is the same); your running games are resigned."
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) != 2:
            raise CommandError("Usage: signoff USERID PASSWORD")
        user = accounts.authenticate(ctx.session, args[0], args[1])
        mails = []
        running = ctx.session.scalars(
            select(Board).join(Seat).where(Seat.user_id == user.id, Board.status == "active")
        ).all()
        with tournaments.one_table(ctx):  # one standings mail per tournament, not one per board
            for board in running:
                game = boards.plugin_for(board.game)
                seat = boards.seat_of(board, user)
                assert seat is not None
                mails += lifecycle.resign_now(ctx, board, game, seat, user, reason=f"{user.userid} signed off")
        user.active = False
        mails += tournaments.after_signoff(ctx, user, running)
        text = f"The account {user.userid} is closed."
        if running:
            text += f" Resigned: {', '.join(f'{b.game} {b.number}' for b in running)}."
        return Result(text, subject="pbmserv: signed off", mails=mails, confirm=True)


@general
class Vacation(Command):
    name = "vacation"
    argument_description = "USERID PASSWORD on|off"
    description = "While on, you get no reminders and no forfeits; opponents are told."
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) != 3 or args[2].lower() not in ("on", "off"):
            raise CommandError("Usage: vacation USERID PASSWORD on|off")
        user = accounts.authenticate(ctx.session, args[0], args[1])
        back = user.vacation and args[2].lower() == "off"
        user.vacation = args[2].lower() == "on"
        # Back: reminders resume now, forfeits only after the next move (the original's half-state).
        user.vacation_back = back or (user.vacation_back and not user.vacation)
        state = "on vacation: no reminders, no forfeits" if user.vacation else "back from vacation"
        text = f"{user.userid} is {state}."
        if back:
            text += " Reminders resume; no board is forfeited before your next move."
        if back:
            # The clocks stood still for the vacation: where it is this
            # player's move, the turn starts afresh, a full nag time ahead.
            waiting = lifecycle.back_from_vacation(ctx.session, user, ctx.now)
            if waiting:
                text += f" The clock starts afresh on the {waiting} boards waiting for your move."
        return Result(text, subject=f"pbmserv: vacation {args[2].lower()}")


@general
class List(Command):
    name = "list"
    argument_description = "[GAME ...] [page N]"
    description = f"The active boards of those games (of all games if none), {limits.ROWS_PER_REPLY} a page."

    def process(self, ctx: Context, args: list[str]) -> Result:
        args, page = limits.page_arg(args, "list [GAME ...] [page N]")
        chosen = [boards.plugin_for(a) for a in args] if args else games.available()
        parts = []
        for game in chosen:
            active = (Board.game == game.name, Board.status == "active")
            total = ctx.session.scalar(select(func.count()).select_from(Board).where(*active)) or 0
            rows = ctx.session.scalars(
                select(Board).where(*active).order_by(Board.number)
                .offset((page - 1) * limits.ROWS_PER_REPLY).limit(limits.ROWS_PER_REPLY)
            ).all()
            table = boards.boards_table(list(rows), f"{game.title} ({game.name})")
            note = limits.more_note(total, page, limits.ROWS_PER_REPLY, f"list {game.name}")
            parts.append(table + ("\n" + note if note else ""))
        return Result("\n\n".join(parts), subject="pbmserv list")


@general
class All(Command):
    name = "all"
    argument_description = "show USERID [next|active] [page N]"
    description = (f"That user's boards in every game ({limits.BOARDS_PER_REPLY} a page); "
                   "'next': only where it is their move.")
    USAGE = "all show USERID [next|active] [page N]"

    def process(self, ctx: Context, args: list[str]) -> Result:
        args, page = limits.page_arg(args, self.USAGE)
        if len(args) < 2 or args[0].lower() != "show" or len(args) > 3 or (
                len(args) > 2 and args[2].lower() not in ("next", "active")):
            raise CommandError(f"Usage: {self.USAGE}")
        user = accounts.require_user(ctx.session, args[1])
        only_next = len(args) > 2 and args[2].lower() == "next"
        where = [Seat.user_id == user.id, Board.status == "active"]
        if only_next:
            where.append(Board.to_move == Seat.seat)
        total = ctx.session.scalar(select(func.count()).select_from(Board).join(Seat).where(*where)) or 0
        size = limits.BOARDS_PER_REPLY
        rows = ctx.session.scalars(
            select(Board).join(Seat).where(*where).order_by(Board.game, Board.number)
            .offset((page - 1) * size).limit(size)
        ).all()
        parts = []
        pictures = []
        drawn = pictures_for(ctx.session, ctx.request.sender)
        for board in rows:
            game = boards.plugin_for(board.game)
            state = game.load(board.state)
            moves = boards.moves_of(ctx.session, board)
            head = f"{game.title} Board {board.number}"
            parts.append(
                boards.board_text(ctx.settings, board, game, state, moves, head, boards.seat_of(board, user), False)
            )
            pictures += boards.picture(ctx.settings, board, game, state) if drawn else []
        if not parts:
            which = "boards where it is their move" if only_next else "active boards"
            there = f" on page {page}" if page > 1 and total else ""
            return Result(f"{user.userid} has no {which}{there}.", subject=f"pbmserv: boards of {user.userid}")
        sep = "\n" + "=" * 72 + "\n\n"
        command = " ".join(["all show", user.userid, *args[2:]])
        note = limits.more_note(total, page, size, command)
        text = sep.join(parts) + ("\n\n" + note if note else "")
        return Result(text, subject=f"pbmserv: boards of {user.userid}", pictures=pictures)
