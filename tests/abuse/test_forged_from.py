"""Issue 32, item 7: a forged From confirms nothing.

A signup sent with ``From: victim@...`` from the attacker's own server (the
envelope sender his) counted as proof that the victim owns the account's
address; the attacker then subscribed it to every board (15 mails and
rising).  Replayed against the default server: the victim's address stays
unconfirmed and gets the signup's answer and one confirmation mail, nothing
from the boards.  With ``--trust-authentication-results`` the front MTA's
``dmarc=pass`` proves a From at once, and a header from any other
authserv-id (the attacker can write one) proves nothing.
"""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import Address
from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import mail, record, send, settle
from tests.mailtools import Sink

ATTACKER = "bounces@attacker.test"
VICTIM = "victim@victims.test"
PLAYERS = ["bob", "dan", "eve", "fay", "gus", "hal"]


def setup(db) -> None:  # type: ignore[no-untyped-def]
    make_accounts(db, PLAYERS)
    make_boards(db, [("bob", "dan"), ("eve", "fay"), ("gus", "hal")])


def confirmed(db, address: str) -> bool | None:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        row = s.scalars(select(Address).where(Address.address == address)).first()
        return None if row is None else row.confirmed


def test_forged_from_signup_does_not_confirm_the_victim(start, sink: Sink) -> None:
    server, db = start("--address-proof", "token", setup=setup)
    assert send(server.port, mail(VICTIM, "signup mal pw1pw"), ATTACKER)[0] == 250
    assert settle(db)
    for number in (101, 102, 103):
        assert send(server.port, mail(ATTACKER, f"tictactoe subscribe {number} mal pw1pw"), ATTACKER)[0] == 250
    assert settle(db)
    for number, (first, _) in zip((101, 102, 103), [("bob", "dan"), ("eve", "fay"), ("gus", "hal")], strict=True):
        sender = f"{first}@players.test"
        assert send(server.port, mail(sender, f"tictactoe move {number} {first} secret1 a1"), sender)[0] == 250
    assert settle(db)
    to_victim = sink.to(VICTIM)
    record("32_7_forged_from", victim_mails=len(to_victim), subjects=[m.subject for m in to_victim],
           victim_confirmed=confirmed(db, VICTIM))
    assert confirmed(db, VICTIM) is False
    assert len(to_victim) <= 2, [m.subject for m in to_victim]
    assert not any("Board" in m.subject for m in to_victim), [m.subject for m in to_victim]
    # The victim can still say yes: a reply to the confirmation mail confirms the address.
    [confirmation] = [m for m in to_victim if "confirm" in m.subject]
    to = str(confirmation.message["Reply-To"])
    assert send(server.port, mail(VICTIM, "Re: " + confirmation.subject, "yes", to=to), VICTIM, to=to)[0] == 250
    assert settle(db)
    assert confirmed(db, VICTIM) is True


def test_the_trusted_front_mta_verdict_proves_a_from(start, sink: Sink) -> None:
    server, db = start("--address-proof", "token", "--trust-authentication-results", "mx.games.test", setup=setup)
    passed = mail("carol@players.test", "signup carol pw1pw",
                  authentication_results="mx.games.test; spf=pass smtp.mailfrom=players.test; "
                                         "dmarc=pass (p=reject) header.from=players.test")
    forged = mail(VICTIM, "signup mal pw1pw",
                  authentication_results="evil.attacker.test; dmarc=pass header.from=victims.test")
    wrong_domain = mail("ivy@players.test", "signup ivy pw1pw",
                        authentication_results="mx.games.test; dmarc=pass header.from=elsewhere.test")
    for message in (passed, forged, wrong_domain):
        assert send(server.port, message, ATTACKER)[0] == 250
    assert settle(db)
    states = [confirmed(db, a) for a in ("carol@players.test", VICTIM, "ivy@players.test")]
    record("32_7_authentication_results", confirmed=states)
    assert states == [True, False, False]
