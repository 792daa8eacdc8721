"""Boards against the computer: who sits where, the limits, and the computer's queue.

The computer's work is derived from the boards themselves -- an active board
whose seat to move is a computer account is waiting for it -- so nothing
has to be remembered for a move to happen, and a crash loses nothing.  The
``computer_jobs`` rows count a turn's tries (a turn that keeps failing is
cut, never retried for ever) and hold the hint and review requests.

Limits (issue 27): at most ``computer_boards_per_account`` active boards
against the computer per player and ``computer_boards`` in all (so the
queue of turns is bounded by construction), at most ``computer_queue``
hints and reviews waiting, and only a player with an account, from one of
their own addresses, starts such a board.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import games
from games import Outcome
from games.engine import hooks_for
from server.accounts import computer as accounts_computer
from server.core.config import Settings
from server.core.errors import CommandError
from server.store.model import Board, ComputerJob, Seat, User


def take_level(tokens: list[str]) -> tuple[int | None, list[str]]:
    """``-level=N`` out of a challenge's option tokens: (N or None, the other tokens)."""
    level, rest = None, []
    for token in tokens:
        name, eq, value = token.lstrip("-").partition("=")
        if token.startswith("-") and not token.startswith("--") and name.lower() == "level":
            if not eq or value not in ("1", "2", "3"):
                raise CommandError(f"{token}: the computer plays at -level=1, -level=2 or -level=3")
            level = int(value)
        else:
            rest.append(token)
    return level, rest


def seat_accounts(session: Session, names: list[str], level: int | None) -> tuple[list[str], bool]:
    """The challenge's names with ``computer`` made the account of its level; whether any seat is the computer.

    ``computer-N`` may be named directly (two computer seats at TriMac play
    at two levels: ``trimac challenge alice computer-1 computer-3``).
    """
    chosen = level if level is not None else accounts_computer.DEFAULT_LEVEL
    out = []
    for name in names:
        word = name.lower()
        if word == accounts_computer.WORD:
            word = accounts_computer.userid(chosen)
        if word in accounts_computer.USERIDS:
            accounts_computer.account(session, accounts_computer.USERIDS[word])
        out.append(word)
    computers = [n for n in out if n in accounts_computer.USERIDS]
    if len(computers) != len(set(computers)):
        raise CommandError("The computer takes two seats only at two levels: name them computer-1, "
                           "computer-2 or computer-3 (e.g. computer-1 computer-3)")
    if level is not None and not computers:
        raise CommandError("-level=N is for a board against the computer: name computer as a player")
    return out, bool(computers)


def check_challenge(session: Session, settings: Settings, users: list[User], sender: User | None,
                    admin: bool) -> None:
    """Refuse a board against the computer that strangers or the limits do not allow."""
    people = [u for u in users if not accounts_computer.is_computer(u)]
    if not people:
        raise CommandError("A board needs at least one person: the computer does not play itself here "
                           "(the benchmark does that)")
    if not admin:
        if sender is None or sender.id not in {u.id for u in people}:
            raise CommandError("Only a player with an account starts a board against the computer, "
                               "from one of their own addresses, and takes a seat at it")
        mine = active_against_computer(session, sender)
        if mine >= settings.computer_boards_per_account:
            raise CommandError(f"{sender.userid} already plays {mine} boards against the computer, the most "
                               f"one player may (finish or resign one first)")
    total = active_against_computer(session)
    if total >= settings.computer_boards:
        raise CommandError(f"The computer already plays {total} boards, all this server allows; "
                           "try again when some have finished")


def active_against_computer(session: Session, user: User | None = None) -> int:
    """Active boards with a computer seat (of ``user``, or in all)."""
    ids = accounts_computer.computer_ids(session)
    if not ids:
        return 0
    boards = select(Seat.board_id).join(Board).where(Board.status == "active", Seat.user_id.in_(ids))
    query = select(func.count(func.distinct(Seat.board_id))).where(Seat.board_id.in_(boards))
    if user is not None:
        query = query.where(Seat.user_id == user.id)
    return session.scalar(query) or 0


def computer_seats(board: Board) -> dict[int, int]:
    """Seat -> level for the board's computer seats."""
    out = {}
    for seat in board.seats:
        level = accounts_computer.level_of(seat.user)
        if level is not None:
            out[seat.seat] = level
    return out


