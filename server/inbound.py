"""Storing received mail: what happens between DATA and the 250.

The message is committed before the listener (or ``pbmserv process``)
answers, so a 250 always means "durably ours".
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from server.database import Database
from server.model import Inbound, utcnow
from server.parse import dedupe_key


class RateLimited(Exception):
    """The sender has sent more than the hourly cap (a robot loop, most likely)."""


def store(db: Database, raw: bytes, mail_from: str, rcpt_to: list[str], rate_limit: int | None = None) -> int:
    def work(session) -> int:  # type: ignore[no-untyped-def]
        if rate_limit and mail_from:
            since = utcnow() - timedelta(hours=1)
            recent = session.scalar(
                select(func.count()).select_from(Inbound).where(Inbound.mail_from == mail_from, Inbound.received_at >= since)
            )
            if recent >= rate_limit:
                raise RateLimited(mail_from)
        row = Inbound(
            mail_from=mail_from,
            rcpt_to=list(rcpt_to),
            dedupe_key=dedupe_key(raw),
            raw=raw,
            status="new",
            results=[],
        )
        session.add(row)
        session.flush()
        return row.id

    return db.run(work, durable=True)
