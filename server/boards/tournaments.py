"""Tournaments: kinds, pairing and the life cycle (open, running, finished).

A tournament is a name, a game, a kind and the players who joined.  Its
boards are ordinary boards (replies, pictures, queued moves, ratings all as
usual) carrying ``Board.tournament_id`` and ``tournament_round``, with the
tournament's own timers: a reminder after 1 day, a forfeit after 7, as the
original's tournament boards.

Kinds:

* ``roundrobin``: everyone plays everyone once; ``double``: twice, with the
  seats exchanged.  The schedule is FIDE's Berger tables (an odd field gets
  a free round each); every board starts at once, as in correspondence
  play, and carries its Berger round.
* ``swiss``: N rounds paired by the FIDE Dutch system (caissify-pairings,
  checked against the FIDE-endorsed bbpPairings): the standard for chess
  Swisses, it never pairs two players twice, gives the bye (one point) to
  a low scorer who has not had one, and balances who moves first.  Round 1
  starts with the tournament; ``pbmserv remind`` pairs each next round once
  the last board of the round before has ended.
* ``pools``: three-player games (TriMac): players in pools of three in the
  order they joined; a pool plays every seat order, 3! = 6 boards.

Withdrawal (``leave`` after the start) and ``signoff`` forfeit the player's
running boards of the tournament: each is a loss for them and a win for
the others, counted in the standings like any game; a Swiss no longer pairs
them.  A tournament board is never "removed" for want of a first move:
joining was the player's consent (server.boards.lifecycle).

Vacation, the tournament's own rule: on a tournament board a player on
vacation gets no reminders, and the forfeit comes ``vacation_days`` (7)
later than the tournament's forfeit time, not never; coming back does not
restart a tournament board's clock.  A round cannot wait for ever.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from caissify_pairings import generate_pairings
from sqlalchemy import select
from sqlalchemy.orm import Session

import games
from games import Game
from server.accounts.accounts import addresses_of
from server.boards import boards, lifecycle, standings
from server.boards.context import Context
from server.core.errors import CommandError
from server.mail.replies import Mail
from server.store.model import Board, Rating, Seat, Tournament, TournamentPlayer, User

log = logging.getLogger("pbmserv.tournaments")

KINDS = ("roundrobin", "double", "swiss", "pools")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
#: The original's tournament timers.
NAGTIME, FORFEITTIME, VACATION_DAYS = 1.0, 7.0, 7.0
MAX_ROUNDS = 30


def plugin(tournament: Tournament) -> Game:
    return boards.plugin_for(tournament.game)


def find(session: Session, name: str, game: Game | None = None, lock: bool = False) -> Tournament:
    """The tournament called ``name`` (of ``game`` when given), or a clear error."""
    query = select(Tournament).where(Tournament.name == name.lower())
    if lock:
        query = query.with_for_update()
    found = session.scalars(query).one_or_none()
    if found is None or (game is not None and found.game != game.name):
        where = f" of {game.title}" if game is not None else ""
        raise CommandError(f"There is no tournament{where} called {name!r}; "
                           f"'{game.name if game else 'GAME'} tournaments' lists them", title=game.title if game else None)
    return found


def create(session: Session, game: Game, name: str, kind: str, rounds: int | None, tokens: list[str],
           starts_at: datetime | None, max_players: int | None) -> Tournament:
    """A new open tournament (the admin's ``pbmserv tournament create``); nothing is stored on an error."""
    name = name.lower()
    if not _NAME.match(name):
        raise CommandError(f"{name!r} is not a tournament name: letters, digits, - and _, at most 40")
    if kind not in KINDS:
        raise CommandError(f"Unknown kind {kind!r}; the kinds are {', '.join(KINDS)}")
    if kind == "pools" and game.players != 3:
        raise CommandError(f"pools are for three-player games; {game.title} has {game.players} players")
    if kind != "pools" and game.players != 2:
        raise CommandError(f"{kind} is for two-player games; {game.title} has {game.players}: use --kind pools")
    if kind == "swiss":
        if rounds is None:
            raise CommandError("A Swiss needs --rounds N")
        if not 1 <= rounds <= MAX_ROUNDS:
            raise CommandError(f"--rounds {rounds}: give 1 to {MAX_ROUNDS}")
    elif rounds is not None:
        raise CommandError(f"--rounds is for a Swiss; a {kind} has as many rounds as its field needs")
    if max_players is not None and max_players < min_players(kind):
        raise CommandError(f"--max-players {max_players}: a {kind} needs at least {min_players(kind)}")
    if max_players is not None and kind == "pools" and max_players % 3:
        raise CommandError(f"--max-players {max_players}: pools need a multiple of 3")
    try:
        game.parse_options(tokens)
    except games.GameError as exc:
        raise CommandError(f"--options: {exc}") from None
    if session.scalars(select(Tournament.id).where(Tournament.name == name)).first() is not None:
        raise CommandError(f"There is a tournament called {name!r} already")
    tournament = Tournament(name=name, game=game.name, kind=kind, rounds=rounds, tokens=list(tokens),
                            starts_at=starts_at, max_players=max_players, status="open", current_round=0,
                            nagtime=NAGTIME, forfeittime=FORFEITTIME, vacation_days=VACATION_DAYS)
    session.add(tournament)
    session.flush()
    return tournament


def min_players(kind: str) -> int:
    return 3 if kind == "pools" else 2


def active_entries(tournament: Tournament) -> list[TournamentPlayer]:
    """Players still in: not withdrawn, account not closed."""
    return [e for e in tournament.entries if e.withdrawn_at is None and e.user.active]


def entry_of(tournament: Tournament, user: User) -> TournamentPlayer | None:
    return next((e for e in tournament.entries if e.user_id == user.id), None)


# -- joining and leaving -----------------------------------------------------------------


def require_open(tournament: Tournament, what: str) -> None:
    if tournament.status != "open":
        raise CommandError(f"Tournament {tournament.name} has {'started' if tournament.status == 'running' else 'ended'}"
                           f": it takes no more {what}")


def join(session: Session, tournament: Tournament, user: User, now: datetime) -> str:
    require_open(tournament, "entries")
    if entry_of(tournament, user) is not None:
        raise CommandError(f"{user.userid} has joined tournament {tournament.name} already")
    if tournament.max_players is not None and len(tournament.entries) >= tournament.max_players:
        raise CommandError(f"Tournament {tournament.name} is full ({tournament.max_players} players)")
    tournament.entries.append(TournamentPlayer(user_id=user.id, user=user, joined_at=now, byes=[]))
    session.flush()
    count = len(tournament.entries)
    text = f"{user.userid} has joined tournament {tournament.name} ({count} player{'s' if count != 1 else ''})."
    if tournament.starts_at is not None:
        text += f" It starts on {tournament.starts_at:%Y-%m-%d %H:%M} UTC."
    if tournament.max_players is not None:
        text += f" It starts when {tournament.max_players} have joined."
    return text


def leave_open(session: Session, tournament: Tournament, user: User) -> str:
    """Leave before the start: the entry goes, nothing else happened yet."""
    entry = entry_of(tournament, user)
    if entry is None:
        raise CommandError(f"{user.userid} is not in tournament {tournament.name}")
    tournament.entries.remove(entry)
    session.delete(entry)
    return f"{user.userid} has left tournament {tournament.name}."


def withdraw(ctx: Context, tournament: Tournament, user: User) -> tuple[str, list[Mail]]:
    """Leave after the start: every running board of the tournament is forfeited; one standings mail."""
    entry = entry_of(tournament, user)
    if entry is None:
        raise CommandError(f"{user.userid} is not in tournament {tournament.name}")
    if entry.withdrawn_at is not None:
        raise CommandError(f"{user.userid} has withdrawn from tournament {tournament.name} already")
    if tournament.status != "running":
        raise CommandError(f"Tournament {tournament.name} is over: there is nothing to withdraw from")
    entry.withdrawn_at = ctx.now
    game = plugin(tournament)
    running = ctx.session.scalars(
        select(Board).join(Seat).where(Board.tournament_id == tournament.id, Board.status == "active",
                                       Seat.user_id == user.id).order_by(Board.number).with_for_update(of=Board)
    ).all()
    mails: list[Mail] = []
    with one_table(ctx):
        for board in running:
            seat = boards.seat_of(board, user)
            assert seat is not None
            mails += lifecycle.resign_now(ctx, board, game, seat, user,
                                          reason=f"{user.userid} withdrew from tournament {tournament.name}",
                                          verb=f"withdrew from tournament {tournament.name}")
    forfeited = ", ".join(str(b.number) for b in running)
    headline = f"{user.userid} withdrew from tournament {tournament.name}" + (
        f"; boards {forfeited} are forfeited (a loss for {user.userid})." if running else ".")
    mails += standings.standings_mails(ctx.session, ctx.settings, tournament, headline)
    return headline, mails


@contextmanager
def one_table(ctx: Context) -> Iterator[None]:
    """Boards ended inside send no standings each: the caller sends one table afterwards."""
    ctx.session.info["tournament_quiet"] = True
    try:
        yield
    finally:
        ctx.session.info.pop("tournament_quiet", None)


def after_signoff(ctx: Context, user: User, ended: list[Board]) -> list[Mail]:
    """A closed account's tournament boards were resigned: one standings mail per tournament."""
    mails: list[Mail] = []
    for tournament_id in sorted({b.tournament_id for b in ended if b.tournament_id is not None}):
        tournament = ctx.session.get(Tournament, tournament_id, with_for_update=True, populate_existing=True)
        if tournament is not None and tournament.status == "running":
            headline = f"{user.userid} signed off: their boards of tournament {tournament.name} are forfeited."
            mails += standings.standings_mails(ctx.session, ctx.settings, tournament, headline)
    return mails


# -- starting and pairing ------------------------------------------------------------------


@dataclass
class Pairing:
    """One round's boards (seat order) and who has the bye."""

    tables: list[list[User]]
    byes: list[User] = field(default_factory=list)


def start(ctx: Context, tournament: Tournament) -> list[Mail]:
    """Start an open tournament now: the first boards (all of them, but for a Swiss)."""
    require_open(tournament, "start")
    entries = active_entries(tournament)
    need = min_players(tournament.kind)
    if len(entries) < need:
        raise CommandError(f"Tournament {tournament.name} needs at least {need} players to start; "
                           f"{len(entries)} joined")
    if tournament.kind == "pools" and len(entries) % 3:
        raise CommandError(f"Tournament {tournament.name}: pools need a multiple of 3 players; {len(entries)} joined")
    tournament.status = "running"
    tournament.started_at = ctx.now
    users = [e.user for e in entries]
    mails: list[Mail] = []
    if tournament.kind == "swiss":
        return start_swiss_round(ctx, tournament)
    schedule = round_robin(users, 2 if tournament.kind == "double" else 1) if tournament.kind != "pools" else pools(users)
    tournament.current_round = 1
    for number, tables in schedule:
        for seats in tables:
            mails += start_board(ctx, tournament, seats, number)
    return mails


def round_robin(users: list[User], cycles: int) -> list[tuple[int, list[list[User]]]]:
    """The Berger tables: (round, boards) for every round; seat 0 is "white", who moves first."""
    players = [{"id": i + 1, "name": u.userid, "score": 0.0, "rating": 0, "starting_number": i + 1,
                "color_hist": [], "float_history": [], "bye_count": 0} for i, u in enumerate(users)]
    per_cycle = len(users) - 1 if len(users) % 2 == 0 else len(users)
    total = per_cycle * cycles
    out = []
    for number in range(1, total + 1):
        rows = generate_pairings(system="round_robin", players=players, previous_pairings=set(),
                                 round_number=number, total_rounds=total, cycles=cycles)
        out.append((number, [[users[r["white_id"] - 1], users[r["black_id"] - 1]] for r in rows
                             if r.get("black_id") is not None]))
    return out


def pools(users: list[User]) -> list[tuple[int, list[list[User]]]]:
    """Pools of three in joining order, each playing all 3! = 6 seat orders."""
    out = []
    for index in range(0, len(users), 3):
        pool = users[index:index + 3]
        out.append((index // 3 + 1, [list(order) for order in itertools.permutations(pool)]))
    return out


def start_board(ctx: Context, tournament: Tournament, seats: list[User], number: int) -> list[Mail]:
    game = plugin(tournament)
    options = game.parse_options(list(tournament.tokens or []))
    board, state = boards.create_board(ctx.session, game, seats, options, tournament.nagtime, tournament.forfeittime)
    board.tournament_id = tournament.id
    board.tournament_round = number
    board.turn_since = ctx.now
    players = " vs ".join(u.userid for u in seats)
    headline = (f"Tournament {tournament.name}, {standings.round_label(tournament, number)}: "
                f"{game.title} Board {board.number}, {players}.")
    return boards.announce(ctx, board, game, state, headline, new=True)


def swiss_players(session: Session, tournament: Tournament, entries: list[TournamentPlayer]) -> tuple[list[dict], set]:
    """The Dutch engine's input, rebuilt from the stored boards (it keeps no state of its own)."""
    index = {e.user_id: i + 1 for i, e in enumerate(tournament.entries)}
    played = standings.finished_boards(session, tournament)
    rounds = tournament.current_round
    score: dict[int, float] = {e.user_id: 0.0 for e in tournament.entries}
    colors: dict[int, list[str]] = {e.user_id: [] for e in tournament.entries}
    floats: dict[int, list[str]] = {e.user_id: [] for e in tournament.entries}
    previous: set[tuple[int, int]] = set()
    for number in range(1, rounds + 1):
        before = dict(score)
        seen = set()
        for board in (b for b in played if b.tournament_round == number):
            white, black = (s.user_id for s in board.seats)
            previous.add((index[white], index[black]))
            seen |= {white, black}
            colors[white].append("white")
            colors[black].append("black")
            for me, other in ((white, black), (black, white)):
                floats[me].append("down" if before[me] > before[other] else "up" if before[me] < before[other]
                                  else "none")
            if board.outcome is not None:
                score[white] += standings.seat_points(board.outcome, 0) / 2
                score[black] += standings.seat_points(board.outcome, 1) / 2
        for e in tournament.entries:
            if e.user_id not in seen:
                colors[e.user_id].append("none")
                floats[e.user_id].append("down" if number in (e.byes or []) else "none")
                if number in (e.byes or []):
                    score[e.user_id] += 1.0
    ratings = dict(session.execute(select(Rating.user_id, Rating.rating).where(Rating.game == tournament.game)).all())
    players = [{"id": index[e.user_id], "name": e.user.userid, "score": score[e.user_id],
                "rating": int(ratings.get(e.user_id, 1600)), "starting_number": index[e.user_id],
                "color_hist": colors[e.user_id], "float_history": floats[e.user_id],
                "bye_count": len(e.byes or [])} for e in entries]
    return players, previous


def swiss_pairing(session: Session, tournament: Tournament, number: int) -> Pairing:
    entries = active_entries(tournament)
    players, previous = swiss_players(session, tournament, entries)
    by_index = {i + 1: e.user for i, e in enumerate(tournament.entries)}
    rows = generate_pairings(system="dutch", players=players, previous_pairings=previous, round_number=number,
                             total_rounds=tournament.rounds or number)
    pairing = Pairing([])
    for row in sorted(rows, key=lambda r: r["table"]):
        if row.get("black_id") is None:
            pairing.byes.append(by_index[row["white_id"]])
        else:
            pairing.tables.append([by_index[row["white_id"]], by_index[row["black_id"]]])
    return pairing


def start_swiss_round(ctx: Context, tournament: Tournament) -> list[Mail]:
    """Pair and start the next Swiss round (its boards, and a mail to whoever has the bye)."""
    number = tournament.current_round + 1
    pairing = swiss_pairing(ctx.session, tournament, number)
    tournament.current_round = number
    mails: list[Mail] = []
    for seats in pairing.tables:
        mails += start_board(ctx, tournament, seats, number)
    for user in pairing.byes:
        entry = entry_of(tournament, user)
        assert entry is not None
        entry.byes = [*(entry.byes or []), number]
        if user.active and user.addresses:
            mails.append(Mail(to=addresses_of(user), users=[user.userid],
                              subject=f"{tournament.game} tournament {tournament.name} round {number}: bye",
                              body=f"{user.userid} has the bye in round {number} of tournament "
                                   f"{tournament.name}: a point without a game.\n",
                              references=[standings.tournament_root(ctx.settings, tournament)]))
    if not pairing.tables:  # nobody left to pair: the tournament ends here
        tournament.rounds = number
        mails += standings.standings_mails(ctx.session, ctx.settings, tournament)
    return mails


# -- the timers' part ------------------------------------------------------------------------


@dataclass
class Tick:
    started: list[str] = field(default_factory=list)
    rounds: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    mails: list[Mail] = field(default_factory=list)


def tick(ctx: Context) -> Tick:
    """What ``pbmserv remind`` does for tournaments as of ``ctx.now``.

    Starts an open tournament at its date or once full (one that lacks
    players at its date waits, and the run says so), and pairs a Swiss's
    next round once every board of the round before has ended.
    """
    done = Tick()
    session = ctx.session
    for tournament in session.scalars(select(Tournament).where(Tournament.status != "finished")
                                      .order_by(Tournament.id).with_for_update()).all():
        if tournament.status == "open":
            due = tournament.starts_at is not None and ctx.now >= tournament.starts_at
            full = tournament.max_players is not None and len(tournament.entries) >= tournament.max_players
            if not (due or full):
                continue
            try:
                done.mails += start(ctx, tournament)
                done.started.append(tournament.name)
            except CommandError as exc:
                done.waiting.append(f"{tournament.name}: {exc}")
            continue
        still = session.scalars(select(Board.id).where(Board.tournament_id == tournament.id,
                                                       Board.status == "active")).first()
        if still is not None:
            continue
        if tournament.kind == "swiss" and tournament.current_round < (tournament.rounds or 0):
            try:
                # One tournament's trouble (a pairing that fails) must not stop the
                # others, nor leave half a round: its boards go in a savepoint.
                with session.begin_nested():
                    mails = start_swiss_round(ctx, tournament)
            except Exception as exc:
                log.exception("tournament %s: round %d not paired", tournament.name, tournament.current_round + 1)
                done.waiting.append(f"{tournament.name}: round {tournament.current_round + 1} not paired "
                                    f"({type(exc).__name__}: {exc})")
                continue
            done.mails += mails
            done.rounds.append(f"{tournament.name} round {tournament.current_round}")
        else:
            # Every board has ended but the tournament was not closed with the last
            # one (it cannot happen under the row lock; this is the net under it).
            done.mails += standings.standings_mails(session, ctx.settings, tournament)
            done.rounds.append(f"{tournament.name} finished")
    return done


def vacation_days(session: Session, board_id: int) -> float | None:
    """The tournament's vacation allowance for a board, or None for an ordinary board (vacation holds)."""
    row = session.execute(select(Tournament.vacation_days).join(Board, Board.tournament_id == Tournament.id)
                          .where(Board.id == board_id)).first()
    return None if row is None else float(row[0])


def listing(session: Session, game: Game) -> str:
    """``GAME tournaments``: open, running and finished ones."""
    rows = list(session.scalars(select(Tournament).where(Tournament.game == game.name).order_by(Tournament.id)))
    if not rows:
        return f"There are no {game.title} tournaments."
    out = [f"{game.title} tournaments:"]
    for status, heading in (("open", "Open for entries"), ("running", "Running"), ("finished", "Finished")):
        group = [t for t in rows if t.status == status]
        if not group:
            continue
        out.append("")
        out.append(f"{heading}:")
        for t in group:
            kind = standings.KIND_NAMES.get(t.kind, t.kind)
            extra = f", {t.rounds} rounds" if t.rounds else ""
            when = ""
            if status == "open":
                when = (f", starts {t.starts_at:%Y-%m-%d %H:%M} UTC" if t.starts_at else "") + (
                    f", at most {t.max_players}" if t.max_players else "")
            elif status == "running" and t.kind == "swiss":
                when = f", round {t.current_round}"
            out.append(f"  {t.name:<16} {kind}{extra}, {len(t.entries)} players{when}")
    return "\n".join(out)
