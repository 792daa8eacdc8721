"""The command-line tool as an admin or an MTA pipe uses it, LMTP, and the installed package."""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select

from server.core.config import Settings
from server.processes.serve import Server
from server.store.database import Database
from server.store.model import Board, Inbound, Outbox
from tests.mailtools import Sink, free_port, make_mail

ROOT = Path(__file__).resolve().parents[3]
ADDRESS = "pbmserv@games.test"


def pbmserv(url: str, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
            relay: int | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the real console entry point in a child process (the tests' tiny game registered)."""
    launcher = "import games, tests.tictactoe as t; games.register(t.GAME); from server.cli import main; main()"
    # The test MTA is taken to reject forged From (the default is tested in tests/abuse/test_forged_from.py).
    full_env = {**os.environ, "PBMSERV_DATABASE_URL": url, "PBMSERV_ADDRESS": ADDRESS,
                "PBMSERV_ADDRESS_PROOF": "from", **(env or {})}
    if relay:
        full_env["PBMSERV_RELAY"] = f"127.0.0.1:{relay}"
    return subprocess.run([sys.executable, "-c", launcher, *args], input=stdin, capture_output=True,
                          cwd=ROOT, env=full_env, timeout=120)


def test_process_stores_handles_and_delivers(db_url: str, sink: Sink) -> None:
    mail = make_mail("alice@example.org", ADDRESS, "signup alice apple1").as_bytes()
    done = pbmserv(db_url, "process", stdin=mail, env={"SENDER": "alice@example.org"}, relay=sink.port)
    assert done.returncode == 0, done.stderr.decode()
    got = sink.wait_for(1)
    assert got[0].rcpt_tos == ["alice@example.org"] and "Welcome to pbmserv, alice" in got[0].text
    db = Database(db_url)
    with db.transaction() as s:
        assert [r.status for r in s.scalars(select(Inbound))] == ["done"]
    db.dispose()


def test_process_exits_75_when_the_database_is_unreachable(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'no' / 'such' / 'dir' / 'x.db'}"
    done = pbmserv(url, "process", stdin=make_mail("a@example.org", ADDRESS, "help").as_bytes())
    assert done.returncode == 75, done.stderr.decode()


def test_admin_tools(db_url: str) -> None:
    """The admin commands in-process (click's runner) on a real database; the pipe tests above use a child."""
    from click.testing import CliRunner

    from server.processes.cli import main

    runner = CliRunner()

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(main, ["--database-url", db_url, "--address", ADDRESS, *args], catch_exceptions=False)

    for args in (("user", "add", "alice", "apple1", "alice@example.org"),
                 ("user", "add", "bob", "banana2", "bob@example.org")):
        assert run(*args).exit_code == 0
    listed = run("user", "list").output
    assert "alice" in listed and "bob@example.org" in listed and "apple1" not in listed
    made = run("challenge", "tictactoe", "alice", "bob", "-swap")
    assert made.exit_code == 0, made.output
    assert "The admin started Tic-Tac-Toe Board 101" in made.output
    bad = run("challenge", "tictactoe", "alice", "bob", "-sise=3")
    assert bad.exit_code != 0 and "Unknown option -sise=3" in bad.output
    games_out = run("game", "list").output
    assert "tictactoe" in games_out and "alice, bob" in games_out
    pending = run("outbox", "list").output
    assert pending.count("New Tic-Tac-Toe Board 101 alice") == 2
    status = run("status").output
    assert "outbox pending:    2" in status and "tictactoe" in status
    assert run("user", "passwd", "alice", "pear44").exit_code == 0
    db = Database(db_url)
    with db.transaction() as s:
        board = s.scalars(select(Board)).one()
        assert board.options == {"swap": True}
        assert len(s.scalars(select(Outbox)).all()) == 2
        from server.accounts.passwords import verify_password
        from server.store.model import User

        alice = s.scalars(select(User).where(User.userid == "alice")).one()
        assert verify_password(alice.password_hash, "pear44")
    db.dispose()


def test_lmtp_listener(sqlite_url: str, sink: Sink) -> None:
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS, "games@games.test"], lmtp=True, address_proof="from",
                        listen=f"127.0.0.1:{free_port()}", relay=f"127.0.0.1:{sink.port}", poll_interval=0.05)
    server = Server(settings)
    server.start()
    try:
        with smtplib.LMTP("127.0.0.1", settings.listen_hostport[1]) as lmtp:
            msg = make_mail("alice@example.org", ADDRESS, "signup alice apple1")
            refused = lmtp.sendmail("alice@example.org", [ADDRESS, "games@games.test"], msg.as_bytes())
            assert refused == {}
            # LMTP answers DATA once per recipient; smtplib reads only the first answer.
            assert lmtp.getreply()[0] == 250
        assert "Welcome" in sink.wait_for(1)[0].text
    finally:
        server.stop()


@pytest.mark.slow
def test_wheel_carries_templates_and_migrations(tmp_path: Path) -> None:
    """A plain `pip install .` must find its templates and migrations."""
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                            str(tmp_path), str(ROOT)], capture_output=True, timeout=300)
    assert built.returncode == 0, built.stderr.decode()[-2000:]
    wheel = next(tmp_path.glob("pbmserv-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "server/templates/help.txt" in names
    assert "server/migrations/env.py" in names
    assert any(n.startswith("server/migrations/versions/0001_") for n in names)
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "warpandweft = games.warpweft:GAME" in entry_points
    # Installed alone into a fresh target, the package finds its own files.
    target = tmp_path / "site"
    inst = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
                          capture_output=True, timeout=300)
    assert inst.returncode == 0, inst.stderr.decode()[-2000:]
    probe = subprocess.run(
        [sys.executable, "-c", "from server.store.resources import templates_dir, migrations_dir; "
         "print(templates_dir()); print(migrations_dir())"],
        capture_output=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)}, timeout=60,
    )
    lines = probe.stdout.decode().split()
    assert probe.returncode == 0, probe.stderr.decode()
    assert all(line.startswith(str(target)) for line in lines), lines


def test_prune_drops_old_handled_mail_and_keeps_the_rest(sqlite_url: str) -> None:
    from datetime import timedelta

    from click.testing import CliRunner

    from server.processes.cli import main
    from server.store.model import utcnow

    db = Database(sqlite_url)
    db.upgrade()
    old, new = utcnow() - timedelta(days=40), utcnow()
    with db.transaction() as s:
        for status, when in [("done", old), ("ignored", old), ("duplicate", old), ("shunted", old), ("new", old),
                             ("done", new)]:
            s.add(Inbound(mail_from="a@example.org", rcpt_to=[ADDRESS], dedupe_key=f"k{status}{when}",
                          raw=b"Subject: signup a secretpw\r\n\r\n", status=status, received_at=when, results=[]))
        for status, when in [("sent", old), ("failed", old), ("pending", old), ("sent", new)]:
            s.add(Outbox(envelope_from=ADDRESS, recipients=["a@example.org"], message=b"x", status=status,
                         created_at=when))
    result = CliRunner().invoke(main, ["--database-url", sqlite_url, "prune", "--days", "30"], catch_exceptions=False)
    assert "pruned 3 received and 1 sent" in result.output
    with db.transaction() as s:
        assert sorted(r.status for r in s.scalars(select(Inbound))) == ["done", "new", "shunted"]
        assert sorted(r.status for r in s.scalars(select(Outbox))) == ["failed", "pending", "sent"]
    db.dispose()
