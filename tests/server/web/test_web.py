"""``pbmserv web``: read-only pages over the mail server's own database (SQLite and PostgreSQL)."""

from __future__ import annotations

import re

from tests.server.conftest import Running
from tests.server.web.webproc import fetch, web_server


def test_pages_of_every_board_and_nothing_private(players: Running, db_url: str) -> None:
    players.mail("carol@example.org", "signup carol cherry3")
    players.mail("alice@example.org", "interweave challenge alice bob")
    players.mail("alice@example.org", "interweave move 101 alice apple1 e2-d3")
    players.mail("bob@example.org", "interweave move 101 bob banana2 d7-e6")
    players.mail("alice@example.org", "interweave chat 101 alice apple1", "secret plan: take e6")
    players.mail("alice@example.org", "trimac challenge alice bob carol")
    players.mail("alice@example.org", "warpandweft challenge -size=2 alice bob")
    players.mail("alice@example.org", "warpandweft move 101 alice apple1 C1")
    players.mail("bob@example.org", "warpandweft move 101 bob banana2 A1")
    players.mail("alice@example.org", "warpandweft resign 101 alice apple1")
    with web_server(db_url) as base:
        status, kind, front = fetch(base + "/")
        assert status == 200 and kind.startswith("text/html")
        for href in ("/interweave/101", "/trimac/101"):
            assert f'href="{href}"' in front
        assert "Recently finished" in front and "won by bob" in front
        pages = {}
        for path in ("/interweave/101", "/trimac/101", "/warpandweft/101"):
            status, _, page = fetch(base + path)
            assert status == 200, path
            assert "<svg" in page and 'class="status"' in page
            pages[path] = page
        board = pages["/interweave/101"]
        assert "Players: alice (White), bob (Black)" in board
        assert "alice (White)&#x27;s move (move #3)" in board
        assert re.search(r'<li data-ply="1"><a href="#1">alice: e2-d3</a>', board)  # the <ol> numbers it (issue 26)
        assert re.search(r'<li data-ply="2"><a href="#2">bob: d7-e6</a>', board)
        # every position of the browser, and no more
        for n in range(3):
            status, kind, svg = fetch(f"{base}/interweave/101/{n}.svg")
            assert status == 200 and kind.startswith("image/svg+xml") and svg.startswith("<svg")
        assert 'data-at="e2"' in fetch(f"{base}/interweave/101/0.svg")[2]
        assert "Black (bob) to move" in fetch(f"{base}/interweave/101/1.svg")[2]
        assert fetch(f"{base}/interweave/101/3.svg")[0] == 404
        assert fetch(f"{base}/interweave/999")[0] == 404
        assert fetch(f"{base}/nosuchgame/101")[0] == 404
        everything = front + "".join(pages.values())
        for private in ("@example.org", "apple1", "banana2", "cherry3", "secret plan"):
            assert private not in everything
