"""The deliverer's relay session kept between batches, and its "sent" marks carried by the next claim (issue 25).

A real ``Deliverer`` on a real database sends to a real aiosmtpd relay on
loopback that counts its sessions.  A move's mails were one batch, and each
batch opened a session (connect, EHLO, QUIT) and took two write
transactions (the claim, then the "sent" mark): now batches share one session
until it has been idle for a few seconds, and on SQLite the rows the relay
took are marked by the next batch's claim (the journal keeps them safe
meanwhile), or on their own once nothing follows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import event, select

from server.core.config import Settings
from server.mail import outbox, relay
from server.mail.replies import Mail, queue
from server.store.database import Database
from server.store.model import Outbox
from tests.mailtools import Sink, SinkHandler, free_port, make_mail, send

ADDRESS = "pbmserv@games.test"


@dataclass
class CountingHandler(SinkHandler):
    """A relay sink that counts its sessions (one EHLO each) and can answer MAIL FROM with a 421 once."""

    sessions: int = 0
    refuse_next_mail: list[str] = field(default_factory=list)

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # type: ignore[no-untyped-def]
        with self.lock:
            self.sessions += 1
        session.host_name = hostname
        return responses

    async def handle_MAIL(self, server, session, envelope, address, mail_options):  # type: ignore[no-untyped-def]
        with self.lock:
            if self.refuse_next_mail:
                answer = self.refuse_next_mail.pop(0)
                server.transport.close()  # a 421 closes the session, as a relay's idle timeout does
                return answer
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"


@dataclass
class Desk:
    db: Database
    settings: Settings
    handler: CountingHandler
    controller: Controller

    def queue(self, *names: str) -> None:
        with self.db.transaction() as s:
            for name in names:
                queue(s, self.settings, Mail(to=[f"{name}@example.org"], subject=f"board for {name}",
                                             body="Your move.\n"))

    def statuses(self) -> list[tuple[str, int]]:
        """(status, tries) of every row, read without a write transaction (they are counted)."""
        query = select(Outbox.status, Outbox.tries).order_by(Outbox.id)
        return [tuple(row) for row in self.db.peek(lambda conn: conn.execute(query).all())]

    def at_relay(self) -> int:
        with self.handler.lock:
            return len(self.handler.messages)


@pytest.fixture
def desk(sqlite_url: str) -> Iterator[Desk]:
    handler = CountingHandler()
    # The relay drops a session idle for 0.3 s (aiosmtpd's timeout: it closes without a word).
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(), timeout=0.3)
    controller.start()
    db = Database(sqlite_url)
    db.upgrade()
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS], relay=f"127.0.0.1:{controller.port}",
                        poll_interval=0.2, retry_base=60)
    try:
        yield Desk(db, settings, handler, controller)
    finally:
        controller.stop()
        db.dispose()


def write_transactions(db: Database) -> list[int]:
    """A counter of write transactions (BEGIN IMMEDIATE) on ``db``, from now on."""
    count = [0]

    @event.listens_for(db.engine, "before_cursor_execute")
    def _count(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.startswith("BEGIN IMMEDIATE"):
            count[0] += 1

    return count


def test_batches_share_one_relay_session(desk: Desk) -> None:
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    for move in range(3):
        desk.queue(f"alice{move}", f"bob{move}")
        assert deliverer.run_once() == 2
    assert desk.at_relay() == 6
    assert desk.handler.sessions == 1  # was 3: a session per batch
    deliverer.close()


def test_a_session_idle_too_long_is_closed(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relay, "KEEP_OPEN", 0.05)
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    desk.queue("alice")
    assert deliverer.run_once() == 1
    assert deliverer._relay is not None and deliverer._relay.smtp is not None
    time.sleep(0.1)
    assert deliverer.run_once() == 0  # nothing due: the idle session is closed (QUIT)
    assert deliverer._relay.smtp is None


def test_a_session_the_relay_dropped_is_replaced(desk: Desk) -> None:
    """The relay hung up on the idle session: seen before MAIL FROM, the batch goes on a new one."""
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    desk.queue("alice")
    assert deliverer.run_once() == 1
    time.sleep(0.6)  # past the relay's 0.3 s, within our 5 s
    desk.queue("bob")
    assert deliverer.run_once() == 1
    assert desk.at_relay() == 2 and desk.handler.sessions == 2
    deliverer.close()
    assert desk.statuses() == [("sent", 1), ("sent", 1)]  # no failed try, no backoff


@pytest.mark.parametrize("how", ["hung up", "421"])
def test_a_session_lost_at_its_first_word_is_replaced_once(desk: Desk, monkeypatch: pytest.MonkeyPatch,
                                                           how: str) -> None:
    """The relay hangs up (or says 421 to MAIL FROM) just after the look at the socket: one new session, no try lost."""
    monkeypatch.setattr(relay, "_quiet", lambda smtp: smtp.sock is not None)  # the look misses it
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    desk.queue("alice")
    assert deliverer.run_once() == 1
    if how == "hung up":
        time.sleep(0.6)  # the relay's timeout closes the session
    else:
        desk.handler.refuse_next_mail.append("421 4.4.2 idle too long, closing")
    desk.queue("bob", "carol")
    assert deliverer.run_once() == 2
    assert desk.at_relay() == 3 and desk.handler.sessions == 2
    deliverer.close()
    assert desk.statuses() == [("sent", 1)] * 3


def test_a_batch_marks_the_last_one_sent_in_its_claim(desk: Desk) -> None:
    """Two moves: two write transactions, not four; the last batch is marked once nothing follows."""
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    writes = write_transactions(desk.db)
    desk.queue("alice", "bob")
    assert deliverer.run_once() == 2
    desk.queue("carol", "dave")
    assert deliverer.run_once() == 2
    assert writes[0] == 2 + 2  # the two queueings, the two claims (the second marked the first batch)
    assert desk.statuses() == [("sent", 1), ("sent", 1), ("pending", 0), ("pending", 0)]
    assert deliverer.run_once() == 0  # woken at once: nothing due, the last batch still young
    assert writes[0] == 4
    time.sleep(desk.settings.poll_interval / 2)
    assert deliverer.run_once() == 0
    assert writes[0] == 5 and desk.statuses() == [("sent", 1)] * 4
    assert desk.at_relay() == 4


def test_a_deliverer_gone_before_its_marks_sends_nothing_again(desk: Desk) -> None:
    """The rows a deliverer left unmarked are in its journal: the next one marks them, even past their lease."""
    first = outbox.Deliverer(desk.db, desk.settings)
    desk.queue("alice", "bob")
    assert first.run_once() == 2
    assert desk.statuses() == [("pending", 0), ("pending", 0)]
    with desk.db.transaction() as s:
        s.execute(Outbox.__table__.update().values(claimed_until=None))  # as if the lease had run out
    second = outbox.Deliverer(desk.db, desk.settings)  # reads the journal first
    assert desk.statuses() == [("sent", 1), ("sent", 1)]
    assert second.drain() == 0
    assert desk.at_relay() == 2


def test_drain_leaves_nothing_unmarked(desk: Desk) -> None:
    desk.queue("alice", "bob")
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    assert deliverer.drain() == 2
    assert desk.statuses() == [("sent", 1), ("sent", 1)]
    assert deliverer._relay is not None and deliverer._relay.smtp is None


def test_one_claim_takes_players_mail_before_strangers(desk: Desk) -> None:
    """Both pools in one SELECT when neither is short: still players' mail first (issue 32's pools)."""
    with desk.db.transaction() as s:
        for n, stranger in enumerate([True, True, False, False]):
            s.execute(Outbox.__table__.insert().values(envelope_from=ADDRESS, recipients=[f"r{n}@example.org"],
                                                       message=b"Subject: x\r\n\r\nx\r\n", status="pending",
                                                       stranger=stranger))
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    assert [job.id for job in deliverer.claim(limit=3)] == [3, 4, 1]
    desk.settings.outbound_strangers_per_hour = 2  # a short pool: one SELECT per pool, same order
    deliverer._room_counted = None
    assert [job.id for job in deliverer.claim(limit=3)] == [2]


def test_a_session_carries_a_bounded_number_of_mails(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """Some relays cap the mails of one session: a kept session is renewed after MAILS_PER_SESSION."""
    monkeypatch.setattr(relay, "MAILS_PER_SESSION", 4)
    deliverer = outbox.Deliverer(desk.db, desk.settings)
    for move in range(4):
        desk.queue(f"alice{move}", f"bob{move}")
        assert deliverer.run_once() == 2
    assert desk.handler.sessions == 2 and desk.at_relay() == 8
    deliverer.close()


@contextmanager
def serving(sqlite_url: str) -> Iterator[tuple[Sink, Callable[[], None]]]:
    """``pbmserv serve`` on ``sqlite_url`` with a relay sink, and a call that mails it ``help`` as alice.

    A long poll interval: nothing in it happens on a timer (the deliverer never idles long enough
    to mark a batch on its own, no loop looks for work but when woken)."""
    from server.processes.serve import Server

    sink = Sink().start()
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS], listen=f"127.0.0.1:{free_port()}",
                        relay=f"127.0.0.1:{sink.port}", poll_interval=30.0, address_proof="from")
    server = Server(settings)
    server.start()

    def help_mail() -> None:
        send(settings.listen_hostport[1], make_mail("alice@example.org", ADDRESS, "help"),
             sender="alice@example.org", to=ADDRESS)

    try:
        yield sink, help_mail
    finally:
        server.stop()
        sink.stop()


def test_a_server_stopped_after_a_batch_leaves_it_marked(sqlite_url: str) -> None:
    """``serve``'s delivery loop closes its deliverer when it stops: the last batch, carried in the
    journal until a next claim, is marked sent (with no idle pause before the stop to mark it)."""
    with serving(sqlite_url) as (sink, help_mail):
        help_mail()
        sink.wait_for(1)
    db = Database(sqlite_url)
    with db.transaction() as session:
        assert session.scalars(select(Outbox.status)).all() == ["sent"]
    db.dispose()


def test_a_batch_that_took_every_due_row_is_not_followed_by_another_look(sqlite_url: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve``'s delivery loop looks for due mail again at once only after a full batch: a reply
    costs one look ("anything due?") and one claim, and the next mail still goes out when it is
    queued (its worker wakes the loop)."""
    looks: list[bool] = []
    due = outbox.Deliverer._due
    monkeypatch.setattr(outbox.Deliverer, "_due", staticmethod(lambda conn: looks.append(due(conn)) or looks[-1]))
    with serving(sqlite_url) as (sink, help_mail):
        for count in (1, 2):
            looks.clear()
            help_mail()
            sink.wait_for(count)
            time.sleep(0.3)
            assert looks == [True], looks
