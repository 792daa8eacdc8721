"""SQLite: the commit behind a 250 waits for the disk; the others do not."""

from __future__ import annotations

import threading

from sqlalchemy import func, select, text

from server.mail.inbound import store
from server.store.database import Database
from server.store.model import Inbound

FULL, NORMAL = 2, 1


def test_durable_transaction_runs_with_synchronous_full_and_restores_normal(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    db.upgrade()
    with db.transaction() as s:
        assert s.scalar(text("PRAGMA synchronous")) == NORMAL
    with db.transaction(durable=True) as s:
        assert s.scalar(text("PRAGMA synchronous")) == FULL
    # The pooled connection is back to NORMAL for everyone else.
    with db.transaction() as s:
        assert s.scalar(text("PRAGMA synchronous")) == NORMAL
    db.dispose()


def test_a_failed_durable_transaction_rolls_back_and_restores_normal(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    db.upgrade()
    try:
        with db.transaction(durable=True) as s:
            s.add(Inbound(mail_from="a@example.org", rcpt_to=[], dedupe_key="<x@y>", raw=b"x", results=[]))
            s.flush()
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Inbound)) == 0
        assert s.scalar(text("PRAGMA synchronous")) == NORMAL
    db.dispose()


def test_threads_storing_at_once_all_commit(sqlite_url: str) -> None:
    """Six listener threads storing at once (one SQLite writer at a time): every message commits."""
    db = Database(sqlite_url, busy_timeout=5.0)
    db.upgrade()
    errors: list[BaseException] = []

    def sender(n: int) -> None:
        try:
            for i in range(25):
                store(db, b"Subject: help\r\nMessage-ID: <%d.%d@x>\r\n\r\n" % (n, i), f"s{n}@example.org",
                      ["pbmserv@localhost"], 300)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=sender, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Inbound)) == 150
    db.dispose()
