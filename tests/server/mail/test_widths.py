"""Every line of every reply fits in 78 columns (boards whose spec allows more aside)."""

from __future__ import annotations

import games
from tests.server.conftest import Running

WIDTH = 78


def test_replies_fit_in_78_columns(sqlite_players: Running) -> None:
    run = sqlite_players
    alice, bob = "alice@example.org", "bob@example.org"
    mails = []
    for line in ["help", "help commands", "help games", "warpandweft moev 101", "frobnicate all the things",
                 *(f"help {g.name}" for g in games.available() if g.name != "tictactoe")]:
        mails += run.mail(alice, line)
    mails += run.mail(alice, "warpandweft challenge alice bob -size=2",
                      "A very long paragraph as Thunderbird sends it with format=flowed, joined into one "
                      "line of well over a hundred columns, which must be wrapped for the opponent.")
    mails += run.mail(alice, "warpandweft move 101 alice apple1 C1#7")
    mails += run.mail(alice, "warpandweft move 101 alice apple1 C1#1")
    mails += run.mail(alice, "warpandweft move 101 alice apple1 C1#1")  # sent twice
    mails += run.mail(bob, "warpandweft move 101 bob banana2 " + "G1" * 60)  # one 120-column word
    mails += run.mail(alice, "warpandweft preview 101 G1 A3 E3")
    mails += run.mail(alice, "warpandweft preview new -size=2 C1 G1")
    mails += run.mail(bob, "warpandweft move 101 bob banana2 G1#2")
    mails += run.mail(alice, "warpandweft resign 101 alice apple1", "gg")
    for line in ["warpandweft standings", "warpandweft history", "warpandweft games all", "list",
                 "warpandweft show 101", "warpandweft show 101#1", "all show alice"]:
        mails += run.mail(alice, line)
    mails += run.mail(alice, "multiple", "warpandweft moev 101 alice apple1\nhelp games\n"
                      "warpandweft move 101 alice apple1 C1#9\n")
    assert len(mails) > 25
    for mail in mails:
        for line in mail.text.replace("\r\n", "\n").split("\n"):
            assert len(line) <= WIDTH, (mail.subject, len(line), line)
        assert len(mail.subject) <= WIDTH
