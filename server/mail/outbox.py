"""Delivering the outbox to the relay, at least once, with backoff.

Rows are claimed for a lease (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so
servers on several hosts never take the same row at once), sent over one
relay session kept open from batch to batch (``relay.KeptSession``), and
each recorded as sent as soon as the relay has accepted it (issue 32, item
15: marked together after the batch, a SIGKILL under load sent 97 of 1,110
replies twice): on SQLite in a journal file beside the database
(``SentJournal``: no write lock per mail), the rows then marked in the next
batch's claim or once the deliverer is idle; on PostgreSQL on its row.  A
crash between the relay's 250 and that record sends the one mail in flight
again: at least once, never lost, at most one duplicate per crash.  4xx
answers and connection failures retry with exponential backoff; 5xx is
final.
"""

from __future__ import annotations

import glob
import logging
import os
import smtplib
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, or_, select, update
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail import relay as submission
from server.mail.credentials import MailConfigError, parse_relay
from server.mail.quota import outbound_room
from server.pictures.cache import fill
from server.store.database import Database, worker_name
from server.store.model import Outbox, utcnow
from server.store.queries import core

log = logging.getLogger("pbmserv.outbox")


@dataclass
class Job:
    id: int
    envelope_from: str
    recipients: list[str]
    message: bytes
    tries: int
    #: Board pictures still to draw into ``message`` (server.pictures.cache.fill).
    pictures: dict | None = None


