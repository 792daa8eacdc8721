"""The listener's store on the driver's connection (issue 25, sixth session).

``inbound.store_batch`` runs its statements as ``store.prepared`` plans them
in a Core transaction (``Database.connection``): no Session, no SQLAlchemy
execution layer.  What must not change with it: who counts as known (the
same answer as ``queries.has_owner``), the row as SQLAlchemy would have
written it (types read back alike on SQLite and PostgreSQL), the token
path (a Session bound to the same transaction), and the retries on a busy
database (its error SQLAlchemy's, though the BEGIN goes to the driver).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import datetime

import pytest
from sqlalchemy import Connection, event, literal, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail import inbound
from server.mail.inbound import Arrival, store, store_batch
from server.store.database import Database
from server.store.model import Address, Inbound, User
from server.store.queries import core, has_owner
from tests.mailtools import make_mail

ADDRESS = "pbmserv@games.test"


def people(db: Database) -> None:
    """Accounts in every state the owner check tells apart."""

    def work(session: Session) -> None:
        session.add(User(userid="alice", password_hash="x", addresses=[Address(address="Alice@Players.test")]))
        session.add(User(userid="bob", password_hash="x", active=False,
                         addresses=[Address(address="bob@players.test")]))
        session.add(User(userid="carol", password_hash="x",
                         addresses=[Address(address="carol@players.test", confirmed=False)]))

    db.run(work)


@pytest.fixture
def db(db_url: str):  # type: ignore[no-untyped-def]
    database = Database(db_url)
    database.upgrade()
    people(database)
    yield database
    database.dispose()


def test_known_is_what_has_owner_says(db: Database) -> None:
    """Active account, inactive account, unconfirmed address, case, nobody: the stored ``known`` is
    ``has_owner``'s answer for each (the driver's statement is its own copy of that question)."""
    settings = Settings(database_url=db.url, addresses=[ADDRESS])
    senders = ["alice@players.test", "ALICE@players.TEST", "bob@players.test", "carol@players.test",
               "dave@players.test"]
    ids = [store(db, make_mail(s, ADDRESS, "help").as_bytes(), s, [ADDRESS], None, None, settings)
           for s in senders]
    with db.transaction() as session:
        expected = [has_owner(session, s.lower()) for s in senders]
        stored = {row.id: row.known for row in session.scalars(select(Inbound))}
    assert expected == [True, True, False, False, False]
    assert [stored[i] for i in ids] == expected


def test_a_stored_row_reads_back_as_written_through_sqlalchemy(db: Database) -> None:
    raw = make_mail("alice@players.test", ADDRESS, "help").as_bytes()
    [row_id] = store_batch(db, [Arrival(raw, "alice@players.test", [ADDRESS, "other@games.test"])])
    with db.transaction() as session:
        row = session.get(Inbound, row_id)
        assert row is not None
        assert isinstance(row.received_at, datetime)
        assert (row.mail_from, row.rcpt_to, row.sender, row.known, row.raw, row.size, row.status, row.tries,
                row.commands_done, row.results, row.claimed_by, row.error) == (
            "alice@players.test", [ADDRESS, "other@games.test"], "alice@players.test", True, raw, len(raw),
            "new", 0, 0, [], None, None)
        # Compared in SQL with a value SQLAlchemy binds: the stored text is SQLAlchemy's format (SQLite).
        assert session.scalar(select(Inbound.id).where(Inbound.received_at == row.received_at)) == row_id


def test_a_players_mail_opens_no_session(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Session and its transaction cost 0.1-0.2 ms a mail; a player's mail needs none.  A stranger's mail
    that carries a tag of ours still has its token checked, by a Session in the same transaction."""
    settings = Settings(database_url=db.url, addresses=[ADDRESS])
    begun: list[Session] = []
    asked: list[bool] = []

    def note(session: Session, *_: object) -> None:
        begun.append(session)

    def sender_key(session: Session, tag: str) -> str | None:
        # Asked on the store's own connection, inside its transaction (SQLite: under its write lock).
        asked.append(isinstance(session.bind, Connection) and session.bind.in_transaction())
        return "reply-token:alice" if tag == "good" else None

    monkeypatch.setattr(inbound.tokens, "sender_key", sender_key)
    event.listen(Session, "after_begin", note)
    try:
        arrivals = [Arrival(make_mail("alice@players.test", ADDRESS, "help").as_bytes(), "alice@players.test",
                            [ADDRESS])]
        store_batch(db, arrivals, settings.rate_limit, settings.unknown_backlog, settings)
        assert begun == []
        arrivals = [Arrival(make_mail("eve@example.org", ADDRESS, "help").as_bytes(), "eve@example.org",
                            [f"pbmserv+{tag}@games.test"]) for tag in ("good", "bad")]
        store_batch(db, [Arrival(b"Subject: x\r\n\r\n", "alice@players.test", [ADDRESS]), *arrivals],
                    settings.rate_limit, settings.unknown_backlog, settings)
    finally:
        event.remove(Session, "after_begin", note)
    assert asked == [True, True]
    with db.transaction() as session:
        assert list(session.execute(select(Inbound.sender, Inbound.known).order_by(Inbound.id))) == [
            ("alice@players.test", True), ("alice@players.test", True), ("reply-token:alice", True),
            ("eve@example.org", False)]


