"""Real SMTP on loopback for the tests: a relay sink, a client, free ports."""

from __future__ import annotations

import smtplib
import socket
import threading
import time
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    raw: bytes

    @property
    def message(self) -> EmailMessage:
        return BytesParser(policy=policy.default).parsebytes(self.raw)  # type: ignore[return-value]

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def text(self) -> str:
        return self.message.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]


@dataclass
class SinkHandler:
    """Collects what the relay receives; can be told to refuse the next N with a code."""

    messages: list[Received] = field(default_factory=list)
    fail_next: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        with self.lock:
            if self.fail_next:
                return self.fail_next.pop(0)
            self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


class Sink:
    """A relay (smarthost) on loopback: the real aiosmtpd, collecting mail."""

    def __init__(self) -> None:
        self.handler = SinkHandler()
        self.port = free_port()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)

    def start(self) -> Sink:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    @property
    def messages(self) -> list[Received]:
        with self.handler.lock:
            return list(self.handler.messages)

    def clear(self) -> None:
        with self.handler.lock:
            self.handler.messages.clear()

    def wait_for(self, count: int, timeout: float = 15.0) -> list[Received]:
        """Wait until at least ``count`` mails arrived; fail the test if they do not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msgs = self.messages
            if len(msgs) >= count:
                return msgs
            time.sleep(0.02)
        raise AssertionError(f"expected {count} mails at the relay, got {len(self.messages)}: "
                             f"{[m.subject for m in self.messages]}")

    def to(self, address: str) -> list[Received]:
        return [m for m in self.messages if address in m.rcpt_tos]


def make_mail(sender: str, to: str, subject: str, body: str = "", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{time.monotonic_ns()}.{threading.get_ident()}@test.example>"
    for key, value in headers.items():
        msg[key.replace("_", "-")] = value
    msg.set_content(body or "\n")
    return msg


def send(port: int, msg: EmailMessage | bytes, sender: str = "", to: str = "pbmserv@localhost",
         envelope_from: str | None = None) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        # CRLF on the wire, as a real client sends it (smtplib leaves bytes alone).
        data = msg if isinstance(msg, bytes) else msg.as_bytes(policy=policy.SMTP)
        smtp.sendmail(envelope_from if envelope_from is not None else sender, [to], data)
