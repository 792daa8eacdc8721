"""The daily reply cap per recipient, counted for several mails at once (a move's board mails).

``queue`` admits the recipients of all the mails it is given in one
statement.  What it keeps must be what admitting the mails one after the
other keeps: the model here is that plain rule (a count per address and
day, raised by one for each mail the address is on, the mail dropped for
that address once the count passes the cap), written without the server's
code.  Real databases (SQLite file, PostgreSQL), real statements.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import event, select

from server.core.config import Settings
from server.mail.quota import admit_each
from server.mail.replies import Mail, queue
from server.store.database import Database
from server.store.model import Outbox, ReplyQuota, utcnow
from tests.conftest import migrated

CAP = 3


def _settings(url: str) -> Settings:
    return Settings(database_url=url, addresses=["pbmserv@games.test"],
                    replies_per_recipient_day=CAP, replies_per_stranger_day=CAP)


def _model(before: dict[str, int], mails: list[list[str]]) -> tuple[list[list[str]], dict[str, int]]:
    """One mail after the other: each address's count goes up by one per mail; over CAP, dropped."""
    counts = dict(before)
    kept = []
    for recipients in mails:
        out = []
        for address in recipients:
            key = address.lower()
            counts[key] = counts.get(key, 0) + 1
            if counts[key] <= CAP:
                out.append(address)
        kept.append(out)
    return kept, counts


def _counts(db: Database) -> dict[str, int]:
    with db.transaction() as s:
        today = utcnow().date()
        return {r.address: r.count for r in s.scalars(select(ReplyQuota).where(ReplyQuota.day == today))}


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    yield from migrated(db_url)


def test_a_cap_crossed_inside_one_batch_drops_the_later_mails_only(db: Database, db_url: str) -> None:
    settings = _settings(db_url)
    now = utcnow()
    with db.transaction() as s:
        admit_each(s, settings, [["bob@x.test"]], now)
        admit_each(s, settings, [["bob@x.test"]], now)  # bob at 2 of 3
        got = admit_each(s, settings, [["bob@x.test", "alice@x.test"], ["BOB@x.test"], ["alice@x.test"]], now)
    # bob's third reply today is kept, his fourth dropped; alice's first two kept.
    assert [kept for kept, _ in got] == [["bob@x.test", "alice@x.test"], [], ["alice@x.test"]]
    assert _counts(db) == {"bob@x.test": 4, "alice@x.test": 2}
    assert all(strangers for _, strangers in got)  # no account has these addresses


def test_yesterdays_count_is_not_todays(db: Database, db_url: str) -> None:
    settings = _settings(db_url)
    now = utcnow()
    with db.transaction() as s:
        s.add(ReplyQuota(address="bob@x.test", day=(now - timedelta(days=1)).date(), count=99))
        s.flush()
        [(kept, _)] = admit_each(s, settings, [["bob@x.test"]], now)
    assert kept == ["bob@x.test"] and _counts(db) == {"bob@x.test": 1}


def test_random_batches_keep_what_one_mail_at_a_time_keeps(db: Database, db_url: str) -> None:
    settings = _settings(db_url)
    rng = random.Random(2511)
    addresses = ["a@x.test", "B@x.test", "b@x.test", "c@x.test", "d@x.test"]
    counts: dict[str, int] = {}
    for _ in range(12):
        mails = [rng.sample(addresses, rng.randint(1, 3)) for _ in range(rng.randint(1, 4))]
        expected, counts = _model(counts, mails)
        with db.transaction() as s:
            got = admit_each(s, settings, mails, utcnow())
        assert [kept for kept, _ in got] == expected, mails
        assert _counts(db) == counts


def test_a_moves_two_board_mails_are_counted_in_one_statement_and_written_in_one(db: Database,
                                                                                 db_url: str) -> None:
    settings = _settings(db_url)
    seen: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(statement.split()[2] if statement.startswith("INSERT") else statement.split()[0])

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        with db.transaction() as s:
            queue(s, settings, Mail(to=["alice@x.test"], subject="Board 101", body="for alice\n"),
                  Mail(to=["bob@x.test"], subject="Board 101", body="for bob\n"))
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    assert seen.count("reply_quota") == 1 and seen.count("outbox") == 1, seen
    with db.transaction() as s:
        rows = s.scalars(select(Outbox).order_by(Outbox.id)).all()
        assert [r.recipients for r in rows] == [["alice@x.test"], ["bob@x.test"]]
        assert [b"for alice" in r.message for r in rows] == [True, False]
        assert [b"for bob" in r.message for r in rows] == [False, True]
