"""Who follows a board without playing on it: on the board itself, or on its whole game."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.store.model import Board, GameFollow, Subscription, User


def board_watchers(session: Session, board: Board, kind: str = "watch") -> list[User]:
    """Followers of one kind ("watch": every board mail, "notify": the end), sorted by userid.

    A game-wide ``watch`` (``GAME subscribe USERID PASSWORD all``) holds for
    boards started after it; a game-wide ``notify`` for every board.
    Players are never their own board's followers.
    """
    seated = {s.user_id for s in board.seats}
    users = [s.user for s in session.scalars(
        select(Subscription).where(Subscription.board_id == board.id, Subscription.kind == kind))]
    query = select(GameFollow).where(GameFollow.game == board.game, GameFollow.kind == kind)
    if kind == "watch":
        query = query.where(GameFollow.created_at <= board.created_at)
    users += [f.user for f in session.scalars(query)]
    out: dict[int, User] = {}
    for u in users:
        if u.id not in seated and u.active:
            out.setdefault(u.id, u)
    return sorted(out.values(), key=lambda u: u.userid)
