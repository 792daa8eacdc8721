"""``pbmserv remind``: reminders and forfeits, run from cron or a systemd timer.

A board's clock is ``Board.turn_since`` (set whenever the turn passes).  As
of ``now``, with ``waited`` days on the clock:

* ``waited >= forfeittime``: the player to move forfeits (``resign_now``
  semantics: the others win, or in a game that plays on without the seat,
  such as TriMac, the plugin's ``resign`` decides; a player who never moved
  has the board removed, unrated, as with a resign before the first move).
  Everyone on the board is told.
* else ``waited >= nagtime``: reminder number ``period = floor(waited /
  nagtime)`` is due for this turn.  Each one sent leaves a ``Reminder`` row,
  unique per (board, ply, period): a second run in the same period finds it
  and sends nothing, and two runs at once cannot both insert it.
* A player to move who is on vacation is neither reminded nor forfeited
  (counted as skipped).
* A player with the digest setting gets one mail listing all of their due
  boards instead of one per board.
* A draw or take-back offer waiting for votes (``Board.vote_since``) is
  timed the same way from when it was made: the players who owe a vote are
  reminded once per nag period (the count is kept in the offer, under the
  board's lock), and at the forfeit time their silence counts as accept
  (``lifecycle.settle_by_silence``).  A voter on vacation is neither reminded
  nor taken to accept.

The run has two phases: ``plan`` reads every active board in one query (the
cheap part, so 100,000 boards are checked in about a second), and ``apply``
acts on the due ones in batches, each batch one transaction that locks its
boards and decides again from what is stored, so a move made meanwhile is
respected.  Mails go to the outbox in the same transaction as their
``Reminder`` rows or forfeit.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session, object_session, selectinload

import games
from server.accounts.accounts import addresses_of
from server.accounts.reply_address import DIGEST_FOOTER, invite, reply_address
from server.boards import board_notes, boards, lifecycle, standings, tournaments
from server.boards.context import Context, Request
from server.core.config import Settings
from server.core.errors import CommandError
from server.mail.replies import Mail, board_root, queue
from server.store.database import Database
from server.store.model import Board, Reminder, Seat, User
from server.store.resources import render_template

log = logging.getLogger("pbmserv.timers")
#: Boards per transaction when applying.
BATCH = 200
DAY = 86400.0

Progress = Callable[[int], None]


def parse_now(text: str | None) -> datetime:
    """``--now``: ISO 8601 (``2026-12-01``, ``2026-12-01T08:00``, ``...Z``, ``...+01:00``) as naive UTC."""
    if not text:
        return datetime.now(UTC).replace(tzinfo=None)
    try:
        moment = datetime.fromisoformat(text.strip().replace(" ", "T", 1))
    except ValueError:
        raise ValueError(f"{text!r} is not a timestamp; use ISO 8601, e.g. 2026-12-01T08:00:00Z") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def waited_days(now: datetime, since: datetime) -> float:
    return (now - since).total_seconds() / DAY


def decide(waited: float, nagtime: float, forfeittime: float, back: bool = False,
           out_of_time: bool = False) -> tuple[str, int]:
    """("forfeit", 0), ("remind", period) or ("", 0) for a board waiting ``waited`` days.

    ``back``: the player came back from vacation and has not moved since: reminded, never forfeited.
    ``out_of_time``: the player has used up the board's total time (``--totaltime``).
    """
    if (waited >= forfeittime or out_of_time) and not back:
        return "forfeit", 0
    if waited >= nagtime:
        return "remind", int(waited // nagtime)
    return "", 0


@dataclass(frozen=True)
class Due:
    """One board that needs something, as planned."""

    board_id: int
    user_id: int
    kind: str  # "remind", "forfeit" or "skip" (the player to move is on vacation)
    period: int
    digest: bool
    label: str


@dataclass
class Summary:
    checked: int = 0
    reminded: int = 0
    forfeited: int = 0
    skipped: int = 0
    mails: int = 0
    dry_run: bool = False
    listing: list[str] = field(default_factory=list)
    #: Reminders to players who owe a vote, and offers settled by silence.
    vote_reminders: int = 0
    votes_settled: int = 0

    def line(self) -> str:
        votes = (f"; vote reminders {self.vote_reminders}, offers settled by silence {self.votes_settled}"
                 if self.vote_reminders or self.votes_settled else "")
        if self.dry_run:
            return (f"dry run, nothing sent: checked {self.checked} boards: would be reminded {self.reminded}, "
                    f"would be forfeited {self.forfeited}, skipped {self.skipped} (vacation){votes}")
        return (f"checked {self.checked} boards: reminded {self.reminded}, forfeited {self.forfeited}, "
                f"skipped {self.skipped} (vacation); {self.mails} mails queued{votes}")


def count_active(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Board).where(
        Board.status == "active", Board.to_move.is_not(None))) or 0


def out_of_time(session: Session, board: Board, now: datetime) -> bool:
    """Has the player to move used up the board's total time (``--totaltime``)?"""
    if board.totaltime is None or board.to_move is None:
        return False
    used = board_notes.time_used(board, boards.moves_of(session, board), now)
    return used[board.to_move] >= board.totaltime


