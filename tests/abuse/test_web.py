"""Issue 32, item 13: the web pages on the open internet.

``/`` listed every active board (5,001 rows, 0.9 CPU-s a request), a board
number past 2^63 or a 5,000-digit ply answered HTTP 500 (with a traceback
logged each time), and nothing limited one client.  Replayed against a real
``pbmserv web``: 120 boards (5,000 with ``PBMSERV_ABUSE_FULL=1``) are paged,
absurd path numbers are 404, and one client beyond its rate gets 429.
"""

from __future__ import annotations

import re

import games
from server.store.database import Database
from tests.abuse.conftest import make_accounts
from tests.abuse.harness import record, size
from tests.server.web.webproc import fetch, web_server

BOARDS = size(120, 5000)


def make_game_boards(db: Database, count: int) -> None:
    """Warp and Weft boards (an installed game: the web process has no test game), as a challenge makes them."""
    from server.boards import boards
    from server.store.model import User

    game = games.load_game("warpandweft")

    def work(session) -> None:  # type: ignore[no-untyped-def]
        users = {u.userid: u for u in session.query(User)}
        for _ in range(count):
            boards.create_board(session, game, [users["alice"], users["bob"]], game.parse_options([]), 7.0, 21.0)

    db.run(work)


def test_front_page_is_paged_and_path_numbers_are_bounded(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'pbmserv.db'}"
    db = Database(url)
    db.upgrade()
    make_accounts(db, ["alice", "bob"])
    make_game_boards(db, BOARDS)
    db.dispose()
    monkeypatch.setenv("PBMSERV_WEB_RATE", "60")
    with web_server(url) as base:
        status, _, front = fetch(base + "/")
        rows = len(re.findall(r'<a href="/warpandweft/\d+">', front))
        _, _, second = fetch(base + "/?page=2")
        absurd = {path[:40]: fetch(base + path)[0] for path in (
            "/warpandweft/" + "9" * 25, "/warpandweft/101/" + "7" * 5000 + ".svg", "/warpandweft/%C2%B2",
            "/warpandweft/101/%C2%B2.svg", "/warpandweft/101/3.svg")}
        codes = [fetch(base + "/board.js")[0] for _ in range(70)]
    record("32_13_web", boards=BOARDS, front_rows=rows, front_kb=round(len(front) / 1024, 1),
           absurd=absurd, throttled=codes.count(429))
    assert status == 200 and rows == 50, rows
    assert 'href="/?page=2"' in front and "/warpandweft/151" in second
    assert set(absurd.values()) == {404}, absurd
    assert codes.count(429) >= 10, codes
