"""Issue 32, item 5: strangers cannot spend the players' outbound budget, nor flood one mailbox.

Rotating-From strangers once spent ``--outbound-per-hour`` and alice's
next board mails then waited behind hundreds of replies to strangers; and
sign-ups naming ``victim+NN@`` and dotted variants sent 33 confirmation
mails to one mailbox.  Replayed small (budgets scaled down by flags;
``PBMSERV_ABUSE_FULL=1`` for more mail): after the strangers' flood,
alice's reply is delivered at once; one mailbox gets one confirmation.
"""

from __future__ import annotations

import time

from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import mail, record, send, settle, size, wait_for
from tests.mailtools import Sink

ALICE = "alice@players.test"
BUDGET = 30
FLOOD = size(45, 200)


def test_players_mail_has_room_after_strangers_spent_theirs(start, sink: Sink) -> None:
    server, db = start("--outbound-per-hour", str(BUDGET), "--outbound-strangers-per-hour", str(BUDGET // 2),
                       "--unknown-per-minute", "6000", "--unknown-backlog", "1000",
                       setup=lambda db: (make_accounts(db, ["alice", "bob"]), make_boards(db, [("alice", "bob")])))
    for i in range(FLOOD):
        sender = f"s{i}@rotating{i}.test"
        assert send(server.port, mail(sender, "help"), sender)[0] == 250
    # Wait until the strangers' replies stopped going out (their pool, or the one budget, is spent).
    wait_for(lambda: len(sink.messages) >= BUDGET // 2, 60)
    time.sleep(2)
    strangers_sent = len(sink.messages)
    began = time.monotonic()
    assert send(server.port, mail(ALICE, "tictactoe move 101 alice secret1 a1"), ALICE)[0] == 250
    delivered = wait_for(lambda: bool(sink.to(ALICE)) and bool(sink.to("bob@players.test")), 20)
    took = time.monotonic() - began
    status = server.cli("status").stdout
    record("32_5_outbound_pools", flood=FLOOD, strangers_sent=strangers_sent, alice_delivered=delivered,
           alice_s=round(took, 2), status=[line for line in status.splitlines() if "sent" in line or "strangers" in line])
    assert delivered, f"alice's move mails waited: {strangers_sent} replies to strangers spent the budget"
    assert strangers_sent <= BUDGET // 2
    assert "to strangers:" in status and "ALERT" in status, status


def test_one_mailbox_gets_one_confirmation(start, sink: Sink) -> None:
    server, db = start("--address-proof", "token")
    variants = [f"victim+{i}@victims.test" for i in range(size(6, 33))] + ["vic.tim@victims.test", "Victim@victims.test"]
    for i in range(0, len(variants), 3):
        sender = f"signup{i}@rotating{i}.test"
        line = f"signup joe{i} pw1pw{i} " + " ".join(variants[i:i + 3])
        assert send(server.port, mail(sender, line), sender)[0] == 250
    assert settle(db, timeout=60)
    to_victim = [m for m in sink.messages if any("victims.test" in r for r in m.rcpt_tos)]
    record("32_5_confirmations_per_mailbox", variants=len(variants), confirmations=len(to_victim))
    assert len(to_victim) == 1, [m.rcpt_tos for m in to_victim]
