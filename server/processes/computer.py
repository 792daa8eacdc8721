"""The computer opponent's process: it takes a turn, thinks, and hands the move in by mail's path.

Three short steps per turn, and the thinking is in none of them:

1. *Look* (a read transaction): the longest-waiting board where a computer
   seat is to move or owes a vote (server/boards/computer.py), its state and
   its move number.  The try is counted here, committed, before thinking: a
   turn that kills the process or keeps failing is cut after ``MAX_TRIES``
   (``pbmserv status`` shows it), never retried for ever.
2. *Think*, outside any transaction and holding no lock: the engine's
   search (games/engine) within the level's CPU budget -- the budget is the
   cut of a turn that would run long.
3. *Hand in*, through the same ``dispatch`` as a player's mailed move:
   ``GAME move BOARD computer-N - MOVE#N`` with the computer's identity in
   place of a password.  So the same board lock is taken and the same
   ``#N`` check applies: a move that raced an undo, a resignation or any
   other change is refused as stale, like a player's old mail, and the next
   look starts from the board as it now is.

Votes: the computer accepts a take-back ("undo") at level 1 only, and then
also takes back its own reply so that the proposer is to move again; it
rejects draw offers (it plays on).  Hints and reviews wait in
``computer_jobs`` and are answered by mail from here, for the same reason:
a search must never run inside a command's transaction.
"""

from __future__ import annotations

import logging
import time
import traceback
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, String, cast, or_, select
from sqlalchemy.orm import Session

import games
from games.engine import LEVELS, analyse, level
from server.accounts.computer import USERIDS
from server.accounts.reply_address import Identity
from server.boards import advice, boards, computer, lifecycle
from server.commands import Context, Request, dispatch
from server.core.config import Settings
from server.core.errors import CommandError
from server.mail.replies import Mail, board_root, queue
from server.store.database import Database
from server.store.model import Board, ComputerJob, Seat, User, utcnow

log = logging.getLogger("pbmserv.computer")

#: Tries of one turn (or request) before it is cut.
MAX_TRIES = 3


@dataclass
class Turn:
    """What the look step read: enough to think without the database."""

    board_id: int
    game: str
    number: int
    ply: int
    seat: int
    level: int
    userid: str
    state: dict[str, Any]
    vote: str | None  # the vote word to send, when a vote is owed instead of a move


#: A computer seat to move, a vote it may owe, or a hint or review waiting (ComputerPlayer._anything).
_ANYTHING = select(or_(
    select(Board.id).join(Seat, Seat.board_id == Board.id).join(User, User.id == Seat.user_id)
    .where(Board.status == "active", User.userid.in_(sorted(USERIDS)),
           or_(Seat.seat == Board.to_move, cast(Board.pending, String).like('%"vote"%'))).exists(),
    select(ComputerJob.id).where(ComputerJob.status == "new", ComputerJob.kind != "move").exists(),
))


