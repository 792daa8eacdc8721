"""Loop and abuse guards: what the server must never answer, and the limits that hold under abuse.

RFC 3834: bounces, auto-replies and list mail get no answer (each case
here, plus a control that *is* answered, so the test can fail).  A flooding
sender is throttled with 4xx, never dropped.  RCPT to anything but our
addresses is refused: not an open relay.  Size, line and command-count
limits hold.
"""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from datetime import timedelta
from email.policy import SMTP as SMTP_POLICY

import pytest
from sqlalchemy import select

from server.processes.serve import Server
from server.store.model import Inbound, Outbox
from tests.mailtools import Sink, make_mail, send
from tests.server.conftest import ADDRESS, Running, start_server


@pytest.fixture
def server(sqlite_url: str, sink: Sink) -> Iterator[Running]:
    srv = start_server(sqlite_url, sink, rate_limit=5, max_size=20_000)
    yield Running(srv, sink)
    srv.stop()


def statuses(running: Running) -> list[tuple[str, str | None]]:
    with running.db.transaction() as s:
        return [(r.status, r.error) for r in s.scalars(select(Inbound).order_by(Inbound.id))]


def outbox_count(running: Running) -> int:
    with running.db.transaction() as s:
        return len(s.scalars(select(Outbox.id)).all())


NO_REPLY = {
    "null sender (bounce)": ({"envelope_from": ""}, {}),
    "Auto-Submitted: auto-replied": ({}, {"Auto-Submitted": "auto-replied"}),
    "Auto-Submitted: auto-generated": ({}, {"Auto-Submitted": "auto-generated"}),
    "Precedence: bulk": ({}, {"Precedence": "bulk"}),
    "Precedence: junk": ({}, {"Precedence": "junk"}),
    "Precedence: list": ({}, {"Precedence": "list"}),
    "List-Id": ({}, {"List-Id": "<games.lists.example>"}),
    "List-Unsubscribe": ({}, {"List-Unsubscribe": "<mailto:leave@lists.example>"}),
    "List-Post": ({}, {"List-Post": "<mailto:games@lists.example>"}),
    "our own X-Loop": ({}, {"X-Loop": ADDRESS}),
    "From our own address": ({"sender": ADDRESS}, {}),
    "MAILER-DAEMON": ({"sender": "MAILER-DAEMON@mx.example"}, {}),
}


@pytest.mark.parametrize("case", list(NO_REPLY))
def test_never_answered(server: Running, case: str) -> None:
    envelope, headers = NO_REPLY[case]
    sender = envelope.get("sender", "robot@example.org")
    msg = make_mail(sender, ADDRESS, "help", **{k.replace("-", "_"): v for k, v in headers.items()})
    send(server.port, msg, sender=sender, to=ADDRESS, envelope_from=envelope.get("envelope_from"))
    server.quiesce()
    assert [s for s, _ in statuses(server)] == ["ignored"], statuses(server)
    assert outbox_count(server) == 0
    assert server.sink.messages == []


def test_control_ordinary_mail_and_auto_submitted_no_are_answered(server: Running) -> None:
    """The same mail without the markers (or with ``Auto-Submitted: no``) is answered."""
    assert len(server.mail("robot@example.org", "help")) == 1
    assert len(server.mail("robot@example.org", "help", Auto_Submitted="no")) == 1


def test_flood_is_throttled_with_4xx_and_nothing_accepted_is_lost(server: Running) -> None:
    accepted, throttled = [], []
    msgs = [make_mail("flood@example.org", ADDRESS, "tictactoe games") for _ in range(9)]
    for msg in msgs:
        try:
            send(server.port, msg, sender="flood@example.org", to=ADDRESS)
            accepted.append(msg)
        except smtplib.SMTPDataError as exc:
            assert exc.smtp_code == 450, exc
            throttled.append(msg)
    assert (len(accepted), len(throttled)) == (5, 4)
    # Another sender is not affected by the flood.
    server.quiesce()
    assert len(server.mail("calm@example.org", "tictactoe games")) == 1
    server.quiesce()
    assert [s for s, _ in statuses(server)] == ["done"] * 6
    # An hour later the sending MTA's retries of the throttled mail get in and are answered.
    with server.db.transaction() as s:
        for row in s.scalars(select(Inbound)):
            row.received_at -= timedelta(hours=1, minutes=1)
    for msg in throttled:
        send(server.port, msg, sender="flood@example.org", to=ADDRESS)
    server.quiesce()
    assert [s for s, _ in statuses(server)] == ["done"] * 10
    replies = server.sink.to("flood@example.org")
    assert {m.message["In-Reply-To"] for m in replies} == {m["Message-ID"] for m in msgs}


