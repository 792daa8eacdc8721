"""``pbmserv serve``: the listener plus the inbound workers and the delivery loop.

aiosmtpd's event loop takes mail and its store thread commits it (group
commit, server/mail/inbound.py); workers apply it and the deliverer sends the
replies, as threads of this process or (``--workers N``) as processes of
their own.  The listener wakes the workers as soon as mail is committed,
a worker wakes the deliverer; both loops also poll, because another host
sharing the database may have stored or queued something.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import hashlib
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from server.core.config import Settings
from server.mail.imap import ImapReceiver
from server.mail.listener import InboundHandler, Listener
from server.mail.outbox import Deliverer
from server.processes.computer import ComputerPlayer
from server.processes.health import Watchdog
from server.processes.worker import Worker
from server.store.checkpoints import Checkpointer
from server.store.database import Database, worker_name

log = logging.getLogger("pbmserv.serve")


def inflight_path(settings: Settings) -> Path:
    """Where this server notes the message it is applying: its working directory, one file per listener."""
    key = hashlib.sha256(f"{settings.database_url}|{settings.listen}".encode()).hexdigest()[:12]
    return Path(f".pbmserv-inflight-{key}")


class LoopErrors:
    """Log a loop's failures without flooding the log during an outage.

    The first failure is logged with its traceback; while the same trouble
    lasts (a database that is down fails every poll), one line a minute says
    it goes on; recovery is logged once.
    """

    REPEAT_SECONDS = 60.0

    def __init__(self, name: str) -> None:
        self.name = name
        self.since: float | None = None
        self.count = 0
        self.last_report = 0.0

    def failed(self) -> None:
        now = time.monotonic()
        self.count += 1
        if self.since is None:
            self.since = self.last_report = now
            log.exception("%s error", self.name)
        elif now - self.last_report >= self.REPEAT_SECONDS:
            self.last_report = now
            log.error("%s still failing: %d errors in %.0f s", self.name, self.count, now - self.since)

    def recovered(self) -> None:
        if self.since is not None:
            log.warning("%s recovered after %d errors in %.0f s", self.name, self.count,
                        time.monotonic() - self.since)
            self.since, self.count = None, 0


class Server:
    """Listener, workers and deliverer of one ``pbmserv serve``.

    With ``settings.workers == 0`` (the default of the class, used when the
    server is embedded, e.g. in tests) the worker and the deliverer are
    threads of this process.  ``pbmserv serve --workers N`` (N >= 1, the CLI
    defaults to the number of cores) forks N worker processes and one
    delivery process instead, so the listener's event loop, the rules and
    the relay sessions do not share one GIL.  The children are forked before
    any thread starts, die with their parent (``PR_SET_PDEATHSIG``), are
    restarted if they die alone, and report the message they were applying
    so that a message that kills its worker counts a failed try.
    """

    def __init__(self, settings: Settings, db: Database | None = None) -> None:
        self.settings = settings
        self.db = db or Database(settings.database_url, settings.busy_timeout)
        self.db.upgrade()
        self.name = worker_name()
        self.worker = Worker(self.db, settings, self.name)
        # Outside the database: a death rolls its transaction back, this file stays (see count_crashed).
        self.worker.inflight = inflight_path(settings)
        self.deliverer = Deliverer(self.db, settings, self.name)
        self.threads: list[threading.Thread] = []
        self.pool: Pool | None = None
        if settings.workers > 0:
            self.pool = Pool(self)
            self.stopping: Any = Signal(self.pool.context)
            self.inbound_ready: Any = Signal(self.pool.context)
            self.outbox_ready: Any = Signal(self.pool.context)
        else:
            self.stopping = threading.Event()
            self.inbound_ready = threading.Event()
            self.outbox_ready = threading.Event()
        self.listener = Listener(InboundHandler(self.db, settings, self.inbound_ready.set), settings)
        # A mailbox read over IMAP (issue 31) stores through the listener's own store thread.
        self.imap = (ImapReceiver(self.db, settings, self.listener.handler.store.submit)
                     if settings.imap else None)
        self.watchdog = Watchdog(settings, self.listener, self.listener.handler.store)
        self.checkpointer: Checkpointer | None = None

    def start(self) -> None:
        self.worker.count_crashed()
        # SQLite: the log is copied back by a thread of ours, never inside a command's commit
        # (store.checkpoints: those commits were the latency's tail).  Before the forks: the
        # children's connections are made with it off too (Pool._child).
        if self.db.checkpoint_in_background():
            self.checkpointer = Checkpointer(self.db)
            self.checkpointer.start()
        if self.pool is not None:
            # Before any thread of ours runs (fork copies only the calling
            # thread) and with no connection open to inherit.
            self.db.engine.dispose()
            self.pool.start()
            self._spawn(self.pool.supervise, "pbmserv-supervisor")
        else:
            self._spawn(self._work_loop, "pbmserv-worker")
            self._spawn(self._deliver_loop, "pbmserv-deliver")
            # Embedded (tests, workers == 0): the computer opponent is a thread;
            # ``serve --workers N`` gives it a process of its own (Pool).
            if self.settings.computer:
                self._spawn(lambda: ComputerPlayer(self.db, self.settings).loop(self.stopping,
                                                                                self.settings.poll_interval),
                            "pbmserv-computer")
        self.listener.start()
        if self.imap is not None:
            self.imap.start()
        self.watchdog.start()
        host, port = self.settings.listen_hostport
        log.info("listening on %s:%d (%s), database %s, %s", host, port, "LMTP" if self.settings.lmtp else "SMTP",
                 self.db.engine.url.render_as_string(hide_password=True),
                 (f"{self.settings.workers} worker process{'es' if self.settings.workers > 1 else ''}"
                  if self.pool else "worker threads"))

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        self.inbound_ready.set()
        self.outbox_ready.set()
        if self.imap is not None:
            self.imap.stop()
        self.watchdog.stop()
        self.listener.stop()
        self.listener.handler.close()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        for thread in self.threads:
            thread.join(timeout=10)
        if self.pool is not None:
            self.pool.stop()
        self.db.dispose()

    def _work_loop(self, worker: Worker | None = None, slot: Any = None) -> None:
        worker = worker or self.worker
        errors = LoopErrors("worker loop")
        # The only worker, woken by a stored mail, knows there is mail to claim (a wake-up may be
        # stale: a claim since then took it; that claim finds nothing, as the peek would have).
        # With several, every mail wakes each of them: they ask first (Worker.run_once).
        alone = self.settings.workers <= 1
        told = False
        while not self.stopping.is_set():
            try:
                if worker.run_once(told):
                    self.outbox_ready.set()
                    errors.recovered()
                    if worker.more_waiting:
                        continue
                    # Its claim saw nothing else: mail stored since then has set inbound_ready
                    # (cleared only before this run), so the wait returns at once for it.
                else:
                    errors.recovered()
            except Exception:
                errors.failed()
            finally:
                if slot is not None:
                    slot.value = 0
            told = self.inbound_ready.wait(self.settings.poll_interval) and alone
            self.inbound_ready.clear()

    def _deliver_loop(self, deliverer: Deliverer | None = None) -> None:
        deliverer = deliverer or self.deliverer
        errors = LoopErrors("delivery loop")
        try:
            while not self.stopping.is_set():
                try:
                    # Again at once only after a full batch: one that took fewer took every row
                    # due at its claim, and mail queued since then has set outbox_ready, which
                    # the wait below sees (cleared only before the next run_once).  Asking
                    # "anything due?" after every batch was a read transaction a move (issue 25).
                    if self.settings.relay and deliverer.run_once() >= deliverer.BATCH:
                        errors.recovered()
                        continue
                    errors.recovered()
                except Exception:
                    errors.failed()
                self.outbox_ready.wait(self.settings.poll_interval)
                self.outbox_ready.clear()
        finally:
            # The last batch's rows are in the sent journal, marked by the next claim (SQLite):
            # marked now, and the relay session closed, so a stopped server leaves none behind.
            try:
                deliverer.close()
            except Exception:
                log.exception("delivery loop: the last batch's sent marks are left to the journal's recovery")


class Signal:
    """An event shared by forked processes: a flag in shared memory plus a pipe to wake waiters.

    Not ``multiprocessing.Event``: its condition counts sleepers in
    semaphores, and a waiter killed while asleep (a worker that dies, which
    the supervisor must survive) leaves the next ``set()`` blocked for ever.
    Here nothing is locked: ``set`` raises the flag and writes a byte
    (non-blocking; a full pipe already wakes everyone), ``wait`` selects
    on the pipe, ``clear`` lowers the flag and drains the pipe.
    """

    def __init__(self, context: Any) -> None:
        self.flag = context.Value("b", 0, lock=False)
        self.reader, self.writer = os.pipe()
        os.set_blocking(self.reader, False)
        os.set_blocking(self.writer, False)

    def set(self) -> None:
        self.flag.value = 1
        with contextlib.suppress(BlockingIOError):
            os.write(self.writer, b"!")

    def is_set(self) -> bool:
        return bool(self.flag.value)

    def clear(self) -> None:
        self.flag.value = 0
        try:
            while os.read(self.reader, 4096):
                pass
        except BlockingIOError:
            pass

    def wait(self, timeout: float | None = None) -> bool:
        if not self.is_set():
            select.select([self.reader], [], [], timeout)
        return self.is_set()


#: Allocations between young-generation collections, and the two older generations' ratios
#: (CPython's defaults: 700, 10, 10).
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Take the long-lived heap out of the cyclic collector's scans, and collect less often.

    A move builds thousands of short-lived objects (ORM rows, headers,
    mail parts), so with CPython's default thresholds the collector ran
    every few hundred allocations and every tenth of those went through
    the older generations: the modules, SQLAlchemy's mappers and the
    games' tables, hundreds of thousands of objects that live as long as
    the process.  ``gc.freeze()`` moves everything alive now into a
    generation no collection scans (and, done before ``fork``, keeps the
    children from writing to the pages they share with the parent); the
    thresholds make young collections rarer.  Measured in-process
    (60 moves by reply, nothing else running): worker 8.4-10.1 -> 7.2-7.9
    ms a move, deliverer 5.7-6.9 -> 5.5-6.0 ms; with the collector off
    altogether 7.0-7.6 and 5.5-6.0 (issue 25).  Garbage cycles still go,
    only in larger batches.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class Pool:
    """The worker and delivery processes of a ``serve --workers N``."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.context = multiprocessing.get_context("fork")
        #: Per worker: the inbound id it is applying (0: none), shared memory.
        self.slots = [self.context.Value("q", 0, lock=False) for _ in range(server.settings.workers)]
        self.procs: dict[str, BaseProcess] = {}

    def start(self) -> None:
        tune_gc()  # before the forks: the children inherit the settings and the frozen heap
        for index in range(len(self.slots)):
            self._fork(f"worker-{index}")
        self._fork("deliver")
        if self.server.settings.computer:
            self._fork("computer")

    def _fork(self, role: str) -> None:
        proc = self.context.Process(target=self._child, args=(role,), name=f"pbmserv-{role}", daemon=True)
        proc.start()
        self.procs[role] = proc

    def _child(self, role: str) -> None:
        """A child's whole life: its own connections, its loop, exit when told or orphaned."""
        _die_with_parent()
        _name_process(f"pbm-{role}")
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group; the parent stops us
        # A child forked again by the supervisor would inherit the CLI's
        # SIGTERM handler, which only sets an event of the parent's.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        server = self.server
        server.db.engine.dispose(close=False)  # the parent's pooled connections are not ours to use
        db = Database(server.settings.database_url, server.settings.busy_timeout)
        if server.db.background_checkpoints:
            db.checkpoint_in_background()  # the parent's thread checkpoints (Server.start)
        gc.freeze()  # what the child has built by now lives as long as it does
        try:
            if role == "deliver":
                server._deliver_loop(Deliverer(db, server.settings, server.name))
            elif role == "computer":
                # The computer opponent thinks here, outside every transaction and
                # off the listener's and the workers' CPU time (issue 27).
                ComputerPlayer(db, server.settings).loop(server.stopping, server.settings.poll_interval)
            else:
                slot = self.slots[int(role.split("-")[1])]
                worker = Worker(db, server.settings, server.name, on_claim=lambda i: setattr(slot, "value", i))
                server._work_loop(worker, slot)
        finally:
            db.dispose()

    def supervise(self) -> None:
        """Restart a child that died while the server runs; a worker's message counts a failed try."""
        while not self.server.stopping.wait(0.2):
            for role, proc in list(self.procs.items()):
                if proc.is_alive() or self.server.stopping.is_set():
                    continue
                code = proc.exitcode
                log.error("%s process %s died (exit code %s); starting another", role, proc.pid, code)
                if role.startswith("worker-"):
                    slot = self.slots[int(role.split("-")[1])]
                    if slot.value:
                        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                        self.server.worker._failed(slot.value, f"the worker process died ({how}) applying it")
                        slot.value = 0
                self._fork(role)

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)


def _name_process(name: str) -> None:
    """Linux: the name ``ps``, ``top`` and psutil show for this child (``pbm-worker-0``,
    ``pbm-deliver``, ``pbm-computer``; the kernel keeps 15 bytes), so an admin sees which role burns CPU."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)  # PR_SET_NAME, 15 bytes at most
    except (OSError, AttributeError):
        pass


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when the one that forked it dies (SIGKILL included)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(0)
