"""The hot path's shape (issue 19): group commit, one transaction per command, worker processes.

Speed itself is measured by bench/bench_throughput.py, never here; these
tests check the properties the speed must not cost: no 250 before its own
commit, the rate limit across a shared commit, a one-command mail costing
one commit, and worker processes that are restarted and die with the
server.
"""

from __future__ import annotations

import os
import signal
import smtplib
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import event, func, select

from server.core.config import Settings
from server.mail.inbound import Arrival, GroupCommit, RateLimited, store, store_batch
from server.processes.worker import Worker
from server.store.database import Database
from server.store.model import Inbound, Outbox, utcnow
from tests.mailtools import Sink, free_port, make_mail, send

ROOT = Path(__file__).resolve().parents[3]
ADDRESS = "pbmserv@games.test"


def commits(db: Database) -> list[int]:
    """A list that grows by one for every COMMIT the engine sends."""
    seen: list[int] = []
    event.listen(db.engine, "commit", lambda conn: seen.append(1))
    return seen


def test_group_commit_answers_only_after_the_commit_and_shares_it(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    db.upgrade()
    counted = commits(db)
    group = GroupCommit(db, rate_limit=None)
    # Hold the write lock as another transaction would: nothing can commit.
    assert db._sqlite_lock is not None
    db._sqlite_lock.acquire()
    try:
        futures = [group.submit(make_mail(f"p{i}@example.org", ADDRESS, "help").as_bytes(), f"p{i}@example.org",
                                [ADDRESS]) for i in range(30)]
        time.sleep(0.3)
        assert not any(f.done() for f in futures), "a message was answered before its commit"
    finally:
        db._sqlite_lock.release()
    ids = [f.result(timeout=10) for f in futures]
    group.close()
    assert len(set(ids)) == 30
    # The first message may have gone alone; the other 29 waited and shared one commit.
    assert len(counted) <= 2, len(counted)
    with db.transaction() as s:
        assert sorted(s.scalars(select(Inbound.id))) == sorted(ids)
    db.dispose()


def test_rate_limit_counts_messages_earlier_in_the_same_commit(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    db.upgrade()
    store(db, b"Subject: help\r\n\r\n", "flood@example.org", [ADDRESS], rate_limit=5)
    batch = [Arrival(b"Subject: help\r\nMessage-ID: <%d@x>\r\n\r\n" % i, "flood@example.org", [ADDRESS])
             for i in range(6)]
    batch.append(Arrival(b"Subject: help\r\n\r\n", "calm@example.org", [ADDRESS]))
    results = store_batch(db, batch, rate_limit=5)
    assert [isinstance(r, RateLimited) for r in results] == [False] * 4 + [True] * 2 + [False]
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Inbound).where(Inbound.mail_from == "flood@example.org")) == 5
    db.dispose()


def test_a_players_mail_is_stored_with_three_statements(db_url: str) -> None:
    """The listener stores a player's mail with the account lookup, the hour's counts (envelope sender and
    From in one statement) and the INSERT; the strangers' backlog and bytes are counted only for a
    stranger's mail, which still gets them (issue 25: five statements a mail before)."""
    from tests.abuse.conftest import make_accounts

    db = Database(db_url)
    db.upgrade()
    make_accounts(db, ["alice"])
    settings = Settings(database_url=db_url, addresses=[ADDRESS])
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *rest: statements.append(statement.split()[0].upper()))
    store(db, make_mail("alice@players.test", ADDRESS, "help").as_bytes(), "alice@players.test", [ADDRESS],
          settings.rate_limit, settings.unknown_backlog, settings)
    player = [s for s in statements if s not in ("BEGIN", "COMMIT")]
    statements.clear()
    store(db, make_mail("eve@example.org", ADDRESS, "help").as_bytes(), "eve@example.org", [ADDRESS],
          settings.rate_limit, settings.unknown_backlog, settings)
    stranger = [s for s in statements if s not in ("BEGIN", "COMMIT")]
    assert player == ["SELECT", "SELECT", "INSERT"], player
    assert stranger == ["SELECT", "SELECT", "SELECT", "SELECT", "INSERT"], stranger
    with db.transaction() as s:
        assert list(s.execute(select(Inbound.sender, Inbound.known).order_by(Inbound.id))) == [
            ("alice@players.test", True), ("eve@example.org", False)]
    db.dispose()


