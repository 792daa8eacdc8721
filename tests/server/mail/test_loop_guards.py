"""Loop guards and the sender: mail that must not be answered, and where answers go."""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import Inbound
from tests import mail_corpus
from tests.mailtools import send
from tests.server.conftest import ADDRESS, Running


def _raw(shape: str, sender: str, subject: str, extra: str = "") -> bytes:
    raw = mail_corpus.load(shape, sender=sender, subject=subject, to=ADDRESS)
    return raw.replace(b"\r\n\r\n", b"\r\n" + extra.encode() + b"\r\n\r\n", 1) if extra else raw


def _send(run: Running, raw: bytes, envelope: str) -> list:  # type: ignore[type-arg]
    before = len(run.sink.messages)
    send(run.port, raw, envelope_from=envelope, to=ADDRESS)
    run.quiesce()
    return run.sink.messages[before:]


def _last_status(run: Running) -> tuple[str, str | None]:
    with run.db.transaction() as s:
        row = s.scalars(select(Inbound).order_by(Inbound.id.desc())).first()
        assert row is not None
        return row.status, row.error


def test_x_ack_no_is_not_answered(sqlite_players: Running) -> None:
    raw = _raw("gmail_top_posted", "alice@example.org", "help", "X-Ack: no")
    assert _send(sqlite_players, raw, "alice@example.org") == []
    assert _last_status(sqlite_players) == ("ignored", "X-Ack: no")


def test_our_own_from_with_another_envelope_sender_is_not_answered(sqlite_players: Running) -> None:
    """A forged or looped mail claiming to be from us must not start a ping-pong."""
    raw = _raw("outlook_desktop_reply", ADDRESS, "help")
    assert _send(sqlite_players, raw, "bounce-handler@lists.example.net") == []
    assert _last_status(sqlite_players) == ("ignored", "mail from our own address")


def test_answer_goes_to_the_from_address_not_the_envelope_sender(sqlite_players: Running) -> None:
    """A From with a display name and a different envelope sender (a list, a forwarder,
    SRS): the answer goes to the address in From, where the player reads mail."""
    raw = mail_corpus.load("apple_mail_reply", sender="alice@example.org", sender_name="Alice Q. Example",
                           subject="help games", to=ADDRESS)
    assert b'From: "Alice Q. Example" <alice@example.org>' in raw or b"From: Alice Q. Example <alice@example.org>" in raw
    mails = _send(sqlite_players, raw, "SRS0=abcd=XY=example.org=alice@forwarder.example.net")
    assert [m.rcpt_tos for m in mails] == [["alice@example.org"]]
    assert mails[0].message["To"] == "alice@example.org"
