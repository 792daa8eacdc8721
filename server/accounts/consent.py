"""Who may be put into a board, and who a challenge is from.

A challenge needs no password, so anyone could sit any player at any
number of boards (a sock puppet in 1,500 boards made one ``all show`` cost
1.6 GB), and a forged From made "alice writes: ..." appear under a board
alice never asked for.  The rules here:

- every seat's policy holds (``reject``, ``limit``), whoever sent the mail:
  a From can be forged, so sending a challenge proves nothing;
- ``limit`` has a finite default (DEFAULT_BOARD_LIMIT active boards);
- boards waiting for a player's first move are boards the player has not
  agreed to: at most UNCONSENTED_MAX of them (FRESH_MAX for an account
  that has never moved anywhere), except for the seat whose own registered
  address sent the challenge;
- a challenge is attributed to a userid only when it comes from an address
  registered to that userid; otherwise its mails name the address, and the
  body is not shown as a player's words.
"""

from __future__ import annotations

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from server.store.model import Board, Move, Seat, User

#: Active boards a player may have when they never set a limit of their own.
DEFAULT_BOARD_LIMIT = 100
#: Boards waiting for a player's first move that others may put them into.
UNCONSENTED_MAX = 30
#: The same for an account that has not made a move in any game yet.
FRESH_MAX = 30


def board_limit(user: User) -> int:
    return DEFAULT_BOARD_LIMIT if user.board_limit is None else user.board_limit


def waiting_first_move(session: Session, user: User) -> int:
    """Active boards where ``user`` has not moved yet."""
    return session.scalar(
        select(func.count()).select_from(Board).join(Seat).where(
            Seat.user_id == user.id, Board.status == "active",
            ~exists().where(Move.board_id == Board.id, Move.seat == Seat.seat))
    ) or 0


def has_ever_moved(session: Session, user: User) -> bool:
    return bool(session.scalar(
        select(func.count()).select_from(Move).join(Seat, (Seat.board_id == Move.board_id) & (Seat.seat == Move.seat))
        .where(Seat.user_id == user.id).limit(1)
    ))


def unconsented_refusal(session: Session, user: User) -> str | None:
    """Why ``user`` may not be put into one more board without their say, or None."""
    waiting = waiting_first_move(session, user)
    cap = UNCONSENTED_MAX if has_ever_moved(session, user) else FRESH_MAX
    if waiting >= cap:
        return (f"{user.userid} already has {waiting} boards waiting for their first move; "
                "more can start once they play (or they challenge you)")
    return None