def test_a_busy_database_is_sqlalchemys_error_and_retried(sqlite_url: str) -> None:
    """The SQLite BEGIN goes to the driver's cursor (store.prepared.run_sql): a database held by
    another writer still raises SQLAlchemy's OperationalError (a worker treats it as an outage,
    not as the message's fault), and ``run_connection`` retries it."""
    db = Database(sqlite_url, busy_timeout=0.05)
    db.upgrade()
    other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock (not through our lock file)
    begun: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda _c, _cur, statement, *_: begun.append(statement))
    try:
        with pytest.raises(OperationalError, match="locked"), db.connection():
            pass
        begun.clear()
        threading.Timer(0.1, lambda: other.execute("COMMIT")).start()  # the other writer is done soon
        assert db.run_connection(lambda conn: int(core(conn, select(literal(1))).scalar()), attempts=5) == 1
        assert begun.count("BEGIN IMMEDIATE") >= 2  # refused at least once, then retried
    finally:
        other.close()
        db.dispose()


def test_hour_counts_span_the_batch(db: Database) -> None:
    """The hour's counts for several senders and envelope senders in one statement (its IN lists
    expanded per call)."""
    arrivals = [Arrival(b"Subject: help\r\nMessage-ID: <%d@x>\r\n\r\n" % i, f"s{i % 3}@example.org", [ADDRESS])
                for i in range(9)]
    store_batch(db, arrivals)
    with db.connection() as conn:
        by_envelope, by_from = inbound._hour_counts(conn, {"s0@example.org", "s1@example.org", "x@y.z"},
                                                    {"s2@example.org"}, inbound.utcnow())
    assert by_envelope == {"s0@example.org": 3, "s1@example.org": 3}
    assert by_from == {"s2@example.org": 3}


def test_mail_that_came_while_the_store_waited_for_the_lock_shares_its_commit(sqlite_url: str) -> None:
    """The store thread takes its batch, then waits for the write lock; what arrives meanwhile is stored in
    the same commit (one lock turn, one fsync), not in one of its own after it.  A message whose sender
    stopped waiting before then is not stored."""
    from concurrent.futures import CancelledError

    from server.mail.inbound import GroupCommit

    db = Database(sqlite_url)
    db.upgrade()
    commits: list[int] = []
    event.listen(db.engine, "commit", lambda conn: commits.append(1))
    group = GroupCommit(db, rate_limit=None)
    assert db._sqlite_lock is not None
    db._sqlite_lock.acquire()  # as a worker's transaction holds the write lock
    try:
        first = group.submit(make_mail("p0@example.org", ADDRESS, "help").as_bytes(), "p0@example.org", [ADDRESS])
        deadline = time.monotonic() + 5
        while group.busy_since is None and time.monotonic() < deadline:  # taken, waiting for the lock
            time.sleep(0.01)
        assert group.busy_since is not None
        late = [group.submit(make_mail(f"p{i}@example.org", ADDRESS, "help").as_bytes(), f"p{i}@example.org",
                             [ADDRESS]) for i in range(1, 6)]
        assert late[2].cancel()
    finally:
        db._sqlite_lock.release()
    ids = [first.result(timeout=10)] + [f.result(timeout=10) for i, f in enumerate(late) if i != 2]
    with pytest.raises(CancelledError):
        late[2].result(timeout=0)
    group.close()
    assert len(commits) == 1, commits
    with db.transaction() as session:
        stored = dict(session.execute(select(Inbound.id, Inbound.mail_from)).all())
    assert sorted(stored) == sorted(ids)
    assert sorted(stored.values()) == [f"p{i}@example.org" for i in (0, 1, 2, 4, 5)]
    db.dispose()
