"""Tournament standings and the marks a tournament board carries.

Kept below ``boards.py`` (which imports it) and apart from
``tournaments.py`` (pairing and the life cycle, which imports ``boards``), so
a board's subject, its mail and the standings sent when it ends need no
import circle.

Scoring, one rule for every kind, the original's pool count: a game won
alone is 2, a shared result (a draw, or a win shared with another seat in a
three-player game) is 1, a loss 0.  For the two-player kinds this is the
usual 1 / ½ / 0 counted in half points, and it is shown that way; pools show
the original's 2 x wins + ties.  A Swiss bye counts as a win (FIDE's
pairing-allocated bye, one point).  A board lost by forfeit or by a
withdrawal counts as any loss: the opponent wins it.

Tie-breaks, in order:

* Swiss: Buchholz (the sum of the opponents' points; a bye adds nothing),
  then Sonneborn-Berger;
* round robin and double round robin: Sonneborn-Berger (the points of the
  opponents beaten, plus half the points of those drawn), then wins;
* pools: wins, then Sonneborn-Berger over the pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.accounts.accounts import addresses_of
from server.core.config import Settings
from server.mail.replies import Mail
from server.mail.wrapping import wrap
from server.store.model import Board, Tournament, User, utcnow

KIND_NAMES = {"roundrobin": "round robin", "double": "double round robin", "swiss": "Swiss", "pools": "pools"}


def tournament_of(session: Session, board: Board) -> Tournament | None:
    """The board's tournament (from the session's identity map when it is loaded already)."""
    if board.tournament_id is None:
        return None
    return session.get(Tournament, board.tournament_id)


def round_label(tournament: Tournament, number: int | None) -> str:
    if number is None:
        return ""
    if tournament.kind == "pools":
        return f"pool {pool_letter(number)}"
    return f"round {number}"


def pool_letter(number: int) -> str:
    return chr(ord("A") + number - 1) if number <= 26 else str(number)


def subject_tag(session: Session, board: Board) -> str:
    """``[spring26 round 2] `` before a tournament board's subject; "" for any other board.

    In front, as a mailing list's tag: a reply with the subject edited to
    ``... Board N USERID PASSWORD MOVE`` still works (server.mail.parse
    drops a leading tag).
    """
    tournament = tournament_of(session, board)
    if tournament is None:
        return ""
    return f"[{tournament.name} {round_label(tournament, board.tournament_round)}] "


def board_line(session: Session, board: Board) -> str:
    """The line of a tournament board's mail that names its tournament and round."""
    tournament = tournament_of(session, board)
    if tournament is None:
        return ""
    of = f" of {tournament.rounds}" if tournament.kind == "swiss" and tournament.rounds else ""
    return (f"Tournament: {tournament.name} ({KIND_NAMES.get(tournament.kind, tournament.kind)}), "
            f"{round_label(tournament, board.tournament_round)}{of}.\nStandings: "
            f"{tournament.game} tournament standings {tournament.name}")


def vacation_note(session: Session, board: Board) -> str:
    """What vacation does on a tournament board (the reminder's general advice does not hold there)."""
    tournament = tournament_of(session, board)
    if tournament is None:
        return ""
    return (f"This is a board of tournament {tournament.name}: vacation stops its reminders but only\n"
            f"delays the forfeit by {tournament.vacation_days:g} days.")


# -- scoring ---------------------------------------------------------------------------------


def seat_points(outcome: dict[str, Any], seat: int) -> int:
    """2 for a win alone, 1 for a shared result, 0 for a loss (see the module docstring)."""
    winners = outcome.get("winners", [])
    if seat in winners:
        return 2 if len(winners) == 1 else 1
    if not winners and seat not in outcome.get("losers", []):
        return 1
    return 0


@dataclass
class Row:
    """One player's line of the standings."""

    user_id: int
    userid: str
    pool: int | None = None
    points: int = 0  # in the module's units: 2 a win, 1 a shared result
    wins: int = 0
    ties: int = 0
    losses: int = 0
    byes: int = 0
    buchholz: float = 0.0
    sonneborn: float = 0.0
    withdrawn: bool = False
    rank: int = 0
    #: (opponent user id, points scored against them) per finished game.
    games: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Standings:
    tournament: Tournament
    rows: list[Row]
    finished_boards: int
    total_boards: int
    boards: list[Board]

    def points_text(self, value: float) -> str:
        """Half points as 1 / ½ / 0 for the two-player kinds; whole for pools."""
        if self.tournament.kind == "pools":
            return f"{value:g}"
        return f"{value / 2:g}"


