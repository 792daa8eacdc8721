"""Tokens: the one mechanism behind secret reply addresses (and any mailed proof).

A token is a short string the server hands out by mail and later accepts
as proof that whoever sends it read that mail: a board's reply address
(``pbmserv+TOKEN@domain`` in the Reply-To, issue 15), an address
confirmation (issue 20).  It is stateless: nothing per token is stored,
only one server secret (``server_secrets``, made on first use, replaced by
``pbmserv secret rotate``).

Layout, before base32 (lower-case, no padding: mail- and URL-safe, and
case-insensitive because some MTAs lower-case local parts)::

    purpose (1 byte) | fields (unsigned LEB128 each) | tag (10 bytes) | seal (5 bytes)

* ``tag`` = HMAC-SHA256(secret, purpose|fields), 80 bits: a token nobody
  can make without the secret.
* ``seal`` = HMAC-SHA256(secret, purpose|fields|binding), 40 bits: the
  binding is a string the caller names (a user's current password hash for
  reply tokens), never stored in the token.  When it changes (``change
  password``, ``signoff``) every token bound to it stops working at once.
  With the tag valid and the seal wrong, the token is a genuine one that
  was revoked, and the holder can be told so.

Verification checks the tag before it looks anything up, so a made-up or
altered token is refused without a database query on its fields: the
answer never depends on whether a user or a board exists.

Tokens are secrets: never log one, never put one in a mail to anyone but
its owner.  :func:`redact` masks them in text (the log filter uses it).
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import logging
import os
import re
from collections.abc import Callable, Sequence

from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.core.config import split_tag
from server.store.model import Address, ServerSecret, User, utcnow
from server.store.queries import core

#: The uses of tokens; the code is the token's first byte.  A token of one
#: purpose is refused (``Failure.WRONG_PURPOSE``) where another is expected.
PURPOSES: dict[str, int] = {
    "reply": 1,  # a board's reply address: fields (user id, board id, ply)
    "confirm": 2,  # an address confirmation (issue 20): fields chosen by its caller
}
_CODES = {code: name for name, code in PURPOSES.items()}

SECRET_NAME = "token"
#: The secret's two keys as plain values (built once).
_SECRET = select(ServerSecret.value, ServerSecret.previous).where(ServerSecret.name == bindparam("name"))
TAG_BYTES = 10  # 80 bits
SEAL_BYTES = 5  # 40 bits: guessing it needs a genuine token and 2^39 mails
#: Longer strings are not decoded at all (a token with 4 large fields is ~45).
MAX_TOKEN_CHARS = 64
_SESSION_KEY = "pbmserv.tokens.secret"


class Failure(enum.Enum):
    """Why a token was refused; say no more than this to its sender."""

    #: Not a token of this server: altered, made up, cut short, or made with
    #: a key two rotations ago.  Deliberately one reason for all of these.
    TAMPERED = "tampered"
    #: Genuine, but revoked: its binding changed (password changed, account
    #: closed, the thing it named is gone) or ``pbmserv secret rotate`` ran.
    REVOKED = "revoked"
    #: Genuine, but made for another purpose (a confirmation used as a reply).
    WRONG_PURPOSE = "wrong_purpose"


class TokenError(Exception):
    """A refused token; ``reason`` is a :class:`Failure`."""

    def __init__(self, reason: Failure) -> None:
        super().__init__(reason.value)
        self.reason = reason


# -- the secret ---------------------------------------------------------------
def _secret_row(session: Session) -> ServerSecret:
    """The secret, made on first use.

    Two processes making it at once: one INSERT wins, the other's fails in
    its savepoint and it reads the winner's (PostgreSQL's READ COMMITTED
    shows the committed row to the next statement; SQLite has one writer).
    """
    row = session.get(ServerSecret, SECRET_NAME)
    if row is not None:
        return row
    try:
        with session.begin_nested():
            row = ServerSecret(name=SECRET_NAME, value=os.urandom(32).hex(), created_at=utcnow())
            session.add(row)
    except IntegrityError:
        row = session.get(ServerSecret, SECRET_NAME, populate_existing=True)
        assert row is not None
    return row


def _keys(session: Session) -> tuple[bytes, bytes | None]:
    """(current key, previous key) -- read once per session, as a board mail issues several tokens."""
    cached = session.info.get(_SESSION_KEY)
    if cached is None:
        # A Core read (rotate() alone needs the row as an object): 36 µs, the ORM's get 180 µs,
        # once a move (issue 25).
        found = core(session, _SECRET, {"name": SECRET_NAME}).first()
        if found is None:  # made on first use
            row = _secret_row(session)
            found = (row.value, row.previous)
        value, previous = found
        cached = (bytes.fromhex(value), bytes.fromhex(previous) if previous else None)
        session.info[_SESSION_KEY] = cached
    return cached


def rotate(session: Session) -> None:
    """Replace the secret: every token issued so far stops working.

    The replaced key is kept as ``previous`` only to tell holders of its
    tokens "revoked" rather than "not valid"; it verifies nothing.
    """
    row = _secret_row(session)
    row.previous = row.value
    row.value = os.urandom(32).hex()
    row.created_at = utcnow()
    # The new keys for the rest of this transaction: ``_keys`` reads the row with a Core
    # statement, which would not see this unflushed change.
    session.info[_SESSION_KEY] = (bytes.fromhex(row.value), bytes.fromhex(row.previous))


# -- encoding -------------------------------------------------------------------
def _varint(n: int) -> bytes:
    if n < 0:
        raise ValueError("token fields are non-negative integers")
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _fields(data: bytes) -> tuple[int, ...] | None:
    """The varints of ``data``, or None if they do not parse."""
    out: list[int] = []
    value = shift = 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if shift > 63:
            return None
        if not byte & 0x80:
            out.append(value)
            value = shift = 0
    return tuple(out) if shift == 0 else None


def _mac(key: bytes, label: bytes, data: bytes, size: int) -> bytes:
    return hmac.new(key, label + b"\0" + data, hashlib.sha256).digest()[:size]


def _tag(key: bytes, body: bytes) -> bytes:
    return _mac(key, b"pbmserv-token-v1", body, TAG_BYTES)


def _seal(key: bytes, body: bytes, binding: str) -> bytes:
    return _mac(key, b"pbmserv-binding-v1", body + b"\0" + binding.encode("utf-8"), SEAL_BYTES)


def _b32(raw: bytes) -> str:
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()


def _unb32(text: str) -> bytes | None:
    text = text.strip().upper()
    if not text or len(text) > MAX_TOKEN_CHARS or not re.fullmatch(r"[A-Z2-7]+", text):
        return None
    try:
        raw = base64.b32decode(text + "=" * (-len(text) % 8))
    except ValueError:  # binascii.Error is a ValueError
        return None
    # One spelling per token: stray bits in the last character are not ignored.
    return raw if _b32(raw) == text.lower() else None


# -- the interface --------------------------------------------------------------
def claimed_purpose(token: str) -> str | None:
    """The purpose a token *says* it has (unchecked: no key, no database), or None if unreadable.

    Only to skip work: a reply to a board mail need not be checked as an
    address confirmation first (each check read the secret and made a MAC).
    Whatever it says, :func:`verify` is what accepts a token.
    """
    raw = _unb32(token)
    return _CODES.get(raw[0]) if raw else None


def issue(session: Session, purpose: str, fields: Sequence[int], binding: str) -> str:
    """A token for ``purpose`` naming ``fields`` (non-negative ints), bound to ``binding``.

    ``binding`` is whatever must stay the same for the token to stay good,
    e.g. the user's password hash; it is not in the token.
    """
    body = bytes([PURPOSES[purpose]]) + b"".join(_varint(f) for f in fields)
    key, _ = _keys(session)
    return _b32(body + _tag(key, body) + _seal(key, body, binding))


def verify(
    session: Session,
    token: str,
    purpose: str,
    binding_of: Callable[[tuple[int, ...]], str | None],
) -> tuple[int, ...]:
    """The fields of a good ``purpose`` token, else :class:`TokenError`.

    ``binding_of(fields)`` returns the binding as it is now (e.g. the
    user's current password hash), or None when what the fields name is
    gone or closed; it is called only for a genuine token of the right
    purpose.  Case does not matter.
    """
    raw = _unb32(token)
    if raw is None or len(raw) < 1 + TAG_BYTES + SEAL_BYTES + 1:
        raise TokenError(Failure.TAMPERED)
    body, tag, seal = raw[: -TAG_BYTES - SEAL_BYTES], raw[-TAG_BYTES - SEAL_BYTES: -SEAL_BYTES], raw[-SEAL_BYTES:]
    key, previous = _keys(session)
    if not hmac.compare_digest(tag, _tag(key, body)):
        if previous is not None and hmac.compare_digest(tag, _tag(previous, body)):
            raise TokenError(Failure.REVOKED)
        raise TokenError(Failure.TAMPERED)
    fields = _fields(body[1:])
    if fields is None or body[0] not in _CODES:  # cannot happen with a valid tag; checked anyway
        raise TokenError(Failure.TAMPERED)
    if _CODES[body[0]] != purpose:
        raise TokenError(Failure.WRONG_PURPOSE)
    binding = binding_of(fields)
    if binding is None or not hmac.compare_digest(seal, _seal(key, body, binding)):
        raise TokenError(Failure.REVOKED)
    return fields


def reply_binding(session: Session) -> Callable[[tuple[int, ...]], str | None]:
    """The binding of reply tokens (user id, board id, ply): the user's password hash while active."""

    def binding(fields: tuple[int, ...]) -> str | None:
        user = session.get(User, fields[0]) if len(fields) == 3 else None
        return user.password_hash if user is not None and user.active else None

    return binding


def address_binding(address: Address) -> str:
    """The binding of confirmation tokens: the address and its account (re-added: a new binding)."""
    return f"{address.user_id}:{address.address.lower()}"


def confirm_binding(session: Session) -> Callable[[tuple[int, ...]], str | None]:
    """The binding of confirmation tokens (address id), as it is now."""

    def binding(fields: tuple[int, ...]) -> str | None:
        row = session.get(Address, fields[0]) if len(fields) == 1 else None
        return address_binding(row) if row is not None else None

    return binding


def sender_key(session: Session, token: str) -> str | None:
    """Who a fully valid token (tag *and* seal) speaks for, as the fair queue's sender key, else None.

    A reply token speaks for its player (``reply-token:USER``), a
    confirmation token for its address (``confirm-token:ADDRESS``).  The
    fair queue (issue 20) serves mail carrying one before strangers' mail;
    a genuine but revoked token once bought that tier too, for anyone who
    kept one: 120 mails to a revoked token from rotating From addresses were
    served before a player (issue 32).
    """
    for purpose, binding in (("reply", reply_binding), ("confirm", confirm_binding)):
        try:
            fields = verify(session, token, purpose, binding(session))
        except TokenError as exc:
            if exc.reason is Failure.WRONG_PURPOSE:
                continue
            return None
        except ValueError:
            return None
        return f"{purpose}-token:{fields[0]}"
    return None


# -- addresses --------------------------------------------------------------------
def plus_address(address: str, token: str, delimiter: str = "+") -> str:
    """``local@domain`` with the token as its tag: ``local+token@domain``.

    ``delimiter`` may list several characters, as Postfix's
    ``recipient_delimiter`` does; the first is used.
    """
    local, _, domain = address.rpartition("@")
    return f"{local}{delimiter[:1] or '+'}{token}@{domain}"


def token_of(address: str, own: Sequence[str], delimiter: str = "+") -> str | None:
    """The tag of a plus-tagged form of one of our addresses, else None."""
    base, tag = split_tag(address, delimiter)
    if tag is None or base.lower() not in {a.lower() for a in own}:
        return None
    return tag


#: A run of base32 letters long enough to be a token (ours are 32+), whatever comes before it:
#: the recipient delimiter is configurable (``_``, ``.``, even a letter, which the run then
#: swallows with the local part), so the pattern cannot name it (issue 32: ``_`` leaked).
_TOKEN_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{24,}(?=[@>\s\"',;]|$)")


def redact(text: str) -> str:
    """``text`` with anything shaped like a token tag replaced by ``***`` (any delimiter before it)."""
    return _TOKEN_IN_TEXT.sub("***", text)


class RedactFilter(logging.Filter):
    """A log-handler filter: no token reaches a log line, whoever logs it.

    Our own code never logs a recipient with its tag; this also covers
    libraries (aiosmtpd logs the SMTP dialogue at debug level).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True
