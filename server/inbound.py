"""Storing received mail: what happens between DATA and the 250.

The message is committed before the listener (or ``pbmserv process``)
answers, so a 250 always means "durably ours".

Group commit: the listener's DATA handlers do not each run a transaction.
They hand their message to one store thread (:class:`GroupCommit`), which
stores every message waiting at that moment in one transaction with one
fsync, then answers each handler.  Under load many messages share the
commit; alone, a message is committed at once, as before.  No 250 is ever
given before its own message's commit returned.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from server.database import Database
from server.model import Inbound, utcnow
from server.parse import dedupe_key

log = logging.getLogger("pbmserv.inbound")
#: At most this many messages share a commit (bounds one transaction's size).
MAX_BATCH = 200


class RateLimited(Exception):
    """The sender has sent more than the hourly cap (a robot loop, most likely)."""


@dataclass
class Arrival:
    """One received message on its way to the database."""

    raw: bytes
    mail_from: str
    rcpt_to: list[str]
    done: Future = field(default_factory=Future)


def store_batch(db: Database, arrivals: list[Arrival], rate_limit: int | None = None) -> list[int | RateLimited]:
    """Store ``arrivals`` in one durable transaction: per message its row id, or RateLimited.

    The hourly rate limit counts stored rows plus the ones earlier in the
    same batch, so a flood split over one commit is throttled as if the
    messages had come one by one.
    """

    def work(session: Session) -> list[int | RateLimited]:
        now = utcnow()
        counts: dict[str, int] = {}
        senders = {a.mail_from for a in arrivals if a.mail_from}
        if rate_limit and senders:
            counts = dict(session.execute(  # type: ignore[arg-type]
                select(Inbound.mail_from, func.count())
                .where(Inbound.mail_from.in_(senders), Inbound.received_at >= now - timedelta(hours=1))
                .group_by(Inbound.mail_from)
            ).all())
        outcome: list[int | RateLimited] = []
        rows = []
        for arrival in arrivals:
            if rate_limit and arrival.mail_from:
                seen = counts.get(arrival.mail_from, 0)
                if seen >= rate_limit:
                    outcome.append(RateLimited(arrival.mail_from))
                    continue
                counts[arrival.mail_from] = seen + 1
            outcome.append(len(rows))
            rows.append({"received_at": now, "mail_from": arrival.mail_from, "rcpt_to": list(arrival.rcpt_to),
                         "dedupe_key": dedupe_key(arrival.raw), "raw": arrival.raw, "status": "new",
                         "tries": 0, "commands_done": 0, "results": []})
        if not rows:
            return outcome
        # One multi-row INSERT (Core, no ORM unit of work): ids in the order given.
        ids = list(session.scalars(insert(Inbound).returning(Inbound.id, sort_by_parameter_order=True), rows))
        return [ids[o] if isinstance(o, int) else o for o in outcome]

    return db.run(work, durable=True)


def store(db: Database, raw: bytes, mail_from: str, rcpt_to: list[str], rate_limit: int | None = None) -> int:
    """Store one message durably (``pbmserv process``); its row id."""
    [result] = store_batch(db, [Arrival(raw, mail_from, rcpt_to)], rate_limit)
    if isinstance(result, RateLimited):
        raise result
    return result


class GroupCommit:
    """The listener's store thread: whatever is waiting is committed together.

    ``submit`` returns a future that resolves to the row id once the
    message's transaction has committed (durably), or to the exception that
    kept it from being stored: RateLimited, or a database error that makes
    the listener answer 451.
    """

    def __init__(self, db: Database, rate_limit: int | None, on_stored: Callable[[], None] | None = None) -> None:
        self.db = db
        self.rate_limit = rate_limit
        #: Called after each commit that stored something (wakes the workers).
        self.on_stored = on_stored
        self.waiting: queue.SimpleQueue[Arrival | None] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def submit(self, raw: bytes, mail_from: str, rcpt_to: list[str]) -> Future:
        """Queue a message for the next commit (the thread starts with the first message)."""
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="pbmserv-store", daemon=True)
                self.thread.start()
        arrival = Arrival(raw, mail_from, rcpt_to)
        self.waiting.put(arrival)
        return arrival.done

    def close(self) -> None:
        with self.lock:
            thread, self.thread = self.thread, None
        if thread is not None:
            self.waiting.put(None)
            thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            first = self.waiting.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while len(batch) < MAX_BATCH:
                try:
                    more = self.waiting.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[Arrival]) -> None:
        try:
            results = store_batch(self.db, batch, self.rate_limit)
        except Exception as exc:  # every message of the batch gets the same 451
            for arrival in batch:
                arrival.done.set_exception(exc)
            return
        if self.on_stored is not None and any(not isinstance(r, RateLimited) for r in results):
            self.on_stored()
        for arrival, result in zip(batch, results, strict=True):
            if isinstance(result, RateLimited):
                arrival.done.set_exception(result)
            else:
                arrival.done.set_result(result)
