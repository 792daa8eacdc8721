"""Help for strangers and newcomers (issue 26, items 12 and 13).

``help`` and ``help commands`` are the server's own fixed text: an address
without an account (the very person who needs them) gets them whole, not
cut after ~25 lines like attacker-chosen text.  ``help tutorial`` walks
through a first game, and what it tells a newcomer to send works.
"""

from __future__ import annotations

import re

from server.store.resources import render_template
from tests.client_replies import gmail
from tests.server.accounts.test_reply_play import deliver, latest, reply_address
from tests.server.conftest import ADDRESS, Running

STRANGER = "newcomer@example.net"


def test_a_stranger_gets_the_whole_help_and_command_list(sqlite_players: Running) -> None:
    (plain,) = sqlite_players.mail(STRANGER, "help")
    text = plain.text.replace("\r\n", "\n")
    assert "cut" not in text and text.rstrip().endswith("show, or chat followed by the message.)")
    assert text.strip() == render_template("help.txt", address=ADDRESS).strip()
    (commands,) = sqlite_players.mail(STRANGER, "help commands")
    lines = commands.text.replace("\r\n", "\n").rstrip().split("\n")
    assert len(lines) > 60 and "cut" not in commands.text
    # every general and game command is there, the last ones included
    for word in ("signu[p]", "vac[ation]", "GAME chall[enge]", "GAME mov[e]", "GAME sho[w]", "GAME unsub[scribe]"):
        assert any(word in line for line in lines), word
    assert all(len(line) <= 78 for line in lines)


def test_a_strangers_error_is_still_short(sqlite_players: Running) -> None:
    """Text the sender chose is still clipped for an address without an account."""
    (reply,) = sqlite_players.mail(STRANGER, "fetch " + " ".join(f"word{i}" for i in range(200)))
    assert len(reply.text) < 1500 and "word150" not in reply.text


def test_help_tutorial_walks_a_newcomer_through_a_first_game(sqlite_players: Running) -> None:
    running = sqlite_players
    (tutorial,) = running.mail(STRANGER, "help tutorial")
    text = tutorial.text.replace("\r\n", "\n")
    assert all(len(line) <= 78 for line in text.split("\n"))
    for step in ("signup", "help games", "challenge", "board mail", "Reply", "FIRST line"):
        assert step in text, step
    # Do what it says: its commands, as written, make a board and play a move by Reply.
    sends = re.findall(r"Subject:  (.+?)(?:   |\n)", text)
    assert "signup alice secret42" in sends and "warpandweft challenge alice bob" in sends
    running.mail("carol@example.org", "signup carol secret42")
    (board,) = [m for m in running.mail("carol@example.org", "warpandweft challenge carol bob")
                if "carol@example.org" in m.rcpt_tos]
    assert board.subject == "New Warp and Weft Board 101 carol"
    assert "It is carol (Warp)'s move (move #1)" in board.text  # the line the tutorial quotes
    new = deliver(running, gmail(latest(running, "carol@example.org"), "carol@example.org", "C1"),
                  "carol@example.org", reply_address(board))
    assert any("carol played C1." in m.text for m in new)