def plan(session: Session, now: datetime, progress: Progress | None = None) -> tuple[int, list[Due]]:
    """Every active board, with its player to move, in one query; returns (checked, due)."""
    query = (
        select(Board.id, Board.game, Board.number, Board.turn_since, Board.nagtime, Board.forfeittime,
               Board.reminders_sent, User.id, User.userid, User.vacation, User.digest, Board.tournament_id,
               User.vacation_back, Board.totaltime)
        .join(Seat, and_(Seat.board_id == Board.id, Seat.seat == Board.to_move))
        .join(User, User.id == Seat.user_id)
        .where(Board.status == "active", Board.to_move.is_not(None))
        .order_by(Board.id)
    )
    checked = 0
    due: list[Due] = []
    pending_tick = 0
    allowance: dict[int, float | None] = {}
    for (board_id, game, number, since, nagtime, forfeittime, sent, user_id, userid, vacation,
         digest, tournament_id, back, totaltime) in session.execute(query).yield_per(5000):
        checked += 1
        pending_tick += 1
        if progress and pending_tick >= 1000:
            progress(pending_tick)
            pending_tick = 0
        timed_out = totaltime is not None and out_of_time(session, session.get(Board, board_id), now)  # type: ignore[arg-type]
        kind, period = decide(waited_days(now, since), nagtime, forfeittime, back, timed_out)
        if not kind or (kind == "remind" and period <= sent):
            continue
        if vacation and tournament_id is not None:
            # The tournament's own rule: no reminders, and a forfeit that comes later, not never.
            if tournament_id not in allowance:
                allowance[tournament_id] = tournaments.vacation_days(session, board_id)
            extra = allowance[tournament_id] or 0.0
            kind = "forfeit" if waited_days(now, since) >= forfeittime + extra else "skip"
        elif vacation:
            kind = "skip"
        due.append(Due(board_id, user_id, kind, period, digest, f"{game} {number} ({userid})"))
    if progress and pending_tick:
        progress(pending_tick)
    return checked, due