def test_a_one_command_mail_is_one_transaction(db_url: str) -> None:
    db = Database(db_url)
    db.upgrade()
    settings = Settings(database_url=db_url, addresses=[ADDRESS], address_proof="from")
    store(db, make_mail("alice@example.org", ADDRESS, "help").as_bytes(), "alice@example.org", [ADDRESS])
    counted = commits(db)
    worker = Worker(db, settings)
    assert worker.run_once() is True
    assert len(counted) == 1, f"{len(counted)} commits for one command"
    assert worker.run_once() is False
    with db.transaction() as s:
        row = s.scalars(select(Inbound)).one()
        assert (row.status, row.commands_done, row.claimed_until) == ("done", 1, None)
        assert s.scalar(select(func.count()).select_from(Outbox)) == 1
    db.dispose()


def test_a_mail_of_several_commands_holds_a_lease_between_its_transactions(sqlite_url: str) -> None:
    """Between the commands of a ``multiple`` mail (a transaction each) the row carries the worker's
    name and a lease, so another worker leaves it alone if this one dies; once done, no lease."""
    db = Database(sqlite_url)
    db.upgrade()
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS], address_proof="from")
    store(db, make_mail("alice@example.org", ADDRESS, "multiple", "help\nhelp commands\n").as_bytes(),
          "alice@example.org", [ADDRESS])
    worker = Worker(db, settings, name="w-test")
    seen: list[tuple] = []
    step = worker._run_step

    def spy(inbound_id, index, parsed, line):  # type: ignore[no-untyped-def]
        with db.transaction() as s:
            row = s.get(Inbound, inbound_id)
            seen.append((row.commands_done, row.claimed_by, row.claimed_until))
        return step(inbound_id, index, parsed, line)

    worker._run_step = spy  # type: ignore[method-assign]
    before = utcnow()
    assert worker.run_once() is True
    [(done, by, until)] = seen
    assert (done, by) == (1, "w-test")
    assert until is not None and until >= before + timedelta(seconds=settings.lease_seconds - 5)
    with db.transaction() as s:
        row = s.scalars(select(Inbound)).one()
        assert (row.status, row.commands_done, row.claimed_by, row.claimed_until) == ("done", 2, "w-test", None)
    db.dispose()


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(predicate, timeout: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _serve(url: str, sink: Sink, log_path: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "--database-url", url, "--address", ADDRESS,
             "--relay", f"127.0.0.1:{sink.port}", "--listen", f"127.0.0.1:{port}", "serve", "--workers", "2"],
            cwd=ROOT, stdout=log, stderr=log, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert _wait(lambda: len(_children(proc.pid)) >= 3), "two workers and a deliverer were not started"
    assert _wait(lambda: _listening(port))
    return proc, port


def test_a_dead_worker_is_replaced_and_sigterm_stops_every_process(sqlite_url: str, tmp_path: Path) -> None:
    sink = Sink().start()
    proc, port = _serve(sqlite_url, sink, tmp_path / "serve.log")
    first = _children(proc.pid)
    children = list(first)
    try:
        os.kill(first[0], signal.SIGKILL)
        assert _wait(lambda: len(set(_children(proc.pid)) - set(first)) == 1), "the dead child was not replaced"
        send(port, make_mail("alice@example.org", ADDRESS, "help"), sender="alice@example.org", to=ADDRESS)
        assert _wait(lambda: len(sink.messages) == 1), "no reply after a worker was replaced"
        children += _children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        # The replacement too: a re-forked child must not inherit the CLI's SIGTERM handler.
        assert _wait(lambda: not any(_alive(c) for c in children), 10), "a child outlived the stopped server"
    finally:
        _reap(proc, children)
        sink.stop()
    assert "died" in (tmp_path / "serve.log").read_text()


def test_worker_processes_die_with_a_killed_server(sqlite_url: str, tmp_path: Path) -> None:
    sink = Sink().start()
    proc, _ = _serve(sqlite_url, sink, tmp_path / "serve.log")
    children = _children(proc.pid)
    try:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert _wait(lambda: not any(_alive(c) for c in children), 10), "children outlived the killed server"
    finally:
        _reap(proc, children)
        sink.stop()


def _reap(proc: subprocess.Popen, children: list[int]) -> None:
    """Leave no process behind, whatever the test found."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for child in children:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def _listening(port: int) -> bool:
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=2) as smtp:
            smtp.noop()
        return True
    except OSError:
        return False
