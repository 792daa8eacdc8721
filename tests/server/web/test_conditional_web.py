"""The board's web page never shows a player's conditional moves (only the moves played)."""

from __future__ import annotations

from tests.server.conftest import Running
from tests.server.web.webproc import fetch, web_server


def test_the_web_page_shows_no_tree(players: Running, db_url: str) -> None:
    players.mail("alice@example.org", "warpandweft challenge alice bob")
    out = players.mail("bob@example.org", "warpandweft conditional 101 bob banana2", "C9 O7 K9 K7\nM7 A9\n")
    assert "Your conditional moves (2 lines) are stored." in " ".join(out[0].text.split())
    players.mail("alice@example.org", "warpandweft move 101 alice apple1 C9#1")  # bob's O7 is played
    with web_server(db_url) as base:
        status, _, page = fetch(base + "/warpandweft/101")
        _, _, front = fetch(base + "/")
    # The move list (numbered once, by the <ol>: issue 26 item 20) shows the moves, not the tree.
    assert status == 200 and 'href="#1">alice: C9<' in page and 'href="#2">bob: O7<' in page
    for private in ("conditional", "K9 K7", "M7 A9", "C9 O7"):
        assert private not in page and private not in front
