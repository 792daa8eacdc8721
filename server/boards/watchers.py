"""Who follows a board without playing on it: on the board itself, or on its whole game."""

from __future__ import annotations

from sqlalchemy import bindparam, or_, select, union_all
from sqlalchemy.orm import Session, selectinload

from server.store.model import Board, GameFollow, Subscription, User
from server.store.queries import core

#: Who follows a board, as (kind, user id): its subscriptions and its game's follows in one Core
#: statement, built once.  Most boards have no follower: the ORM loads of both tables with their
#: users were two entity statements a move (~0.3 ms) to find nobody (issue 25).  A game-wide
#: ``watch`` counts for boards started after it.
_FOLLOWS = union_all(
    select(Subscription.kind, Subscription.user_id).where(Subscription.board_id == bindparam("board")),
    select(GameFollow.kind, GameFollow.user_id).where(
        GameFollow.game == bindparam("game"),
        or_(GameFollow.kind != "watch", GameFollow.created_at <= bindparam("created"))),
)
#: The followers' accounts, with their addresses (the board mails go to them), when there are any.
_USERS = select(User).where(User.id.in_(bindparam("ids", expanding=True))).options(selectinload(User.addresses))


def board_followers(session: Session, board: Board) -> dict[str, list[User]]:
    """Both kinds of followers ("watch": every board mail, "notify": the end), each sorted by userid.

    A game-wide ``watch`` (``GAME subscribe USERID PASSWORD all``) holds for
    boards started after it; a game-wide ``notify`` for every board.
    Players are never their own board's followers.  One statement when
    nobody follows (nearly every board), two when somebody does.
    """
    seated = {s.user_id for s in board.seats}
    if board.id is None or board.created_at is None or session.new or session.deleted:
        # A board made in this transaction (its id and start time come with its INSERT), or a
        # follow added or dropped in it: written first, as the ORM's autoflush would.
        session.flush()
    follows = [(kind, user_id) for kind, user_id in core(session,
        _FOLLOWS, {"board": board.id, "game": board.game, "created": board.created_at})
        if kind in ("watch", "notify") and user_id not in seated]
    found: dict[str, dict[int, User]] = {"watch": {}, "notify": {}}
    if follows:
        users = {u.id: u for u in session.scalars(_USERS, {"ids": sorted({i for _, i in follows})})}
        for kind, user_id in follows:
            user = users.get(user_id)
            if user is not None and user.active:
                found[kind].setdefault(user_id, user)
    return {kind: sorted(users.values(), key=lambda u: u.userid) for kind, users in found.items()}


def board_watchers(session: Session, board: Board, kind: str = "watch") -> list[User]:
    """Followers of one kind (see board_followers)."""
    return board_followers(session, board)[kind]
