"""Storing received mail: what happens between DATA and the 250.

The message is committed before the listener (or ``pbmserv process``)
answers, so a 250 always means "durably ours".  Before storing, the sender
is classified (``known``: its From address belongs to an account, or a
fully valid reply token came with it, see :func:`queue_key`) for the fair queue, and two throttles
answer 450 instead of storing: the hourly per-sender limit (keyed on both
the envelope sender and the From address, since a flood rotates MAIL FROM)
and, for unknown senders, the size of their shared backlog (issue 20).

Group commit: the listener's DATA handlers do not each run a transaction.
They hand their message to one store thread (:class:`GroupCommit`), which
stores every message waiting at that moment, and what arrives while it
waits for the write lock, in one transaction with one fsync, then answers
each handler.  Under load many messages share the
commit; alone, a message is committed at once, as before.  No 250 is ever
given before its own message's commit returned.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.utils import parseaddr

from sqlalchemy import Connection, bindparam, func, insert, literal_column, select, union_all
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail import tokens
from server.mail.dedupe import dedupe_key
from server.mail.guards import header_block, header_fields, path_problem
from server.store.database import Database
from server.store.model import Inbound, utcnow
from server.store.queries import core, has_owner

log = logging.getLogger("pbmserv.inbound")
#: At most this many messages share a commit (bounds one transaction's size).
MAX_BATCH = 200


class RateLimited(Exception):
    """The sender has sent more than the hourly cap (a robot loop, most likely)."""


class Backlogged(RateLimited):
    """Too much mail from unknown senders is waiting: strangers are asked to come back later."""


class StrangersFull(RateLimited):
    """Senders without an account stored ``stranger_bytes_per_hour`` this hour: 452 to strangers only.

    ``max_stranger_size`` bounds one mail, not a flood of them from
    rotating addresses (issue 32, item 9); players are never refused for it.
    """


class TooLarge(RateLimited):
    """A stranger's message over ``max_stranger_size``: refused for good (552), not stored.

    A command needs a few KB; 1 MB stranger mails stored whole for 30 days
    once filled the disk at 242 MB a minute (issue 32).
    """


#: What is kept of a stranger's mail once it is handled: its header block, this long at most.
KEPT_HEAD = 8 * 1024
DROPPED = b"\r\n\r\n[pbmserv: the body of this handled mail from a sender without an account was dropped]\r\n"


def slim(row: Inbound) -> None:
    """Drop the body of a handled stranger's mail (players' mail is kept whole for the admin).

    Strangers' mail is stored whole only while it waits (bounded by the
    backlog cap and ``max_stranger_size``), so it cannot fill the disk.
    """
    if not row.known and len(row.raw) > KEPT_HEAD:
        row.raw = header_block(row.raw)[:KEPT_HEAD] + DROPPED


def from_address(raw: bytes) -> str:
    """The From header's address, lower-cased, read without the parser (the header is capped already)."""
    for item in header_fields(header_block(raw)):
        name, _, value = item.partition(b":")
        if name.strip().lower() == b"from":
            text = value.decode("utf-8", "replace").replace("\r", "").replace("\n", "")
            address = parseaddr(text)[1].strip().lower()[:320]
            return "" if path_problem(address) else address
    return ""


def token_sender(session: Session, settings: Settings | None, rcpt_to: list[str]) -> str | None:
    """Who a fully valid token among the recipients (``pbmserv+TOKEN@...``) speaks for, else None."""
    if settings is None:
        return None
    for rcpt in rcpt_to:
        tag = tokens.token_of(str(rcpt), settings.addresses, settings.recipient_delimiter)
        if tag and (key := tokens.sender_key(session, tag)) is not None:
            return key
    return None