class Reminders:
    """One run of ``pbmserv remind`` as of ``now``."""

    def __init__(self, db: Database, settings: Settings, now: datetime) -> None:
        self.db = db
        self.settings = settings
        self.now = now
        self.plugins: dict[str, games.Game | None] = {}

    def run(self, dry_run: bool = False) -> Summary:
        """Plan and act in one go (what cron runs, and the tests)."""
        checked, due = self.plan()
        return self.execute(checked, due, dry_run)

    def plan(self, progress: Progress | None = None) -> tuple[int, list[Due]]:
        with self.db.transaction() as session:
            return plan(session, self.now, progress)

    def execute(self, checked: int, due: list[Due], dry_run: bool = False,
                sending: Progress | None = None) -> Summary:
        summary = Summary(checked=checked, dry_run=dry_run)
        summary.skipped = sum(1 for d in due if d.kind == "skip")
        if dry_run:
            self.describe(due, summary)
        else:
            self.apply(due, summary, sending)
        self.stalled_votes(summary)
        if not dry_run:
            self.tournaments(summary)
        return summary

    # -- tournaments: starts at their date, the next Swiss round -----------------------
    def tournaments(self, summary: Summary) -> None:
        def work(session: Session) -> None:
            done = tournaments.tick(self.admin_context(session))
            for mail in done.mails:
                mail.auto_submitted = "auto-generated"
                queue(session, self.settings, mail)
                summary.mails += 1
            summary.listing += [f"started tournament {name}" for name in done.started]
            summary.listing += [f"started {name}" for name in done.rounds]
            summary.listing += [f"tournament {why}" for why in done.waiting]
        self.db.run(work)

    # -- offers waiting for votes -------------------------------------------------------
    def stalled_votes(self, summary: Summary) -> None:
        with self.db.transaction() as session:
            ids = list(session.scalars(select(Board.id).where(Board.status == "active", Board.vote_since.is_not(None))
                                       .order_by(Board.id)))
        for start in range(0, len(ids), BATCH):
            batch = ids[start:start + BATCH]
            self.db.run(lambda s, b=batch: self.apply_votes(s, b, summary))  # type: ignore[misc]

    def apply_votes(self, session: Session, ids: list[int], summary: Summary) -> None:
        for board in self.locked_boards(session, ids):
            current = (board.pending or {}).get("vote")
            if board.status != "active" or not current or board.vote_since is None or not self.installed(board):
                continue
            game = self.plugin(board.game)
            assert game is not None
            users = boards.seat_users(board)
            owing = [users[s] for s in boards.owing_votes(board)]
            kind, period = decide(waited_days(self.now, board.vote_since), board.nagtime, board.forfeittime)
            if kind == "forfeit" and not any(u.vacation for u in owing):
                summary.votes_settled += 1
                summary.listing.append(f"{'would settle' if summary.dry_run else 'settled'} the offer on "
                                       f"{board.game} {board.number} by silence")
                if summary.dry_run:
                    continue
                for mail in lifecycle.settle_by_silence(self.admin_context(session), board, game):
                    mail.auto_submitted = "auto-generated"
                    queue(session, self.settings, mail)
                    summary.mails += 1
            elif kind and period > current.get("reminded", 0):
                due = [u for u in owing if not u.vacation and u.active]
                summary.vote_reminders += len(due)
                if summary.dry_run:
                    continue
                for user in due:
                    queue(session, self.settings, self.vote_reminder_mail(session, board, game, user, current))
                    summary.mails += 1
                board.pending = {**board.pending, "vote": {**current, "reminded": period}}

    def admin_context(self, session: Session) -> Context:
        request = Request(words=["remind"], line="pbmserv remind", sender=self.settings.address, admin=True)
        return Context(session=session, settings=self.settings, request=request, now=self.now)

    def vote_reminder_mail(self, session: Session, board: Board, game: games.Game, user: User, vote: dict) -> Mail:
        assert board.vote_since is not None
        when = board.vote_since + timedelta(days=board.forfeittime)
        text = render_template("vote_reminder.txt", userid=user.userid, title=game.title, number=board.number,
                               by=vote["by"], kind=vote["kind"], since=f"{board.vote_since:%Y-%m-%d %H:%M} UTC",
                               game=game.name, when=f"on {when:%Y-%m-%d %H:%M} UTC")
        seat = boards.seat_of(board, user)
        shown = boards.board_text(self.settings, board, game, game.load(board.state), boards.moves_of(session, board),
                                  "", seat, False)
        return Mail(to=addresses_of(user), subject=f"{game.title} Board {board.number} Reminder",
                    body=text.rstrip("\n") + "\n\n" + shown,
                    references=[board_root(self.settings, game.name, board.number)],
                    auto_submitted="auto-generated", users=[user.userid])

    # -- dry run -----------------------------------------------------------------
    def describe(self, due: list[Due], summary: Summary) -> None:
        digests: dict[int, list[Due]] = defaultdict(list)
        for d in due:
            if d.kind == "forfeit":
                summary.forfeited += 1
                summary.listing.append(f"would forfeit {d.label}")
            elif d.kind == "skip":
                summary.listing.append(f"skip {d.label}: on vacation")
            elif d.digest:
                digests[d.user_id].append(d)
            else:
                summary.reminded += 1
                summary.mails += 1
                summary.listing.append(f"would remind {d.label}, reminder {d.period}")
        for group in digests.values():
            summary.reminded += len(group)
            summary.mails += 1
            summary.listing.append("would send one digest for " + ", ".join(f"{d.label} reminder {d.period}"
                                                                            for d in group))

    # -- acting ----------------------------------------------------------------------
    def apply(self, due: list[Due], summary: Summary, sending: Progress | None) -> None:
        single = [d for d in due if d.kind == "forfeit" or (d.kind == "remind" and not d.digest)]
        for start in range(0, len(single), BATCH):
            batch = single[start:start + BATCH]
            reminded, forfeited, mails = self.db.run(lambda s, b=batch: self.apply_batch(s, b))  # type: ignore[misc]
            summary.reminded += reminded
            summary.forfeited += forfeited
            summary.mails += mails
            if sending:
                sending(len(batch))
        digests: dict[int, list[Due]] = defaultdict(list)
        for d in due:
            if d.kind == "remind" and d.digest:
                digests[d.user_id].append(d)
        for user_id, group in digests.items():
            reminded = self.db.run(lambda s, u=user_id, g=group: self.apply_digest(s, u, g))  # type: ignore[misc]
            summary.reminded += reminded
            summary.mails += 1 if reminded else 0
            if sending:
                sending(len(group))

    def locked_boards(self, session: Session, ids: list[int]) -> list[Board]:
        # Seats, their users and addresses come in three queries for the
        # whole batch rather than one lazy load per reminder.
        loads = selectinload(Board.seats).joinedload(Seat.user).selectinload(User.addresses)
        return list(session.scalars(select(Board).where(Board.id.in_(ids)).order_by(Board.id)
                                    .options(loads).with_for_update(of=Board)))

    def current(self, board: Board) -> tuple[str, int, User | None]:
        """What the board needs now, decided again from its locked, stored row."""
        if board.status != "active" or board.to_move is None:
            return "", 0, None
        user = boards.seat_users(board)[board.to_move]
        waited = waited_days(self.now, board.turn_since)
        if user.vacation and user.active and board.tournament_id is not None:
            extra = tournaments.vacation_days(object_session(board), board.id) or 0.0  # type: ignore[arg-type]
            return ("forfeit" if waited >= board.forfeittime + extra else ""), 0, user
        if user.vacation or not user.active:
            return "", 0, user
        kind, period = decide(waited, board.nagtime, board.forfeittime,
                              user.vacation_back, out_of_time(object_session(board), board, self.now))  # type: ignore[arg-type]
        return kind, period, user

    def plugin(self, name: str) -> games.Game | None:
        """The game's plugin, looked up once per run; None if it is not installed."""
        if name not in self.plugins:
            try:
                self.plugins[name] = boards.plugin_for(name)
            except CommandError:
                self.plugins[name] = None
        return self.plugins[name]

    def installed(self, board: Board) -> bool:
        if self.plugin(board.game) is None:
            log.warning("board %s %d: game not installed; not reminded or forfeited", board.game, board.number)
            return False
        return True

    def sent_already(self, session: Session, ids: list[int]) -> set[tuple[int, int, int]]:
        """(board, ply, period) of the reminders recorded for these boards, in one query."""
        rows = session.execute(select(Reminder.board_id, Reminder.ply, Reminder.period)
                               .where(Reminder.board_id.in_(ids)))
        return {(b, p, n) for b, p, n in rows}

    def claim_reminder(self, session: Session, board: Board, period: int, user: User,
                       sent: set[tuple[int, int, int]]) -> bool:
        """Record reminder ``period`` of this turn; False if it was sent already.

        ``sent`` was read under the boards' locks; the unique key still
        guards a run that bypassed them (the whole batch is then retried).
        """
        if period <= board.reminders_sent or (board.id, board.ply, period) in sent:
            return False
        session.add(Reminder(board_id=board.id, ply=board.ply, period=period, user_id=user.id, sent_at=self.now))
        board.reminders_sent = period
        return True

    def apply_batch(self, session: Session, batch: list[Due]) -> tuple[int, int, int]:
        reminded = forfeited = mails = 0
        ids = [d.board_id for d in batch]
        locked = self.locked_boards(session, ids)
        sent = self.sent_already(session, ids)
        for board in locked:
            kind, period, user = self.current(board)
            if not kind or user is None:
                continue
            game = self.plugin(board.game)
            if game is None or not self.installed(board):
                continue
            if kind == "forfeit":
                for mail in self.forfeit(session, board, game, user):
                    mail.auto_submitted = "auto-generated"
                    queue(session, self.settings, mail)
                    mails += 1
                forfeited += 1
            elif not user.digest:
                # Reading the moves for the reminder need not flush the
                # mails queued so far: they go in together at commit.
                with session.no_autoflush:
                    if self.claim_reminder(session, board, period, user, sent):
                        queue(session, self.settings, self.reminder_mail(session, board, game, user, period))
                        reminded += 1
                        mails += 1
        return reminded, forfeited, mails

    def apply_digest(self, session: Session, user_id: int, group: list[Due]) -> int:
        entries = []
        user = None
        ids = [d.board_id for d in group]
        locked = self.locked_boards(session, ids)
        sent = self.sent_already(session, ids)
        for board in locked:
            kind, period, mover = self.current(board)
            if kind != "remind" or mover is None or mover.id != user_id:
                continue  # a forfeit is the single pass's business; a move meanwhile ends it
            if not self.installed(board):
                continue
            if self.claim_reminder(session, board, period, mover, sent):
                user = mover
                entries.append((board, period))
        if user is None or not entries:
            return 0
        queue(session, self.settings, self.digest_mail(session, user, entries))
        return len(entries)

    # -- what is sent ----------------------------------------------------------------
    def forfeit(self, session: Session, board: Board, game: games.Game, user: User) -> list[Mail]:
        days = waited_days(self.now, board.turn_since)
        ctx = self.admin_context(session)
        seat = board.to_move
        assert seat is not None
        reason = f"{user.userid} forfeited: no move for {days:.0f} days"
        verb = f"forfeits (no move for {days:.0f} days)"
        if days < board.forfeittime and out_of_time(session, board, self.now):
            reason = f"{user.userid} forfeited: out of time (more than {board.totaltime:g} days used in all)"
            verb = f"forfeits (out of time: more than {board.totaltime:g} days used in all)"
        mails = lifecycle.resign_now(ctx, board, game, seat, user, reason=reason, verb=verb)
        if board.status == "active":
            # Play goes on without the seat: the next player's clock starts
            # at the moment this run stands for, not at the wall clock.
            board.turn_since = self.now
            board.reminders_sent = 0
        return mails

    def forfeit_when(self, board: Board, user: User | None = None) -> str:
        if user is not None and user.vacation_back:
            return "only after your next move (you are back from vacation)"
        when = board.turn_since + timedelta(days=board.forfeittime)
        return f"on {when:%Y-%m-%d %H:%M} UTC"

    def reminder_mail(self, session: Session, board: Board, game: games.Game, user: User, period: int) -> Mail:
        days = waited_days(self.now, board.turn_since)
        text = render_template("reminder.txt", userid=user.userid, title=game.title, number=board.number,
                               days=f"{days:.0f}", forfeit_when=self.forfeit_when(board, user), game=game.name)
        state = game.load(board.state)
        moves = boards.moves_of(session, board)
        shown = boards.board_text(self.settings, board, game, state, moves, "", board.to_move, False)
        tag = ""
        if board.tournament_id is not None:
            tag = standings.subject_tag(session, board)
            text = text.rstrip("\n") + "\n\n" + standings.vacation_note(session, board)
        mail = Mail(to=addresses_of(user), subject=f"{tag}{game.title} Board {board.number} Reminder",
                    body=text.rstrip("\n") + "\n\n" + shown, references=[board_root(self.settings, game.name,
                                                                                      board.number)],
                    auto_submitted="auto-generated", users=[user.userid],
                    pictures=boards.picture(self.settings, board, game, state) if user.pictures else [])
        return invite(session, self.settings, mail, user, board)

    def digest_mail(self, session: Session, user: User, entries: list[tuple[Board, int]]) -> Mail:
        """One mail for all of a user's waiting boards; each entry names its own reply address."""
        lines = []
        ordered = sorted(entries, key=lambda e: (e[0].game, e[0].number))
        for board, _period in ordered:
            plugin = self.plugin(board.game)
            title = plugin.title if plugin else board.game
            days = waited_days(self.now, board.turn_since)
            lines.append(f"  {title} Board {board.number}: waiting {days:.0f} days; "
                         f"forfeit {self.forfeit_when(board, user)}")
            address = reply_address(session, self.settings, user, board)
            if address is not None:
                lines.append(f"    your move, by mail to: {address}")
        n = len(entries)
        text = render_template("reminder_digest.txt", userid=user.userid, count=n,
                               boards="board" if n == 1 else "boards", listing="\n".join(lines))
        mail = Mail(to=addresses_of(user), subject=f"pbmserv Reminder: {n} {'board' if n == 1 else 'boards'} "
                    "waiting for your move", body=text, auto_submitted="auto-generated", users=[user.userid])
        if n == 1:
            return invite(session, self.settings, mail, user, ordered[0][0])
        mail.body = mail.body.rstrip("\n") + "\n\n" + DIGEST_FOOTER + "\n"
        return mail
