"""The listener's own session handling (issue 25): cheaper than aiosmtpd's, the same on the wire.

Each connection's protocol object is a copy of one built once (aiosmtpd's
``__init__`` scanned the handler and the class on every connection), and a
multi-line reply goes out in one write.  These tests check what the saving
must not cost: every connection has its own state and stores its own mail,
SMTP and LMTP alike, and the replies are the same lines.
"""

from __future__ import annotations

import asyncio
import inspect
import smtplib
import socket
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from server.core.config import Settings
from server.mail.listener import InboundHandler, Listener
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
