"""The listener's own session handling (issue 25): cheaper than aiosmtpd's, the same on the wire.

Each connection's protocol object is a copy of one built once (aiosmtpd's
``__init__`` scanned the handler and the class on every connection), a plain
address is read without the email package's header parser, and a multi-line
reply goes out in one write.  These tests check what the saving
must not cost: every connection has its own state and stores its own mail,
SMTP and LMTP alike, and the replies are the same lines.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import smtplib
import socket
from collections.abc import Iterator

import aiosmtpd.smtp
import pytest
from aiosmtpd.smtp import SMTP
from sqlalchemy import select

from server.core.config import Settings
from server.mail.listener import _PLAIN_PATH, GatedSMTP, InboundHandler, Listener
from server.store.database import Database
from server.store.model import Inbound
from tests.mailtools import free_port, make_mail

ADDRESS = "pbmserv@games.test"


@pytest.fixture(params=[False, True], ids=["smtp", "lmtp"])
def listener(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[Listener]:
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS], listen=f"127.0.0.1:{free_port()}",
                        lmtp=request.param)
    db = Database(sqlite_url)
    db.upgrade()
    listener = Listener(InboundHandler(db, settings), settings)
    listener.start()
    try:
        yield listener
    finally:
        listener.stop()
        listener.handler.close()
        db.dispose()


def client(listener: Listener) -> smtplib.SMTP:
    port = listener.settings.listen_hostport[1]
    return smtplib.LMTP("127.0.0.1", port) if listener.lmtp else smtplib.SMTP("127.0.0.1", port)


def test_connections_share_the_scan_not_their_state(listener: Listener, monkeypatch: pytest.MonkeyPatch) -> None:
    scans: list[object] = []
    real = inspect.getmembers
    monkeypatch.setattr(inspect, "getmembers", lambda obj, *a: scans.append(obj) or real(obj, *a))
    for i in range(4):
        with client(listener) as smtp:
            smtp.ehlo_or_helo_if_needed()
            # A transaction left open on one connection must not leak into the next.
            if i % 2:
                smtp.mail(f"half{i}@example.org")
                smtp.rcpt(ADDRESS)
                continue
            assert smtp.sendmail(f"p{i}@example.org", [f"pbmserv+t{i}@games.test"],
                                 make_mail(f"p{i}@example.org", ADDRESS, f"help {i}").as_bytes()) == {}
    # aiosmtpd scans the protocol object and the handler once per object it builds: here once, at start
    # (the controller's own first connection), not twice per connection.
    assert scans == []
    with listener.handler.db.transaction() as s:
        rows = s.execute(select(Inbound.mail_from, Inbound.rcpt_to).order_by(Inbound.id)).all()
    assert [tuple(r) for r in rows] == [("p0@example.org", ["pbmserv+t0@games.test"]),
                                        ("p2@example.org", ["pbmserv+t2@games.test"])]


def test_a_multi_line_reply_is_one_write_with_the_same_lines(listener: Listener,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[bytes] = []
    real = asyncio.StreamWriter.write
    monkeypatch.setattr(asyncio.StreamWriter, "write", lambda self, data: writes.append(data) or real(self, data))
    port = listener.settings.listen_hostport[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        reader = conn.makefile("rb")
        assert reader.readline().startswith(b"220 ")
        conn.sendall(b"LHLO client.test\r\n" if listener.lmtp else b"EHLO client.test\r\n")
        lines = [reader.readline()]
        while lines[-1][3:4] == b"-":
            lines.append(reader.readline())
        conn.sendall(b"QUIT\r\n")
        assert reader.readline().startswith(b"221 ")
    assert [line[:4] for line in lines] == [b"250-"] * (len(lines) - 1) + [b"250 "]
    assert b"250-SIZE 1048576\r\n" in lines and b"250-SMTPUTF8\r\n" in lines and lines[-1] == b"250 HELP\r\n"
    # Greeting, the whole EHLO reply, the goodbye: one write each.
    assert writes == [writes[0], b"".join(lines), writes[-1]], writes


def _paths(count: int) -> list[str]:
    """MAIL/RCPT arguments: mostly plain ones with parameters, the rest near misses of every kind."""
    rng = random.Random(25)
    plain = ["a", "p1s0", "pbmserv+3f2a9c", "o'neil", "x.y", "Z_9"]
    odd = [".", "..", "-", "é", '"q"', "(c)", "[1.2.3.4]", " ", "\t", "@", ">", "<", "\\", "\r", "\n", "\x00"]
    params = ["", "", " SIZE=1234", " BODY=8BITMIME SMTPUTF8", "  SIZE=1 ", "\t(c) SIZE=1", " X=(", " )", " é",
              "SIZE=1", " (c)"]

    def some(words: list[str], extra: list[str]) -> str:
        return "".join(rng.choice(words if rng.random() < 0.85 else extra) for _ in range(rng.randint(1, 3)))

    out = ["<p1s0@clients.test>", "<pbmserv+3f2a9c81d0e4@bench.test> SIZE=900", "<>", "", "<a@b.>", "<A.B@C-D.E>"]
    for _ in range(count):
        local, domain = some(plain, odd), some(["games", ".test", "x1", "-"], ["[1.2.3.4]", "é", " ", ".", "(c)"])
        out.append(f"{rng.choice(['<'] * 8 + ['', ' <'])}{local}@{domain}{rng.choice(['>'] * 8 + ['', '>>'])}"
                   f"{rng.choice(params)}")
    return out


def test_a_path_is_read_as_aiosmtpd_reads_it_and_a_plain_one_without_its_parser(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.new_event_loop()
    try:
        ours = GatedSMTP(InboundHandler.__new__(InboundHandler), hostname="x", loop=loop)
        theirs = SMTP(object(), hostname="x", loop=loop)
        paths = _paths(3000)
        for arg in paths:
            assert ours._getaddr(arg) == theirs._getaddr(arg), arg
        assert sum(_PLAIN_PATH.fullmatch(arg) is not None for arg in paths) > 300  # the fast path was compared
        parsed: list[str] = []
        real = aiosmtpd.smtp.get_angle_addr
        monkeypatch.setattr(aiosmtpd.smtp, "get_angle_addr", lambda value: parsed.append(value) or real(value))
        assert ours._getaddr("<p1s0@clients.test> SIZE=900") == ("p1s0@clients.test", "SIZE=900")
        assert ours._getaddr("<pbmserv+3f2a9c81d0e4@bench.test>") == ("pbmserv+3f2a9c81d0e4@bench.test", "")
        assert parsed == []
        quoted = '<"q"@games.test>'
        assert ours._getaddr(quoted) == theirs._getaddr(quoted)
        assert parsed == [quoted, quoted]
    finally:
        loop.close()


def test_an_unchecked_aiosmtpd_release_builds_each_connection_anew(listener: Listener,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy renews what aiosmtpd 1.4's ``__init__`` makes per object; another release may make
    more, so with it every connection gets a protocol object built in full (and mail still flows)."""
    import server.mail.listener as listener_module

    monkeypatch.setattr(listener_module, "COPYABLE", False)
    monkeypatch.setattr(listener, "_template", None)  # as if started with that release
    scans: list[object] = []
    real = inspect.getmembers
    monkeypatch.setattr(inspect, "getmembers", lambda obj, *a: scans.append(obj) or real(obj, *a))
    for i in range(3):
        with client(listener) as smtp:
            smtp.sendmail("alice@example.org", [ADDRESS], make_mail("alice@example.org", ADDRESS, f"s{i}").as_bytes())
    assert len([o for o in scans if isinstance(o, SMTP)]) == 3  # one scan of the protocol object a connection
