"""A whole game played through a provider's mailbox (issue 31).

Players' mails reach the club's mailbox on a real Dovecot the way a
provider's MX delivers them; pbmserv reads it over IMAPS with IDLE and
answers through a real submission server (aiosmtpd with STARTTLS and AUTH).
"""

from __future__ import annotations

import re

from imapclient import IMAPClient

from server.mail import credentials
from tests.client_replies import gmail, iphone
from tests.mailtools import Received
from tests.server.mail.conftest import CLUB, PASSWORD, MailboxRunning

ALICE, BOB = "alice@example.org", "bob@example.org"
TOKEN_ADDRESS = re.compile(r"^club\+([a-z2-7]{20,})@games\.test$")


def latest(running: MailboxRunning, address: str) -> Received:
    return [m for m in running.sink.messages if address in m.rcpt_tos and "Reply-To" in m.message][-1]


def folder(running: MailboxRunning, name: str = "INBOX") -> dict[int, tuple[bytes, ...]]:
    """UID -> flags of every message in a folder of the club's mailbox, read by a second client."""
    with IMAPClient("127.0.0.1", running.dovecot.imaps_port, ssl=True, ssl_context=credentials.tls_context()) as c:
        c.login("club", PASSWORD)
        c.select_folder(name, readonly=True)
        return {uid: data[b"FLAGS"] for uid, data in c.fetch(c.search(["ALL"]), [b"FLAGS"]).items()}


def test_a_whole_game_through_the_mailbox(mailbox_server: MailboxRunning) -> None:
    run = mailbox_server
    welcome = run.mail(ALICE, "signup alice apple1")
    assert [m.rcpt_tos for m in welcome] == [[ALICE]]
    run.mail(BOB, "signup bob banana2")
    new = run.mail(ALICE, "tictactoe challenge alice bob", "Good luck!")
    assert sorted(m.rcpt_tos[0] for m in new) == [ALICE, BOB]
    # Replies leave through the submission server, logged in, over TLS, from the club's address.
    assert run.sink.sessions and all(s == ("club", True) for s in run.sink.sessions)
    assert all(m.mail_from == CLUB and m.message["From"].addresses[0].addr_spec == CLUB for m in new)

    # Every move a plain Reply to the board mail's reply address (club+TOKEN@games.test):
    # it reaches the mailbox with Delivered-To naming that address, as a provider's MX writes it.
    moves = [(ALICE, "b2", gmail), (BOB, "a1", iphone), (ALICE, "b1", gmail), (BOB, "c1", iphone),
             (ALICE, "b3", gmail)]
    for player, square, client in moves:
        board = latest(run, player)
        to = str(board.message["Reply-To"])
        assert TOKEN_ADDRESS.match(to), to
        out = run.deliver(client(board, player, f"move {square}"), player, to)
        assert out, f"no answer to {player}'s {square}"
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 Finished"}
    assert "Game over: alice (X) wins (three in a row)." in out[0].text

    # Every message was flagged after its commit: seen, and marked as ours.
    flags = folder(run)
    assert len(flags) == 8
    assert all(b"\\Seen" in f and b"$Pbmserv" in f for f in flags.values()), flags
    for m in run.sink.messages:
        assert max(len(line) for line in m.raw.decode().splitlines()) <= 78
