"""Game commands: help, challenge, move (and its words), swap, resign, show, games."""

from __future__ import annotations

import re
import textwrap
from typing import Any

from sqlalchemy import exists, func, select

from games import Game
from games.digits import is_digits
from server.accounts import accounts, consent
from server.accounts import computer as accounts_computer
from server.accounts.reply_address import seated_sender
from server.boards import board_notes, boards, computer, conditional, lifecycle
from server.boards.watchers import board_followers
from server.commands import game_records, policy
from server.commands.base import CommandError, Context, Result, authenticate
from server.commands.registry import GameCommand, game_verb
from server.commands.resolve import AmbiguousOption, expand_options
from server.mail import limits
from server.mail.quota import pictures_for
from server.mail.replies import board_root
from server.mail.wrapping import wrap
from server.store import queries
from server.store.model import Board, Seat, User

_MOVENO = re.compile(r"^(?P<move>.*?)#(?P<n>[0-9]+)$")
#: Move words the server handles itself; everything else goes to the plugin.
SERVER_WORDS = ("resign", "propose", "undo", "accept", "reject")


def split_moveno(text: str) -> tuple[str, int | None]:
    """``L11#5`` -> ("L11", 5).  A lone ``#`` (or ``+``) at the end is a check mark."""
    m = _MOVENO.match(text)
    if m:
        return m.group("move").strip(), int(m.group("n"))
    if "#" in text.rstrip("#+"):
        raise CommandError(
            f"{text!r}: a move number is written MOVE#N, N being the number of this move (e.g. L11#5)"
        )
    return text.rstrip("#+").strip() or text, None


def join_quoted(tokens: list[str]) -> list[str]:
    """Rejoin ``-position="a b c"`` that the word split cut apart (quotes removed).

    Position strings have spaces; the mail language splits on white space.
    """
    out: list[str] = []
    open_quote: str | None = None
    for token in tokens:
        if open_quote is not None:
            out[-1] += " " + token
            if token.endswith(open_quote):
                out[-1] = out[-1][:-1]
                open_quote = None
            continue
        name, eq, value = token.partition("=")
        if token.startswith("-") and eq and value[:1] in ("'", '"'):
            quote = value[0]
            if len(value) > 1 and value.endswith(quote):
                out.append(f"{name}={value[1:-1]}")
            else:
                out.append(f"{name}={value[1:]}")
                open_quote = quote
            continue
        out.append(token)
    if open_quote is not None:
        raise CommandError(f"An option value opened with {open_quote} is never closed")
    return out


#: Most boards one ``show USERID`` mails at once.
SHOW_MAX = 20
#: The ``--name`` options of a challenge that the server reads (not the game).
SERVER_OPTIONS = ("nagtime", "forfeittime", "totaltime", "force", "unrated", "rated", "record")
#: Of those, the ones only the admin's ``pbmserv challenge`` may give
#: (``--rated``: a board against the computer, which is unrated by default).
ADMIN_OPTIONS = ("force", "unrated", "rated")
#: The shortest reminder period: a reminder a day is already more than pbmserv's players wanted.
MIN_DAYS = 1.0


def parse_days(value: str, what: str) -> float:
    try:
        days = float(value)
    except ValueError:
        raise CommandError(f"--{what}={value}: give a number of days, e.g. --{what}=7") from None
    if not MIN_DAYS <= days <= 365:
        raise CommandError(f"--{what}={value}: give between {MIN_DAYS:g} and 365 days")
    return days


def check_timers(nagtime: float, forfeittime: float) -> None:
    """A reminder must come before the forfeit, or the player is never warned."""
    if nagtime >= forfeittime:
        raise CommandError(f"--nagtime={nagtime:g} is not below --forfeittime={forfeittime:g}: the reminder "
                           "must come before the forfeit, so the nag time must be the shorter")


def written_out(game: Game, tokens: list[str]) -> list[str]:
    """Option tokens with shortened names written out (``-siz=3`` -> ``-size=3``)."""
    try:
        return expand_options(tokens, game.option_names)
    except AmbiguousOption as exc:
        raise CommandError(str(exc), title=game.title) from None


