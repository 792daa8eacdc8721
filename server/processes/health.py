"""Is the running ``serve`` alive: a heartbeat file, its watchdog, and what ``status`` reads.

A database stall once killed the listener's store thread while the process
stayed up: every later DATA hung until the client gave up, systemd saw a
running service and ``status`` said "last error: none".  Now a watchdog
thread of ``serve`` checks, once a second, that the listener's event loop
answers and that the store thread is alive and not stuck in one commit.  It
writes what it saw to a small JSON file in the working directory (not the
database, which may be the thing that is stuck), so ``pbmserv status``
reports a stuck listener even while the database cannot be read.  When the
event loop or one commit stays stuck longer than ``--watchdog`` seconds
the process exits with status 70 (EX_SOFTWARE), and the service manager
restarts it (deploy/pbmserv.service has ``Restart=on-failure``).  Nothing
accepted is lost by that exit: a 250 is given only after the commit.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from server.core.config import Settings

if TYPE_CHECKING:
    from server.mail.inbound import GroupCommit
    from server.mail.listener import Listener

log = logging.getLogger("pbmserv.health")
EX_SOFTWARE = 70
#: A heartbeat older than this many intervals means the process is gone or frozen.
STALE_INTERVALS = 5


def health_path(settings: Settings) -> Path:
    """The heartbeat file of the server for these settings: its working directory, one per listener."""
    key = hashlib.sha256(f"{settings.database_url}|{settings.listen}".encode()).hexdigest()[:12]
    return Path(f".pbmserv-health-{key}.json")


@dataclass
class Health:
    """One heartbeat: what the watchdog saw (wall-clock times, so another process can judge its age)."""

    pid: int
    written: float
    interval: float
    #: Seconds the event loop has not answered a ping (0: it answers).
    listener_stuck: float = 0.0
    store_alive: bool = True
    #: Seconds the store thread has been inside one commit (0: idle or quick).
    store_busy: float = 0.0
    store_restarts: int = 0
    store_error: str | None = None
    #: Seconds every commit of the store thread has failed (0: the last one worked).
    store_failing: float = 0.0

    def problems(self, watchdog: float) -> list[str]:
        out = []
        slow = max(self.interval * 2, 5.0)
        slow = min(slow, watchdog) if watchdog else slow
        if self.listener_stuck >= slow:
            out.append(f"the listener's event loop has not answered for {self.listener_stuck:.0f} s")
        if not self.store_alive:
            out.append("the store thread is dead")
        if self.store_busy >= slow:
            out.append(f"the store thread has been in one commit for {self.store_busy:.0f} s")
        if self.store_failing >= slow:
            out.append(f"every commit of the store thread has failed for {self.store_failing:.0f} s "
                       "(mail is answered 451)")
        if watchdog and (self.listener_stuck >= watchdog or self.store_busy >= watchdog):
            out.append(f"past the watchdog's {watchdog:g} s: exiting for the service manager to restart")
        return out


def describe(settings: Settings, now: float | None = None) -> list[str]:
    """``status``'s lines about the running server (read from the heartbeat file)."""
    path = health_path(settings)
    try:
        health = Health(**json.loads(path.read_text()))
    except FileNotFoundError:
        return [f"listener:          no heartbeat here ({path} in {os.getcwd()}); is serve running from this "
                "directory with the same --database-url and --listen?"]
    except (OSError, ValueError, TypeError) as exc:
        return [f"listener:          unreadable heartbeat {path}: {exc}"]
    now = time.time() if now is None else now
    age = now - health.written
    lines = []
    if age > health.interval * STALE_INTERVALS:
        lines.append(f"listener:          STUCK or stopped: pid {health.pid}'s last heartbeat was {age:.0f} s ago")
    problems = health.problems(settings.watchdog_seconds)
    if problems:
        lines += [f"listener:          STUCK: {p}" for p in problems]
    elif not lines:
        lines.append(f"listener:          ok (pid {health.pid}, heartbeat {age:.0f} s ago)")
    if health.store_restarts:
        lines.append(f"store thread:      restarted {health.store_restarts} times")
    if health.store_error:
        lines.append(f"last store error:  {health.store_error}")
    return lines


class Watchdog:
    """The thread that pings the listener and the store thread, writes the heartbeat, and exits when stuck."""

    def __init__(self, settings: Settings, listener: Listener, store: GroupCommit, interval: float = 1.0) -> None:
        self.settings = settings
        self.listener = listener
        self.store = store
        self.interval = interval
        self.path = health_path(settings)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="pbmserv-watchdog", daemon=True)
        self.unanswered_since: float | None = None
        self.pending: object | None = None

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.thread.is_alive():  # serve stops a server whose start failed, too
            self.thread.join(timeout=5)
            self.path.unlink(missing_ok=True)

    def check(self) -> Health:
        now = time.monotonic()
        pending = self.pending
        if pending is None or pending.done():  # type: ignore[attr-defined]
            self.unanswered_since = None
            self.pending = self._ping()
        elif self.unanswered_since is None:
            self.unanswered_since = now
        busy_since = self.store.busy_since
        failing_since = self.store.failing_since
        alive = self.store.alive
        if not alive:  # restarted now rather than by the next message; reported dead this once
            self.store.ensure_thread()
        return Health(pid=os.getpid(), written=time.time(), interval=self.interval,
                      listener_stuck=0.0 if self.unanswered_since is None else now - self.unanswered_since,
                      store_alive=alive, store_busy=0.0 if busy_since is None else now - busy_since,
                      store_restarts=self.store.restarts, store_error=self.store.last_error,
                      store_failing=0.0 if failing_since is None else now - failing_since)

    def _ping(self) -> object | None:
        loop = getattr(self.listener, "loop", None)
        if loop is None or loop.is_closed():
            return None

        async def pong() -> None:
            return None

        return asyncio.run_coroutine_threadsafe(pong(), loop)

    def _run(self) -> None:
        unwritable = False
        while not self.stopping.wait(self.interval):
            try:
                health = self.check()
            except Exception:
                log.exception("watchdog error")
                continue
            try:
                self._write(health)
            except OSError as exc:  # a read-only working directory: said once, the watchdog goes on
                if not unwritable:
                    log.error("cannot write the heartbeat file %s: %s; status will not see it", self.path, exc)
                unwritable = True
            limit = self.settings.watchdog_seconds
            if limit and (health.listener_stuck >= limit or health.store_busy >= limit):
                for problem in health.problems(limit):
                    log.critical("watchdog: %s", problem)
                logging.shutdown()
                os._exit(EX_SOFTWARE)

    def _write(self, health: Health) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(asdict(health)))
        os.replace(tmp, self.path)
