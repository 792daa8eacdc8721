"""Edges of the mail path that mutation testing found unguarded (issue 18).

Each test goes the real way: smtplib to the listener, the worker, the
database, the relay sink.  The loop guard must hold for our address in the
From header alone and in the envelope alone; the From display name is not
the address; HTML text after a quoted ``<blockquote>`` is the player's own;
a ``multiple`` reply labels each refused command and counts exactly.
"""

from __future__ import annotations

from email.message import EmailMessage

from sqlalchemy import select

from server.store.model import Inbound
from tests.mailtools import make_mail, send
from tests.server.conftest import ADDRESS, Running


def last_inbound(running: Running) -> Inbound:
    with running.db.transaction() as s:
        return s.scalars(select(Inbound).order_by(Inbound.id.desc())).first()


def test_from_our_address_with_another_envelope_sender_is_not_answered(running: Running) -> None:
    # A spoofed or looped mail: the header says it is from us, the envelope not.
    send(running.port, make_mail(ADDRESS, ADDRESS, "help"), envelope_from="alice@example.org", to=ADDRESS)
    running.quiesce()
    assert running.sink.messages == []
    row = last_inbound(running)
    assert (row.status, row.error) == ("ignored", "mail from our own address")


def test_our_envelope_sender_with_another_from_is_not_answered(running: Running) -> None:
    msg = make_mail("alice@example.org", ADDRESS, "help")
    send(running.port, msg, envelope_from=ADDRESS.upper(), to=ADDRESS)
    running.quiesce()
    assert running.sink.messages == []
    assert last_inbound(running).error == "mail from our own address"


def test_the_from_display_name_is_not_the_address(running: Running) -> None:
    # Our address as a display name is harmless: the answer goes to the address.
    msg = make_mail(f'"{ADDRESS}" <alice@example.org>', ADDRESS, "help")
    send(running.port, msg, envelope_from="alice@example.org", to=ADDRESS)
    running.quiesce()
    assert [m.rcpt_tos for m in running.sink.messages] == [["alice@example.org"]]
    # ... and a friendly display name does not hide our own address.
    before = len(running.sink.messages)
    msg = make_mail(f'"Alice" <{ADDRESS}>', ADDRESS, "help")
    send(running.port, msg, envelope_from="alice@example.org", to=ADDRESS)
    running.quiesce()
    assert len(running.sink.messages) == before
    assert last_inbound(running).error == "mail from our own address"


def html_mail(sender: str, subject: str, html: str) -> EmailMessage:
    """An HTML-only mail, as some webmail clients send."""
    msg = make_mail(sender, ADDRESS, subject)
    msg.set_content(html, subtype="html")
    return msg


def test_html_text_after_a_blockquote_is_the_players_own(players: Running) -> None:
    html = (
        "<html><body><div>On Monday bob wrote:</div>"
        "<blockquote><div>old quoted words</div></blockquote>"
        "<div>Good luck, both of you!</div></body></html>"
    )
    msg = html_mail("carol@example.org", "tictactoe challenge alice bob", html)
    before = len(players.sink.messages)
    send(players.port, msg, sender="carol@example.org", to=ADDRESS)
    players.quiesce()
    board = next(m for m in players.sink.messages[before:] if m.rcpt_tos == ["alice@example.org"])
    # Not from a seated player's address: attributed to the address, not shown as a player's words (issue 20).
    assert "The challenge mail (from carol@example.org, not a player) writes:" in board.text
    assert "Good luck, both of you!" in board.text
    assert "old quoted words" not in board.text and "bob wrote" not in board.text


def test_html_commands_stop_at_a_blockquote(running: Running) -> None:
    html = "<html><body><p>help</p><blockquote><p>signup mallory pw1</p></blockquote><p>help</p></body></html>"
    msg = html_mail("alice@example.org", "multiple", html)
    before = len(running.sink.messages)
    send(running.port, msg, sender="alice@example.org", to=ADDRESS)
    running.quiesce()
    (reply,) = running.sink.messages[before:]
    assert reply.text.startswith("Results of your 1 commands (1 done, 0 refused):")
    assert "mallory" not in reply.text


def test_a_multiple_reply_labels_every_refused_command(players: Running) -> None:
    body = "frobnicate\ntictactoe show 101\nhelp\nend\n"
    (reply,) = players.mail("alice@example.org", "multiple", body)
    lines = reply.text.splitlines()
    assert lines[0] == "Results of your 3 commands (1 done, 2 refused):"
    assert lines[1] == ""
    assert lines[2:4] == ["> frobnicate", "Refused: " + lines[3].removeprefix("Refused: ")]
    assert lines[3].startswith("Refused: Unknown command 'frobnicate'")
    show = lines.index("> tictactoe show 101")  # a refusal may wrap over lines (78 columns)
    assert lines[show - 1] == "" and lines[show + 1].startswith("Refused: There is no Tic-Tac-Toe Board 101")
    helped = lines.index("> help")
    assert lines[helped - 1] == "" and not lines[helped + 1].startswith("Refused:")
    assert reply.subject == "pbmserv results"


def test_a_multiple_reply_with_nothing_done_is_an_error(players: Running) -> None:
    (reply,) = players.mail("alice@example.org", "multiple", "frobnicate\nfrobnicate again\n")
    assert reply.text.splitlines()[0] == "Results of your 2 commands (0 done, 2 refused):"
    assert reply.text.count("\nRefused: ") == 2
    assert reply.subject == "pbmserv Error"