def queue_key(conn: Connection, settings: Settings | None, sender: str, rcpt_to: list[str]) -> tuple[bool, str]:
    """(known, the key the fair queue and the hourly limit go by) of one arrival, in the store's transaction.

    Known: the From address is an account's, or a fully valid token (a
    reply address, an address confirmation) came with it.  Mail known by
    its token alone is keyed on the token's owner, not on its From: rotating From addresses are one sender, who
    takes one turn in the round robin and has one hourly limit.  A Session
    (joining ``conn``'s transaction) is made only for a token's check: a
    player's mail needs none (issue 25).
    """
    if has_owner(conn, sender):
        return True, sender
    if settings is None or not rcpt_to:
        return False, sender
    with Session(bind=conn) as session:
        key = token_sender(session, settings, rcpt_to)
    return (True, key) if key is not None else (False, sender)


def stranger_bytes_last_hour(session: Session | Connection, now) -> int:  # type: ignore[no-untyped-def]
    """Bytes stored from senders without an account in the hour before ``now`` (rows before 0016: their length)."""
    return int(session.scalar(select(func.coalesce(func.sum(func.coalesce(Inbound.size, func.length(Inbound.raw))), 0))
                              .where(Inbound.known.is_(False), Inbound.received_at >= now - timedelta(hours=1))) or 0)


_STRANGERS_WAITING = (select(func.count()).select_from(Inbound)
                      .where(Inbound.status == "new", Inbound.known.is_(False)))

def _counts_by(column, values: str, which: int):  # type: ignore[no-untyped-def]
    return (select(literal_column(str(which)), column, func.count())
            .where(column.in_(bindparam(values, expanding=True)), Inbound.received_at >= bindparam("since"))
            .group_by(column))


#: The listener's statements, built once: they run for every message stored (issue 25), on the
#: store's Core connection as ``store.prepared`` plans them (the DB-API cursor, SQLAlchemy's types).
#: The hour's counts per envelope sender (0) and per From/token sender (1), in one statement.
_HOUR_COUNTS = union_all(_counts_by(Inbound.mail_from, "mail_froms", 0), _counts_by(Inbound.sender, "senders", 1))
#: One row's INSERT (one a row, in the batch's order: a multi-row INSERT's RETURNING order is not promised).
_INSERT_INBOUND = insert(Inbound.__table__).returning(Inbound.__table__.c.id)


def _hour_counts(conn: Connection, mail_froms: set[str], senders: set[str],
                 now: datetime) -> tuple[dict[str, int], dict[str, int]]:
    """Messages stored in the hour before ``now``: per envelope sender of ``mail_froms``, per sender of ``senders``."""
    counts: tuple[dict[str, int], dict[str, int]] = ({}, {})
    if mail_froms or senders:
        for which, value, count in core(conn, _HOUR_COUNTS, {"mail_froms": sorted(mail_froms),
                                                             "senders": sorted(senders),
                                                             "since": now - timedelta(hours=1)}):
            counts[which][value] = count
    return counts


@dataclass
class Arrival:
    """One received message on its way to the database."""

    raw: bytes
    mail_from: str
    rcpt_to: list[str]
    done: Future = field(default_factory=Future)