def game_options(game: Game, tokens: list[str]) -> dict[str, Any]:
    """The game's options from ``-name[=value]`` tokens; names may be shortened."""
    return game.parse_options(written_out(game, tokens))


@game_verb
class GameHelp(GameCommand):
    name = "help"
    description = "Rules, options and move syntax of that game."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        return Result(game.help(), subject=f"{game.title} help")


@game_verb
class Challenge(GameCommand):
    name = "challenge"
    abbrev = 5
    argument_description = ("USER1 USER2 [USER3] [-OPTION[=VALUE] ...] [--nagtime=DAYS] [--forfeittime=DAYS] "
                            "[--totaltime=DAYS] [--record[=N]]")
    description = ("Start a board at once; USER1 moves first. The body is the first comment. "
                   "--record: from the game record attached (or the body) after its move N (default: all). "
                   "The admin's pbmserv challenge also takes --force (past any policy) and --unrated. "
                   "USER 'computer' [-level=1|2|3] plays the computer (unrated; the admin's --rated rates it).")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        args = join_quoted(args)
        names = [a for a in args if not a.startswith("-")]
        server_opts = [a for a in args if a.startswith("--")]
        game_opts = [a for a in args if a.startswith("-") and not a.startswith("--")]
        level, game_opts = computer.take_level(game_opts)
        names, against_computer = computer.seat_accounts(ctx.session, names, level)
        if len(names) != game.players:
            raise CommandError(
                f"{game.title} needs {game.players} players: {game.name} challenge "
                + " ".join(f"USER{i + 1}" for i in range(game.players)),
                title=game.title,
            )
        nagtime, forfeittime = ctx.settings.nagtime, ctx.settings.forfeittime
        totaltime: float | None = None
        try:
            server_opts = expand_options(server_opts, SERVER_OPTIONS, dashes="--")
        except AmbiguousOption as exc:
            raise CommandError(str(exc), title=game.title) from None
        flags = set()
        record = None
        for opt in server_opts:
            key, eq, value = opt[2:].partition("=")
            key = key.lower()
            if key == "record":  # start from a mailed game record's position (server.commands.game_records)
                if game_opts:
                    raise CommandError("With --record the options are the record's: leave out "
                                       + " ".join(game_opts), title=game.title)
                record = game_records.from_record(ctx, game, value)
            elif key == "nagtime":
                nagtime = parse_days(value, "nagtime")
            elif key == "forfeittime":
                forfeittime = parse_days(value, "forfeittime")
            elif key == "totaltime":  # the original's total clock: days each player may use in all
                totaltime = parse_days(value, "totaltime")
            elif key in ADMIN_OPTIONS and not eq:
                if not ctx.request.admin:
                    raise CommandError(f"--{key} is for the server's admin (pbmserv challenge) only",
                                       title=game.title)
                flags.add(key)
            else:
                raise CommandError(f"Unknown option {opt}; server options are --nagtime=DAYS, --forfeittime=DAYS "
                                   "and --totaltime=DAYS", title=game.title)
        check_timers(nagtime, forfeittime)
        options = game_options(game, game_opts) if record is None else record[0].options
        users = challenge_users(ctx, game, names, check="force" not in flags)
        if against_computer:
            owner = None if ctx.request.admin else queries.owner_of(ctx.session, ctx.request.sender)
            computer.check_challenge(ctx.session, ctx.settings, users, owner, ctx.request.admin)
        rated = "unrated" not in flags and (not against_computer or "rated" in flags)
        board, state = boards.create_board(ctx.session, game, users, options, nagtime, forfeittime, rated=rated)
        board.totaltime = totaltime
        comment = ctx.request.comment
        opening = ""
        if record is not None:
            state = game_records.play_opening(ctx, board, game, state, record[0].moves)
            comment = game_records.challenge_comment(ctx)
            opening = f" It starts from a game record after move {record[1]}: its moves are this board's first."
        challenger, proven = challenger_name(ctx, users[0])
        players = " vs ".join(u.userid for u in users)
        if proven:
            headline = f"{challenger} started {game.title} Board {board.number}: {players}.{opening}"
            comment_by = challenger
        else:
            # Not from an address of the first player: say who really sent it,
            # and do not show the body as any player's words.
            headline = textwrap.fill(f"{game.title} Board {board.number} ({players}) was started by a "
                                     f"challenge sent from {challenger}, not from {users[0].userid}'s address.{opening}",
                                     width=78, break_on_hyphens=False)
            comment_by = f"The challenge mail (from {challenger}, not a player)"
        mails = boards.announce(ctx, board, game, state, headline, new=True, comment_by=comment_by,
                                comment=comment)
        # A challenger who plays gets their board as the answer, so a 'multiple'
        # mail's combined reply carries it too (it once held the headline alone).
        own = next((m.body for m in mails if challenger in m.users), headline)
        return Result(
            own,
            subject=boards.board_subject(board, game, new=True, comment=comment),
            mails=mails,
            references=[board_root(ctx.settings, game.name, board.number)],
        )


