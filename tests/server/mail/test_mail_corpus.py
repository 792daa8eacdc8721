"""The mail corpus (tests/mail_corpus): what real clients send, read right.

Each shape is parsed for its commands and comment, its HTML alternative is
read the same way, and every shape goes through the real listener: the move
or challenge it carries is played and the opponent sees the comment, and
nothing of the quote, the client's header block or the signature.
"""

from __future__ import annotations

from collections.abc import Iterator
from email import policy
from email.parser import BytesParser

import pytest

from server.mail.parse import html_to_text, normalise, parse_message, read_comment
from tests import mail_corpus
from tests.mailtools import Sink, send
from tests.server.conftest import ADDRESS, Running, start_server

OWN = {mail_corpus.SERVER}
#: Text from the corpus mails that is never the player's: quotes, client
#: header blocks, signatures and adverts.
JUNK = ("played G1", "banana2", "Sent from", "Get Outlook", "Original Message", "Alice Example",
        "Windows Live", "wrote:", "From: pbmserv", "Regards,\nAlice\n\n", "+---+", "Tel.", "https://")


@pytest.mark.parametrize("name", mail_corpus.names())
def test_corpus_mail_yields_its_commands_and_comment(name: str) -> None:
    case = mail_corpus.CASES[name]
    parsed = parse_message(mail_corpus.load(name), "alice@example.org", OWN)
    assert parsed.commands == case.commands
    assert parsed.comment == case.comment
    assert parsed.reply_to == "alice@example.org"
    assert parsed.no_reply_reason is None and not parsed.problems


@pytest.mark.parametrize("name", [n for n in mail_corpus.names() if b"text/html" in mail_corpus.load(n)
                                  and b"text/plain" in mail_corpus.load(n)])
def test_html_alternative_gives_the_same_comment(name: str) -> None:
    """Webmail that shows only the HTML part must not change what is read."""
    msg = BytesParser(policy=policy.default).parsebytes(mail_corpus.load(name))
    html = next(p for p in msg.walk() if p.get_content_type() == "text/html")
    comment = read_comment(normalise(html_to_text(html.get_content())))  # type: ignore[attr-defined]
    assert [line for line in comment.split("\n") if line] == \
        [line for line in mail_corpus.CASES[name].comment.split("\n") if line]


def test_loader_fills_sender_subject_and_command() -> None:
    raw = mail_corpus.load("iphone_body", sender="carol@example.net", body_command="help games")
    parsed = parse_message(raw, "carol@example.net", OWN)
    assert parsed.reply_to == "carol@example.net" and parsed.commands == ["help games"]
    raw = mail_corpus.load("android_outlook_base64", sender="bob@example.org", subject="tictactoe show 101")
    parsed = parse_message(raw, "bob@example.org", OWN)
    assert parsed.commands == ["tictactoe show 101"] and parsed.reply_to == "bob@example.org"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One server for the whole corpus (SQLite): each shape gets a board of its own."""
    sink = Sink().start()
    url = f"sqlite:///{tmp_path_factory.mktemp('corpus') / 'pbmserv.db'}"
    srv = start_server(url, sink)
    running = Running(srv, sink)
    running.mail("alice@example.org", "signup alice apple1")
    running.mail("bob@example.org", "signup bob banana2")
    yield running
    srv.stop()
    sink.stop()


def _send(server: Running, raw: bytes) -> list:  # type: ignore[type-arg]
    before = len(server.sink.messages)
    send(server.port, raw, sender="alice@example.org", to=ADDRESS)
    server.quiesce()
    return server.sink.messages[before:]


def _new_board(server: Running) -> int:
    mails = server.mail("alice@example.org", "warpandweft challenge alice bob -size=2")
    subject = next(m.subject for m in mails if "bob@example.org" in m.rcpt_tos)
    return int(subject.split()[5])  # New Warp and Weft Board N alice


@pytest.mark.parametrize("name", mail_corpus.names())
def test_corpus_mail_through_the_listener(server: Running, name: str) -> None:
    case = mail_corpus.CASES[name]
    if case.subject:
        number = _new_board(server)
        subject = case.subject.replace("Board 101", f"Board {number}")
        mails = _send(server, mail_corpus.load(name, subject=subject))
        to_bob = [m for m in mails if "bob@example.org" in m.rcpt_tos]
        assert [m.subject.replace(" **", "") for m in to_bob] == [f"Warp and Weft Board {number} bob"], [m.text for m in mails]
        text = to_bob[0].text
        assert "alice played C1." in text
    else:
        mails = _send(server, mail_corpus.load(name))
        to_bob = [m for m in mails if "bob@example.org" in m.rcpt_tos]
        assert len(to_bob) == 1 and to_bob[0].subject.startswith("New Warp and Weft Board ")
        text = to_bob[0].text
        to_alice = [m.text for m in mails if "alice@example.org" in m.rcpt_tos]
        assert to_alice and not any("Unknown command" in t or "Refused" in t for t in to_alice), to_alice
    text = text.replace("\r\n", "\n")
    if case.comment:
        # The comment, wrapped to the mail's width: the same words in the same order.
        lines = []
        for line in text.split("alice writes:\n", 1)[1].split("\n"):
            if line and not line.startswith("  "):
                break  # the comment block ends at the first line not indented under it
            lines.append(line)
        block = "\n".join(lines)
        assert block.split() == case.comment.split()
        assert all(len(line) <= 78 and line.startswith("  ") for line in block.splitlines() if line)
    else:
        assert "writes:" not in text
    for junk in JUNK:
        assert junk not in text.split("Players:")[-1], junk