def store_batch(db: Database, arrivals: list[Arrival], rate_limit: int | None = None,
                unknown_backlog: int | None = None, settings: Settings | None = None,
                more: Callable[[], list[Arrival]] | None = None) -> list[int | RateLimited]:
    """Store ``arrivals`` in one durable transaction: per message its row id, or RateLimited.

    The hourly rate limit counts stored rows plus the ones earlier in the
    same batch, so a flood split over one commit is throttled as if the
    messages had come one by one; it holds per envelope sender and per From
    address.  Mail from unknown senders gets Backlogged once
    ``unknown_backlog`` of theirs waits.

    ``more``: called once the transaction has begun (on SQLite: once it
    holds the write lock), for messages that arrived meanwhile; they are
    appended to ``arrivals`` and stored in the same commit.  The store
    thread waited for the lock with its batch already taken, and what came
    during the wait went into a commit (a lock turn, an fsync) of its own.
    """

    def work(conn: Connection) -> list[int | RateLimited]:
        if more is not None:
            arrivals.extend(more())
        now = utcnow()
        from_addresses = [from_address(a.raw) or ("" if path_problem(a.mail_from) else a.mail_from.lower()[:320])
                          for a in arrivals]
        keys = [queue_key(conn, settings, s, a.rcpt_to) for a, s in zip(arrivals, from_addresses, strict=True)]
        senders = [key for _, key in keys]
        by_envelope, by_from = _hour_counts(conn, {a.mail_from for a in arrivals if a.mail_from},
                                            {s for s in senders if s}, now) if rate_limit else ({}, {})
        # The strangers' counts only when a stranger's mail is in the batch: players' mail never needs them.
        strangers = not all(known for known, _ in keys)
        waiting = core(conn, _STRANGERS_WAITING).scalar() if unknown_backlog and strangers else 0
        byte_cap = settings.stranger_bytes_per_hour if settings is not None else 0
        stranger_bytes = stranger_bytes_last_hour(conn, now) if byte_cap and strangers else 0
        outcome: list[int | RateLimited] = []
        for arrival, (known, sender) in zip(arrivals, keys, strict=True):
            if rate_limit and arrival.mail_from and by_envelope.get(arrival.mail_from, 0) >= rate_limit:
                outcome.append(RateLimited(arrival.mail_from))
                continue
            if rate_limit and sender and by_from.get(sender, 0) >= rate_limit:
                outcome.append(RateLimited(sender))
                continue
            if settings is not None and not known and len(arrival.raw) > settings.max_stranger_size:
                outcome.append(TooLarge(sender))
                continue
            if unknown_backlog and not known:
                if (waiting or 0) >= unknown_backlog:
                    outcome.append(Backlogged(sender))
                    continue
                waiting = (waiting or 0) + 1
            if byte_cap and not known:
                if stranger_bytes + len(arrival.raw) > byte_cap:
                    outcome.append(StrangersFull(sender))
                    continue
                stranger_bytes += len(arrival.raw)
            if arrival.mail_from:
                by_envelope[arrival.mail_from] = by_envelope.get(arrival.mail_from, 0) + 1
            if sender:
                by_from[sender] = by_from.get(sender, 0) + 1
            # One INSERT a row, in the batch's order (a multi-row INSERT's RETURNING order is not promised).
            outcome.append(core(conn, _INSERT_INBOUND, {
                "received_at": now, "mail_from": arrival.mail_from, "rcpt_to": list(arrival.rcpt_to), "sender": sender,
                "known": known, "dedupe_key": dedupe_key(arrival.raw, sender), "raw": arrival.raw,
                "size": len(arrival.raw), "status": "new", "tries": 0, "commands_done": 0, "results": []}).scalar())
        return outcome

    return db.run_connection(work, durable=True)


def store(db: Database, raw: bytes, mail_from: str, rcpt_to: list[str], rate_limit: int | None = None,
          unknown_backlog: int | None = None, settings: Settings | None = None) -> int:
    """Store one message durably (``pbmserv process``); its row id."""
    [result] = store_batch(db, [Arrival(raw, mail_from, rcpt_to)], rate_limit, unknown_backlog, settings)
    if isinstance(result, RateLimited):
        raise result
    return result


def settle(future: Future, result: object = None, error: BaseException | None = None) -> None:
    """Give ``future`` its outcome unless it already has one.

    The listener cancels a future it stopped waiting for (its bounded wait
    ran out, or aiosmtpd dropped the session); setting a result on it then
    raises InvalidStateError, which once killed the store thread for good.
    """
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass


