"""Issue 32, item 8: free accounts do not multiply the message cap.

Three fresh accounts delivered 120 ``message``s to one player in minutes:
the cap was per account, and accounts cost nothing.  Replayed (3 accounts
x 15 messages; 40 each with ``PBMSERV_ABUSE_FULL=1``): an account that has
not played reaches 5 players a day, and one player receives at most 30
messages a day from everyone.
"""

from __future__ import annotations

from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import mail, record, send, settle, size
from tests.mailtools import Sink

BOB = "bob@players.test"


def test_fresh_accounts_cannot_flood_a_player(start, sink: Sink) -> None:
    def setup(db) -> None:  # type: ignore[no-untyped-def]
        make_accounts(db, ["alice", "bob"])
        make_boards(db, [("alice", "bob")])
        make_accounts(db, ["m1", "m2", "m3"], addresses=lambda name: [f"{name}@attacker.test"])

    server, db = start(setup=setup)
    each = size(15, 40)
    for round_ in range(each):
        for name in ("m1", "m2", "m3"):
            sender = f"{name}@attacker.test"
            assert send(server.port, mail(sender, f"message {name} secret1 bob", f"spam {round_}"), sender)[0] == 250
    assert settle(db, timeout=120)
    to_bob = [m for m in sink.to(BOB) if "message from" in m.subject]
    record("32_8_fresh_account_messages", accounts=3, sent_each=each, bob_received=len(to_bob))
    assert len(to_bob) <= 15, len(to_bob)
