"""Finding opponents: ``GAME seek`` and ``GAME seeks``.

A seek is a standing wish to play one game (one per user and game), with
the options the seeker wants.  When a seek arrives and enough compatible
seeks are open (one more for a 2-player game, two for TriMac), a board
starts at once between them: the earlier seekers sit first, so the one who
waited longest moves first (a game with a pie rule balances that itself).
Two seeks are *compatible* when every option both of them name has the same
value (``-size=4`` and ``-size=3`` are not, even though 4 is the default);
the board gets every option either names.  The test needs no knowledge of
a game's options: the two seeks' tokens read in either order must give the
same options (a later option overrides an earlier one, so any clash shows),
and the game must accept them together.

Seeks respect challenge policies (``policy.refusal``): a player who refuses
the game, or is at a board limit, cannot seek, and an open seek whose owner
has come to such a limit meanwhile is passed over.

Two seeks arriving at once must not both wait for each other: the matching
runs under a per-game lock (PostgreSQL advisory lock; SQLite's writes are
serialised already).
"""

from __future__ import annotations

import zlib
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from games import Game, GameError
from server.accounts import accounts
from server.boards import boards
from server.boards.ratings import START, is_provisional
from server.commands import policy
from server.commands.base import CommandError, Context, Result
from server.commands.play import game_options, join_quoted, written_out
from server.commands.registry import GameCommand, game_verb
from server.mail.replies import board_root
from server.mail.wrapping import wrap
from server.store.model import Seek, User


def lock_game(session: Session, game: Game) -> None:
    """Serialise seek matching per game (no-op on SQLite, whose writers queue anyway)."""
    if session.get_bind().dialect.name == "postgresql":
        key = zlib.crc32(f"seek:{game.name}".encode())
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def together(game: Game, first: list[str], second: list[str]) -> dict[str, Any] | None:
    """The options of two seeks combined, or None when they clash (see the module docstring)."""
    try:
        forward = game.parse_options(list(dict.fromkeys([*first, *second])))
        backward = game.parse_options(list(dict.fromkeys([*second, *first])))
    except GameError:
        return None
    return forward if forward == backward else None


def shown(tokens: list[str]) -> str:
    return " ".join(tokens) if tokens else "(any options)"


def rating_of(session: Session, game: Game, user: User) -> str:
    from server.store.model import Rating

    row = session.scalars(select(Rating).where(Rating.game == game.name, Rating.user_id == user.id)).first()
    if row is None:
        return f"{START:.0f} P"
    return f"{row.rating:.0f}{' P' if is_provisional(row.games) else ''}"


def open_seeks(session: Session, game: Game) -> list[Seek]:
    rows = session.scalars(select(Seek).where(Seek.game == game.name).order_by(Seek.created_at, Seek.id))
    return [s for s in rows if s.user.active]