class GroupCommit:
    """The listener's store thread: whatever is waiting is committed together.

    ``submit`` returns a future that resolves to the row id once the
    message's transaction has committed (durably), or to the exception that
    kept it from being stored: RateLimited, or a database error that makes
    the listener answer 451.  A future the listener cancelled before its
    batch began is not stored at all; one cancelled later may still be
    committed (the sender was told 451 and retries; the copy is a duplicate
    the worker recognises by its dedupe key).

    The thread is supervised: an unexpected error fails its batch and the
    loop goes on, and ``submit`` starts a new thread if the old one is gone.
    ``busy_since`` and ``restarts`` are read by the server's watchdog and
    ``pbmserv status`` (a commit that never returns is a stuck store).
    """

    def __init__(self, db: Database, rate_limit: int | None, on_stored: Callable[[], None] | None = None,
                 unknown_backlog: int | None = None, settings: Settings | None = None) -> None:
        self.db = db
        self.rate_limit = rate_limit
        self.unknown_backlog = unknown_backlog
        self.settings = settings
        #: Called after each commit that stored something (wakes the workers).
        self.on_stored = on_stored
        self.waiting: queue.SimpleQueue[Arrival | None] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.closed = False
        #: time.monotonic() when the batch now being committed began; None while idle.
        self.busy_since: float | None = None
        #: Store threads started after the first one died.
        self.restarts = 0
        #: The last failure of a batch, one line (database errors hide their parameters).
        self.last_error: str | None = None
        #: The close sentinel was taken from the queue: the thread ends after this batch.
        self._stop = False
        #: time.monotonic() of the first failed commit since the last one that worked; None: working.
        #: A hung database connection is cut and the thread goes on, failing: stuck all the same.
        self.failing_since: float | None = None

    def submit(self, raw: bytes, mail_from: str, rcpt_to: list[str]) -> Future:
        """Queue a message for the next commit (the thread starts with the first message, again if it died)."""
        self.ensure_thread()
        arrival = Arrival(raw, mail_from, rcpt_to)
        self.waiting.put(arrival)
        return arrival.done

    def ensure_thread(self) -> None:
        with self.lock:
            if self.closed or (self.thread is not None and self.thread.is_alive()):
                return
            if self.thread is not None:
                self.restarts += 1
                log.error("the store thread had died; starting another (restart %d)", self.restarts)
            self.thread = threading.Thread(target=self._run, name="pbmserv-store", daemon=True)
            self.thread.start()

    @property
    def alive(self) -> bool:
        thread = self.thread
        return thread is None or thread.is_alive()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            thread, self.thread = self.thread, None
        if thread is not None:
            self.waiting.put(None)
            thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            first = self.waiting.get()
            if first is None:
                return
            self._stop = False
            batch = [first, *self._more(MAX_BATCH - 1)]
            # Messages whose sender stopped waiting (cancelled) are not stored.
            batch = [a for a in batch if a.done.set_running_or_notify_cancel()]
            if batch:
                self.busy_since = time.monotonic()
                try:
                    self._commit(batch)
                except BaseException as exc:  # never let the thread die with futures unanswered
                    log.exception("store thread error")
                    for arrival in batch:
                        settle(arrival.done, error=exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
                finally:
                    self.busy_since = None
            if self._stop:
                return

    def _more(self, room: int) -> list[Arrival]:
        """Up to ``room`` messages waiting now, without waiting (the close sentinel is noted in ``_stop``)."""
        out: list[Arrival] = []
        while len(out) < room and not self._stop:
            try:
                more = self.waiting.get_nowait()
            except queue.Empty:
                break
            if more is None:
                self._stop = True
                break
            out.append(more)
        return out

    def _late(self, batch: list[Arrival]) -> list[Arrival]:
        """What arrived while ``batch``'s transaction waited for the write lock, to share its commit."""
        return [a for a in self._more(MAX_BATCH - len(batch)) if a.done.set_running_or_notify_cancel()]

    def _commit(self, batch: list[Arrival]) -> None:
        try:
            results = store_batch(self.db, batch, self.rate_limit, self.unknown_backlog, self.settings,
                                  more=lambda: self._late(batch))
        except Exception as exc:  # every message of the batch gets the same 451
            self.last_error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
            if self.failing_since is None:
                self.failing_since = time.monotonic()
            for arrival in batch:
                settle(arrival.done, error=exc)
            return
        self.failing_since = None
        for arrival, result in zip(batch, results, strict=True):
            if isinstance(result, RateLimited):
                settle(arrival.done, error=result)
            else:
                settle(arrival.done, result)
        if self.on_stored is not None and any(not isinstance(r, RateLimited) for r in results):
            self.on_stored()
