"""Accounts: userids, passwords and delivery addresses."""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.accounts.passwords import hash_password, needs_rehash, verify_password
from server.core.errors import CommandError
from server.store.model import Address, User

USERID = re.compile(r"^[a-z][a-z0-9_.+-]{0,31}$")
ADDRESS = re.compile(r"^[^@\s<>(),;:\"]+@[A-Za-z0-9.-]+\.?[A-Za-z0-9-]*$")
RESERVED = {"all", "active", "inactive", "next", "help", "new", "pbmserv", "postmaster",
            "computer", "computer-1", "computer-2", "computer-3"}  # the computer opponent (issue 27)


def check_userid(userid: str) -> str:
    word = userid.lower()
    if not USERID.match(word) or word in RESERVED:
        raise CommandError(
            f"{userid!r} cannot be a userid: use 1-32 letters, digits or . _ + -, "
            "starting with a letter (and not a command word)"
        )
    return word


def check_password(password: str) -> str:
    if len(password) < 4 or len(password) > 128 or any(c in password for c in "'\":") or not password.isprintable():
        raise CommandError("A password has 4-128 characters and no spaces, quotes or colons")
    return password


def check_addresses(addresses: list[str], fallback: str) -> list[str]:
    out = []
    for addr in addresses or [fallback]:
        addr = addr.strip("<>,;")
        if not (addr.isascii() and addr.isprintable()):
            # A non-ASCII address needs SMTPUTF8 all the way; control characters
            # (NUL, ESC, DEL) reached RCPT and stalled delivery for everyone.
            raise CommandError(f"{ascii(addr)[:80]} is not a mail address this server can deliver to: "
                               "give one in plain ASCII letters")
        if not ADDRESS.match(addr) or len(addr) > 320:
            raise CommandError(f"{addr!r} is not a mail address")
        if addr.lower() not in (a.lower() for a in out):
            out.append(addr)
    if not out:
        raise CommandError("No address to send your mail to: name one")
    return out


def find_user(session: Session, userid: str) -> User | None:
    return session.scalars(select(User).where(User.userid == userid.lower())).one_or_none()


def require_user(session: Session, userid: str) -> User:
    user = find_user(session, userid)
    if user is None or not user.active:
        raise CommandError(f"Unknown userid {userid!r} (sign up first: signup USERID PASSWORD)")
    return user


def authenticate(session: Session, userid: str, password: str) -> User:
    """The user, if ``password`` is theirs; guessing is throttled (server/accounts/throttle.py).

    The sender's address comes from ``session.info`` (the worker puts it
    there); the admin's tool has none and is never throttled.
    """
    from server.accounts import throttle  # throttle imports replies; accounts sits below both

    user = require_user(session, userid)
    sender = session.info.get(throttle.SENDER_KEY)
    throttle.check(user, sender)
    if not verify_password(user.password_hash, password):
        raise throttle.wrong_password(user, sender)
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)  # a weaker hash of old, strengthened on login
    return user


def create_user(session: Session, userid: str, password: str, addresses: list[str]) -> User:
    word = check_userid(userid)
    if find_user(session, word) is not None:
        raise CommandError(f"The userid {word} is taken; choose another")
    user = User(userid=word, password_hash=hash_password(check_password(password)))
    user.addresses = [Address(address=a) for a in addresses]
    session.add(user)
    session.flush()
    return user


def set_password(user: User, password: str) -> None:
    user.password_hash = hash_password(check_password(password))


def addresses_of(user: User) -> list[str]:
    """Where the user's mail goes: their confirmed addresses only (server/accounts/confirm.py)."""
    return [a.address for a in user.addresses if a.confirmed]
