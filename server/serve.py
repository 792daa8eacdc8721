"""``pbmserv serve``: the listener plus the inbound worker and the delivery loop.

Three threads: aiosmtpd's event loop (stores mail), the worker (applies it)
and the deliverer (sends replies).  The listener wakes the worker as soon as
a message is stored; both loops also poll, because another host sharing the
database may have stored or queued something.
"""

from __future__ import annotations

import logging
import threading
import time

from server.config import Settings
from server.database import Database
from server.listener import InboundHandler, Listener
from server.outbox import Deliverer
from server.worker import Worker

log = logging.getLogger("pbmserv.serve")


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
    def __init__(self, settings: Settings, db: Database | None = None) -> None:
        self.settings = settings
        self.db = db or Database(settings.database_url, settings.busy_timeout)
        self.db.upgrade()
        self.stopping = threading.Event()
        self.inbound_ready = threading.Event()
        self.outbox_ready = threading.Event()
        self.worker = Worker(self.db, settings)
        self.deliverer = Deliverer(self.db, settings)
        self.listener = Listener(InboundHandler(self.db, settings, self.inbound_ready), settings)
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        self.listener.start()
        for target, name in ((self._work_loop, "pbmserv-worker"), (self._deliver_loop, "pbmserv-deliver")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self.threads.append(thread)
        host, port = self.settings.listen_hostport
        log.info("listening on %s:%d (%s), database %s", host, port, "LMTP" if self.settings.lmtp else "SMTP",
                 self.db.engine.url.render_as_string(hide_password=True))

    def stop(self) -> None:
        self.stopping.set()
        self.inbound_ready.set()
        self.outbox_ready.set()
        self.listener.stop()
        for thread in self.threads:
            thread.join(timeout=10)
        self.db.dispose()

    def _work_loop(self) -> None:
        errors = LoopErrors("worker loop")
        while not self.stopping.is_set():
            try:
                if self.worker.run_once():
                    self.outbox_ready.set()
                    errors.recovered()
                    continue
                errors.recovered()
            except Exception:
                errors.failed()
            self.inbound_ready.wait(self.settings.poll_interval)
            self.inbound_ready.clear()

    def _deliver_loop(self) -> None:
        errors = LoopErrors("delivery loop")
        while not self.stopping.is_set():
            try:
                if self.settings.relay and self.deliverer.run_once():
                    errors.recovered()
                    continue
                errors.recovered()
            except Exception:
                errors.failed()
            self.outbox_ready.wait(self.settings.poll_interval)
            self.outbox_ready.clear()
