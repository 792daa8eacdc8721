"""Database faults: locked or gone mid-run gives 451 / exit 75, and recovery loses nothing.

SQLite: another process holds ``BEGIN EXCLUSIVE`` on the file.  PostgreSQL:
the server's connections are killed with ``pg_terminate_backend`` while it
works, then the network to the database is cut (a TCP forwarder the test
controls).  In both cases a message offered meanwhile gets 451 over SMTP and
exit 75 from ``pbmserv process``; mail accepted before the fault is applied
once the database is back, exactly once; the retried mail too; and nothing
the server logged about the failures holds a password.
"""

from __future__ import annotations

import smtplib
import subprocess
import sys
import time
import uuid

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from server.store.database import Database
from tests.mailtools import Sink, free_port
from tests.reliability.audit import audit_boards, audit_inbound, audit_replies, wait_settled
from tests.reliability.clients import Job, Report, deliver
from tests.reliability.conftest import make_boards, make_players, password_of
from tests.reliability.secrets_scan import leaks
from tests.reliability.serverproc import ROOT, ServerProcess, run_cli
from tests.reliability.tcpproxy import TCPProxy
from tests.reliability.test_crash import DRAW, message

LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


def burst(numbers: list[int], pairs: list[tuple[str, str]], plies: int, tag: str) -> list[Job]:
    """Moves 1..plies on every board, board by board interleaved, plus a show per board."""
    jobs = []
    for ply in range(1, plies + 1):
        for number, (first, second) in zip(numbers, pairs, strict=True):
            user = first if ply % 2 else second
            mid = f"<{tag}.{number}.{ply}@clients.test>"
            subject = f"tictactoe move {number} {user} {password_of(user)} {DRAW[ply - 1]}#{ply}"
            jobs.append(Job(f"{user}@players.test", message(f"{user}@players.test", subject, mid), mid))
    for number, (first, _) in zip(numbers, pairs, strict=True):
        mid = f"<{tag}.{number}.show@clients.test>"
        jobs.append(Job(f"{first}@players.test", message(f"{first}@players.test", f"tictactoe show {number}", mid), mid))
    return jobs


def during_fault(jobs: list[Job], boards: int) -> tuple[list[Job], Job, Job]:
    """The last two moves of the last round (they carry passwords) are offered while the database is down."""
    first = len(jobs) - boards - 2
    return jobs[:first] + jobs[first + 2:], jobs[first], jobs[first + 1]


def offer_during_fault(port: int, job: Job) -> int:
    """One SMTP attempt while the database is down: the code the server answers."""
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        smtp.ehlo("mta.example")
        smtp.mail(job.mail_from)
        smtp.rcpt(job.rcpt)
        code, _ = smtp.data(job.message)
    return code


def check_recovery(db: Database, sink: Sink, server: ServerProcess, accepted: set[str], jobs: list[Job],
                   passwords: list[str]) -> None:
    wait_settled(db, timeout=120)
    server.stop()
    commands = {j.message_id: 1 for j in jobs}
    done, figures = audit_inbound(db, accepted, commands)
    assert all(row.tries == 0 for row in done.values()), "a database outage was counted as a failed try"
    figures.values.update(audit_replies(db, sink, accepted).values)
    figures.values.update(audit_boards(db).values)
    print(f"\n{figures}")
    assert figures.values["lost"] == figures.values["doubled"] == 0
    assert figures.values["replies_missing"] == figures.values["replies_doubled"] == 0
    found = leaks(passwords, {"serve stderr": server.log()})
    assert not found, found


