"""SMTP clients that behave like a sending MTA, run in separate processes.

A client keeps each message until the server answers 250 for it: a refused
connection, a dropped connection or a 4xx means "try again", exactly what
Postfix does.  It reports which messages were accepted, so the test can hold
the server to every 250 it gave.
"""

from __future__ import annotations

import random
import smtplib
import time
from dataclasses import dataclass, field


@dataclass
class Job:
    """One message to deliver: envelope sender, the bytes, and its Message-ID."""

    mail_from: str
    message: bytes
    message_id: str
    rcpt: str = "pbmserv@games.test"


@dataclass
class Report:
    accepted: list[str] = field(default_factory=list)
    #: Message-IDs answered 5xx (permanent): a test decides whether that is right.
    refused: dict[str, str] = field(default_factory=dict)
    attempts: int = 0
    temp_failures: int = 0
    connection_failures: int = 0


def deliver(port: int, job: Job, report: Report, give_up: float, ports: list[int] | None = None) -> None:
    """Send ``job`` until a final answer (250 or 5xx), retrying like an MTA."""
    rng = random.Random(job.message_id)
    deadline = time.monotonic() + give_up
    while True:
        report.attempts += 1
        target = rng.choice(ports) if ports else port
        try:
            with smtplib.SMTP("127.0.0.1", target, timeout=20) as smtp:
                smtp.sendmail(job.mail_from, [job.rcpt], job.message)
            report.accepted.append(job.message_id)
            return
        except smtplib.SMTPResponseException as exc:
            if exc.smtp_code >= 500:
                report.refused[job.message_id] = f"{exc.smtp_code} {exc.smtp_error!r}"
                return
            report.temp_failures += 1
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            if min(codes) >= 500:
                report.refused[job.message_id] = str(exc.recipients)
                return
            report.temp_failures += 1
        except (OSError, smtplib.SMTPException):
            report.connection_failures += 1
        if time.monotonic() > deadline:
            raise AssertionError(f"{job.message_id}: no final answer after {give_up}s")
        time.sleep(rng.uniform(0.05, 0.25))


def run_jobs(port: int, jobs: list[Job], give_up: float = 120.0, ports: list[int] | None = None) -> Report:
    """Deliver ``jobs`` in order (what one client process does)."""
    report = Report()
    for job in jobs:
        deliver(port, job, report, give_up, ports)
    return report
