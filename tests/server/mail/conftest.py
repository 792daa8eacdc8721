"""A provider's mailbox for the IMAP tests: Dovecot (IMAP) and aiosmtpd (submission), both real.

The club's account ``club`` has the address ``club@games.test``; its
password reaches pbmserv only through ``PBMSERV_IMAP_PASSWORD`` and
``PBMSERV_RELAY_PASSWORD``, and the throw-away certificate is trusted
through ``SSL_CERT_FILE``, exactly as an admin would set them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from email import policy

import pytest
from sqlalchemy import func, select

from server.processes.serve import Server
from server.store.model import Inbound
from tests.mailtools import Received, make_mail
from tests.server.conftest import Running, start_server
from tests.server.mail.dovecot import Dovecot
from tests.server.mail.submission import Submission

CLUB = "club@games.test"
#: Spaces and a quote: a password that a careless log line or URL would mangle or show.
PASSWORD = "c0rrect horse's battery"


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    server = Dovecot()
    server.add_user("club", PASSWORD)
    try:
        yield server.start()
    finally:
        server.close()


@pytest.fixture
def submission(dovecot: Dovecot) -> Iterator[Submission]:
    server = Submission(dovecot.cert, dovecot.key, "club", PASSWORD)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def mailbox_env(monkeypatch: pytest.MonkeyPatch, dovecot: Dovecot) -> None:
    monkeypatch.setenv("PBMSERV_IMAP_PASSWORD", PASSWORD)
    monkeypatch.setenv("PBMSERV_RELAY_PASSWORD", PASSWORD)
    monkeypatch.setenv("SSL_CERT_FILE", str(dovecot.cert))


class MailboxRunning(Running):
    """A server that reads the club's mailbox and sends through the submission server."""

    def __init__(self, server: Server, submission: Submission, dovecot: Dovecot) -> None:
        super().__init__(server, submission)
        self.dovecot = dovecot

    def stored(self) -> int:
        with self.db.transaction() as s:
            return s.scalar(select(func.count()).select_from(Inbound)) or 0

    def wait_stored(self, count: int, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while self.stored() < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} stored messages, have {self.stored()}:\n"
                                     f"{self.dovecot.log()[-1500:]}")
            time.sleep(0.05)

    def deliver(self, raw: bytes, sender: str, to: str = CLUB) -> list[Received]:
        """The player's mail reaches the mailbox; the new mails at the submission server once settled."""
        before, stored = len(self.sink.messages), self.stored()
        self.dovecot.deliver("club", raw, sender, to)
        self.wait_stored(stored + 1)
        self.quiesce()
        return self.sink.messages[before:]

    def mail(self, sender: str, subject: str, body: str = "", **headers: str) -> list[Received]:
        return self.deliver(make_mail(sender, CLUB, subject, body, **headers).as_bytes(policy=policy.SMTP), sender)


def start_mailbox_server(url: str, dovecot: Dovecot, submission: Submission, **overrides: object) -> Server:
    settings: dict[str, object] = {"addresses": [CLUB], "imap": dovecot.url("club"), "relay": submission.url(),
                                   "imap_poll": 2.0, "imap_backoff_max": 1.0}
    settings.update(overrides)
    return start_server(url, submission, **settings)


@pytest.fixture
def mailbox_server(db_url: str, dovecot: Dovecot, submission: Submission,
                   mailbox_env: None) -> Iterator[MailboxRunning]:
    server = start_mailbox_server(db_url, dovecot, submission)
    yield MailboxRunning(server, submission, dovecot)
    server.stop()
