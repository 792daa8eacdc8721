"""The original's account words (issue 26, item 14): add, delete, echo."""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import User
from tests.server.conftest import Running

ALICE = "alice@example.org"


def test_add_keeps_the_addresses_and_confirms_the_new_one(sqlite_players: Running) -> None:
    new = sqlite_players.mail(ALICE, "add alice apple1 alice@work.example")
    to = {m.rcpt_tos[0]: m for m in new}
    assert "alice@example.org" in " ".join(to[ALICE].text.split())  # kept, not replaced
    assert "alice@work.example" in to and "confirm" in to["alice@work.example"].subject
    with sqlite_players.db.transaction() as s:
        user = s.scalars(select(User).where(User.userid == "alice")).one()
        assert sorted(a.address for a in user.addresses) == ["alice@example.org", "alice@work.example"]


def test_delete_closes_the_account_like_signoff(sqlite_players: Running) -> None:
    (reply,) = sqlite_players.mail("bob@example.org", "delete bob banana2")
    assert "The account bob is closed." in reply.text
    with sqlite_players.db.transaction() as s:
        assert not s.scalars(select(User).where(User.userid == "bob")).one().active


def test_echo_answers_with_what_was_written(sqlite_players: Running) -> None:
    (reply,) = sqlite_players.mail("stranger@example.net", "echo hello there", "line one\nline two")
    text = reply.text.replace("\r\n", "\n")
    assert "pbmserv received your mail and read: hello there." in text
    assert "  line one\n  line two" in text
    (help_text,) = sqlite_players.mail(ALICE, "help commands")
    for word in ("add USERID PASSWORD ADDRESS", "ech[o] [TEXT", "signo[ff]|delete"):
        assert word in help_text.text, word