def challenger_name(ctx: Context, first: User | None = None) -> tuple[str, bool]:
    """Who sent the challenge, and whether that is proven to be ``first`` (the first seat).

    Proven: the admin's tool, or a mail from an address registered to
    ``first``.  Otherwise the sender's userid if the address is registered
    to someone, else the address itself.
    """
    if ctx.request.admin:
        return "The admin", True
    owner = queries.owner_of(ctx.session, ctx.request.sender)
    if owner is None:
        return ctx.request.sender, False
    return owner.userid, first is not None and owner.id == first.id


def challenge_users(ctx: Context, game: Game, names: list[str], check: bool = True) -> list[User]:
    """The seats of a challenge, or one refusal naming every problem at once.

    Every unknown userid, every player who refuses or is at a limit: the
    challenger fixes them all in one go, not one mail per problem.
    """
    users, problems = [], []
    for name in names:
        try:
            users.append(accounts.require_user(ctx.session, name))
        except CommandError as exc:
            problems.append(str(exc))
    if len({u.id for u in users}) != len(users):
        problems.append("A player cannot sit at the same board twice")
    if check:
        problems += policy_refusals(ctx, game, list({u.id: u for u in users}.values()))
    if len(problems) == 1:
        raise CommandError(problems[0], title=game.title)
    if problems:
        raise CommandError(f"This {game.title} challenge cannot start:\n"
                           + "\n".join(f"- {p}" for p in problems), title=game.title)
    return users


def policy_refusals(ctx: Context, game: Game, users: list[User]) -> list[str]:
    """Why each seat's policy (in this game) does not allow the challenge.

    Every seat, the sender's own included: a From can be forged (issue 20).
    Only the unconsented-boards check spares the seat whose own address sent it.
    """
    owner = None if ctx.request.admin else queries.owner_of(ctx.session, ctx.request.sender)
    out = []
    for user in users:
        if accounts_computer.is_computer(user):
            continue  # the computer consents to every board its own limits allow (server/boards/computer.py)
        reason = policy.refusal(ctx, user, game)
        spared = ctx.request.admin or (owner is not None and owner.id == user.id)
        why = reason or (None if spared else consent.unconsented_refusal(ctx.session, user))
        if why:
            out.append(why)
    return out


class BoardCommand(GameCommand):
    """A command naming BOARD USERID PASSWORD: locks the board, checks the player."""

    password_args = (2,)

    def open(self, ctx: Context, game: Game, args: list[str], usage: str) -> tuple[Board, User, int]:
        if len(args) < 3:
            raise CommandError(f"Usage: {game.name} {usage}", title=game.title)
        number, at = boards.parse_board_ref(args[0])
        if at is not None:
            raise CommandError(f"{args[0]}: name the board without #N here", title=game.title)
        board = boards.find_board(ctx.session, game, number, lock=True)
        user = authenticate(ctx, args[1], args[2], board)
        seat = boards.seat_of(board, user)
        if seat is None:
            raise CommandError(f"{user.userid} is not playing on {game.title} Board {number}", board=board, title=game.title)
        return board, user, seat


