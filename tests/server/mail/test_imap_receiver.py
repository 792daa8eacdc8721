"""The IMAP receiver against a real Dovecot: what becomes of mailbox messages, and outages.

Each test delivers mail into the club's mailbox as a provider's MX would
and watches both sides: the rows pbmserv stored and the folder as a second
IMAP client sees it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from email import policy

import pytest
from imapclient import IMAPClient
from sqlalchemy import select

from server.mail import credentials
from server.processes.cli_mail import imap_status
from server.store.model import ImapState, Inbound, utcnow
from tests.mailtools import make_mail
from tests.server.mail.conftest import CLUB, PASSWORD, MailboxRunning, start_mailbox_server
from tests.server.mail.dovecot import Dovecot
from tests.server.mail.submission import Submission

ALICE = "alice@example.org"


def client(dovecot: Dovecot) -> IMAPClient:
    c = IMAPClient("127.0.0.1", dovecot.imaps_port, ssl=True, ssl_context=credentials.tls_context())
    c.login("club", PASSWORD)
    return c


def folder(dovecot: Dovecot, name: str = "INBOX") -> dict[int, tuple[bytes, ...]]:
    """UID -> flags of every message in a folder, as a second client sees it."""
    with client(dovecot) as c:
        if not c.folder_exists(name):
            return {}
        c.select_folder(name, readonly=True)
        return {uid: data[b"FLAGS"] for uid, data in c.fetch(c.search(["ALL"]), [b"FLAGS"]).items()}


def command(subject: str, sender: str = ALICE) -> bytes:
    return make_mail(sender, CLUB, subject).as_bytes(policy=policy.SMTP)


def state(run: MailboxRunning) -> ImapState:
    """The receiver's row (a blank one before it first wrote)."""
    with run.db.transaction() as s:
        row = s.scalars(select(ImapState)).one_or_none()
        if row is None:
            return ImapState(mailbox="", state="", last_uid=0, stored=0)
        s.expunge(row)
        return row