def test_sqlite_file_locked_by_another_process(tmp_path, sink: Sink, procs: list[ServerProcess]) -> None:
    path = tmp_path / "locked.db"
    url = f"sqlite:///{path}"
    db = Database(url)
    db.upgrade()
    names = make_players(db, 8)
    pairs = [(names[i], names[i + 1]) for i in range(0, 8, 2)]
    numbers = make_boards(url, pairs)
    server = ServerProcess(url, free_port(), sink.port, tmp_path / "serve.log", "--busy-timeout", "0.3")
    procs.append(server)
    server.start()
    jobs = burst(numbers, pairs, 5, "lock")
    before, during_smtp, during_process = during_fault(jobs, len(numbers))
    report = Report()
    for job in before:
        deliver(server.port, job, report, give_up=60)
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, cwd=ROOT)
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == b"locked"
        assert offer_during_fault(server.port, during_smtp) == 451
        held = run_cli(url, "--busy-timeout", "0.3", "process", "--sender", during_process.mail_from,
                       stdin=during_process.message, relay_port=sink.port)
        assert held.returncode == 75, held.stderr.decode()
        assert b"Traceback" not in held.stderr
    finally:
        locker.communicate(b"\n", timeout=30)
    # The sending MTAs try again; the database is back.
    deliver(server.port, during_smtp, report, give_up=60)
    again = run_cli(url, "process", "--sender", during_process.mail_from, stdin=during_process.message,
                    relay_port=sink.port)
    assert again.returncode == 0, again.stderr.decode()
    accepted = {*report.accepted, during_process.message_id}
    check_recovery(db, sink, server, accepted, jobs, [password_of(n) for n in names])
    db.dispose()


def proxied_url(postgres_url: str) -> tuple[TCPProxy, str, str]:
    """A proxy in front of the server the URL names, the URL through it, and its application_name.

    Any spelling of the URL: the skip message's ``postgresql://postgres@127.0.0.1/test``
    has no port (PostgreSQL's 5432), once refused here by a string match on ``:5432``.
    """
    url = make_url(postgres_url)
    proxy = TCPProxy((url.host or "127.0.0.1", url.port or 5432)).up()
    app = "pbmfault" + uuid.uuid4().hex[:10]
    through = url.set(host="127.0.0.1", port=proxy.port).update_query_dict({"application_name": app})
    return proxy, through.render_as_string(hide_password=False), app


@pytest.mark.postgres
@pytest.mark.slow
def test_postgres_connections_killed_and_database_gone(tmp_path, sink: Sink, postgres_url: str,
                                                       procs: list[ServerProcess]) -> None:
    db = Database(postgres_url)
    db.upgrade()
    names = make_players(db, 8)
    pairs = [(names[i], names[i + 1]) for i in range(0, 8, 2)]
    numbers = make_boards(postgres_url, pairs)
    proxy, proxied, app = proxied_url(postgres_url)
    server = ServerProcess(proxied, free_port(), sink.port, tmp_path / "serve.log")
    procs.append(server)
    server.start()
    admin = create_engine(postgres_url.split("?")[0], isolation_level="AUTOCOMMIT")
    jobs = burst(numbers, pairs, 7, "pg")
    before, during_smtp, during_process = during_fault(jobs, len(numbers))
    report = Report()
    killed = 0
    try:
        for index, job in enumerate(before):
            deliver(server.port, job, report, give_up=60)
            if index % 3 == 2:  # kill the server's sessions, whatever they are doing
                with admin.connect() as conn:
                    killed += len(conn.execute(text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :app"),
                        {"app": app}).all())
        time.sleep(0.5)
        with admin.connect() as conn:
            killed += len(conn.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :app"),
                {"app": app}).all())
        proxy.down()
        assert offer_during_fault(server.port, during_smtp) == 451
        held = run_cli(proxied, "process", "--sender", during_process.mail_from, stdin=during_process.message,
                       relay_port=sink.port)
        assert held.returncode == 75, held.stderr.decode()
        assert b"Traceback" not in held.stderr
    finally:
        proxy.up()
        admin.dispose()
    deliver(server.port, during_smtp, report, give_up=60)
    again = run_cli(proxied, "process", "--sender", during_process.mail_from, stdin=during_process.message,
                    relay_port=sink.port)
    assert again.returncode == 0, again.stderr.decode()
    accepted = {*report.accepted, during_process.message_id}
    print(f"\nsessions killed: {killed}")
    assert killed >= 5
    check_recovery(db, sink, server, accepted, jobs, [password_of(n) for n in names])
    proxy.down()
    db.dispose()