def require_active(board: Board, game: Game) -> None:
    if board.status == "removed":
        raise CommandError(f"{game.title} Board {board.number} was removed", board=board, title=game.title)
    if board.status != "active":
        raise CommandError(
            f"{game.title} Board {board.number} is finished: " + boards.status_line(board, game, game.load(board.state)),
            board=board,
            title=game.title,
        )


def check_moveno(board: Board, game: Game, moveno: int | None) -> None:
    if moveno is not None and moveno != board.ply + 1:
        why = ("was it sent twice, or after a newer move?" if moveno < board.ply + 1 else
               f"#N counts every move played so far plus one: send MOVE#{board.ply + 1}")
        raise CommandError(
            f"Your move was received as move #{moveno}, but the board is at move #{board.ply + 1}: "
            f"it was not played ({why}).",
            board=board,
            title=game.title,
        )


def check_turn(board: Board, game: Game, seat: int) -> None:
    if board.to_move != seat:
        mover = boards.user_to_move(board)
        raise CommandError(
            f"It is not your move: waiting for {mover.userid if mover else 'nobody'}", board=board, title=game.title
        )


def played(ctx: Context, board: Board, game: Game, state: Any, headline: str, comment_by: str, seat: int | None,
           private: dict[int, str] | None = None) -> Result:
    """Mails for everyone after a change, and the mover's own copy as the result."""
    moves = boards.moves_of(ctx.session, board)
    followers = board_followers(ctx.session, board)
    mails = boards.announce(ctx, board, game, state, headline, comment_by=comment_by, comment=ctx.request.comment,
                            private=private, moves=moves, followers=followers)
    # The PNG (7.5 ms for interweave) is drawn at most once per command, and
    # only for someone who gets it: announce's, or one for the mover alone.
    pictures = next((m.pictures for m in mails if m.pictures), None)
    if pictures is None:
        pictures = (boards.picture(ctx.settings, board, game, state)
                    if pictures_for(ctx.session, ctx.request.sender) else [])
    note = boards.own_note(board, seat, private or {})
    text = boards.board_text(ctx.settings, board, game, state, moves, headline, seat, board.status != "active",
                             note=note, followers=board_notes.follower_lines(board, followers))
    return Result(
        text,
        subject=boards.board_subject(board, game, comment=ctx.request.comment),
        mails=mails,
        references=[board_root(ctx.settings, game.name, board.number)],
        pictures=pictures,
    )


def resign(ctx: Context, board: Board, game: Game, seat: int, user: User) -> Result:
    """``move ... resign``: at once on one's turn, else recorded (or withdrawn) for one's next turn."""
    done = lifecycle.resign(ctx, board, game, seat, user)
    if not done.now:
        return Result(done.text, subject=f"{game.title} Board {board.number} resign")
    return Result(done.text, subject=boards.board_subject(board, game), mails=done.mails,
                  references=[board_root(ctx.settings, game.name, board.number)])


#: Words a board mail's subject has after "Board N" instead of a userid.
SUBJECT_STATES = ("finished", "error", "reminder")


def reply_subject_help(ctx: Context, game: Game, args: list[str]) -> None:
    """Refuse ``GAME move BOARD [USER]``, the subject of a board mail replied to
    unedited, with the exact subject that plays (password and move still to fill in)."""
    if not args or not is_digits(args[0]) or len(args[0]) > 9:
        return
    board = boards.find_board(ctx.session, game, int(args[0]))
    if len(args) > 1 and args[1].lower() not in SUBJECT_STATES:
        user = args[1].lower()
    else:
        mover = boards.user_to_move(board)
        user = mover.userid if mover else "USERID"
    raise CommandError(
        f"Usage: {game.name} move BOARD USERID PASSWORD MOVE[#N]\n\n"
        "To move by replying to a board mail, edit its subject to\n\n"
        f"    Re: {game.title} Board {board.number} {user} PASSWORD MOVE\n\n"
        f"with your password and your move; MOVE#{board.ply + 1} also checks that the board "
        f"is at move #{board.ply + 1}.",
        board=board, title=game.title)