class SentJournal:
    """Which mails of the batch in hand the relay has accepted, one line each, beside an SQLite database.

    Marking each row sent as the relay accepts it took the write lock once
    per mail, behind the workers (issue 32, items 10 and 15).  The journal
    takes no lock: an append per mail (``O_APPEND``, no fsync: it outlives a
    killed process, which is what it is for), the rows marked together after
    the batch, then it is emptied.  A deliverer that starts marks what the
    journals of dead deliverers name (``recover``), before their leases let
    anyone send those rows again.  A power cut may lose the last lines: the
    mails go again, at least once as ever.  One file per process,
    ``DATABASE-pbmserv.sent.PID``; PostgreSQL marks rows at once instead
    (several hosts, no write lock to spare).
    """

    def __init__(self, stem: str) -> None:
        self.stem = stem
        self.fd: int | None = None
        self.pid = 0

    @classmethod
    def for_database(cls, db: Database) -> SentJournal | None:
        database = db.engine.url.database if db.is_sqlite else None
        if not database or database == ":memory:" or database.startswith("file::memory:"):
            return None
        return cls(database + "-pbmserv.sent.")

    def _open(self) -> int:
        if self.fd is None or self.pid != os.getpid():
            self.fd = os.open(f"{self.stem}{os.getpid()}", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self.pid = os.getpid()
        return self.fd

    def add(self, row_id: int) -> None:
        os.write(self._open(), f"{row_id}\n".encode("ascii"))

    def clear(self) -> None:
        os.ftruncate(self._open(), 0)

    def recover(self, mark: Callable[[list[int]], None]) -> None:
        """Mark what the journals of processes no longer alive name, then remove them."""
        for path in glob.glob(glob.escape(self.stem) + "*"):
            pid = path.rpartition(".")[2]
            if not pid.isdigit() or (int(pid) != os.getpid() and _alive(int(pid))):
                continue
            try:
                with open(path, "rb") as f:
                    ids = [int(line) for line in f.read().split() if line.isdigit()]
                if ids:
                    log.warning("marking %d mails sent that a stopped deliverer had handed to the relay", len(ids))
                    mark(ids)
                os.unlink(path)
            except OSError as exc:
                log.warning("sent journal %s: %s", path, exc)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: Seconds between counts of the hour's sent mail (Deliverer._outbound_room).
ROOM_RECOUNT = 1.0

#: A mail due at ``now``: pending, its next attempt come, and not under another deliverer's lease.
_DUE_NOW = (Outbox.status == "pending", Outbox.next_attempt <= bindparam("now"),
            or_(Outbox.claimed_until.is_(None), Outbox.claimed_until < bindparam("now")))
#: Is any mail due?  Built once: the deliverer asks at every wake-up (Database.peek).
_DUE = select(Outbox.id).where(*_DUE_NOW).limit(1)
#: The claim's statements and the "sent" mark, built once (issue 25): a batch per move.  They
#: run on the claim's Core connection as ``store.prepared`` plans them (the DB-API cursor with
#: SQLAlchemy's types: ~36 us a statement less than through the connection).
_CLAIMABLE = {stranger: (select(Outbox.id, Outbox.envelope_from, Outbox.recipients, Outbox.message, Outbox.tries,
                                Outbox.pictures, Outbox.stranger)
                         .where(*_DUE_NOW, Outbox.stranger.is_(stranger))
                         .order_by(Outbox.id)
                         .limit(bindparam("limit"))
                         .with_for_update(skip_locked=True))
              for stranger in (False, True)}
#: Both pools at once, players' mail first: the claim when neither pool's room is short (one
#: SELECT, not two: a batch per move, issue 25).
_CLAIMABLE_BOTH = (select(Outbox.id, Outbox.envelope_from, Outbox.recipients, Outbox.message, Outbox.tries,
                          Outbox.pictures, Outbox.stranger)
                   .where(*_DUE_NOW)
                   .order_by(Outbox.stranger, Outbox.id)
                   .limit(bindparam("limit"))
                   .with_for_update(skip_locked=True))
_ROWS = update(Outbox.__table__).where(Outbox.__table__.c.id.in_(bindparam("ids", expanding=True)))
_CLAIM = _ROWS.values(claimed_by=bindparam("name"), claimed_until=bindparam("until"))
_SENT = _ROWS.values(status="sent", tries=Outbox.__table__.c.tries + 1, last_error=None, claimed_until=None,
                     sent_at=bindparam("now"))


class _SessionLost(Exception):
    """A kept relay session was found dead at its first use (Deliverer._send)."""


class Deliverer:
    #: Rows one batch claims at most.  A batch that took fewer took every row due at its claim.
    BATCH = 20

    def __init__(self, db: Database, settings: Settings, name: str | None = None) -> None:
        self.db = db
        self.settings = settings
        self.name = name or worker_name()
        #: Our EHLO name, looked up once: smtplib would call getfqdn() per connection.
        self.helo_name = socket.getfqdn()
        self.journal = SentJournal.for_database(db)
        #: The outbound pools' room and when it was last counted (see _outbound_room).
        self._room: tuple[int, int] = (0, 0)
        self._room_counted: float | None = None
        #: The relay session kept between batches (made at the first batch).
        self._relay: submission.KeptSession | None = None
        self._relay_text = ""
        #: Rows the relay took that are in the journal but not yet marked sent (SQLite):
        #: the next claim's transaction marks them, or _idle once no batch follows.
        self._unmarked: list[int] = []
        #: time.monotonic() of the last mail the relay took.
        self._delivered_at = 0.0
        if self.journal is not None:
            self.journal.recover(self._mark_sent)

    def claim(self, limit: int = BATCH) -> list[Job]:
        """Up to ``limit`` due rows, claimed for a lease (Core statements: no ORM objects on this path).

        The same transaction marks sent what the last batches left in the
        journal: a write transaction less per batch (on SQLite a turn of the
        write lock; issue 25).  Marked first, so the hour's count below
        includes them and the claim cannot see them.
        """
        marking = list(self._unmarked)

        def work(conn: Connection) -> list[Job]:
            now = utcnow()
            if marking:
                core(conn, _SENT, {"ids": marking, "now": now})
            rooms = self._outbound_room(conn, now)
            rows = self._claimable(conn, rooms, now, limit)
            if rows:
                self._room = (self._room[0] - sum(not r.stranger for r in rows),
                              self._room[1] - sum(bool(r.stranger) for r in rows))
                core(conn, _CLAIM, {"ids": [r.id for r in rows], "name": self.name,
                                    "until": now + timedelta(seconds=self.settings.delivery_lease_seconds)})
            return [Job(r.id, r.envelope_from, list(r.recipients), bytes(r.message), r.tries, r.pictures)
                    for r in rows]

        jobs = self.db.run_connection(work)
        if marking:
            self._marked(marking)
        return jobs

    @staticmethod
    def _claimable(conn: Connection, rooms: tuple[int, int], now: datetime, limit: int) -> list[Any]:
        """Up to ``limit`` due rows within the pools' ``rooms``: players' mail first, then strangers'."""
        if min(rooms) >= limit:
            # Neither pool can run short in this batch: one SELECT takes both.
            return core(conn, _CLAIMABLE_BOTH, {"now": now, "limit": limit}).all()
        rows: list[Any] = []
        # Two pools (server/mail/quota.py): players' mail first, then strangers'.
        for stranger, room in zip((False, True), rooms, strict=True):
            if room <= 0:
                # This pool's hourly budget is spent: its mail waits (``pbmserv status`` alerts).
                log.warning("outbound budget for %s is spent; their replies wait",
                            "strangers" if stranger else "players")
                continue
            if len(rows) >= limit:
                break
            rows += core(conn, _CLAIMABLE[stranger], {"now": now, "limit": min(limit - len(rows), room)}).all()
        return rows

    def _outbound_room(self, conn: Connection, now: datetime) -> tuple[int, int]:
        """The hour's room in each pool (quota.outbound_room), counted at most once a second.

        Counting the last hour's sent mail is a range scan that grows with
        the rate: at 50 moves a second, 360,000 rows an hour, counted twice
        per batch (issue 25).  Between counts, what this process claims is
        taken off the room as if sent; another server on the same database
        may overshoot the hourly cap by at most a second of its own mail.
        (Counted by a Session bound to the claim's transaction: the quota's
        code takes one.)
        """
        tick = time.monotonic()
        if self._room_counted is None or tick - self._room_counted >= ROOM_RECOUNT:
            with Session(bind=conn) as session:
                self._room = outbound_room(session, self.settings, now)
            self._room_counted = tick
        return self._room

    @staticmethod
    def _due(conn: Connection) -> bool:
        """Whether any row is due now (a read; ``claim`` checks again, under the lock).  Planned
        (``store.prepared``): on SQLite a statement of its own, outside any transaction, as a peek
        needs no more."""
        return core(conn, _DUE, {"now": utcnow()}).first() is not None

    def run_once(self) -> int:
        """Deliver one batch; the number of rows handled (0: nothing due)."""
        # On SQLite the process that delivers gets the write lock in turn, not
        # behind every worker that asks again (issue 32, item 10).  Set here, not
        # in __init__: serve makes a Deliverer in the listener's process too.
        self.db.hand_over_to_me()
        if not self.db.peek(self._due):
            self._idle()
            return 0  # woken for nothing: no write transaction (Database.peek)
        jobs = self.claim()
        if not jobs:
            return 0
        if not self.settings.relay:
            self._release(jobs)
            return 0
        self._deliver(jobs)
        return len(jobs)

    def drain(self) -> int:
        """Deliver until nothing is due, then mark and close: for runs that end (``pbmserv deliver``)."""
        total = 0
        try:
            while (n := self.run_once()):
                total += n
        finally:
            self.close()
        return total

    def close(self) -> None:
        """Mark sent what the relay took, and close the relay session."""
        if self._relay is not None:
            self._relay.close()
        self._mark_unmarked()

    def _idle(self) -> None:
        """Nothing is due: mark what no claim will carry soon, close a session left idle.

        The rows of the last batch wait in the journal for the next claim
        while mail keeps coming; once the deliverer has had nothing to send
        for half a poll interval (it is woken at least once a poll interval),
        they are marked on their own, so ``status`` and the hour's count lag
        by at most about one poll interval.
        """
        if self._unmarked and time.monotonic() - self._delivered_at >= self.settings.poll_interval / 2:
            self._mark_unmarked()
        if self._relay is not None:
            self._relay.close_if_idle()

    def _deliver(self, jobs: list[Job]) -> None:
        """Hand the batch to the relay on the kept session; on a failure of the session, retry the batch later."""
        failure = None
        try:
            relay = self._kept_session()
            smtp, kept = relay.session()
            for index, job in enumerate(jobs):
                try:
                    accepted = self._send(smtp, job, kept=kept and index == 0)
                except _SessionLost:
                    # The kept session died while idle, before this mail got an answer:
                    # once more on a new one (a session lost after that fails the batch).
                    relay.drop()
                    smtp, kept = relay.session()
                    accepted = self._send(smtp, job)
                if accepted:
                    self._record(job.id)
            relay.carried(len(jobs))
        except MailConfigError as exc:
            # A refused login or certificate: retried with the same backoff (the admin may fix it meanwhile).
            failure = str(exc)
        except (OSError, smtplib.SMTPException) as exc:
            failure = f"relay {self._relay.endpoint if self._relay else self.settings.relay}: {exc}"
        if failure is not None:
            if self._relay is not None:
                self._relay.drop()
            self._mark_unmarked()  # before any retry below, so a sent mail is never put back
            for job in jobs:
                self._retry(job, failure, only_if_claimed=True)

    def _kept_session(self) -> submission.KeptSession:
        """The relay session to send on; a new one if ``--relay`` changed (parse errors raise MailConfigError)."""
        relay = self.settings.relay or ""
        if self._relay is None or self._relay_text != relay:
            if self._relay is not None:
                self._relay.close()
            # Plain host:port, or a provider's submission server with TLS and login (server/mail/relay.py).
            self._relay = submission.KeptSession(parse_relay(relay), self.helo_name, timeout=30)
            self._relay_text = relay
        return self._relay

    def _record(self, row_id: int) -> None:
        """The relay took this row's mail: recorded now, before the next mail goes.

        A crash re-sends at most this one.  On SQLite in the journal (no
        write lock: the rows are marked by the next claim, see ``claim``);
        else the row at once (a failed mark ends the batch; the rest waits
        for its lease to run out).
        """
        if self.journal is None:
            self._mark_sent([row_id])
            return
        self.journal.add(row_id)
        self._unmarked.append(row_id)
        self._delivered_at = time.monotonic()

    def _mark_unmarked(self) -> None:
        """Mark sent, in a transaction of its own, what the journal holds unmarked."""
        marking = list(self._unmarked)
        if marking:
            self._mark_sent(marking)
            self._marked(marking)

    def _marked(self, row_ids: list[int]) -> None:
        """``row_ids`` are marked sent in the database: off the journal."""
        done = set(row_ids)
        self._unmarked = [i for i in self._unmarked if i not in done]
        if not self._unmarked and self.journal is not None:
            self.journal.clear()

    def _send(self, smtp: smtplib.SMTP, job: Job, kept: bool = False) -> bool:
        """Hand one mail to the relay; True once the relay took it (to be marked sent).

        ``kept``: the first mail on a kept session, which raises _SessionLost if the
        session turns out dead before the relay took the mail: closed, or a 421
        to MAIL FROM.  A 421 later in the mail (RCPT, DATA) is the relay's word
        about this mail: it waits with the usual backoff.
        """
        try:
            # The board pictures are drawn now, after the claim's commit: no lock is held.
            refused = smtp.sendmail(job.envelope_from, job.recipients, fill(job.message, job.pictures))
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            if all(code >= 500 for code in codes):
                self._fail(job, f"recipients refused: {exc.recipients}")
            else:
                self._retry(job, f"recipients refused: {exc.recipients}")
            return False
        except smtplib.SMTPResponseException as exc:
            if kept and exc.smtp_code == 421 and isinstance(exc, smtplib.SMTPSenderRefused):
                # The answer to MAIL FROM, the session's first word since it was kept: the
                # relay is closing it (its idle timeout ran out just now).  Nothing was taken.
                raise _SessionLost from exc
            if exc.smtp_code >= 500:
                self._fail(job, f"{exc.smtp_code} {exc.smtp_error!r}")
            else:
                self._retry(job, f"{exc.smtp_code} {exc.smtp_error!r}")
            return False  # smtplib has reset the session; the next job can go
        except (OSError, smtplib.SMTPServerDisconnected) as exc:
            if kept:
                raise _SessionLost from exc
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
        """One UPDATE (a Core statement, no ORM objects)."""
        if not row_ids:
            return

        def work(conn: Connection) -> None:
            core(conn, _SENT, {"ids": list(row_ids), "now": utcnow()})

        self.db.run_connection(work)

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


