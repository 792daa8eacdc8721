"""Delivering the outbox to the relay, at least once, with backoff.

Rows are claimed for a lease (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so
servers on several hosts never take the same row at once), sent over one
SMTP connection per batch, and marked sent together after the batch.  A
crash between the relay's 250s and the mark sends those mails of the batch
again: at least once, never lost.  4xx answers
and connection failures retry with exponential backoff; 5xx is final.
"""

from __future__ import annotations

import logging
import smtplib
import socket
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail.quota import outbound_room
from server.store.database import Database, worker_name
from server.store.model import Outbox, utcnow

log = logging.getLogger("pbmserv.outbox")


@dataclass
class Job:
    id: int
    envelope_from: str
    recipients: list[str]
    message: bytes
    tries: int


class Deliverer:
    def __init__(self, db: Database, settings: Settings, name: str | None = None) -> None:
        self.db = db
        self.settings = settings
        self.name = name or worker_name()
        #: Our EHLO name, looked up once: smtplib would call getfqdn() per connection.
        self.helo_name = socket.getfqdn()

    def claim(self, limit: int = 20) -> list[Job]:
        """Up to ``limit`` due rows, claimed for a lease (Core statements: no ORM objects on this path)."""

        def work(session: Session) -> list[Job]:
            now = utcnow()
            rows = []
            # Two pools (server/mail/quota.py): players' mail first, then strangers'.
            for stranger, room in zip((False, True), outbound_room(session, self.settings, now), strict=True):
                if room <= 0:
                    # This pool's hourly budget is spent: its mail waits (``pbmserv status`` alerts).
                    log.warning("outbound budget for %s is spent; their replies wait",
                                "strangers" if stranger else "players")
                    continue
                if len(rows) >= limit:
                    break
                rows += session.execute(
                    select(Outbox.id, Outbox.envelope_from, Outbox.recipients, Outbox.message, Outbox.tries)
                    .where(
                        Outbox.status == "pending",
                        Outbox.stranger.is_(stranger),
                        Outbox.next_attempt <= now,
                        or_(Outbox.claimed_until.is_(None), Outbox.claimed_until < now),
                    )
                    .order_by(Outbox.id)
                    .limit(min(limit - len(rows), room))
                    .with_for_update(skip_locked=True)
                ).all()
            if rows:
                session.execute(
                    update(Outbox).where(Outbox.id.in_([r.id for r in rows]))
                    .values(claimed_by=self.name,
                            claimed_until=now + timedelta(seconds=self.settings.delivery_lease_seconds))
                    .execution_options(synchronize_session=False)
                )
            return [Job(r.id, r.envelope_from, list(r.recipients), r.message, r.tries) for r in rows]

        return self.db.run(work)

    def run_once(self) -> int:
        """Deliver one batch; the number of rows handled (0: nothing due)."""
        jobs = self.claim()
        if not jobs:
            return 0
        relay = self.settings.relay_hostport
        if relay is None:
            self._release(jobs)
            return 0
        sent: list[int] = []
        failure = None
        try:
            with smtplib.SMTP(relay[0], relay[1], local_hostname=self.helo_name, timeout=30) as smtp:
                for job in jobs:
                    if self._send(smtp, job):
                        sent.append(job.id)
        except (OSError, smtplib.SMTPException) as exc:
            failure = f"relay {relay[0]}:{relay[1]}: {exc}"
        finally:
            # One transaction for the batch, not one per mail (py-spy: the
            # per-mail marks were a fifth of the deliverer's time).  Marked
            # before any retry below, so a sent mail is never put back.
            self._mark_sent(sent)
        if failure is not None:
            for job in jobs:
                self._retry(job, failure, only_if_claimed=True)
        return len(jobs)

    def drain(self) -> int:
        total = 0
        while (n := self.run_once()):
            total += n
        return total

    def _send(self, smtp: smtplib.SMTP, job: Job) -> bool:
        """Hand one mail to the relay; True once the relay took it (to be marked sent)."""
        try:
            refused = smtp.sendmail(job.envelope_from, job.recipients, job.message)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            if all(code >= 500 for code in codes):
                self._fail(job, f"recipients refused: {exc.recipients}")
            else:
                self._retry(job, f"recipients refused: {exc.recipients}")
            return False
        except smtplib.SMTPResponseException as exc:
            if exc.smtp_code >= 500:
                self._fail(job, f"{exc.smtp_code} {exc.smtp_error!r}")
            else:
                self._retry(job, f"{exc.smtp_code} {exc.smtp_error!r}")
            return False  # smtplib has reset the session; the next job can go
        except (OSError, smtplib.SMTPServerDisconnected):
            raise  # the connection is gone: the batch is retried
        except Exception as exc:
            # This row alone cannot be sent (an address smtplib cannot encode,
            # a relay without SMTPUTF8): fail it with the real reason, and the
            # batch goes on.  It once stalled every row behind it forever.
            self._fail(job, f"cannot be sent: {type(exc).__name__}: {exc}"[:500])
            try:
                smtp.rset()
            except (OSError, smtplib.SMTPException):
                raise smtplib.SMTPServerDisconnected("lost after a failed row") from exc
            return False
        if refused:
            log.warning("outbox %d: some recipients refused: %s", job.id, refused)
        return True

    def _mark_sent(self, row_ids: list[int]) -> None:
        """One UPDATE for the whole batch."""
        if not row_ids:
            return

        def work(session: Session) -> None:
            session.execute(
                update(Outbox).where(Outbox.id.in_(row_ids))
                .values(status="sent", tries=Outbox.tries + 1, last_error=None, claimed_until=None, sent_at=utcnow())
                .execution_options(synchronize_session=False)
            )

        self.db.run(work)

    def _mark(self, row_id: int, status: str, error: str | None) -> None:
        def work(session: Session) -> None:
            row = session.get(Outbox, row_id, with_for_update=True)
            if row is None:
                return
            row.status = status
            row.tries += 1
            row.last_error = error
            row.claimed_until = None
            if status == "sent":
                row.sent_at = utcnow()

        self.db.run(work)

    def _fail(self, job: Job, error: str) -> None:
        log.error("outbox %d failed for good: %s", job.id, error)
        self._mark(job.id, "failed", error)

    def _retry(self, job: Job, error: str, only_if_claimed: bool = False) -> None:
        def work(session: Session) -> None:
            row = session.get(Outbox, job.id, with_for_update=True)
            if row is None or row.status != "pending" or (only_if_claimed and row.claimed_by != self.name):
                return
            row.tries += 1
            row.last_error = error
            row.claimed_until = None
            if row.tries >= self.settings.max_delivery_tries:
                row.status = "failed"
                log.error("outbox %d gave up after %d tries: %s", job.id, row.tries, error)
                return
            delay = min(self.settings.retry_base * 2 ** (row.tries - 1), 6 * 3600)
            row.next_attempt = utcnow() + timedelta(seconds=delay)
            log.warning("outbox %d: %s; retry in %.0fs", job.id, error, delay)

        self.db.run(work)

    def _release(self, jobs: list[Job]) -> None:
        def work(session: Session) -> None:
            for job in jobs:
                row = session.get(Outbox, job.id)
                if row is not None and row.claimed_by == self.name:
                    row.claimed_until = None

        self.db.run(work)