@pytest.mark.parametrize("rcpt", [
    "victim@elsewhere.example",
    "pbmserv@games.test.evil.example",
    "pbmserv%victim.example@games.test",
    "@games.test:victim@elsewhere.example",
    "postmaster@elsewhere.example",
])
def test_not_an_open_relay(server: Running, rcpt: str) -> None:
    with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as smtp:
        smtp.ehlo("client.example")
        smtp.mail("spammer@example.org")
        code, _ = smtp.rcpt(rcpt)
        assert code in (550, 553)  # 553: aiosmtpd refuses source routes as bad syntax
        code, _ = smtp.rcpt(ADDRESS)
        assert code == 250
        smtp.data(make_mail("spammer@example.org", rcpt, "help").as_bytes())
    server.quiesce()
    with server.db.transaction() as s:
        assert [r.rcpt_to for r in s.scalars(select(Inbound))] == [[ADDRESS]]
        rows = s.scalars(select(Outbox)).all()
    # The only mail that goes out answers the sender; nothing goes to the relay victim.
    assert [r.recipients for r in rows] == [["spammer@example.org"]]


def test_message_over_the_size_limit_gets_552_and_is_not_stored(server: Running) -> None:
    big = make_mail("big@example.org", ADDRESS, "help", "x" * 100 + ("y" * 70 + "\n") * 400)
    # Declared with ESMTP SIZE, it is refused at MAIL FROM ...
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:
        send(server.port, big, sender="big@example.org", to=ADDRESS)
    assert refused.value.smtp_code == 552
    # ... and undeclared, after DATA.
    with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as smtp:
        smtp.ehlo("client.example")
        smtp.mail("big@example.org")
        smtp.rcpt(ADDRESS)
        code, _ = smtp.data(big.as_bytes(policy=SMTP_POLICY))
    assert code == 552
    assert statuses(server) == []


def test_overlong_line_is_refused_and_not_stored(server: Running) -> None:
    raw = (f"From: long@example.org\r\nTo: {ADDRESS}\r\nSubject: help\r\nMessage-ID: <long@example.org>\r\n\r\n"
           + "z" * 5000 + "\r\n").encode()
    with pytest.raises(smtplib.SMTPDataError) as err:
        send(server.port, raw, sender="long@example.org", to=ADDRESS)
    assert err.value.smtp_code == 500 and b"too long" in err.value.smtp_error.lower()
    assert statuses(server) == []
    # The session is still usable and a proper mail still gets in.
    assert len(server.mail("long@example.org", "help")) == 1


def test_only_the_first_max_commands_of_a_mail_are_run(server: Running) -> None:
    # A player: replies to an address without an account are cut short (issue 20).
    server.mail("many@example.org", "signup many manypw1")
    body = "\n".join(f"tictactoe games #{i}" for i in range(80))
    replies = server.mail("many@example.org", "", body)
    assert len(replies) == 1
    text = replies[0].text
    assert "Results of your 50 commands" in text
    assert "Unprocessed: only the first 50 commands of a mail are read." in text
    with server.db.transaction() as s:
        row = s.scalars(select(Inbound).order_by(Inbound.id.desc())).first()
    assert row.commands_done == len(row.results) == 50


def test_huge_header_is_handled_not_crashed(server: Running) -> None:
    folded = "\r\n ".join(["word"] * 2500)
    raw = (f"From: hdr@example.org\r\nTo: {ADDRESS}\r\nSubject: help\r\nX-Huge: {folded}\r\n"
           f"Message-ID: <huge@example.org>\r\n\r\nbody\r\n").encode()
    send(server.port, raw, sender="hdr@example.org", to=ADDRESS)
    server.quiesce()
    assert [s for s, _ in statuses(server)] == ["done"]
    assert len(server.sink.messages) == 1


def test_server_fixture_is_a_real_server(server: Running) -> None:
    assert isinstance(server.server, Server)
