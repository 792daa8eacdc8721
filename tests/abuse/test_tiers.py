"""Issue 32, item 6: only a fully valid reply token buys the "known" tier, as its owner's.

120 mails to a *revoked* token from rotating From addresses were all
queued as known and served before alice (35.5 s); and mail to a valid
token from rotating From addresses took one round-robin turn per From.

Replayed with 40 mails (120 with ``PBMSERV_ABUSE_FULL=1``) from rotating
strangers to bob's reply address, valid or revoked, then alice's ``show``.
The workers drain a flood faster than one SMTP client can send it, so the
queue is built before the server starts, through the listener's own store
function (``store_batch``: the classification under test); then the real
server handles it.  Alice's mail must be handled before all but a few of
the flood, and the revoked token's mail must be a stranger's.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.config import Settings
from server.mail import tokens
from server.mail.inbound import Arrival, store_batch
from server.store.model import Board, Inbound, User
from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import ADDRESS, mail, record, size, wait_for, wire

ALICE = "alice@players.test"
FLOOD = size(40, 120)


def queue_flood(db, revoked: bool) -> None:  # type: ignore[no-untyped-def]
    """Bob's reply address, FLOOD mails to it from rotating strangers, then alice's show: stored as the listener does."""
    make_accounts(db, ["alice", "bob"])
    make_boards(db, [("alice", "bob")])

    def issue(session) -> str:  # type: ignore[no-untyped-def]
        bob = session.scalars(select(User).where(User.userid == "bob")).one()
        board = session.scalars(select(Board)).one()
        token = tokens.issue(session, "reply", (bob.id, board.id, board.ply), bob.password_hash)
        if revoked:  # bob changed his password since: the token is revoked
            bob.password_hash = bob.password_hash + "x"
        return tokens.plus_address(ADDRESS, token)

    to = db.run(issue)
    arrivals = [Arrival(wire(mail(f"r{i}@rotating{i}.test", "", "help", to=to)), f"r{i}@rotating{i}.test", [to])
                for i in range(FLOOD)]
    arrivals.append(Arrival(wire(mail(ALICE, "tictactoe show 101")), ALICE, [ADDRESS]))
    results = store_batch(db, arrivals, settings=Settings(addresses=[ADDRESS]))
    assert all(isinstance(r, int) for r in results)


@pytest.mark.parametrize("revoked", [False, True], ids=["valid", "revoked"])
def test_token_tier_is_its_owners_and_only_while_valid(start, sink, revoked: bool) -> None:  # type: ignore[no-untyped-def]
    server, db = start("--unknown-per-minute", "30", setup=lambda db: queue_flood(db, revoked))
    def alice_done() -> bool:
        with db.transaction() as s:
            return s.scalars(select(Inbound.status).where(Inbound.sender == ALICE)).one() != "new"

    assert wait_for(alice_done, size(60, 180))
    with db.transaction() as s:
        rows = s.scalars(select(Inbound).order_by(Inbound.id)).all()
        *flood, alice = rows
        assert alice.sender == ALICE and alice.done_at is not None
        before = sum(1 for r in flood if r.done_at is not None and r.done_at < alice.done_at)
        known = sum(r.known for r in flood)
        keys = len({r.sender for r in flood})
    record("32_6_token_tier", revoked=revoked, flood=FLOOD, known=known, senders=keys, done_before_alice=before)
    if revoked:
        assert known == 0, f"{known} mails to a revoked token were queued as known"
    else:
        assert known == FLOOD and keys == 1, (known, keys)
    # Each worker process alternates between the flood's one sender and alice (valid), or serves
    # alice first (revoked: strangers come after known senders).
    assert before <= 4, f"{before} of {FLOOD} flood mails were handled before alice's"
