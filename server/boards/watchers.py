"""Who follows a board without playing on it: on the board itself, or on its whole game."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, joinedload

from server.store.model import Board, GameFollow, Subscription, User

#: A board's subscriptions and its game's follows, each with its user: built once (issue 25).
_SUBSCRIPTIONS = (select(Subscription).where(Subscription.board_id == bindparam("board"))
                  .options(joinedload(Subscription.user)))
_GAME_FOLLOWS = select(GameFollow).where(GameFollow.game == bindparam("game")).options(joinedload(GameFollow.user))


def board_followers(session: Session, board: Board) -> dict[str, list[User]]:
    """Both kinds of followers ("watch": every board mail, "notify": the end), each sorted by userid.

    A game-wide ``watch`` (``GAME subscribe USERID PASSWORD all``) holds for
    boards started after it; a game-wide ``notify`` for every board.
    Players are never their own board's followers.  Two statements for
    both kinds (a move's mails need both: once it was eight, issue 25).
    """
    seated = {s.user_id for s in board.seats}
    found: dict[str, dict[int, User]] = {"watch": {}, "notify": {}}
    follows: list[tuple[str, User]] = [
        (sub.kind, sub.user) for sub in session.scalars(_SUBSCRIPTIONS, {"board": board.id})]
    follows += [(f.kind, f.user) for f in session.scalars(_GAME_FOLLOWS, {"game": board.game})
                if f.kind != "watch" or f.created_at <= board.created_at]
    for kind, user in follows:
        if kind in found and user.id not in seated and user.active:
            found[kind].setdefault(user.id, user)
    return {kind: sorted(users.values(), key=lambda u: u.userid) for kind, users in found.items()}


def board_watchers(session: Session, board: Board, kind: str = "watch") -> list[User]:
    """Followers of one kind (see board_followers)."""
    return board_followers(session, board)[kind]