def wait_for(check, timeout: float = 20.0, what: str = "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


@pytest.fixture
def server_with(sqlite_url: str, dovecot: Dovecot, submission: Submission, mailbox_env: None) -> Iterator:
    """Start a mailbox server with settings of the test's choosing (stopped afterwards)."""
    started: list[MailboxRunning] = []

    def start(**overrides: object) -> MailboxRunning:
        run = MailboxRunning(start_mailbox_server(sqlite_url, dovecot, submission, **overrides), submission, dovecot)
        started.append(run)
        return run

    yield start
    for run in started:
        run.server.stop()


def test_stored_mail_is_moved_to_the_folder_given(server_with) -> None:  # type: ignore[no-untyped-def]
    run = server_with(imap_done="move:pbmserv/done")
    out = run.mail(ALICE, "signup alice apple1")
    assert [m.rcpt_tos for m in out] == [[ALICE]]
    wait_for(lambda: not folder(run.dovecot), what="the INBOX to empty")
    # Written with "/", created with the server's own separator (Dovecot's maildir: ".").
    moved = folder(run.dovecot, "pbmserv.done")
    assert len(moved) == 1


def test_stored_mail_is_deleted_when_asked(server_with) -> None:  # type: ignore[no-untyped-def]
    run = server_with(imap_done="delete")
    run.mail(ALICE, "signup alice apple1")
    run.mail(ALICE, "help")
    wait_for(lambda: not folder(run.dovecot), what="the INBOX to empty")
    assert run.stored() == 2


def test_old_read_mail_is_not_replayed_and_unread_mail_is_taken(dovecot: Dovecot, server_with) -> None:  # type: ignore[no-untyped-def]
    # Before pbmserv ever looked: one message already read by someone, one not.
    dovecot.deliver("club", command("signup old oldpass1"), ALICE, CLUB)
    dovecot.deliver("club", command("signup alice apple1"), ALICE, CLUB)
    with client(dovecot) as c:
        c.select_folder("INBOX")
        first = min(c.search(["ALL"]))
        c.add_flags([first], [b"\\Seen"])
    run = server_with()
    run.wait_stored(1)
    run.quiesce()
    with run.db.transaction() as s:
        [raw] = s.scalars(select(Inbound.raw)).all()
    assert b"signup alice apple1" in raw
    assert [m.subject for m in run.sink.messages if "Welcome" in m.subject or "alice" in m.text]
    # From here on the UID bookkeeping counts, not \Seen: mail read in a mail client is still taken.
    dovecot.deliver("club", command("help"), ALICE, CLUB)
    with client(dovecot) as c:
        c.select_folder("INBOX")
        c.add_flags(c.search(["ALL"]), [b"\\Seen"])
    run.wait_stored(2)
    wait_for(lambda: state(run).last_uid == 3, what="the bookkeeping to reach UID 3")


def test_an_oversized_message_is_left_flagged_and_not_stored(server_with) -> None:  # type: ignore[no-untyped-def]
    run = server_with(max_size=4000)
    big = make_mail(ALICE, CLUB, "help", "x" * 5000).as_bytes(policy=policy.SMTP)
    run.dovecot.deliver("club", big, ALICE, CLUB)
    run.mail(ALICE, "signup alice apple1")  # handled after it: the big one did not block the folder
    assert run.stored() == 1
    flags = folder(run.dovecot)
    assert len(flags) == 2 and all(b"\\Seen" in f for f in flags.values())
    # The admin finds it by its keyword: refused, not stored.
    assert [b"$PbmservRefused" in f for f in flags.values()] == [True, False]
    assert state(run).last_uid == 2


def test_a_server_without_idle_is_polled(sqlite_url: str, submission: Submission, mailbox_env: None,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    plain = Dovecot(capabilities="IMAP4rev1 LITERAL+ UIDPLUS MOVE")
    plain.add_user("club", PASSWORD)
    plain.start()
    monkeypatch.setenv("SSL_CERT_FILE", str(plain.cert))
    server = start_mailbox_server(sqlite_url, plain, submission, imap_poll=0.3, relay=None)
    try:
        run = MailboxRunning(server, submission, plain)
        wait_for(lambda: state(run).state == "polling", what="the polling state")
        plain.deliver("club", command("help"), ALICE, CLUB)
        run.wait_stored(1, timeout=10)
    finally:
        server.stop()
        plain.close()


def test_dovecot_restarted_mid_idle(server_with) -> None:  # type: ignore[no-untyped-def]
    run = server_with()
    run.mail(ALICE, "signup alice apple1")
    assert state(run).state == "idle"
    run.dovecot.stop()
    wait_for(lambda: state(run).state == "disconnected", what="the receiver to notice")
    wait_for(lambda: "connection refused" in (state(run).last_error or ""), what="the refused reconnection")
    with run.db.transaction() as s:
        shown = imap_status(s, utcnow())
    assert shown[0].startswith(f"imap:              {run.dovecot.url('club').replace('/INBOX', '')}")
    assert " DISCONNECTED for " in shown[0] and "1 stored" in shown[0]
    assert shown[1].startswith("last imap error (") and shown[1].endswith(": connection refused")
    run.dovecot.start()
    # Mail that arrives after the restart is taken once the receiver is back (backoff at most 1 s here).
    out = run.mail(ALICE, "help")
    assert [m.rcpt_tos for m in out] == [[ALICE]]
    assert state(run).state == "idle"
    assert run.stored() == 2
    assert run.server.imap is not None
    run.server.imap.stop()  # what Server.stop does first
    assert state(run).state == "stopped"


def test_a_throttled_message_waits_in_the_folder_and_blocks_only_the_bookkeeping(server_with) -> None:  # type: ignore[no-untyped-def]
    run = server_with(rate_limit=1)
    run.mail(ALICE, "signup alice apple1")
    # alice's second mail this hour is over the limit: over SMTP a 450; here it stays unflagged.
    run.dovecot.deliver("club", command("help"), ALICE, CLUB)
    run.mail("bob@example.org", "signup bob banana2")  # later mail is not held up behind it
    assert run.stored() == 2
    flags = folder(run.dovecot)
    assert [b"$Pbmserv" in f for f in flags.values()] == [True, False, True]
    # The bookkeeping (written with the count, after the look) stops before the waiting message,
    # so it is looked at again.
    wait_for(lambda: state(run).stored == 2, what="the look's bookkeeping")
    assert state(run).last_uid == 1


def test_imap_with_starttls_on_port_143(dovecot: Dovecot, server_with) -> None:  # type: ignore[no-untyped-def]
    run = server_with(imap=dovecot.url("club", starttls=True), imap_done="delete")
    out = run.mail(ALICE, "signup alice apple1")
    assert [m.rcpt_tos for m in out] == [[ALICE]]
    assert state(run).mailbox == f"imap://club@127.0.0.1:{dovecot.imap_port}/INBOX"
    wait_for(lambda: not folder(dovecot), what="the INBOX to empty")