#: Why a board where only computer seats are left in play ends.
ONLY_COMPUTER_LEFT = "only the computer was left in the game: drawn between its seats"


def only_computer_left(board: Board, game: games.Game, state: Any) -> Outcome | None:
    """The end of a board whose seats still in play are all the computer's, or None.

    A game of more than two (TriMac) plays on after a seat resigns or is
    defeated (its ``in_play`` hook says who is left); the server does not
    mail the people the computer playing itself, so the board ends there, a
    draw between the computer's seats that the people out of it have lost.
    ``boards.apply_state`` asks this after every change, so the mail of the
    resignation (or of the move that defeated the last person) is the last
    one, with no turn of a computer seat announced before it.
    """
    in_play = hooks_for(game).in_play
    if in_play is None:
        return None
    seats = computer_seats(board)
    if not seats:
        return None
    live = in_play(game, state)
    if not live or not all(seat in seats for seat in live):
        return None
    return Outcome(winners=(), losers=tuple(s.seat for s in board.seats if s.seat not in live),
                   reason=ONLY_COMPUTER_LEFT)


def only_computer_opponents(board: Board, seat: int) -> bool:
    """Every other seat of the board is the computer (where hints are allowed while it plays)."""
    seats = computer_seats(board)
    return all(s.seat in seats for s in board.seats if s.seat != seat)


def waiting_boards(session: Session, limit: int = 50) -> list[Board]:
    """Active boards where the computer is to move or owes a vote, longest waiting first."""
    ids = accounts_computer.computer_ids(session)
    if not ids:
        return []
    against = select(Seat.board_id).where(Seat.user_id.in_(ids))
    rows = session.scalars(
        select(Board).where(Board.status == "active", Board.id.in_(against)).order_by(Board.turn_since, Board.id)
    ).all()
    out = [b for b in rows if b.to_move in computer_seats(b) or owed_vote(b) is not None]
    return out[:limit]


def owed_vote(board: Board) -> int | None:
    """A computer seat that owes a vote on the pending offer, if any."""
    vote: dict[str, Any] | None = (board.pending or {}).get("vote")
    if not vote:
        return None
    for seat in computer_seats(board):
        if seat in vote.get("voters", []) and seat not in vote.get("accepted", []):
            return seat
    return None


def queue_request(session: Session, settings: Settings, kind: str, board: Board, user: User, address: str,
                  message_id: str, ply: int) -> ComputerJob:
    """A hint or review for the computer's process; refused when its queue is full."""
    waiting = session.scalar(select(func.count()).select_from(ComputerJob)
                             .where(ComputerJob.status == "new", ComputerJob.kind != "move")) or 0
    if waiting >= settings.computer_queue:
        raise CommandError(f"The computer has {waiting} hints and reviews to answer already; "
                           "ask again in a few minutes")
    existing = session.scalars(select(ComputerJob).where(
        ComputerJob.board_id == board.id, ComputerJob.kind == kind, ComputerJob.ply == ply,
        ComputerJob.user_id == user.id)).one_or_none()
    if existing is not None:
        if existing.status == "new":
            raise CommandError(f"Your {kind} for this board is already being worked out; it comes by mail")
        existing.status, existing.tries, existing.error = "new", 0, None
        existing.address, existing.message_id = address, message_id
        return existing
    job = ComputerJob(kind=kind, board_id=board.id, ply=ply, user_id=user.id, address=address,
                      message_id=message_id, status="new", tries=0)
    session.add(job)
    return job


def queue_counts(session: Session) -> dict[str, int]:
    """For ``pbmserv status``: turns waiting, requests waiting, turns cut."""
    jobs = dict(session.execute(select(ComputerJob.kind, func.count()).where(ComputerJob.status == "new")
                                .group_by(ComputerJob.kind)).all())
    cut = session.scalar(select(func.count()).select_from(ComputerJob).where(ComputerJob.status == "cut")) or 0
    given_up = {(board_id, ply) for board_id, ply in session.execute(select(ComputerJob.board_id, ComputerJob.ply)
                                                                      .where(ComputerJob.kind == "move",
                                                                             ComputerJob.status == "cut"))}
    turns = [b for b in waiting_boards(session, limit=10**6) if (b.id, b.ply) not in given_up]
    return {"turns": len(turns), "hint": jobs.get("hint", 0),
            "review": jobs.get("review", 0), "cut": cut, "boards": active_against_computer(session)}