class ComputerPlayer:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    # -- the loop ---------------------------------------------------------------
    def run_once(self) -> bool:
        """One turn or one request, if any is waiting; False when there was nothing to do."""
        if not self.db.peek(self._anything):
            return False  # the usual poll: a read, no write transaction (Database.peek)
        turn = self.db.run(self._look)
        if turn is not None:
            self._take(turn)
            return True
        job_id = self.db.run(self._claim_request)
        if job_id is not None:
            self._answer(job_id)
            return True
        return False

    def loop(self, stopping: Any, poll: float) -> None:
        quiet_since: float | None = None
        while not stopping.is_set():
            try:
                if self.run_once():
                    quiet_since = None
                    continue
            except Exception:
                if quiet_since is None:
                    log.exception("computer loop error")
                quiet_since = quiet_since or time.monotonic()
            stopping.wait(max(poll, 0.05))

    @staticmethod
    def _anything(conn: Connection) -> bool:
        """Whether a board may wait for the computer or a hint or review is asked (a read, many a second:
        Core, one statement; a false yes only costs a look in a real transaction)."""
        return bool(conn.execute(_ANYTHING).scalar())

    # -- 1. look -----------------------------------------------------------------
    def _look(self, session: Session) -> Turn | None:
        waiting = computer.waiting_boards(session)
        now = utcnow()
        jobs = {(j.board_id, j.ply): j for j in session.scalars(select(ComputerJob).where(
            ComputerJob.kind == "move", ComputerJob.board_id.in_([b.id for b in waiting])))}
        for board in waiting:
            job = jobs.get((board.id, board.ply))
            busy = job is not None and (job.status == "cut" or (job.claimed_until is not None
                                                                 and job.claimed_until > now))
            if busy and computer.owed_vote(board) is None:
                continue  # given up on, or another computer process is thinking about it (its lease)
            seats = computer.computer_seats(board)
            owed = computer.owed_vote(board)
            seat = owed if owed is not None else board.to_move
            if seat is None or seat not in seats:
                continue
            if self._only_computer_left(session, board):
                continue
            vote = None
            if owed is not None:
                pending = (board.pending or {})["vote"]
                vote = "accept" if pending.get("word") == "undo" and level(seats[seat]).accepts_undo else "reject"
            else:
                job = self._count_try(session, board, seat)
                if job.tries > MAX_TRIES:
                    job.status = "cut"
                    job.error = (job.error or "") + f"\ncut after {MAX_TRIES} tries"
                    log.error("computer turn on %s board %d at move #%d cut after %d tries",
                              board.game, board.number, board.ply + 1, MAX_TRIES)
                    continue
            user = boards.seat_users(board)[seat]
            return Turn(board.id, board.game, board.number, board.ply, seat, seats[seat], user.userid,
                        dict(board.state), vote)
        return None

    def _only_computer_left(self, session: Session, board: Board) -> bool:
        """A board left with only computer seats in play but still active (stored before ``boards.apply_state``
        ended such boards itself): end it now, rather than mail the people the computer playing itself."""
        game = games.load_game(board.game)
        state = game.load(board.state)
        outcome = computer.only_computer_left(board, game, state)
        if outcome is None:
            return False
        boards.finish(board, outcome)
        ctx = self._context(session, Turn(board.id, board.game, board.number, board.ply, 0, 0, "", {}, None),
                            [], 0)
        headline = "Only the computer is left in the game, so it ends: a draw between the computer's seats."
        for mail in boards.announce(ctx, board, game, state, headline):
            queue(session, self.settings, mail)
        log.info("%s board %d: only the computer left; ended", board.game, board.number)
        return True

    def _count_try(self, session: Session, board: Board, seat: int) -> ComputerJob:
        user_id = next(s.user_id for s in board.seats if s.seat == seat)
        job = session.scalars(select(ComputerJob).where(
            ComputerJob.board_id == board.id, ComputerJob.kind == "move", ComputerJob.ply == board.ply,
            ComputerJob.user_id == user_id)).one_or_none()
        if job is None:
            job = ComputerJob(kind="move", board_id=board.id, ply=board.ply, user_id=user_id, status="new", tries=0)
            session.add(job)
        elif job.status == "stale":  # the board came back to this move (an undo): a fresh turn
            job.status, job.tries, job.error = "new", 0, None
        job.tries += 1
        job.claimed_until = utcnow() + timedelta(seconds=60)
        session.flush()
        return job

    # -- 2. think, 3. hand in --------------------------------------------------------
    def _take(self, turn: Turn) -> None:
        game = games.load_game(turn.game)
        if turn.vote is not None:
            self.db.run(lambda s: self._vote(s, game, turn))
            return
        try:
            found = analyse(game, game.load(turn.state), LEVELS[turn.level])
        except Exception:
            self.db.run(lambda s: self._failed(s, turn, traceback.format_exc()))
            return
        log.info("computer %s on %s board %d move #%d: %s (%d lines, %.2f s CPU, %.0f nodes/s)", turn.userid,
                 turn.game, turn.number, turn.ply + 1, found.best, found.iterations, found.cpu,
                 found.nodes_per_second)
        self.db.run(lambda s: self._hand_in(s, game, turn, found.best))

    def _context(self, session: Session, turn: Turn, words: list[str], user_id: int) -> Context:
        request = Request(words=words, line=" ".join(words), sender=self.settings.address,
                          identity=Identity(user_id=user_id, board_id=turn.board_id))
        return Context(session=session, settings=self.settings, request=request, now=utcnow())

    def _job(self, session: Session, turn: Turn, user_id: int) -> ComputerJob | None:
        return session.scalars(select(ComputerJob).where(
            ComputerJob.board_id == turn.board_id, ComputerJob.kind == "move", ComputerJob.ply == turn.ply,
            ComputerJob.user_id == user_id)).one_or_none()

    def _hand_in(self, session: Session, game: games.Game, turn: Turn, move: str) -> None:
        user = session.scalars(select(User).where(User.userid == turn.userid)).one()
        job = self._job(session, turn, user.id)
        board = boards.find_board(session, game, turn.number, lock=True)
        if (board.pending or {}).get("vote"):
            # An offer came in while the computer thought: answer it first (the
            # next look does); a move now would silently cancel it.  The turn's
            # lease goes too, or the move would wait for it to run out (a minute).
            if job is not None:
                job.tries -= 1
                job.claimed_until = None
            return
        words = [game.name, "move", str(turn.number), turn.userid, "-", *f"{move}#{turn.ply + 1}".split()]
        try:
            with session.begin_nested():
                result = dispatch(self._context(session, turn, words, user.id), words)
                for mail in result.mails:
                    queue(session, self.settings, mail)
        except (CommandError, games.GameError) as exc:
            # Stale (the board moved on: undo, resignation, ...): the next look starts afresh.
            log.info("computer move %s on %s board %d refused: %s", move, turn.game, turn.number, exc)
            if job is not None:
                job.status, job.error, job.claimed_until = "stale", str(exc)[:2000], None
            return
        if job is not None:
            session.delete(job)  # the move is stored; only tries of open or cut turns are kept

    def _vote(self, session: Session, game: games.Game, turn: Turn) -> None:
        """Accept or reject the pending offer (through the lifecycle, as the vote command does)."""
        board = boards.find_board(session, game, turn.number, lock=True)
        if board.ply != turn.ply or board.status != "active" or computer.owed_vote(board) != turn.seat:
            return  # it changed meanwhile: look again
        user = boards.seat_users(board)[turn.seat]
        ctx = self._context(session, turn, [game.name, "move", str(turn.number), turn.userid, "-", turn.vote or ""],
                            user.id)
        proposer = (board.pending or {})["vote"].get("by_seat")
        state, headline = lifecycle.vote(ctx, board, game, turn.seat, user, turn.vote or "reject")
        if (turn.vote == "accept" and board.ply > 0 and board.to_move in computer.computer_seats(board)
                and proposer is not None and board.to_move != proposer and board.status == "active"):
            # The taken-back move was the computer's reply: take back the move
            # it answered too, or the computer would just play again.
            state = lifecycle.take_back(ctx, board, game)
            headline += " The computer's reply was the move taken back, so the move before it is taken back too."
        for mail in boards.announce(ctx, board, game, state, headline):
            queue(session, self.settings, mail)

    def _failed(self, session: Session, turn: Turn, error: str) -> None:
        log.error("computer turn on %s board %d failed:\n%s", turn.game, turn.number, error)
        user = session.scalars(select(User).where(User.userid == turn.userid)).one()
        job = self._job(session, turn, user.id)
        if job is not None:
            job.error = error[-2000:]
            job.claimed_until = None  # tried again at the next look, until it is cut

    # -- hints and reviews --------------------------------------------------------
    def _claim_request(self, session: Session) -> int | None:
        now = utcnow()
        job = session.scalars(select(ComputerJob).where(
            ComputerJob.status == "new", ComputerJob.kind != "move",
            (ComputerJob.claimed_until.is_(None)) | (ComputerJob.claimed_until < now))
            .order_by(ComputerJob.id).limit(1)).first()
        if job is None:
            return None
        job.tries += 1
        if job.tries > MAX_TRIES:
            job.status = "cut"
            return None
        job.claimed_until = now + timedelta(seconds=120)
        return job.id

    def _answer(self, job_id: int) -> None:
        """Read the board (a short transaction), think (none), send (another short one)."""
        plan = self.db.run(lambda s: self._plan(s, job_id))
        if plan is None:
            return
        try:
            subject, body = advice.compose(plan)
        except Exception:
            error = traceback.format_exc()
            log.error("computer request %d failed:\n%s", job_id, error)
            self.db.run(lambda s: self._request_failed(s, job_id, error))
            return
        self.db.run(lambda s: self._send(s, job_id, subject, body))

    def _plan(self, session: Session, job_id: int) -> advice.Plan | None:
        job = session.get(ComputerJob, job_id)
        if job is None or job.status != "new":
            return None
        board = session.get(Board, job.board_id)
        if board is None:
            job.status = "stale"
            return None
        moves = boards.moves_of(session, board)[: job.ply]
        players = [u.userid for u in boards.seat_users(board)]
        asker = next((s.seat for s in board.seats if s.user_id == job.user_id), None)
        return advice.Plan(kind=job.kind, game=board.game, number=board.number, options=dict(board.options),
                           players=players, moves=[(m.seat, m.move) for m in moves],
                           finished=board.status != "active", seat=asker)

    def _send(self, session: Session, job_id: int, subject: str, body: str) -> None:
        job = session.get(ComputerJob, job_id, with_for_update=True)
        if job is None or job.status != "new":
            return
        board = session.get(Board, job.board_id)
        references = [board_root(self.settings, board.game, board.number)] if board is not None else []
        queue(session, self.settings, Mail(to=[job.address or ""], subject=subject, body=body,
                                           in_reply_to=job.message_id or None, references=references))
        job.status = "done"
        job.claimed_until = None

    def _request_failed(self, session: Session, job_id: int, error: str) -> None:
        job = session.get(ComputerJob, job_id, with_for_update=True)
        if job is not None:
            job.error = error[-2000:]
            if job.tries >= MAX_TRIES:
                job.status = "cut"


__all__ = ["MAX_TRIES", "ComputerPlayer"]
