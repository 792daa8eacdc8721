"""``GAME history`` and ``GAME standings``: what is over, and who stands where.

The arithmetic of the ratings is in ``server.boards.ratings``; this only shows it.
"""

from __future__ import annotations

from sqlalchemy import select

from games import Game
from server.accounts import accounts
from server.boards import boards, ratings
from server.commands import policy
from server.commands.base import CommandError, Context, Result
from server.commands.registry import GameCommand, game_verb
from server.commands.seeks import open_seeks, seeking
from server.store.model import Board, Rating, Seat, User

HISTORY_ROWS = 100
#: The standings' footnote: server.boards.ratings in three lines, so players can check their numbers.
FORMULA = [
    f"P: provisional (under {ratings.PROVISIONAL_GAMES} rated games): new = (R*g + perf)/(g+1) + "
    f"({ratings.PULL_TO:.0f}-R)/{ratings.PULL:.0f},",
    f"   perf = (R+R2)/2 +/-{ratings.SPREAD_PROVISIONAL:.0f} (R2 provisional) or R2 +/-"
    f"{ratings.SPREAD_ESTABLISHED:.0f} (+ win, - loss).",
    f"Others: Elo with K={ratings.K:.0f} (times g2/{ratings.PROVISIONAL_GAMES} against a provisional opponent).",
]


def result_of(board: Board) -> str:
    if board.status == "removed":
        return "removed (not rated)"
    out = board.outcome or {}
    users = boards.seat_users(board)
    winners = [users[s].userid for s in out.get("winners", [])]
    if not winners:
        return f"draw ({out.get('reason', '')})"
    grade = f", {out['grade']}" if out.get("grade") else ""
    return f"{', '.join(winners)} ({out.get('reason', '')}{grade})"


@game_verb
class History(GameCommand):
    name = "history"
    argument_description = "[USERID]"
    description = f"Finished games (the last {HISTORY_ROWS}): date, board, winner, players."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) > 1:
            raise CommandError(f"Usage: {game.name} history [USERID]", title=game.title)
        query = select(Board).where(Board.game == game.name, Board.status != "active")
        who = ""
        if args:
            user = accounts.require_user(ctx.session, args[0])
            query = query.join(Seat).where(Seat.user_id == user.id)
            who = f" of {user.userid}"
        rows = list(ctx.session.scalars(query.order_by(Board.finished_at.desc(), Board.number.desc())
                                        .limit(HISTORY_ROWS)))
        title = f"{game.title} history{who}"
        if not rows:
            return Result(f"{title}: no finished games yet.", subject=f"{game.title} history")
        lines = [f"{title} (newest first):", "", f"  {'Date':<10}  {'Board':>5}  {'Moves':>5}  Result / Players"]
        for b in rows:
            date = b.finished_at.strftime("%Y-%m-%d") if b.finished_at else "?"
            lines.append(f"  {date:<10}  {b.number:>5}  {b.ply:>5}  {result_of(b)}")
            lines.append(f"  {'':<10}  {'':>5}  {'':>5}  {' vs '.join(u.userid for u in boards.seat_users(b))}")
        return Result("\n".join(lines), subject=f"{game.title} history")


def limit_shown(ctx: Context, user: User, game: Game) -> str:
    if not policy.accepts(ctx, user, game):
        return "rej"
    limits = [n for n in (policy.limit_of(ctx, user, game), user.board_limit) if n is not None]
    return str(min(limits)) if limits else "-"


@game_verb
class Standings(GameCommand):
    name = "standings"
    abbrev = 5
    aliases = ("ratings",)
    argument_description = ""
    description = (f"Rating table: everyone starts at {ratings.START:.0f}; provisional (P) for the first "
                   f"{ratings.PROVISIONAL_GAMES} games, then Elo with K={ratings.K:.0f}.")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if args:
            raise CommandError(f"Usage: {game.name} standings", title=game.title)
        rows = [r for r in ctx.session.scalars(select(Rating).where(Rating.game == game.name)
                                                .order_by(Rating.rating.desc(), Rating.id)) if r.user.active]
        seekers = seeking(ctx.session, game)
        rated = {r.user_id for r in rows}
        # Someone seeking a first game is in the table too: that is who one can play.
        newcomers = [s.user for s in open_seeks(ctx.session, game) if s.user_id not in rated]
        if not rows and not newcomers:
            return Result(f"{game.title} standings: no rated games yet; everyone starts at {ratings.START:.0f}.",
                          subject=f"{game.title} standings")
        lines = [f"{game.title} standings:", "",
                 f"  {'#':>3}  {'Player':<16} {'Rating':>6}   {'Games':>5} {'W':>4} {'L':>4} {'D':>4}  "
                 f"{'Act':>3} {'Lim':>3} Seek"]
        table = [(r.user, r.rating, r.games, r.wins, r.losses, r.draws) for r in rows]
        table += [(u, ratings.START, 0, 0, 0, 0) for u in newcomers]
        for rank, (user, rating, played, wins, losses, draws) in enumerate(table, start=1):
            mark = "P" if ratings.is_provisional(played) else " "
            seek = "yes" if user.id in seekers else ""
            lines.append(f"  {rank:>3}  {user.userid:<16} {rating:>6.0f} {mark} {played:>5} {wins:>4} {losses:>4} "
                         f"{draws:>4}  {policy.active_boards(ctx, user, game):>3} {limit_shown(ctx, user, game):>3} "
                         f"{seek}".rstrip())
        lines += ["", "Act: active boards here; Lim: most boards at once (rej: refuses challenges);",
                  f"Seek: has an open seek ('{game.name} seeks' lists them).", *FORMULA]
        return Result("\n".join(lines), subject=f"{game.title} standings")
