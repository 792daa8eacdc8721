"""Item 14's smaller traps: canonical move text, TriMac's -game, Weave & Dungeon's help."""

from __future__ import annotations

import re

import games
from tests.server.conftest import Running


def test_moves_are_stored_as_the_game_spells_them(sqlite_players: Running) -> None:
    run = sqlite_players
    run.mail("alice@example.org", "weavedungeon challenge alice bob")
    mails = run.mail("alice@example.org", "weavedungeon move 101 alice apple1 da2-A3#1")
    assert all("alice played Da2-a3." in m.text for m in mails)
    run.mail("bob@example.org", "weavedungeon move 101 bob banana2 Diamond a8-a7")
    [show] = run.mail("alice@example.org", "weavedungeon show 101")
    moves = [line.split()[-1] for line in show.text.splitlines() if re.match(r"^\s+\d+\. ", line)]
    assert moves == ["Da2-a3", "Da8-a7"]
    run.mail("alice@example.org", "warpandweft challenge alice bob")
    mails = run.mail("alice@example.org", "warpandweft move 101 alice apple1 c1")
    assert all("alice played C1." in m.text for m in mails)


def test_trimac_help_offers_no_game_option() -> None:
    trimac = games.load_game("trimac")
    assert "-game" not in trimac.help()


def test_weave_and_dungeon_help_examples_are_legal_where_it_says() -> None:
    wd = games.load_game("weavedungeon")
    text = wd.help()
    start = wd.start(wd.parse_options([]), 2)
    first = re.search(r"From the start, e\.g\. (\S+)", text)
    assert first, "the help names a first move"
    for move in (first.group(1), "Cd1-d3", "Cd1xd3", "c2-c3", "Diamond c2-c3"):
        wd.play(start, 0, move)
    after = wd.play(wd.play(start, 0, "Dc2-c4"), 1, "Dc8-c6")
    assert "after\n1. Dc2-c4 Dc8-c6 the Triangle can leave: Tc1-e3" in text
    wd.play(after, 0, "Tc1-e3")
    # The walk-through's claim about the Triangle on c1 once c2 is free:
    reach = {m.split("-")[1] for m in wd.legal_moves(after) if m.startswith("Tc1-")}
    assert reach == {"c2", "c3", "c4", "a3", "b3", "d3", "e3", "f3"} - {"c4"}  # c4 holds the Diamond now
    assert "=+= - - !+! - - =+=" in text and "segment [c2 c3 c4]" in text
