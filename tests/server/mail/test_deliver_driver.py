"""The deliverer's claim on the driver's connection, and smtplib's per-mail work made cheaper (issue 25, sixth session).

The claim, the "sent" marks and the look for due mail run as
``store.prepared`` plans them, in a Core transaction: no Session unless the hour's
sent mail is recounted (once a second).  The relay session is smtplib's with
two costs taken out (``relay._Cheaper``); the bytes on the wire are the same.
"""

from __future__ import annotations

import email.utils
import random
import smtplib
import string

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail import outbox, relay
from server.mail.replies import Mail, queue
from server.store.database import Database
from server.store.model import Outbox
from tests.mailtools import SinkHandler, free_port

ADDRESS = "pbmserv@games.test"


@pytest.fixture
def desk(db_url: str):  # type: ignore[no-untyped-def]
    handler = SinkHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    db = Database(db_url)
    db.upgrade()
    settings = Settings(database_url=db_url, addresses=[ADDRESS], relay=f"127.0.0.1:{controller.port}",
                        retry_base=60)
    try:
        yield db, settings, handler
    finally:
        controller.stop()
        db.dispose()


def queue_mails(db: Database, settings: Settings, *names: str) -> None:
    with db.transaction() as s:
        for name in names:
            queue(s, settings, Mail(to=[f"{name}@example.org"], subject=f"board for {name}", body=".dot\nYour move.\n"))


def test_a_claim_opens_no_session_between_recounts(desk) -> None:  # type: ignore[no-untyped-def]
    """The claim's transaction is a Core connection's; a Session only to recount the hour's sent mail."""
    db, settings, handler = desk
    deliverer = outbox.Deliverer(db, settings)
    begun: list[Session] = []

    def note(session: Session, *_: object) -> None:
        begun.append(session)

    event.listen(Session, "after_begin", note)
    try:
        queue_mails(db, settings, "alice", "bob")
        begun.clear()
        assert deliverer.run_once() == 2
        assert len(begun) == 1  # the first claim counts the hour's sent mail
        queue_mails(db, settings, "carol", "dave")
        begun.clear()
        assert deliverer.run_once() == 2
        assert begun == []  # within the second: no recount, no Session
    finally:
        event.remove(Session, "after_begin", note)
    deliverer.close()
    with db.transaction() as s:
        rows = s.execute(select(Outbox.status, Outbox.tries, Outbox.claimed_until, Outbox.sent_at)).all()
    assert [(status, tries, until) for status, tries, until, _ in rows] == [("sent", 1, None)] * 4
    assert all(sent is not None for *_, sent in rows)
    with handler.lock:
        got = sorted((tuple(m.rcpt_tos), m.raw) for m in handler.messages)
    assert [rcpts for rcpts, _ in got] == [(f"{n}@example.org",) for n in ("alice", "bob", "carol", "dave")]
    # Dot-stuffed on the wire and unstuffed by the relay: the body's line that starts with a period arrives whole.
    assert all(b"\r\n.dot\r\n" in content for _, content in got)


def test_a_strangers_pool_short_of_room_is_claimed_alone(desk) -> None:  # type: ignore[no-untyped-def]
    """Two pools, the strangers' with room for one: players' mail first, one stranger's, the rest waits."""
    db, settings, _ = desk
    settings.outbound_strangers_per_hour = 1
    with db.transaction() as s:
        for name, stranger in (("s1", True), ("p1", False), ("s2", True), ("p2", False)):
            s.add(Outbox(envelope_from=ADDRESS, recipients=[f"{name}@example.org"], message=b"x\r\n",
                         stranger=stranger))
    deliverer = outbox.Deliverer(db, settings)
    assert deliverer.run_once() == 3
    deliverer.close()
    with db.transaction() as s:
        left = s.execute(select(Outbox.recipients, Outbox.status).where(Outbox.status != "sent")).all()
    assert left == [(["s2@example.org"], "pending")]


class Wire:
    """A session that never connects: what it would send, and the answers a relay would give."""

    def __init__(self, cls: type[smtplib.SMTP]) -> None:
        self.smtp = cls()
        self.sent: list[bytes] = []
        self.smtp.send = lambda data: self.sent.append(data if isinstance(data, bytes) else data.encode())  # type: ignore[method-assign]
        self.smtp.getreply = lambda: (354, b"go") if self.sent[-1].startswith(b"data") else (250, b"ok")  # type: ignore[method-assign]
        self.smtp.ehlo_resp = b"ok"
        self.smtp.does_esmtp = True
        self.smtp.esmtp_features = {"size": "1000000", "8bitmime": ""}

    def sendmail(self, sender: str, recipients: list[str], message: bytes, options: tuple[str, ...] = ()) -> list[bytes]:
        self.sent.clear()
        self.smtp.sendmail(sender, recipients, message, mail_options=options)
        return list(self.sent)


def addresses(rng: random.Random) -> list[str]:
    atext = string.ascii_letters + string.digits + "!#$%&'*+-/=?^_`{|}~"
    out = ["", "<>", "a@b", "First Last <first@example.org>", '"quoted local"@example.org', "a..b@example.org",
           "user@[127.0.0.1]", "é@example.org", ".a@example.org", "a.@example.org"]
    for _ in range(1500):
        local = ".".join("".join(rng.choice(atext) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 3)))
        domain = ".".join("".join(rng.choice(string.ascii_lowercase + "-0") for _ in range(rng.randint(1, 5)))
                          for _ in range(rng.randint(1, 3)))
        out.append(f"{local}@{domain}")
    return out


def test_the_wire_is_smtplibs() -> None:
    """MAIL, RCPT and DATA bytes as smtplib sends them, for plain and odd addresses and dot-stuffing cases."""
    rng = random.Random(26)
    messages = [b"plain\r\n", b".starts with a dot\r\n", b"a\r\n.b\r\n..c\r\n", b"no end of line", b"", b"x\n.y\n",
                b".", b"\r\n.\r\n"]
    ours, theirs = Wire(relay.SMTP), Wire(smtplib.SMTP)
    for address in addresses(rng):
        message = rng.choice(messages)
        for options in ((), ("BODY=8BITMIME",), ("SMTPUTF8",)):
            try:
                mine = ours.sendmail(address, [address, "x@example.org"], message, options)
            except Exception as exc:  # the same refusal from both
                mine = [repr(exc).encode()]
            try:
                theirs_ = theirs.sendmail(address, [address, "x@example.org"], message, options)
            except Exception as exc:
                theirs_ = [repr(exc).encode()]
            assert mine == theirs_, (address, options)


def test_a_plain_address_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """smtplib parses each MAIL and RCPT address with the email package (7-8 us each); a plain one is not."""
    parsed: list[str] = []
    parse = email.utils.parseaddr
    monkeypatch.setattr(email.utils, "parseaddr", lambda a, *k: parsed.append(a) or parse(a, *k))
    wire = Wire(relay.SMTP)
    wire.sendmail("pbmserv@games.test", ["alice@example.org"], b"x\r\n")
    assert parsed == []
    wire.sendmail("Pbmserv <pbmserv@games.test>", ["alice@example.org"], b"x\r\n")
    assert parsed == ["Pbmserv <pbmserv@games.test>"]