def finished_boards(session: Session, tournament: Tournament) -> list[Board]:
    return list(session.scalars(select(Board).where(Board.tournament_id == tournament.id)
                                .order_by(Board.tournament_round, Board.number)))


def compute(session: Session, tournament: Tournament) -> Standings:
    """The standings from the stored boards (and byes) of the tournament."""
    rows: dict[int, Row] = {}
    for entry in tournament.entries:
        gone = entry.withdrawn_at is not None or not entry.user.active  # withdrew, or signed off
        rows[entry.user_id] = Row(entry.user_id, entry.user.userid, withdrawn=gone,
                                  byes=len(entry.byes or []))
    all_boards = finished_boards(session, tournament)
    done = [b for b in all_boards if b.status == "finished" and b.outcome is not None]
    for board in all_boards:
        for s in board.seats:
            if s.user_id in rows and tournament.kind == "pools":
                rows[s.user_id].pool = board.tournament_round
    for board in done:
        seats = {s.seat: s.user_id for s in board.seats}
        for seat, uid in seats.items():
            row = rows.get(uid)
            if row is None:
                continue
            got = seat_points(board.outcome or {}, seat)
            row.points += got
            if got == 2:
                row.wins += 1
            elif got == 1:
                row.ties += 1
            else:
                row.losses += 1
            for other_seat, other in seats.items():
                if other_seat != seat:
                    row.games.append((other, got))
    for row in rows.values():
        row.points += 2 * row.byes
    for row in rows.values():
        opponents = [o for o, _ in row.games if o in rows]
        row.buchholz = float(sum(rows[o].points for o in opponents))
        row.sonneborn = sum(rows[o].points * got / 2 for o, got in row.games if o in rows)
    ordered = sorted(rows.values(), key=lambda r: sort_key(tournament, r))
    previous: tuple[Any, ...] | None = None
    for index, row in enumerate(ordered, start=1):
        key = sort_key(tournament, row)[:-1]
        row.rank = ordered[index - 2].rank if previous == key else index
        previous = key
    return Standings(tournament, ordered, len(done) + sum(1 for b in all_boards if b.status == "removed"),
                     len(all_boards), all_boards)


def sort_key(tournament: Tournament, row: Row) -> tuple[Any, ...]:
    """Best first; the last element (the userid) only makes the order stable, it breaks no tie."""
    if tournament.kind == "swiss":
        return (-row.points, -row.buchholz, -row.sonneborn, row.userid)
    if tournament.kind == "pools":
        return (row.pool or 0, -row.points, -row.wins, -row.sonneborn, row.userid)
    return (-row.points, -row.sonneborn, -row.wins, row.userid)


# -- the table ---------------------------------------------------------------------------------


def table(standings: Standings) -> str:
    """The standings as mailed (at most 78 columns)."""
    t = standings.tournament
    lines = []
    if t.kind == "pools":
        head = f"  {'#':>2}  {'Pool':<4}  {'Player':<16} {'Points':>6}  {'W':>2} {'T':>2} {'L':>2}"
    elif t.kind == "swiss":
        head = (f"  {'#':>2}  {'Player':<16} {'Points':>6}  {'W':>2} {'D':>2} {'L':>2} {'Bye':>3}"
                f"  {'Buchholz':>8}  {'S-B':>6}")
    else:
        head = f"  {'#':>2}  {'Player':<16} {'Points':>6}  {'W':>2} {'D':>2} {'L':>2}  {'S-B':>6}"
    lines.append(head)
    for r in standings.rows:
        name = r.userid + (" (withdrawn)" if r.withdrawn else "")
        pts = standings.points_text(r.points)
        if t.kind == "pools":
            lines.append(f"  {r.rank:>2}  {pool_letter(r.pool or 1):<4}  {name:<16} {pts:>6}  {r.wins:>2} {r.ties:>2} "
                         f"{r.losses:>2}")
        elif t.kind == "swiss":
            lines.append(f"  {r.rank:>2}  {name:<16} {pts:>6}  {r.wins:>2} {r.ties:>2} {r.losses:>2} {r.byes:>3}"
                         f"  {standings.points_text(r.buchholz):>8}  {standings.points_text(r.sonneborn):>6}")
        else:
            lines.append(f"  {r.rank:>2}  {name:<16} {pts:>6}  {r.wins:>2} {r.ties:>2} {r.losses:>2}"
                         f"  {standings.points_text(r.sonneborn):>6}")
    return "\n".join(lines)


