"""``pbmserv serve --imap``, ``check-mail`` and ``status`` as real processes (issue 31).

A SIGKILL between a message's commit and its flag loses nothing and
applies nothing twice; a wrong password or an untrusted certificate is one
line and exit 78; the password shows in no output, log line or ``ps``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from email import policy
from pathlib import Path

import pytest
from imapclient import IMAPClient
from sqlalchemy import select

from server.mail import credentials
from server.store.database import Database
from server.store.model import Inbound
from tests.mailtools import free_port, make_mail
from tests.server.mail.conftest import CLUB, PASSWORD
from tests.server.mail.dovecot import Dovecot
from tests.server.mail.submission import Submission

ROOT = Path(__file__).resolve().parents[3]
ALICE = "alice@example.org"


def pbmserv(db_url: str, *args: str, imap: str | None = None, relay: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "tests.server.mail.mailbox_launcher", "--database-url", db_url,
               "--address", CLUB, "--listen", f"127.0.0.1:{free_port()}", "--retry-base", "0.2",
               "--lease-seconds", "1"]
    if imap:
        command += ["--imap", imap]
    if relay:
        command += ["--relay", relay]
    return [*command, *args]


def environment(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run(command: list[str], **env: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environment(**env), timeout=60)


def flags(dovecot: Dovecot) -> dict[int, tuple[bytes, ...]]:
    with IMAPClient("127.0.0.1", dovecot.imaps_port, ssl=True, ssl_context=credentials.tls_context()) as c:
        c.login("club", PASSWORD)
        c.select_folder("INBOX", readonly=True)
        return {uid: d[b"FLAGS"] for uid, d in c.fetch(c.search(["ALL"]), [b"FLAGS"]).items()}


def statuses(db_url: str) -> list[str]:
    db = Database(db_url)
    try:
        with db.transaction() as s:
            return list(s.scalars(select(Inbound.status).order_by(Inbound.id)))
    finally:
        db.dispose()


def wait_for(check, timeout: float = 30.0, what: str = "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def signup(sender: str = ALICE, words: str = "signup alice apple1") -> bytes:
    return make_mail(sender, CLUB, words).as_bytes(policy=policy.SMTP)


@pytest.fixture
def club(dovecot: Dovecot, submission: Submission, mailbox_env: None) -> tuple[Dovecot, Submission]:
    return dovecot, submission


def test_sigkill_between_store_and_flag_loses_nothing_and_applies_once(
        sqlite_url: str, club: tuple[Dovecot, Submission], tmp_path: Path) -> None:
    dovecot, submission = club
    command = pbmserv(sqlite_url, "-v", "serve", "--workers", "0", imap=dovecot.url("club"), relay=submission.url())
    log = tmp_path / "serve.log"
    with log.open("ab") as out:
        doomed = subprocess.Popen(command, stdout=out, stderr=out, cwd=ROOT,
                                  env=environment(PBMSERV_TEST_DIE_BEFORE_FLAG="1"))
    try:
        wait_for(lambda: "watching" in log.read_text(), what=f"the receiver to start:\n{log.read_text()}")
        dovecot.deliver("club", signup(), ALICE, CLUB)
        assert doomed.wait(timeout=30) == -9, log.read_text()
    finally:
        if doomed.poll() is None:
            doomed.kill()
    # Stored, not flagged: the commit happened, the flag did not.
    assert len(statuses(sqlite_url)) == 1
    assert [b"$Pbmserv" in f for f in flags(dovecot).values()] == [False]

    with log.open("ab") as out:
        server = subprocess.Popen(command, stdout=out, stderr=out, cwd=ROOT, env=environment())
    try:
        wait_for(lambda: all(b"$Pbmserv" in f for f in flags(dovecot).values()), what="the flag")
        wait_for(lambda: "new" not in statuses(sqlite_url) and len(submission.messages) >= 1, what="the reply")
        time.sleep(0.5)  # a second reply, if there were one, would be on its way by now
        # The copy stored again after the restart is the duplicate: one welcome, one account.
        assert sorted(statuses(sqlite_url)) == ["done", "duplicate"]
        assert [m.rcpt_tos for m in submission.messages] == [[ALICE]]
        assert "Welcome" in submission.messages[0].subject or "alice" in submission.messages[0].text
        # And the server goes on: the next mail is answered.
        dovecot.deliver("club", signup("bob@example.org", "signup bob banana2"), "bob@example.org", CLUB)
        wait_for(lambda: len(submission.messages) == 2, what="bob's welcome")
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert PASSWORD not in log.read_text()


def test_check_mail_says_what_works(sqlite_url: str, club: tuple[Dovecot, Submission]) -> None:
    dovecot, submission = club
    done = run(pbmserv(sqlite_url, "check-mail", imap=dovecot.url("club", starttls=True), relay=submission.url()))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"ok      IMAP imap://club@127.0.0.1:{dovecot.imap_port}/INBOX: connected (STARTTLS)")
    assert "IDLE" in lines[0]
    assert lines[1] == f"ok      relay {submission.url()}: connected (STARTTLS), logged in as club"
    assert PASSWORD not in done.stdout + done.stderr


def test_wrong_passwords_are_one_line_and_exit_78(sqlite_url: str, club: tuple[Dovecot, Submission]) -> None:
    dovecot, submission = club
    wrong = "not-the-password"
    checked = run(pbmserv(sqlite_url, "check-mail", imap=dovecot.url("club"), relay=submission.url()),
                  PBMSERV_IMAP_PASSWORD=wrong, PBMSERV_RELAY_PASSWORD=wrong)
    assert checked.returncode == 78
    assert [line.split(":")[0] for line in checked.stdout.splitlines()] == [
        "FAILED  IMAP imaps", "FAILED  relay smtp"]
    assert "login refused" in checked.stdout
    served = run(pbmserv(sqlite_url, "serve", imap=dovecot.url("club"), relay=submission.url()),
                 PBMSERV_IMAP_PASSWORD=wrong)
    assert served.returncode == 78
    assert served.stderr.splitlines() == [
        f"pbmserv: {dovecot.url('club').replace('/INBOX', '')}/INBOX: login refused "
        f"([AUTHENTICATIONFAILED] Authentication failed.)"], served.stderr
    for out in (checked, served):
        assert wrong not in out.stdout + out.stderr and PASSWORD not in out.stdout + out.stderr


def test_an_untrusted_certificate_is_one_line_and_exit_78(sqlite_url: str, club: tuple[Dovecot, Submission]) -> None:
    dovecot, submission = club
    # The throw-away certificate is trusted only through SSL_CERT_FILE: without it, the system store rules.
    served = run(pbmserv(sqlite_url, "serve", imap=dovecot.url("club"), relay=submission.url()), SSL_CERT_FILE=None)
    assert served.returncode == 78
    [line] = served.stderr.splitlines()
    assert line.startswith(f"pbmserv: {dovecot.url('club')}") and "certificate does not check out" in line
    assert "SSL_CERT_FILE" in line
    # The submission side checks the same way.
    checked = run(pbmserv(sqlite_url, "check-mail", relay=submission.url()), SSL_CERT_FILE=None)
    assert checked.returncode == 78
    assert checked.stdout.splitlines()[0].startswith(f"FAILED  relay {submission.url()}: the server's certificate "
                                                     f"does not check out")


def test_a_submission_login_without_a_password_stops_serve(sqlite_url: str, club: tuple[Dovecot, Submission]) -> None:
    _, submission = club
    done = run(pbmserv(sqlite_url, "serve", relay=submission.url()), PBMSERV_RELAY_PASSWORD=None)
    assert done.returncode == 78
    assert done.stderr.splitlines() == [
        f"pbmserv: {submission.url()}: no password; set PBMSERV_RELAY_PASSWORD or PBMSERV_RELAY_PASSWORD_FILE"]


def test_a_password_in_the_url_is_refused_and_not_shown(sqlite_url: str, club: tuple[Dovecot, Submission]) -> None:
    dovecot, _ = club
    url = f"imaps://club:{PASSWORD.replace(' ', '%20')}@127.0.0.1:{dovecot.imaps_port}/INBOX"
    done = run(pbmserv(sqlite_url, "serve", imap=url))
    assert done.returncode == 78
    assert "do not put the password in the URL" in done.stderr
    assert "horse" not in done.stderr


def test_secrets_appear_in_no_log_ps_or_status(sqlite_url: str, club: tuple[Dovecot, Submission],
                                               tmp_path: Path) -> None:
    dovecot, submission = club
    secret_file = tmp_path / "imap-password"
    secret_file.write_text(PASSWORD + "\n")
    secret_file.chmod(0o600)
    command = pbmserv(sqlite_url, "-vv", "serve", "--workers", "1", imap=dovecot.url("club"), relay=submission.url())
    log = tmp_path / "serve.log"
    with log.open("ab") as out:
        server = subprocess.Popen(command, stdout=out, stderr=out, cwd=ROOT,
                                  env=environment(PBMSERV_IMAP_PASSWORD=None, PBMSERV_IMAP_PASSWORD_FILE=str(secret_file)))
    try:
        wait_for(lambda: "watching" in log.read_text(), what=f"the receiver:\n{log.read_text()}")
        dovecot.deliver("club", signup(), ALICE, CLUB)
        wait_for(lambda: len(submission.messages) == 1, what="the welcome")
        ps = subprocess.run(["ps", "-eo", "args", "ww"], capture_output=True, text=True).stdout
        assert "--imap imaps://club@127.0.0.1" in ps and PASSWORD not in ps
        status = run(pbmserv(sqlite_url, "status"))
        assert status.returncode == 0
        [line] = [x for x in status.stdout.splitlines() if x.startswith("imap:")]
        assert f"{dovecot.url('club')} connected (IDLE) for" in line and "1 stored" in line
        assert PASSWORD not in status.stdout
    finally:
        server.terminate()
        server.wait(timeout=20)
    text = log.read_text()
    assert "signup alice ********" in text  # -vv did log the command, masked
    # No IMAP protocol lines (they would carry LOGIN and every player's mail), no password.
    assert " LOGIN " not in text and "BODY[]" not in text
    assert PASSWORD not in text and "apple1" not in text
