"""WAL checkpoints off the commits (server/store/checkpoints.py, issue 25's p99).

Real SQLite files.  A commit that crosses SQLite's 1,000-page line copies
the whole log back with two fsyncs: the move that drew it took 150-170 ms.
With ``checkpoint_in_background`` no commit does; the Checkpointer's
PASSIVE checkpoint does, and the log starts over after it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from server.store.checkpoints import Checkpointer
from server.store.database import Database
from tests.server.conftest import Sink, start_server

#: A row of about one page: the log gains a page or more per commit.
BLOB = "x" * 3500


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'w.db'}")
    database.upgrade()
    with database.connection() as conn:
        conn.execute(text("CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)"))
    yield database
    database.dispose()


def _commits(db: Database, count: int) -> None:
    """``count`` transactions of a page or more each (more than SQLite's 1,000-page line in all)."""
    for _ in range(count):
        with db.connection() as conn:
            conn.execute(text("INSERT INTO filler (body) VALUES (:b)"), {"b": BLOB})


def _log_frames(db: Database) -> int:
    """Frames in the log now, read without a checkpoint: ``mxFrame`` of the WAL-index header in the
    ``-shm`` file (SQLite's documented file format: a u32 at offset 16, the host's byte order).
    (``PRAGMA wal_checkpoint`` would copy the log back itself; its NOOP mode is newer than 3.40.)"""
    with open(f"{db.engine.url.database}-shm", "rb") as shm:
        return int.from_bytes(shm.read(20)[16:20], sys.byteorder)


def _autocheckpoint(db: Database) -> int:
    raw = db.engine.raw_connection()
    try:
        return raw.cursor().execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    finally:
        raw.close()


def test_sqlites_own_checkpoint_runs_inside_commits(db: Database) -> None:
    """The control: without the thread, a commit copies the log back once it passes 1,000 pages,
    so the log never holds many more (what the test below must not see)."""
    assert _autocheckpoint(db) == 1000
    _commits(db, 1400)
    assert _log_frames(db) < 1100


def test_in_the_background_no_commit_checkpoints_and_the_thread_does(db: Database) -> None:
    assert db.checkpoint_in_background()
    assert _autocheckpoint(db) == 0  # every connection, the pooled ones made again
    _commits(db, 1400)
    frames = _log_frames(db)
    assert frames > 1400  # nothing was copied back inside a commit
    busy, in_log, copied = Checkpointer(db).run_once()
    assert (busy, in_log, copied) == (0, frames, frames)
    _commits(db, 3)  # the next writer starts the log over: it holds only what came since
    assert _log_frames(db) < 20
    with db.connection() as conn:
        assert conn.execute(text("SELECT count(*) FROM filler")).scalar_one() == 1403


def test_the_thread_checkpoints_while_commits_go_on(db: Database) -> None:
    """Beside a steady stream of commits the log starts over now and then (the thread finishes it
    under the write turn), and a stopped thread leaves it copied back whole.  Read after each commit,
    not at the end: how long the log is when the commits stop depends on where the thread was."""
    db.checkpoint_in_background()
    checkpointer = Checkpointer(db, interval=0.02)
    checkpointer.start()
    restarts, last = 0, 0
    try:
        for _ in range(1400):
            _commits(db, 1)
            frames = _log_frames(db)
            restarts += frames < last
            last = frames
    finally:
        checkpointer.stop()
    assert restarts > 0  # without the pass under the write turn the log grew to 4,000 frames
    assert not checkpointer.thread.is_alive()
    _commits(db, 1)  # the stop's checkpoint copied the log back whole: the next writer starts it over
    assert _log_frames(db) < 20


def test_in_memory_and_postgresql_have_no_log_to_checkpoint() -> None:
    memory = Database("sqlite://")
    assert not memory.checkpoint_in_background()
    assert not memory.background_checkpoints


def test_serve_checkpoints_in_its_own_thread(tmp_path: Path, sink: Sink) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'serve.db'}", sink)
    try:
        assert server.checkpointer is not None and server.checkpointer.thread.is_alive()
        assert _autocheckpoint(server.db) == 0
    finally:
        server.stop()
    assert not server.checkpointer.thread.is_alive()