def scoring_note(tournament: Tournament) -> str:
    if tournament.kind == "pools":
        return "Points: 2 x wins + ties (the original's pools). Ties broken by wins, then Sonneborn-Berger."
    if tournament.kind == "swiss":
        return ("Points: win 1, draw 1/2, loss 0, bye 1. Ties broken by Buchholz, then "
                "Sonneborn-Berger (S-B).")
    return "Points: win 1, draw 1/2, loss 0. Ties broken by Sonneborn-Berger (S-B), then wins."


def text(session: Session, tournament: Tournament, standings: Standings | None = None) -> str:
    """The whole standings reply: heading, table, how points count, progress."""
    standings = standings or compute(session, tournament)
    kind = KIND_NAMES.get(tournament.kind, tournament.kind)
    state = {"open": "open for entries", "running": "running", "finished": "finished"}[tournament.status]
    if tournament.kind == "swiss" and tournament.status != "open":
        state += f", round {tournament.current_round} of {tournament.rounds}"
    parts = [f"Tournament {tournament.name}: {tournament.game}, {kind}, {state}."]
    if tournament.status == "open":
        names = ", ".join(e.user.userid for e in tournament.entries) or "nobody yet"
        parts.append(wrap(f"Entries ({len(tournament.entries)}): {names}"))
        return "\n\n".join(parts) + "\n"
    parts.append(table(standings))
    parts.append(wrap(scoring_note(tournament)))
    parts.append(f"Boards finished: {standings.finished_boards} of {standings.total_boards}.")
    return "\n\n".join(parts) + "\n"


def web_link(settings: Settings, tournament: Tournament) -> str | None:
    if not settings.web_url:
        return None
    return f"{settings.web_url.rstrip('/')}/tournament/{tournament.name}"


def players_mail(session: Session, settings: Settings, tournament: Tournament, subject: str, body: str) -> list[Mail]:
    """One mail per player of the tournament (withdrawn ones too: they still have a place in it)."""
    mails = []
    for entry in tournament.entries:
        user: User = entry.user
        if not user.active or not user.addresses:
            continue
        mails.append(Mail(to=addresses_of(user), subject=subject, body=body, users=[user.userid],
                          references=[tournament_root(settings, tournament)]))
    return mails


def tournament_root(settings: Settings, tournament: Tournament) -> str:
    """A stable References root per tournament: its standings and byes thread together."""
    return f"<{tournament.game}.{tournament.name}.tournament@{settings.domain}>"


def after_board(session: Session, settings: Settings, board: Board, headline: str = "") -> list[Mail]:
    """A tournament board ended: its players get the standings; the last board finishes the tournament.

    A Swiss round's end is not the last board: ``pbmserv remind`` pairs the
    next round (server.boards.tournaments.tick).
    """
    if board.tournament_id is None or session.info.get("tournament_quiet"):
        return []  # (a withdrawal sends one table for all its boards)
    # Locked, so two boards ending at once are counted one after the other: the
    # second sees the first, and exactly one of them finds the tournament over.
    tournament = session.get(Tournament, board.tournament_id, with_for_update=True, populate_existing=True)
    if tournament is None or tournament.status != "running":
        return []
    return standings_mails(session, settings, tournament, headline)


def standings_mails(session: Session, settings: Settings, tournament: Tournament, headline: str = "") -> list[Mail]:
    session.flush()
    standings = compute(session, tournament)
    last_round = tournament.kind != "swiss" or tournament.current_round >= (tournament.rounds or 0)
    if standings.finished_boards == standings.total_boards and last_round:
        tournament.status = "finished"
        tournament.finished_at = utcnow()
        headline = (headline + "\n\n" if headline else "") + f"Tournament {tournament.name} is over."
        subject = f"{tournament.game} tournament {tournament.name} final standings"
    else:
        subject = f"{tournament.game} tournament {tournament.name} standings"
    body = text(session, tournament, standings)
    link = web_link(settings, tournament)
    if link:
        body += f"\nOn the web: {link}\n"
    if headline:
        body = headline.strip() + "\n\n" + body
    return players_mail(session, settings, tournament, subject, body)
