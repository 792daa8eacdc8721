"""The computer opponent's accounts: one player per level, ``computer-1`` .. ``computer-3``.

Each level is its own account so that, where an admin rates such boards,
``standings`` shows each level as its own player.  The accounts have no
password anyone can give (the stored hash is not an argon2 hash, so every
check fails) and no address (no mail is ever sent to them); they are made
on first use.  The userids are reserved (server/accounts/accounts.py), so
nobody can sign up as the computer.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.store.model import User

#: What players write in a challenge.
WORD = "computer"
#: The level when the challenge names none.
DEFAULT_LEVEL = 2
USERIDS = {f"{WORD}-{n}": n for n in (1, 2, 3)}
#: Never a valid argon2 hash: no password opens these accounts.
NO_PASSWORD = "!computer"


def userid(level: int) -> str:
    return f"{WORD}-{level}"


def level_of(user: User | None) -> int | None:
    """The level a computer account plays at, None for a person."""
    return USERIDS.get(user.userid) if user is not None else None


def is_computer(user: User | None) -> bool:
    return level_of(user) is not None


def account(session: Session, level: int) -> User:
    """The account of that level, made on first use."""
    name = userid(level)
    user = session.scalars(select(User).where(User.userid == name)).one_or_none()
    if user is None:
        user = User(userid=name, password_hash=NO_PASSWORD)
        session.add(user)
        session.flush()
    return user


def computer_ids(session: Session) -> list[int]:
    """The ids of the computer accounts made so far."""
    return list(session.scalars(select(User.id).where(User.userid.in_(list(USERIDS)))))
