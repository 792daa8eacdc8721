"""Issue 32, item 1: a database stall longer than the SMTP idle timeout.

Another process holds the database (SQLite: ``BEGIN EXCLUSIVE`` on the
file; PostgreSQL: ``LOCK TABLE inbound``) longer than the listener's idle
timeout while mail arrives.  Before the fix aiosmtpd dropped the session
without an answer, the store thread then died setting a result on the
cancelled future, and every later DATA hung until the client gave up.  Now
the sender hears 451 within ``--store-timeout``, mail is accepted again
once the lock is gone, ``status`` names a stuck store thread, and with
``--watchdog`` the process exits 70 for its service manager to restart it.
Timeouts are shortened by flags so each test runs in seconds.
"""

from __future__ import annotations

import smtplib
import subprocess
import sys
import threading
import time

import pytest
from sqlalchemy import create_engine, select, text

from server.store.model import Inbound
from tests.abuse.harness import ROOT, mail, record, wire

#: The idle timeout of these servers: the stall below outlasts it.
IDLE = "3"
LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


def offer(port: int, subject: str, timeout: float = 15) -> tuple[int | str, float]:
    """One SMTP transaction: the DATA answer (or how it failed) and the seconds it took."""
    began = time.monotonic()
    sender = "alice@players.test"
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=timeout) as smtp:
            smtp.ehlo("client.test")
            smtp.mail(sender)
            smtp.rcpt("pbmserv@games.test")
            code, _ = smtp.data(wire(mail(sender, subject)))
    except (smtplib.SMTPServerDisconnected, OSError) as exc:
        return type(exc).__name__, time.monotonic() - began
    return code, time.monotonic() - began


def stored(db, subject: str) -> int:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        return sum(f"Subject: {subject}\r\n".encode() in raw for raw in s.scalars(select(Inbound.raw)))


