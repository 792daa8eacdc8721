"""A delivery batch records each mail sent as the relay accepts it (issue 32, item 15).

A real delivery process (``Deliverer.drain`` in a child interpreter) sends
a batch of five to a real aiosmtpd relay on loopback; the relay SIGKILLs it
while the third mail's DATA is in, before answering.  A new deliverer then
sends what is left (``drain``, not ``run_once``: a batch's rows are marked
sent by the next claim or once the deliverer is idle or stops, issue 25).  Recorded per mail (on SQLite in the journal beside the
database, which the new deliverer reads first), only the mail in flight goes
twice; marked per batch (the old way), the two already accepted went again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from aiosmtpd.controller import Controller
from sqlalchemy import func, select

from server.core.config import Settings
from server.mail.replies import Mail, queue
from server.store.database import Database
from server.store.model import Outbox
from tests.mailtools import free_port

ROOT = Path(__file__).resolve().parents[3]
ADDRESS = "pbmserv@games.test"

DELIVER_ONCE = """
import sys
sys.path.insert(0, {root!r})
from server.core.config import Settings
from server.mail.outbox import Deliverer
from server.store.database import Database
db = Database({url!r})
Deliverer(db, Settings(database_url={url!r}, addresses=[{address!r}], relay="127.0.0.1:{port}")).drain()
"""


class KillingRelay:
    """Counts every DATA by subject; SIGKILLs ``victim`` when the ``kill_at``-th DATA is in, unanswered."""

    def __init__(self, kill_at: int) -> None:
        self.kill_at = kill_at
        self.victim: int | None = None
        self.subjects: list[str] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        subject = next(line for line in envelope.original_content.decode().splitlines()
                       if line.startswith("Subject:"))
        with self.lock:
            self.subjects.append(subject)
            if len(self.subjects) == self.kill_at and self.victim is not None:
                os.kill(self.victim, signal.SIGKILL)
                self.victim = None
        return "250 OK"


def deliver(url: str, port: int, relay: KillingRelay) -> int:
    proc = subprocess.Popen([sys.executable, "-c", DELIVER_ONCE.format(root=str(ROOT), url=url, address=ADDRESS,
                                                                        port=port)])
    with relay.lock:
        relay.victim = proc.pid
    return proc.wait(timeout=120)


def test_a_killed_delivery_sends_again_only_the_mail_in_flight(db_url: str) -> None:
    sqlite_url = db_url  # on PostgreSQL each row is marked at once, on SQLite the journal records it
    db = Database(sqlite_url)
    db.upgrade()
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS])
    with db.transaction() as s:
        for n in range(1, 6):
            queue(s, settings, Mail(to=["alice@example.org"], subject=f"mail {n}", body=f"Mail number {n}.\n"))
    relay = KillingRelay(kill_at=3)
    controller = Controller(relay, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        assert deliver(sqlite_url, controller.port, relay) == -signal.SIGKILL
        journals = []
        with db.transaction() as s:
            marked = s.scalars(select(Outbox.id).where(Outbox.status == "sent").order_by(Outbox.id)).all()
        if db.is_sqlite:
            journals = list(Path(sqlite_url.removeprefix("sqlite:///")).parent.glob("*-pbmserv.sent.*"))
            assert [p.read_text().split() for p in journals] == [["1", "2"]]  # what the relay accepted
            assert marked == []
        else:
            assert marked == [1, 2]
        with db.transaction() as s:
            # The batch's lease would keep the rest for minutes: a restarted server's
            # deliverer takes them once it runs out, as here at once.
            s.execute(Outbox.__table__.update().values(claimed_until=None))
        assert deliver(sqlite_url, controller.port, relay) == 0
        with db.transaction() as s:
            assert s.scalar(select(func.count()).select_from(Outbox).where(Outbox.status == "sent")) == 5
        assert not any(p.exists() for p in journals)
    finally:
        controller.stop()
        db.dispose()
    counts = {f"Subject: mail {n}": relay.subjects.count(f"Subject: mail {n}") for n in range(1, 6)}
    assert counts == {"Subject: mail 1": 1, "Subject: mail 2": 1, "Subject: mail 3": 2,
                      "Subject: mail 4": 1, "Subject: mail 5": 1}
