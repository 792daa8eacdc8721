"""Questions about stored rows that several folders ask the same way.

``owner_of`` is what "known sender" means everywhere: the inbound store's
fair-queue tier, the outbound quota for strangers, challenge attribution.
The mail folder asks it long before any account code runs, so it lives with
the store, below both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Executable, bindparam, func, select
from sqlalchemy.orm import Session

from server.store import prepared
from server.store.model import Address, Board, User

#: session.info key: {(game, number): (board, locked)} of the boards this transaction has found.
_BOARDS = "pbmserv_boards"
#: session.info key: {lowered address: user} of the confirmed addresses this transaction has loaded.
_OWNERS = "pbmserv_owners"


def core(session: Session | Connection, statement: Executable,
         params: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None) -> Any:
    """Run a Core statement in the session's transaction (or on a Core connection, in its own),
    past the ORM's and the engine's execute layers.

    ``session.execute`` costs 50-60 µs more a statement than the connection
    does (the ORM plugin, events, autoflush; 90 against 36 µs for a one-row
    select here), and the connection ~30 µs more than the DB-API cursor; a
    move by reply runs about twenty (issue 25).  So the statement runs as
    ``store.prepared`` plans it (the cursor, SQLAlchemy's type processing);
    the result has ``first``, ``scalar``, ``all``, ``scalars``, iteration and
    ``rowcount``.  Nothing is flushed first: the caller flushes when the
    statement reads rows this session may have changed.
    """
    return prepared.execute(session, statement, params)


_ANY_OWNER = (select(User).join(Address)
              .where(func.lower(Address.address) == bindparam("address"), Address.confirmed))
#: owner_of's statement by ``active_only``, built once: the listener asks it for every message.
_OWNER = {False: _ANY_OWNER.limit(1), True: _ANY_OWNER.where(User.active).limit(1)}


#: owner_of's statement with the user's id alone (no ORM object built): the listener's question.
_OWNER_ID = _OWNER[True].with_only_columns(User.id)


def has_owner(session: Session | Connection, address: str) -> bool:
    """Whether ``address`` is a confirmed address of an active account: ``owner_of`` is not None,
    asked with one Core statement (the listener asks it for every message stored)."""
    return bool(address) and core(session, _OWNER_ID, {"address": address.lower()}).first() is not None


def owner_of(session: Session, address: str, active_only: bool = True) -> User | None:
    """The active account whose confirmed address ``address`` is (case-insensitive), if any.

    What "known sender" means everywhere: the fair queue, challenge
    attribution and the limits on replies to strangers.
    """
    if not address:
        return None
    known = session.info.get(_OWNERS, {}).get(address.lower())
    if known is not None and known in session and (known.active or not active_only):
        return known
    # The user itself, in one statement (selecting the Address loaded its user with a second one).
    return session.scalars(_OWNER[active_only], {"address": address.lower()}).first()


def remember_board(session: Session, board: Board, locked: bool) -> None:
    """Note that this transaction has ``board`` (``locked``: its row is locked until the end).

    A move by reply found its board twice, through the reply address and
    again by number in the move command, each time with the board's seats
    and users (four statements where two do: issue 25).
    """
    session.info.setdefault(_BOARDS, {})[(board.game, board.number)] = (board, locked)


def known_board(session: Session, game: str, number: int, lock: bool) -> Board | None:
    """The board this transaction already found (and locked, when ``lock``), else None."""
    board, locked = session.info.get(_BOARDS, {}).get((game, number), (None, False))
    if board is None or (lock and not locked) or board not in session:
        return None
    return board


def remember_owners(session: Session, users: list[User]) -> None:
    """Note the confirmed addresses of ``users`` (loaded already, with their addresses).

    A board mail goes to each player, and queueing it asked the database
    again who owns each address (the outbound quota's "stranger?"), then
    whether the mover wants pictures: three statements a move for what the
    board's seats had just loaded (issue 25).
    """
    owners = session.info.setdefault(_OWNERS, {})
    for user in users:
        for address in user.addresses:
            if address.confirmed:
                owners[address.address.lower()] = user


def known_owners(session: Session, addresses: list[str]) -> list[User] | None:
    """The users of ``addresses`` if this transaction noted every one (remember_owners), else None."""
    owners = session.info.get(_OWNERS, {})
    found = [owners.get(a.lower()) for a in addresses]
    return None if any(u is None or u not in session for u in found) else found  # type: ignore[return-value]