@game_verb
class SeekCommand(GameCommand):
    name = "seek"
    abbrev = 4
    argument_description = "USERID PASSWORD [-OPTION[=VALUE] ...] | USERID PASSWORD off"
    description = ("Look for an opponent: a board starts as soon as a compatible seek arrives (the earlier "
                   "seeker moves first); 'off' withdraws your seek.")
    password_args = (1,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        usage = f"Usage: {game.name} seek USERID PASSWORD [-OPTION[=VALUE] ...], or ... off"
        if len(args) < 2:
            raise CommandError(usage, title=game.title)
        user = accounts.authenticate(ctx.session, args[0], args[1])
        words = join_quoted(args[2:])
        subject = f"{game.title} seek"
        lock_game(ctx.session, game)
        mine = ctx.session.scalars(select(Seek).where(Seek.game == game.name, Seek.user_id == user.id)).first()
        if [w.lower() for w in words] == ["off"]:
            if mine is None:
                raise CommandError(f"{user.userid} has no open {game.title} seek", title=game.title)
            ctx.session.delete(mine)
            return Result(f"{user.userid}'s {game.title} seek is withdrawn.", subject=subject)
        if any(not w.startswith("-") or w.startswith("--") for w in words):
            raise CommandError(f"{usage}. A seek names the game's options only (e.g. -compact), "
                               "no players and no --timers", title=game.title)
        tokens = written_out(game, words)
        game_options(game, tokens)  # a clear refusal for options the game does not take
        reason = policy.refusal(ctx, user, game)
        if reason:
            raise CommandError(f"No seek entered: {reason}", title=game.title)
        group = self.partners(ctx, game, user, tokens)
        if group is None:
            if mine is None:
                ctx.session.add(Seek(game=game.name, user_id=user.id, tokens=tokens, created_at=ctx.now))
            else:
                mine.tokens = tokens
            waiting = sum(1 for s in open_seeks(ctx.session, game) if s.user_id != user.id)
            return Result(wrap(
                f"{user.userid}'s seek for {game.title} {shown(tokens)} is open: a board starts as soon as a "
                f"compatible seek arrives. Other open seeks: {waiting}. '{game.name} seeks' lists them; "
                f"'{game.name} seek {user.userid} PASSWORD off' withdraws yours."), subject=subject)
        return self.start(ctx, game, user, tokens, group, mine)

    def partners(self, ctx: Context, game: Game, user: User, tokens: list[str]) -> list[Seek] | None:
        """Open seeks that, with ``tokens``, fill a board (oldest first), or None."""
        group: list[Seek] = []
        wants = [tokens]
        for seek in open_seeks(ctx.session, game):
            if seek.user_id == user.id or policy.refusal(ctx, seek.user, game):
                continue
            theirs = list(seek.tokens)
            if all(together(game, theirs, w) is not None for w in wants):
                group.append(seek)
                wants.append(theirs)
                if len(group) == game.players - 1:
                    return group
        return None

    def start(self, ctx: Context, game: Game, user: User, tokens: list[str], group: list[Seek],
              mine: Seek | None) -> Result:
        everyone = [t for seek in group for t in seek.tokens] + tokens
        options = game.parse_options(list(dict.fromkeys(everyone)))
        users = [s.user for s in group] + [user]
        ids = [s.id for s in group] + ([mine.id] if mine is not None else [])
        ctx.session.execute(delete(Seek).where(Seek.id.in_(ids)))
        board, state = boards.create_board(ctx.session, game, users, options, ctx.settings.nagtime,
                                           ctx.settings.forfeittime)
        names = " and ".join(u.userid for u in users)
        headline = (f"Seeks met: {names} start {game.title} Board {board.number}; "
                    f"{users[0].userid} (the earliest seek) moves first.")
        mails = boards.announce(ctx, board, game, state, headline, new=True)
        return Result(wrap(headline), subject=boards.board_subject(board, game, new=True), mails=mails,
                      references=[board_root(ctx.settings, game.name, board.number)])


@game_verb
class Seeks(GameCommand):
    name = "seeks"
    abbrev = 5
    argument_description = ""
    description = "The open seeks of that game: who, their rating, the options they want, since when."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if args:
            raise CommandError(f"Usage: {game.name} seeks", title=game.title)
        rows = open_seeks(ctx.session, game)
        subject = f"{game.title} seeks"
        if not rows:
            return Result(f"{game.title}: no open seeks. '{game.name} seek USERID PASSWORD' opens one.",
                          subject=subject)
        lines = [f"{game.title} open seeks (oldest first):", "",
                 f"  {'Player':<16} {'Rating':>7}  {'Since':<16}  Options"]
        for s in rows:
            lines.append(f"  {s.user.userid:<16} {rating_of(ctx.session, game, s.user):>7}  "
                         f"{s.created_at:%Y-%m-%d %H:%M}  {shown(list(s.tokens))}")
        lines += ["", f"'{game.name} seek USERID PASSWORD [-OPTION ...]' starts a board with the first",
                  "compatible seek at once."]
        return Result(wrap("\n".join(lines)), subject=subject)


def seeking(session: Session, game: Game) -> set[int]:
    """User ids with an open seek in ``game`` (for the standings)."""
    return {s.user_id for s in open_seeks(session, game)}
