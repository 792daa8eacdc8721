"""SQLite's WAL checkpoints in a thread of their own, off every commit (issue 25: p99).

In WAL mode SQLite copies the log back into the database file (a
checkpoint) once the log passes 1,000 pages, inside whichever COMMIT
crossed the line: that commit then waits for the copy and two fsyncs.
With 8 KB board mails in the outbox the log fills every 100-150 moves, and
the move whose commit drew the checkpoint took 150-170 ms instead of ~8 ms
on a 2-core VM: the tail of the latency target (p99 < 100 ms) was made of
those moves.

``pbmserv serve`` turns the automatic checkpoint off on its connections
(``Database.checkpoint_in_background``, in every process it forks) and runs
this thread instead: every half second a PASSIVE checkpoint, which copies
what the log gained since the last one and never waits for a reader or a
writer, so no command, store or delivery waits for it.

The log starts over only when a writer begins and finds it copied back
whole; under a steady stream of commits a checkpoint that runs beside
them never catches the last one, and the log would grow without end (a
test saw 4,000 frames after 1,400 commits).  So once it holds
``restart_frames`` (SQLite's own line, 1,000 pages), the thread takes the
server's write turn (``Database.write_turn``: no writer of ours runs) and
checkpoints again: that copies only the frames since the first pass, and
the next writer starts the log over.  Writers wait for that short copy,
not for the whole log.  Other commands (``pbmserv remind``, ``process``) keep
SQLite's own checkpoint: they do not run long enough to need a thread.
"""

from __future__ import annotations

import logging
import threading
import time

from server.store.database import Database

log = logging.getLogger(__name__)


class Checkpointer:
    """The thread that checkpoints a SQLite database's write-ahead log every ``interval`` seconds."""

    def __init__(self, db: Database, interval: float = 0.5, restart_frames: int = 1000) -> None:
        self.db = db
        self.interval = interval
        self.restart_frames = restart_frames
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="pbmserv-checkpoint", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        """Stop the thread, after one last checkpoint (a stopped server leaves a short log)."""
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(timeout=10)

    def run_once(self) -> tuple[int, int, int]:
        """One PASSIVE checkpoint: (1 if it could not finish for a reader or writer, else 0,
        frames in the log, frames copied into the database so far); SQLite's own answer."""
        raw = self.db.engine.raw_connection()
        try:
            cursor = raw.cursor()
            try:
                # The connection is in autocommit (Database: SQLAlchemy begins transactions), so
                # the checkpoint runs outside any transaction, as it must.
                busy, frames, copied = cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            finally:
                cursor.close()
        finally:
            raw.close()
        return busy, frames, copied

    def checkpoint(self) -> tuple[int, int, int]:
        """Copy the log back beside the writers; if it has grown long, finish it while none writes."""
        busy, frames, copied = self.run_once()
        if frames >= self.restart_frames:
            with self.db.write_turn():
                held = time.monotonic()
                busy, frames, copied = self.run_once()
                held = time.monotonic() - held
            # Writers waited this long; a slow disk shows here first (measured: 0.3-36 ms under load).
            (log.warning if held > 1.0 else log.debug)(
                "WAL checkpoint: %d frames, writers held %.1f ms", frames, held * 1e3)
        return busy, frames, copied

    def _run(self) -> None:
        failing = False
        while True:
            stopping = self.stopping.wait(self.interval)
            try:
                self.checkpoint()
                if failing:
                    log.info("WAL checkpoints work again")
                failing = False
            except Exception:
                # A missing or unreadable file: the commands' own errors say so; said once here.
                if not failing:
                    log.exception("WAL checkpoint failed; trying again every %.1f s", self.interval)
                failing = True
            if stopping:
                return
