"""The original's ``broadcast`` and multi-board ``subscribe`` (issue 26, item 14).

By mail through the real server (aiosmtpd on loopback, SQLite file, relay
sink).  The broadcast itself is written as Outlook writes a new mail
(multipart/alternative, HTML part, a signature), since its body is the
message.  A broadcast reaches only those who opted in, one mail each, with
no address of anyone else in it; it has its own daily cap, configured on
the server.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from sqlalchemy import func, select

from server.store.model import GameFollow, Subscription
from tests.mailtools import Sink, send
from tests.server.conftest import ADDRESS, Running, start_server

ALICE, BOB, CAROL, DAVE = "alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def four(sqlite_url: str, sink: Sink) -> Iterator[Running]:
    """alice, bob, carol, dave signed up; the server allows two broadcasts a day (its setting)."""
    server = start_server(sqlite_url, sink, broadcasts_per_day=2)
    running = Running(server, sink)
    try:
        for name, pw in (("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3"), ("dave", "damson4")):
            running.mail(f"{name}@example.org", f"signup {name} {pw}")
        running.sink.clear()
        yield running
    finally:
        server.stop()


def outlook_new_mail(sender: str, subject: str, typed: str) -> EmailMessage:
    """A new mail from Outlook desktop: text and HTML alternatives, a signature under the text."""
    msg = EmailMessage()
    msg["From"] = f"Alice Liddell <{sender}>"
    msg["To"] = ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{abs(hash((sender, subject, typed)))}@EX01.example.org>"
    msg["X-Mailer"] = "Microsoft Outlook 16.0"
    text = f"{typed}\n\nCheers,\nWonderland Chess Club\n"
    msg.set_content(text, charset="utf-8", cte="quoted-printable")
    page = ("<html><body>" + "".join(f"<p class=MsoNormal>{html.escape(line) or '&nbsp;'}</p>"
                                     for line in text.split("\n")) + "</body></html>")
    msg.add_alternative(page, subtype="html", charset="utf-8", cte="quoted-printable")
    return msg


def broadcast(p: Running, typed: str) -> list:
    before = len(p.sink.messages)
    send(p.port, outlook_new_mail(ALICE, "broadcast alice apple1", typed), sender=ALICE, to=ADDRESS)
    p.quiesce()
    return p.sink.messages[before:]


def test_broadcast_reaches_only_who_opted_in_privately_and_is_capped(four: Running) -> None:
    p = four
    assert "carol now receives players' broadcasts" in flat(p.mail(CAROL, "broadcasts carol cherry3 on")[0].text)
    # "broadcast USERID PASSWORD on" is the same opt-in (the word players will try first).
    assert "dave now receives" in p.mail(DAVE, "broadcast dave damson4 on")[0].text
    # An account that has not played a move cannot broadcast (fresh sock puppets reach nobody).
    (refusal,) = broadcast(p, "Tournament next week!")
    assert refusal.rcpt_tos == [ALICE] and "has not played a move yet" in flat(refusal.text)
    assert "apple1" not in refusal.text
    p.mail(ALICE, "tictactoe challenge alice bob")
    p.mail(ALICE, "tictactoe move 101 alice apple1 b2")
    sent = broadcast(p, "Tournament next week! Join with: tournament join")
    by = {m.rcpt_tos[0]: m for m in sent}
    assert sorted(by) == [ALICE, CAROL, DAVE]  # bob never opted in; one mail per recipient
    assert all(len(m.rcpt_tos) == 1 for m in sent)
    assert "went to 2 players" in flat(by[ALICE].text)
    for who in (CAROL, DAVE):
        raw = by[who].raw.decode("utf-8", "replace").lower()
        assert by[who].subject == "pbmserv broadcast from alice"
        assert "alice writes:" in by[who].text and "Tournament next week!" in by[who].text
        assert "alice@example.org" not in raw and "liddell" not in raw  # only the sender's userid
        others = {CAROL, DAVE, BOB} - {who}
        assert not any(o in raw for o in others), who  # no other recipient's address
        assert "apple1" not in raw  # no password
        assert "broadcasts YOURID PASSWORD off" in flat(by[who].text)
    # carol opts out: the next broadcast (the second of today's two) goes to dave alone.
    p.mail(CAROL, "broadcasts carol cherry3 off")
    sent = broadcast(p, "Second notice")
    assert sorted(m.rcpt_tos[0] for m in sent) == [ALICE, DAVE]
    # The third of the day is refused, clearly, and nobody gets anything.
    (refusal,) = broadcast(p, "Third notice")
    assert refusal.rcpt_tos == [ALICE]
    assert "the limit of 2 broadcasts a day" in flat(refusal.text) and "nothing was sent" in flat(refusal.text)


def test_broadcast_to_nobody_counts_nothing_and_needs_a_body(four: Running) -> None:
    p = four
    p.mail(ALICE, "tictactoe challenge alice bob")
    p.mail(ALICE, "tictactoe move 101 alice apple1 b2")
    (nobody,) = broadcast(p, "Anyone there?")
    assert "Nobody has turned broadcasts on" in flat(nobody.text)
    p.mail(BOB, "broadcasts bob banana2 on")
    (empty,) = p.mail(ALICE, "broadcast alice apple1")
    assert "Nothing to send" in empty.text
    # The refusals spent none of the two a day.
    assert sorted(m.rcpt_tos[0] for m in broadcast(p, "one")) == [ALICE, BOB]
    assert sorted(m.rcpt_tos[0] for m in broadcast(p, "two")) == [ALICE, BOB]


def test_subscribe_several_boards_in_one_command_with_a_summary(four: Running) -> None:
    p = four
    p.mail(ALICE, "tictactoe challenge alice bob")
    p.mail(BOB, "tictactoe challenge bob alice")
    (reply,) = p.mail(CAROL, "Re: tictactoe subscribe carol cherry3 101 102 all")
    text = flat(reply.text)
    assert "carol now watches Tic-Tac-Toe Board 101, Tic-Tac-Toe Board 102" in text
    assert "carol now gets the mail of every new Tic-Tac-Toe board" in text
    assert "Subscriptions of carol: Watching: Tic-Tac-Toe Boards 101, 102 Every new board (all) of: Tic-Tac-Toe" \
        in text
    # A move on either board now reaches carol.
    moved = p.mail(ALICE, "tictactoe move 101 alice apple1 b2")
    assert CAROL in [m.rcpt_tos[0] for m in moved]
    # Some boards good, some not: each bad one is named; the good ones are done.
    p.mail(ALICE, "tictactoe challenge alice dave")
    (reply,) = p.mail(CAROL, "tictactoe subscribe carol cherry3 101 103 999")
    text = flat(reply.text)
    assert "carol now watches Tic-Tac-Toe Board 103" in text
    assert "carol already watches Tic-Tac-Toe Board 101" in text and "There is no Tic-Tac-Toe Board 999" in text
    assert "Watching: Tic-Tac-Toe Boards 101, 102, 103" in text
    # Nothing watchable at all: refused, nothing stored changes, the password masked.
    with p.db.transaction() as s:
        before = s.scalar(select(func.count()).select_from(Subscription))
    (reply,) = p.mail(ALICE, "tictactoe subscribe alice apple1 101 999")
    assert "Nothing was subscribed" in flat(reply.text) and "alice plays on Tic-Tac-Toe Board 101" in flat(reply.text)
    assert "tictactoe subscribe alice ******** 101 999" in reply.text and "apple1" not in reply.text
    with p.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Subscription)) == before
        assert s.scalar(select(func.count()).select_from(GameFollow)) == 1
    # No boards named: the summary alone.  The old one-board form answers with it too.
    (reply,) = p.mail(DAVE, "tictactoe subscribe dave damson4")
    assert "Watching: no board" in flat(reply.text) and "Every new board (all) of: no game" in flat(reply.text)
    (reply,) = p.mail(BOB, "tictactoe subscribe 103 bob banana2")
    assert "bob now watches Tic-Tac-Toe Board 103" in flat(reply.text)
    assert "Subscriptions of bob: Watching: Tic-Tac-Toe Board 103" in flat(reply.text)
    (reply,) = p.mail(CAROL, "tictactoe subscribe carol cherry3 1o2")
    assert "'1o2' is not a board number" in reply.text


def test_the_new_words_are_in_help_commands(four: Running) -> None:
    text = re.sub(r"(\w)\[(\w+)\]", r"\1\2", flat(four.mail(ALICE, "help commands")[0].text))
    for usage in ("broadcast USERID PASSWORD [on|off]", "broadcasts USERID PASSWORD on|off",
                  "coordinates USERID PASSWORD on|off", "| USERID PASSWORD all | USERID PASSWORD BOARD ..."):
        assert usage in text, usage
