"""The attacker's bench: a real ``pbmserv serve`` process, a relay sink, and figures.

Every abuse test starts the real server as its own operating-system process
(through tests/abuse/launcher.py), attacks it over SMTP on loopback the way
a stranger on the Internet could, and records what it cost: worker CPU
seconds and peak memory read from /proc, recipients reached at the relay,
an honest player's latency.  ``PBMSERV_ABUSE_FULL=1`` runs the attacks at
the sizes of issue 20; the default sizes keep the suite near a minute.
``PBMSERV_ABUSE_REPORT=FILE`` appends each test's figures to FILE as JSON
lines (the before/after table of the issue is made from it).
"""

from __future__ import annotations

import json
import os
import smtplib
import subprocess
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from server.store.database import Database
from server.store.model import Inbound, Outbox
from tests.reliability.serverproc import ServerProcess, env

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "pbmserv@games.test"
FULL = os.environ.get("PBMSERV_ABUSE_FULL") == "1"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def size(default: int, full: int) -> int:
    """The attack's size: bounded by default, the issue's with PBMSERV_ABUSE_FULL=1."""
    return full if FULL else default


def record(test: str, **figures: Any) -> None:
    """Print the figures and append them to $PBMSERV_ABUSE_REPORT (JSON lines)."""
    line = json.dumps({"test": test, "full": FULL, **figures}, sort_keys=True, default=str)
    print(line)
    report = os.environ.get("PBMSERV_ABUSE_REPORT")
    if report:
        with open(report, "a") as out:
            out.write(line + "\n")


def known_flags(flags: tuple[str, ...]) -> list[str]:
    """The ``--name value`` pairs this checkout's CLI knows (so the same attack runs on an older tree)."""
    from server.processes.cli import main

    known = {opt for param in main.params for opt in param.opts}
    out: list[str] = []
    for name, value in zip(flags[::2], flags[1::2], strict=True):
        if name in known:
            out += [name, value]
    return out


class Pbmserv(ServerProcess):
    """``pbmserv serve`` as a child process, restartable (as systemd would), with our launcher and limits."""

    def __init__(self, url: str, port: int, relay_port: int, log_path: Path, *flags: str,
                 nofile: int | None = None) -> None:
        super().__init__(url, port, relay_port, log_path, *flags)
        self.nofile = nofile

    @property
    def url(self) -> str:
        return self.database_url

    def args(self, *command: str) -> list[str]:
        base = ["--database-url", self.url, "--address", ADDRESS, "--relay", f"127.0.0.1:{self.relay_port}",
                "--listen", f"127.0.0.1:{self.port}", "--retry-base", "0.2", "--lease-seconds", "2", "-v",
                *known_flags(("--address-proof", "from"))]
        return [sys.executable, "-m", "tests.abuse.launcher", *base, *known_flags(self.extra), *command]

    def cli(self, *command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """One other ``pbmserv`` command (status, deliver, ...) on the same database."""
        return subprocess.run(self.args(*command), capture_output=True, text=True, cwd=ROOT, env=env(),
                              timeout=timeout)

    def _limits(self) -> None:
        if self.nofile is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def start(self, timeout: float = 40.0) -> None:
        """Start and wait until it listens, or until it dies at once (a crash-looping mail)."""
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(self.args("serve"), stdout=log, stderr=log, cwd=ROOT, env=env(),
                                     preexec_fn=self._limits)
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return
            try:
                with smtplib.SMTP("127.0.0.1", self.port, timeout=5) as smtp:
                    smtp.noop()
                return
            except (OSError, smtplib.SMTPException):
                time.sleep(0.05)
        raise AssertionError(f"pbmserv serve did not listen on {self.port}:\n{self.log()[-3000:]}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def cpu_seconds(self) -> float:
        """User + system CPU the server has used so far, its worker processes included."""
        total = 0.0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat.parent.name == str(self.pid) or fields[1] == str(self.pid):
                total += (int(fields[11]) + int(fields[12])) / CLK_TCK
        return total

    def peak_rss_mb(self) -> float:
        """The process's peak resident memory (VmHWM)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0


def mail(sender: str, subject: str, body: str = "", to: str = ADDRESS, **headers: str) -> EmailMessage:
    """A mail as a client writes it (Message-ID, Date, plain UTF-8 text)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid("abuse", domain="clients.test")
    msg["Date"] = "Tue, 24 Nov 2026 12:00:00 +0000"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body or "\n")
    return msg


def wire(message: EmailMessage) -> bytes:
    """The message as a client puts it on the wire (CRLF line ends)."""
    return message.as_bytes(policy=SMTP_POLICY)


def send(port: int, message: EmailMessage | bytes, envelope_from: str, to: str = ADDRESS,
         timeout: float = 120) -> tuple[int, str]:
    """SMTP on loopback; the final code and text (250, 450, 552, ...), never raising on a refusal."""
    raw = message if isinstance(message, bytes) else wire(message)
    with smtplib.SMTP("127.0.0.1", port, timeout=timeout) as smtp:
        code, text = smtp.ehlo("client.test")
        code, text = smtp.mail(envelope_from)
        if code != 250:
            return code, text.decode(errors="replace")
        code, text = smtp.rcpt(to)
        if code != 250:
            return code, text.decode(errors="replace")
        code, text = smtp.data(raw)
        return code, text.decode(errors="replace")


def wait_for(condition: Callable[[], bool], timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def pending(db: Database) -> int:
    with db.transaction() as s:
        busy = s.scalar(select(func.count()).select_from(Inbound).where(Inbound.status == "new")) or 0
        busy += s.scalar(select(func.count()).select_from(Outbox).where(Outbox.status == "pending")) or 0
    return busy


def settle(db: Database, timeout: float = 60) -> bool:
    """Wait until every stored mail is handled and every reply sent; False on timeout."""
    return wait_for(lambda: pending(db) == 0, timeout, 0.1)


def inbound_rows(db: Database) -> list[tuple[int, str, int, str | None]]:
    with db.transaction() as s:
        return [(r.id, r.status, r.tries, r.error) for r in s.scalars(select(Inbound).order_by(Inbound.id))]
