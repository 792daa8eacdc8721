"""Issue 32, item 2: masking a refused line must not be a password oracle.

The echo of a refused line once hid every word that matched the password
of a user the line named, checked with argon2 whatever the account's
lockout: ``vacation carol xxxx rose-11 tulip-77 daisy-22`` echoed
``... rose-11 ******** daisy-22`` to anyone, naming carol's password.  The
attack is replayed from another player's account and from a stranger who
forges carol's From with his own Reply-To; the three candidate words must
be echoed alike, and carol's vacation flag stays as it was.
"""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import User
from tests.abuse.conftest import make_accounts
from tests.abuse.harness import mail, record, send, settle
from tests.mailtools import Sink

CANDIDATES = ["rose-11", "tulip-77", "daisy-22"]
LINE = "vacation carol xxxx " + " ".join(CANDIDATES)


def setup(db) -> None:  # type: ignore[no-untyped-def]
    make_accounts(db, ["carol"], password="tulip-77")
    make_accounts(db, ["mallory"], addresses=lambda name: ["mallory@attacker.test"], password="secret1")


def echoed(text: str) -> list[str]:
    """How each candidate word came back in the echo of the line: shown, masked (or cut off: left out)."""
    [line] = [li for li in text.splitlines() if li.strip().startswith("vacation carol")]
    words = line.split()[3:6]
    return ["masked" if w == "********" else "shown" for w in words if w != "..."]


def test_refused_line_echo_reveals_no_password(start, sink: Sink) -> None:
    server, db = start(setup=setup)
    attempts = {
        "mallory@attacker.test": mail("mallory@attacker.test", LINE),
        # A forged From (carol's) with the attacker's Reply-To: the echo goes to the attacker.
        "drop@attacker.test": mail("carol@players.test", LINE, reply_to="drop@attacker.test"),
    }
    for message in attempts.values():
        assert send(server.port, message, "bounce@attacker.test")[0] == 250
    assert settle(db, timeout=60)
    seen = {}
    for to in attempts:
        [reply] = sink.to(to)
        text = reply.text
        assert "vacation carol" in text, text
        seen[to] = echoed(text)
    record("32_2_masking_oracle", echoes=seen)
    for to, words in seen.items():
        # Alike: either all three shown or all three hidden, so none stands out as the password.
        assert len(set(words)) <= 1, (to, words, sink.to(to)[0].text)
    with db.transaction() as s:
        assert s.scalars(select(User.vacation).where(User.userid == "carol")).one() is False
