"""``pbmserv serve``: the listener plus the inbound worker and the delivery loop.

Three threads: aiosmtpd's event loop (stores mail), the worker (applies it)
and the deliverer (sends replies).  The listener wakes the worker as soon as
a message is stored; both loops also poll, because another host sharing the
database may have stored or queued something.
"""

from __future__ import annotations

import logging
import threading

from server.config import Settings
from server.database import Database
from server.listener import InboundHandler, Listener
from server.outbox import Deliverer
from server.worker import Worker

log = logging.getLogger("pbmserv.serve")


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
        while not self.stopping.is_set():
            try:
                if self.worker.run_once():
                    self.outbox_ready.set()
                    continue
            except Exception:
                log.exception("worker loop error")
            self.inbound_ready.wait(self.settings.poll_interval)
            self.inbound_ready.clear()

    def _deliver_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                if self.settings.relay and self.deliverer.run_once():
                    continue
            except Exception:
                log.exception("delivery loop error")
            self.outbox_ready.wait(self.settings.poll_interval)
            self.outbox_ready.clear()