@game_verb
class MoveCommand(BoardCommand):
    name = "move"
    aliases = ("board", "mvoe")
    argument_description = "BOARD USERID PASSWORD MOVE[#N]"
    description = "Play MOVE (also swap, pass, resign, propose, undo, accept, reject); #N guards against stale mail."
    password_args = (2,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) < 3:
            reply_subject_help(ctx, game, args)
        board, user, seat = self.open(ctx, game, args, "move BOARD USERID PASSWORD MOVE[#N]")
        if len(args) < 4:
            raise CommandError("No move given: move BOARD USERID PASSWORD MOVE[#N]", board=board, title=game.title)
        move, moveno = split_moveno(" ".join(args[3:]))
        require_active(board, game)
        check_moveno(board, game, moveno)
        word = move.lower()
        if word == "resign":
            return resign(ctx, board, game, seat, user)
        if word in ("propose", "undo", "accept", "reject"):
            trees = conditional.owners(board)
            state, headline = lifecycle.vote(ctx, board, game, seat, user, word)
            private = conditional.cleared_since(board, trees, "a move was taken back")
            return played(ctx, board, game, state, headline, user.userid, seat, private)
        check_turn(board, game, seat)
        state, notes, move = lifecycle.play_move(ctx, board, game, seat, move)
        headline = f"{user.userid} played {move}. {notes.public}".strip()
        return played(ctx, board, game, state, headline, user.userid, seat, notes.private)


