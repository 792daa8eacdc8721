"""Storing received mail: what happens between DATA and the 250.

The message is committed before the listener (or ``pbmserv process``)
answers, so a 250 always means "durably ours".  Before storing, the sender
is classified (``known``: its From address belongs to an account) for the
fair queue, and two throttles answer 450 instead of storing: the hourly
per-sender limit (keyed on both the envelope sender and the From address,
since a flood rotates MAIL FROM) and, for unknown senders, the size of
their shared backlog.
"""

from __future__ import annotations

from datetime import timedelta
from email.utils import parseaddr

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from server import tokens
from server.accounts import owner_of
from server.config import Settings
from server.database import Database
from server.dedupe import dedupe_key
from server.guards import header_block, header_fields, path_problem
from server.model import Inbound, utcnow


class RateLimited(Exception):
    """The sender has sent more than the hourly cap (a robot loop, most likely)."""


class Backlogged(RateLimited):
    """Too much mail from unknown senders is waiting: strangers are asked to come back later."""


def from_address(raw: bytes) -> str:
    """The From header's address, lower-cased, read without the parser (the header is capped already)."""
    for field in header_fields(header_block(raw)):
        name, _, value = field.partition(b":")
        if name.strip().lower() == b"from":
            text = value.decode("utf-8", "replace").replace("\r", "").replace("\n", "")
            address = parseaddr(text)[1].strip().lower()[:320]
            return "" if path_problem(address) else address
    return ""


def _recent(session: Session, column, value: str) -> int:  # type: ignore[no-untyped-def]
    since = utcnow() - timedelta(hours=1)
    return session.scalar(select(func.count()).select_from(Inbound).where(column == value, Inbound.received_at >= since)) or 0


def carries_token(session: Session, settings: Settings | None, rcpt_to: list[str]) -> bool:
    """A recipient is ``pbmserv+TOKEN@...`` with a token this server made (a reply to our mail)."""
    if settings is None:
        return False
    tags = [tokens.token_of(str(r), settings.addresses, settings.recipient_delimiter) for r in rcpt_to]
    return any(tag and tokens.genuine(session, tag) for tag in tags)


def store(db: Database, raw: bytes, mail_from: str, rcpt_to: list[str], rate_limit: int | None = None,
          unknown_backlog: int | None = None, settings: Settings | None = None) -> int:
    """Store one message; with ``settings``, a genuine reply token makes its sender known."""
    sender = from_address(raw) or ("" if path_problem(mail_from) else mail_from.lower()[:320])

    def work(session: Session) -> int:
        trusted = owner_of(session, sender) is not None or carries_token(session, settings, rcpt_to)
        if rate_limit:
            if mail_from and _recent(session, Inbound.mail_from, mail_from) >= rate_limit:
                raise RateLimited(mail_from)
            if sender and sender != mail_from.lower() and _recent(session, Inbound.sender, sender) >= rate_limit:
                raise RateLimited(sender)
        if unknown_backlog and not trusted:
            waiting = session.scalar(select(func.count()).select_from(Inbound).where(
                Inbound.status == "new", Inbound.known.is_(False)))
            if waiting >= unknown_backlog:
                raise Backlogged(sender)
        row = Inbound(
            mail_from=mail_from,
            rcpt_to=list(rcpt_to),
            sender=sender,
            known=trusted,
            dedupe_key=dedupe_key(raw, sender),
            raw=raw,
            status="new",
            results=[],
        )
        session.add(row)
        session.flush()
        return row.id

    return db.run(work, durable=True)
