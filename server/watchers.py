"""Who follows a board without playing on it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.model import Board, Subscription, User


def board_watchers(session: Session, board: Board, kind: str = "watch") -> list[User]:
    rows = session.scalars(
        select(Subscription).where(Subscription.board_id == board.id, Subscription.kind == kind)
    )
    seated = {s.user_id for s in board.seats}
    return [r.user for r in rows if r.user_id not in seated and r.user.active]
