"""``pbmserv status``: what an admin looks at first, against a real SQLite file."""

from __future__ import annotations

import os
from datetime import timedelta

from click.testing import CliRunner
from sqlalchemy import select

from server.core.config import Settings
from server.processes.cli import main
from server.processes.health import health_path
from server.store.database import Database
from server.store.model import Board, Inbound, Outbox, utcnow


def pbmserv(url: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["--database-url", url, "--address", "pbmserv@games.test", *args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_status_of_an_empty_server(sqlite_url: str) -> None:
    pbmserv(sqlite_url, "db", "upgrade")  # status only looks: it creates no database (issue 26)
    assert pbmserv(sqlite_url, "status").splitlines() == [
        "inbound pending:   0",
        "inbound set aside: 0",
        "outbox pending:    0",
        "outbox failed:     0",
        "sent last hour:    0 of 5000",
        "active boards:     0",
        "last error:        none",
        # No serve runs from this directory (the heartbeat file is the listener's, issue 32).
        f"listener:          no heartbeat here ({health_path(Settings(database_url=sqlite_url))} in "
        f"{os.getcwd()}); is serve running from this directory with the same --database-url and --listen?",
    ]


def test_status_counts_queues_boards_and_shows_the_last_errors(sqlite_url: str) -> None:
    pbmserv(sqlite_url, "user", "add", "alice", "apple1", "alice@example.org")
    pbmserv(sqlite_url, "user", "add", "bob", "banana2", "bob@example.org")
    pbmserv(sqlite_url, "user", "add", "carol", "cherry3", "carol@example.org")
    pbmserv(sqlite_url, "challenge", "interweave", "alice", "bob")
    pbmserv(sqlite_url, "challenge", "interweave", "bob", "carol")
    pbmserv(sqlite_url, "challenge", "tictactoe", "alice", "carol")
    db = Database(sqlite_url)
    now = utcnow()
    with db.transaction() as s:
        # A finished board does not count as active.
        done = s.scalars(select(Board).where(Board.game == "interweave", Board.number == 102)).one()
        done.status = "finished"
        # Two waiting messages (the older one 5 minutes old), one set aside after three crashes.
        for minutes in (5, 1):
            s.add(Inbound(mail_from="x@example.org", rcpt_to=["pbmserv@games.test"], dedupe_key=f"<w{minutes}@x>",
                          raw=b"Subject: help\r\n\r\n", status="new", results=[],
                          received_at=now - timedelta(minutes=minutes)))
        s.add(Inbound(mail_from="y@example.org", rcpt_to=["pbmserv@games.test"], dedupe_key="<bad@y>",
                      raw=b"Subject: x\r\n\r\n", status="shunted", tries=3, results=[],
                      error="Traceback (most recent call last):\n  ...\nValueError: the plugin broke",
                      received_at=now - timedelta(minutes=30)))
        # One reply the relay refused for good.
        s.add(Outbox(envelope_from="pbmserv@games.test", recipients=["gone@example.org"], subject="Board",
                     message=b"x", status="failed", tries=1, last_error="550 5.1.1 <gone@example.org>: no such user"))
    db.dispose()

    lines = pbmserv(sqlite_url, "status").splitlines()
    assert lines[0] == "inbound pending:   2 (oldest 5 min)"
    assert lines[1] == "inbound set aside: 1"
    # Each challenge mailed both players: 3 challenges, 6 board mails waiting for the relay.
    assert lines[2].startswith("outbox pending:    6 (oldest ")
    assert lines[3] == "outbox failed:     1"
    assert lines[4] == "sent last hour:    0 of 5000"
    assert lines[5:8] == ["active boards:     2", "  interweave       1", "  tictactoe        1"]
    assert lines[8].startswith("last inbound error (#3, shunted, received 30 min ago): ValueError: the plugin broke")
    assert lines[9] == "last delivery error (#7, failed, tries 1): 550 5.1.1 <gone@example.org>: no such user"
    assert lines[10].startswith("listener:          no heartbeat here")
    assert len(lines) == 11


def test_status_reports_a_retrying_delivery_but_not_a_delivered_one(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    db.upgrade()
    with db.transaction() as s:
        s.add(Outbox(envelope_from="pbmserv@games.test", recipients=["a@example.org"], subject="ok", message=b"x",
                     status="sent", tries=2, last_error="451 try later"))
        s.add(Outbox(envelope_from="pbmserv@games.test", recipients=["b@example.org"], subject="wait", message=b"x",
                     status="pending", tries=1, last_error="relay 127.0.0.1:25: Connection refused"))
    db.dispose()
    lines = pbmserv(sqlite_url, "status").splitlines()
    assert lines[2].startswith("outbox pending:    1 (oldest ")
    assert lines[-2] == "last delivery error (#2, pending, tries 1): relay 127.0.0.1:25: Connection refused"


def test_status_alerts_when_the_outbound_budget_is_spent(sqlite_url: str) -> None:
    """Issue 20: the hourly outbound budget; mail beyond it waits, and status says so."""
    db = Database(sqlite_url)
    db.upgrade()
    with db.transaction() as s:
        for i in range(3):
            s.add(Outbox(envelope_from="pbmserv@games.test", recipients=[f"p{i}@example.org"], subject="x",
                         message=b"x", status="sent", tries=1, sent_at=utcnow() - timedelta(minutes=10 * i)))
        s.add(Outbox(envelope_from="pbmserv@games.test", recipients=["old@example.org"], subject="x",
                     message=b"x", status="sent", tries=1, sent_at=utcnow() - timedelta(hours=2)))
    db.dispose()
    lines = pbmserv(sqlite_url, "--outbound-per-hour", "3", "status").splitlines()
    assert lines[4] == "sent last hour:    3 of 3  ALERT: the budget is spent; replies wait (--outbound-per-hour)"
    lines = pbmserv(sqlite_url, "--outbound-per-hour", "4", "status").splitlines()
    assert lines[4] == "sent last hour:    3 of 4"
