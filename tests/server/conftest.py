"""A running pbmserv (listener, worker, deliverer) wired to a relay sink."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from server.core.config import Settings
from server.processes.serve import Server
from server.store.database import Database
from server.store.model import Inbound, Outbox
from tests.mailtools import Received, Sink, free_port, make_mail, send

ADDRESS = "pbmserv@games.test"


@pytest.fixture
def sink() -> Iterator[Sink]:
    s = Sink().start()
    yield s
    s.stop()


class Running:
    """The server under test and the ways a test talks to it."""

    def __init__(self, server: Server, sink: Sink) -> None:
        self.server = server
        self.sink = sink
        self.port = server.settings.listen_hostport[1]

    @property
    def db(self) -> Database:
        return self.server.db

    def quiesce(self, timeout: float = 20.0) -> None:
        """Wait until every stored message is handled and every reply delivered."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.db.transaction() as s:
                busy = s.scalar(select(func.count()).select_from(Inbound).where(Inbound.status == "new"))
                busy += s.scalar(select(func.count()).select_from(Outbox).where(Outbox.status == "pending"))
            if not busy:
                return
            time.sleep(0.02)
        raise AssertionError("the server did not settle")

    def mail(self, sender: str, subject: str, body: str = "", **headers: str) -> list[Received]:
        """Send one command mail, wait for the server to settle, return the new mails at the relay."""
        before = len(self.sink.messages)
        send(self.port, make_mail(sender, ADDRESS, subject, body, **headers), sender=sender, to=ADDRESS)
        self.quiesce()
        return self.sink.messages[before:]


def start_server(url: str, sink: Sink, **overrides: object) -> Server:
    settings = Settings(database_url=url, addresses=[ADDRESS], listen=f"127.0.0.1:{free_port()}",
                        relay=f"127.0.0.1:{sink.port}", poll_interval=0.05, retry_base=0.2,
                        # The test MTA is taken to reject forged From (tests/abuse/test_forged_from.py
                        # tests the default, a confirmation round trip for every new address).
                        address_proof="from")
    for key, value in overrides.items():
        setattr(settings, key, value)
    server = Server(settings)
    server.start()
    return server


@pytest.fixture
def running(db_url: str, sink: Sink) -> Iterator[Running]:
    server = start_server(db_url, sink)
    yield Running(server, sink)
    server.stop()


@pytest.fixture
def players(running: Running) -> Running:
    """alice and bob have signed up."""
    running.mail("alice@example.org", "signup alice apple1")
    running.mail("bob@example.org", "signup bob banana2")
    running.sink.clear()
    return running


@pytest.fixture
def sqlite_players(sqlite_url: str, sink: Sink) -> Iterator[Running]:
    """alice and bob signed up on a server over SQLite only (for the games' own by-mail tests)."""
    server = start_server(sqlite_url, sink)
    running = Running(server, sink)
    try:
        running.mail("alice@example.org", "signup alice apple1")
        running.mail("bob@example.org", "signup bob banana2")
        running.sink.clear()
        yield running
    finally:
        server.stop()
