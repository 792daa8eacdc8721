"""A full disk: the worker backs off instead of trying again at once (issue 32, item 15).

A real SQLite file that cannot grow: every connection of the worker's
database sets ``max_page_count`` to the file's size after VACUUM, which is
how SQLite reports a full disk (SQLITE_FULL, "database or disk is full").
The mail is stored first, by a database without that limit, as the
listener stored it before the disk filled.  The worker's pauses are
recorded instead of slept; once the limit is lifted the move is played,
once, and was never counted as a failed try.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import event, select, text

from server.core.config import Settings
from server.mail.inbound import store
from server.processes.worker import Worker
from server.store.database import Database
from server.store.model import Inbound, Move
from tests.mailtools import make_mail

ADDRESS = "pbmserv@games.test"
ALICE, BOB = "alice@example.org", "bob@example.org"


def apply(db: Database, settings: Settings, sender: str, subject: str) -> None:
    worker = Worker(db, settings)
    worker.process(store(db, make_mail(sender, ADDRESS, subject).as_bytes(), sender, [ADDRESS], settings=settings))


def full(url: str) -> Database:
    """The same file, on a disk that is full: nothing may be added to it."""
    db = Database(url)
    with db.engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()

    @event.listens_for(db.engine, "connect")
    def _cap(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    db.engine.dispose()
    return db


def test_the_worker_pauses_longer_each_time_the_disk_is_still_full(sqlite_url: str) -> None:
    # Signups prove their address by the From here, as in the other worker tests (issue 32 item 7).
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS], address_proof="from")
    db = Database(sqlite_url)
    db.upgrade()
    apply(db, settings, ALICE, "signup alice apple1")
    apply(db, settings, BOB, "signup bob banana2")
    apply(db, settings, ALICE, "tictactoe challenge alice bob")
    # A long comment: the board mails need new pages, which the full disk refuses.
    body = "tictactoe move 101 alice apple1 b2\n" + "A long thought about the opening. " * 400
    inbound_id = store(db, make_mail(ALICE, ADDRESS, "", body).as_bytes(), ALICE, [ADDRESS], settings=settings)
    db.engine.dispose()
    raw = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    raw.execute("VACUUM")
    raw.close()
    pauses: list[float] = []
    stuck = Worker(full(sqlite_url), settings)
    stuck.outage.sleep = pauses.append  # recorded, not slept
    for _ in range(8):
        assert stuck.run_once() is True  # it took the message, and could not commit it
    assert pauses == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0]
    with db.transaction() as s:
        row = s.get(Inbound, inbound_id)
        assert row is not None and (row.status, row.tries) == ("new", 0)  # not the message's fault
        assert s.scalars(select(Move)).all() == []
    # Space again: the move is played once, and the pauses start over.
    stuck.db = db
    assert stuck.run_once() is True
    assert stuck.outage.failures == 0
    with db.transaction() as s:
        assert s.get(Inbound, inbound_id).status == "done"  # type: ignore[union-attr]
        assert [m.move for m in s.scalars(select(Move))] == ["b2"]
        assert s.execute(text("SELECT count(*) FROM outbox WHERE subject LIKE 'Tic%Board 101%'")).scalar_one() >= 1