class SqliteLock:
    """``BEGIN EXCLUSIVE`` held by another process until released."""

    def __init__(self, path: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", LOCKER, path], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=ROOT)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == b"locked"

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.communicate(b"\n", timeout=30)


def test_sqlite_stall_longer_than_the_idle_timeout(start, sink) -> None:  # type: ignore[no-untyped-def]
    server, db = start("--idle-timeout", IDLE, "--busy-timeout", "2", "--store-timeout", "1", "--watchdog", "0")
    assert offer(server.port, "before")[0] == 250
    lock = SqliteLock(db.engine.url.database)
    try:
        during, waited = offer(server.port, "during the stall")
        time.sleep(6.5 - waited)  # the stall outlasts the idle timeout (3 s) twice over
        status = server.cli("--busy-timeout", "0.2", "status")
    finally:
        lock.release()
    after = [offer(server.port, f"after the stall {i}") for i in range(3)]
    record("32_1_sqlite_stall", during=during, during_s=round(waited, 2), after=[a[0] for a in after],
           after_s=[round(a[1], 2) for a in after])
    assert during == 451 and waited < float(IDLE), (during, waited)
    assert "STUCK" in status.stdout and "store thread has been in one commit" in status.stdout, status.stdout
    assert [a[0] for a in after] == [250, 250, 250], (after, server.log()[-3000:])
    assert all(stored(db, f"after the stall {i}") == 1 for i in range(3))
    assert "InvalidStateError" not in server.log()
    healthy = server.cli("status")
    assert "listener:          ok" in healthy.stdout, healthy.stdout


def test_watchdog_exits_for_the_service_manager(start, sink) -> None:  # type: ignore[no-untyped-def]
    """A commit stuck past --watchdog: exit 70 (systemd's Restart=on-failure starts it again)."""
    server, db = start("--idle-timeout", IDLE, "--busy-timeout", "20", "--store-timeout", "1", "--watchdog", "3")
    lock = SqliteLock(db.engine.url.database)
    try:
        during, _ = offer(server.port, "during the stall")
        assert server.proc is not None
        code = server.proc.wait(timeout=20)
    finally:
        lock.release()
    assert during == 451
    assert code == 70, server.log()[-3000:]
    assert "watchdog: the store thread has been in one commit" in server.log()
    server.start()  # what the service manager does
    assert offer(server.port, "after the restart")[0] == 250


@pytest.mark.postgres
def test_postgres_locked_table(start, sink, postgres_url: str) -> None:  # type: ignore[no-untyped-def]
    server, db = start("--idle-timeout", IDLE, "--store-timeout", "1", "--watchdog", "0", url=postgres_url)
    assert offer(server.port, "before")[0] == 250
    locker = create_engine(postgres_url)
    conn = locker.connect()
    try:
        conn.execute(text("LOCK TABLE inbound IN ACCESS EXCLUSIVE MODE"))
        during, waited = offer(server.port, "during the lock")
        time.sleep(max(0.0, 4.5 - waited))  # past the idle timeout
    finally:
        conn.rollback()
        conn.close()
        locker.dispose()
    after = [offer(server.port, f"after the lock {i}") for i in range(3)]
    record("32_1_postgres_lock", during=during, during_s=round(waited, 2), after=[a[0] for a in after])
    assert during == 451 and waited < float(IDLE), (during, waited)
    assert [a[0] for a in after] == [250, 250, 250], (after, server.log()[-3000:])
    assert all(stored(db, f"after the lock {i}") == 1 for i in range(3))
    assert "InvalidStateError" not in server.log()


@pytest.mark.postgres
def test_postgres_hung_connection(start, sink, postgres_url: str) -> None:  # type: ignore[no-untyped-def]
    """The network to PostgreSQL stops forwarding while mail arrives, and those connections never come back.

    A firewall or NAT that lost its state: no reset, no close, the bytes go
    nowhere.  Before the fix the store thread waited on its socket for good:
    every later mail got 451 long after the network was back.  Now a
    connection that has not answered for twice ``--busy-timeout`` is cut, the
    store thread goes on with a new one, and mail is accepted again.
    """
    from server.store.database import Database
    from tests.reliability.tcpproxy import TCPProxy

    assert "@127.0.0.1:5432/" in postgres_url, postgres_url
    direct = Database(postgres_url)
    direct.upgrade()
    proxy = TCPProxy(("127.0.0.1", 5432)).up()
    proxied = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    try:
        server, _ = start("--idle-timeout", IDLE, "--busy-timeout", "1", "--store-timeout", "1",
                          "--watchdog", "0", url=proxied)
        # The first commit (connections, the schema's first reads) may take longer than --store-timeout.
        assert any(offer(server.port, f"before {i}")[0] == 250 for i in range(5))
        # Mail arriving while the network stops: some transaction is cut mid-way.
        burst: list[tuple[str, int | str, float]] = []

        def arrive() -> None:
            for i in range(200):  # until the hang has answered a few of them
                burst.append((f"across {i}", *offer(server.port, f"across {i}")))
                if sum(code != 250 for _, code, _ in burst) >= 3:
                    return

        sender = threading.Thread(target=arrive)
        sender.start()
        time.sleep(0.2)
        proxy.hang()
        sender.join(timeout=60)
        during = [offer(server.port, f"during the hang {i}") for i in range(3)]
        stuck = _status(server)
        proxy.unhang()
        time.sleep(3)  # past 2 x --busy-timeout: the hung connection is cut
        after = [offer(server.port, f"after the hang {i}") for i in range(3)]
        record("32_1_postgres_hung", burst=[b[1] for b in burst], during=[d[0] for d in during], during_s=[round(d[1], 2) for d in during],
               after=[a[0] for a in after], after_s=[round(a[1], 2) for a in after])
        assert [d[0] for d in during] == [451, 451, 451], (during, server.log()[-3000:])
        assert all(d[1] < float(IDLE) for d in during), during
        assert "STUCK" in stuck, stuck
        assert [a[0] for a in after] == [250, 250, 250], (after, server.log()[-3000:])
        assert all(stored(direct, f"after the hang {i}") == 1 for i in range(3))
        assert "InvalidStateError" not in server.log()
        assert "store thread had died" not in server.log()
        # Every mail heard an answer in time; what got 250 is stored once (nothing accepted is lost).
        assert burst and all(code in (250, 451) and took < float(IDLE) for _, code, took in burst), burst
        assert all(stored(direct, subject) == 1 for subject, code, _ in burst if code == 250), burst
    finally:
        proxy.unhang()
        proxy.down()
        direct.dispose()


def _status(server) -> str:  # type: ignore[no-untyped-def]
    """``status`` while the store thread hangs, as the heartbeat shows it (the database may not answer)."""
    deadline = time.monotonic() + 10
    out = ""
    while time.monotonic() < deadline:
        try:
            out = server.cli("status", timeout=20).stdout
        except subprocess.TimeoutExpired:
            return "status itself hung on the database"
        if "STUCK" in out:
            break
        time.sleep(0.5)
    return out