@game_verb
class Swap(GameCommand):
    name = "swap"
    argument_description = "BOARD USERID PASSWORD"
    description = "The pie rule, where the game allows it: same as 'move ... swap'."
    password_args = (2,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        return MoveCommand().run(ctx, game, [*args[:3], "swap"])


@game_verb
class Resign(GameCommand):
    name = "resign"
    argument_description = "BOARD USERID PASSWORD"
    description = "Resign; out of turn it takes effect at your next turn (send again to withdraw)."
    password_args = (2,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        return MoveCommand().run(ctx, game, [*args[:3], "resign"])


@game_verb
class Show(GameCommand):
    name = "show"
    argument_description = "[board] BOARD[#N] ... | USERID [next|active|all]"
    description = ("Mail the board (as it stood after N moves) with its full move list; USERID: that user's "
                   "boards of this game (next: where it is their move; all: finished ones too).")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if args and args[0].lower() == "board":
            args = args[1:]  # "show board 101", as pbmserv's players wrote it
        if not args:
            raise CommandError(f"Usage: {game.name} show BOARD[#N] ..., or {game.name} show USERID "
                               "[next|active|all]", title=game.title)
        if not is_digits(args[0][:1]):
            return self.users_boards(ctx, game, args)
        if len(args) > limits.BOARDS_PER_REPLY:
            raise CommandError(f"A show draws at most {limits.BOARDS_PER_REPLY} boards; you named {len(args)}: "
                               "ask for the rest in another show", title=game.title)
        parts: list[str] = []
        pictures = []
        drawn = pictures_for(ctx.session, ctx.request.sender)
        board = None
        missing: list[str] = []  # "show 101 999": 101 is sent, and 999 named as not there
        found = None
        for ref in args:
            try:
                board_here, moves, at = boards.board_at(ctx.session, game, ref)
            except CommandError as exc:  # named, and the others still sent
                missing.append(f"{exc}.")
                found = exc.board
                continue
            board = found = board_here
            if at is None:
                state = game.load(board.state)
                head = f"{game.title} Board {board.number}"
                parts.append(boards.board_text(ctx.settings, board, game, state, moves, head, None, True))
                pictures += boards.picture(ctx.settings, board, game, state) if drawn else []
            else:
                state = boards.replay(game, board, moves, at)
                head = f"{game.title} Board {board.number} as it stood after move #{at}"
                parts.append(boards.show_text_at(board, game, state, moves[:at], head))
                pictures += boards.picture(ctx.settings, board, game, state, at) if drawn else []
        if board is None:  # nothing to show: one refusal naming every reference
            raise CommandError(" ".join(missing).rstrip("."), board=found if len(args) == 1 else None,
                               title=game.title)
        text = ("\n" + "=" * 72 + "\n\n").join(parts)
        if missing:
            text = wrap(" ".join(missing)) + "\n\n" + text
        subject = boards.board_subject(board, game) if len(args) == 1 else f"{game.title} boards"
        result = Result(text, subject=subject,
                        references=[board_root(ctx.settings, game.name, board.number)] if len(args) == 1 else [],
                        pictures=pictures)
        if len(args) == 1 and boards.parse_board_ref(args[0])[1] is None:
            player = seated_sender(board, ctx.request.sender)
            result.invite = (player, board) if player is not None else None
        return result


    def users_boards(self, ctx: Context, game: Game, args: list[str]) -> Result:
        """``show USERID [next|active|all]``: that user's boards of this game, each as they see it."""
        which = args[1].lower() if len(args) > 1 else "active"
        if len(args) > 2 or which not in ("next", "active", "all"):
            raise CommandError(f"Usage: {game.name} show USERID [next|active|all]", title=game.title)
        user = accounts.require_user(ctx.session, args[0])
        query = (select(Board).join(Seat).where(Seat.user_id == user.id, Board.game == game.name)
                 .order_by(Board.status != "active", Board.number.desc()))
        if which != "all":
            query = query.where(Board.status == "active")
        rows = [b for b in ctx.session.scalars(query.limit(SHOW_MAX + 1))
                if which != "next" or b.to_move == boards.seat_of(b, user)]
        subject = f"{game.title} boards of {user.userid}"
        if not rows:
            what = {"next": "boards waiting for their move", "active": "active boards", "all": "boards"}[which]
            return Result(f"{user.userid} has no {game.title} {what}.", subject=subject)
        parts = []
        for board in rows[:SHOW_MAX]:
            state = game.load(board.state)
            moves = boards.moves_of(ctx.session, board)
            parts.append(boards.board_text(ctx.settings, board, game, state, moves, f"{game.title} Board {board.number}",
                                           boards.seat_of(board, user), board.status != "active"))
        if len(rows) > SHOW_MAX:
            parts.append(f"Only the first {SHOW_MAX} are shown; '{game.name} games {user.userid} {which}' lists all.")
        return Result(("\n" + "=" * 72 + "\n\n").join(parts), subject=subject)


@game_verb
class Games(GameCommand):
    name = "games"
    argument_description = "[USERID ...] [all|active|inactive|next] [page N]"
    description = f"A table of boards: number, move, players, status ({limits.ROWS_PER_REPLY} a page)."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        args, page = limits.page_arg(args, f"{game.name} games [USERID ...] [all|active|inactive|next] [page N]")
        which = "active"
        names = []
        for a in args:
            if a.lower() in ("all", "active", "inactive", "next"):
                which = a.lower()
            else:
                names.append(a)
        users = [accounts.require_user(ctx.session, n) for n in names]
        # Filtered, counted and paged in SQL (issue 32: 50 lines of 'games all page N' over 5,000
        # boards loaded every board 50 times, 30 s of CPU for one stranger's mail).
        query = select(Board).where(Board.game == game.name)
        if which in ("active", "next"):
            query = query.where(Board.status == "active")
        elif which == "inactive":
            query = query.where(Board.status != "active")
        ids = [u.id for u in users]
        if ids:
            query = query.where(exists().where(Seat.board_id == Board.id, Seat.user_id.in_(ids)))
        if which == "next":
            query = query.where(Board.to_move.is_not(None))
            if ids:
                query = query.where(exists().where(Seat.board_id == Board.id, Seat.seat == Board.to_move,
                                                   Seat.user_id.in_(ids)))
        total = ctx.session.scalar(select(func.count()).select_from(query.subquery())) or 0
        size = limits.ROWS_PER_REPLY
        rows = list(ctx.session.scalars(query.order_by(Board.number).offset((page - 1) * size).limit(size)))
        title = f"{game.title} boards ({which}{': ' + ', '.join(u.userid for u in users) if users else ''})"
        note = limits.more_note(total, page, size, " ".join([game.name, "games", *args]))
        table = boards.boards_table(rows, title)
        return Result(table + ("\n" + note if note else ""), subject=f"{game.title} games")

