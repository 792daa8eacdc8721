"""The outbox: retries with backoff on 4xx and lost connections, gives up on 5xx; nothing is lost."""

from __future__ import annotations

import time

from sqlalchemy import select

from server.store.model import Inbound, Outbox
from tests.mailtools import Sink, make_mail, send
from tests.server.conftest import ADDRESS, Running


def wait_status(running: Running, status: str, timeout: float = 10) -> Outbox:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with running.db.transaction() as s:
            row = s.scalars(select(Outbox).order_by(Outbox.id.desc())).first()
            if row is not None and row.status == status:
                return row
        time.sleep(0.05)
    raise AssertionError(f"no outbox row reached {status}")


def test_temporary_failure_is_retried(running: Running) -> None:
    running.sink.handler.fail_next = ["451 4.3.0 try later", "421 4.3.0 busy"]
    send(running.port, make_mail("a@example.org", ADDRESS, "help"), sender="a@example.org", to=ADDRESS)
    got = running.sink.wait_for(1, timeout=20)
    assert got[0].subject == "pbmserv help"
    row = wait_status(running, "sent")
    assert row.tries == 3 and row.last_error is None


def test_permanent_failure_is_marked_failed(running: Running) -> None:
    running.sink.handler.fail_next = ["550 5.1.1 no such user"]
    send(running.port, make_mail("a@example.org", ADDRESS, "help"), sender="a@example.org", to=ADDRESS)
    row = wait_status(running, "failed")
    assert "550" in row.last_error and running.sink.messages == []


def test_relay_down_then_up(db_url: str) -> None:
    """Replies wait in the outbox while the relay is down, and go out once it is back."""
    from tests.server.conftest import start_server

    sink = Sink()
    server = start_server(db_url, sink)  # the sink is not started yet: connection refused
    try:
        send(server.settings.listen_hostport[1], make_mail("a@example.org", ADDRESS, "help"), sender="a@example.org",
             to=ADDRESS)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with server.db.transaction() as s:
                row = s.scalars(select(Outbox)).first()
                if row is not None and row.tries >= 1:
                    break
            time.sleep(0.05)
        assert row is not None and row.status == "pending" and "relay" in row.last_error
        sink.start()
        assert sink.wait_for(1, timeout=20)[0].subject == "pbmserv help"
    finally:
        server.stop()
        sink.stop()


def test_crashing_command_is_refused_and_its_sender_told(running: Running, caplog) -> None:  # type: ignore[no-untyped-def]
    """A bug in a plugin must not lose the mail: that line is refused, the sender told, the admin
    sees the traceback in the log (issue 32: it used to take three tries and set the mail aside)."""
    import logging

    import games
    from tests.tictactoe import TicTacToe

    class Broken(TicTacToe):
        name = "brokengame"
        aliases = ()
        title = "Broken Game"

        def start(self, options, players):  # type: ignore[no-untyped-def]
            raise RuntimeError("bug in the plugin")

    games.register(Broken())
    caplog.set_level(logging.ERROR)
    try:
        running.mail("alice@example.org", "signup alice apple1")
        running.mail("bob@example.org", "signup bob banana2")
        running.sink.clear()
        send(running.port, make_mail("alice@example.org", ADDRESS, "brokengame challenge alice bob"),
             sender="alice@example.org", to=ADDRESS)
        got = running.sink.wait_for(1, timeout=30)
        assert "Error" in got[0].subject and "met an error in the server (RuntimeError)" in got[0].text
        assert "bug in the plugin" not in got[0].text
        with running.db.transaction() as s:
            row = s.scalars(select(Inbound).order_by(Inbound.id.desc())).first()
            assert row.status == "done" and row.tries == 0
        assert any("bug in the plugin" in (r.exc_text or "") or "bug in the plugin" in str(r.exc_info)
                   for r in caplog.records)
    finally:
        games.unregister("brokengame")
