"""The tournament page in headless Chromium: standings, crosstable, rounds and links to the boards."""

from __future__ import annotations

from typing import Any

from tests.server.boards.test_tournaments import (
    DRAW,
    PASSWORDS,
    admin,
    play,
    say,
    signup,
    tournament_boards,
    win,
)
from tests.server.conftest import Running
from tests.server.web.test_browser import browser, db_url, wait_for  # noqa: F401  (fixtures)
from tests.server.web.webproc import fetch, web_server


def test_tournament_page_in_a_browser(running: Running, db_url: str, browser: Any) -> None:  # noqa: F811
    names = ["alice", "bob", "carol", "dave"]
    signup(running, *names)
    admin(running, "tournament", "create", "tictactoe", "web26", "--kind", "roundrobin")
    for user in names:
        say(running, user, f"tictactoe tournament join web26 {user} {PASSWORDS[user]}")
    admin(running, "tournament", "start", "web26")
    found = {frozenset(seats): (number, seats) for number, _, seats in tournament_boards(running, "web26")}
    win(running, *found[frozenset(("alice", "bob"))], "alice")
    play(running, *found[frozenset(("carol", "dave"))], DRAW)
    with web_server(db_url) as base:
        assert fetch(base + "/tournament/nosuch")[0] == 404
        assert "web26" in fetch(base + "/tournaments")[2]
        browser.get(base + "/tournament/web26")
        rows = wait_for(browser, "return Array.from(document.querySelectorAll('table.standings tr'))"
                                 ".slice(1).map(r => Array.from(r.cells).map(c => c.textContent))")
        # By hand: alice 1 (beat bob), carol and dave 1/2 each (their draw), bob 0.
        by_name = {r[1]: r for r in rows}
        assert by_name["alice"][:3] == ["1", "alice", "1"]
        assert by_name["carol"][2] == "0.5" and by_name["dave"][2] == "0.5" and by_name["bob"][2] == "0"
        cross = browser.execute_script(
            "return Array.from(document.querySelectorAll('table.cross tr')).slice(1)"
            ".map(r => Array.from(r.cells).map(c => c.textContent))")
        order = [r[1] for r in cross]
        assert order[0] == "alice"
        alice, bob = cross[order.index("alice")], cross[order.index("bob")]
        assert alice[2 + order.index("bob")] == "1" and bob[2 + order.index("alice")] == "0"
        carol = cross[order.index("carol")]
        assert carol[2 + order.index("dave")] == "½" and carol[2 + order.index("alice")] == ""
        links = browser.execute_script("return Array.from(document.querySelectorAll('.rounds a'))"
                                       ".map(a => a.getAttribute('href'))")
        assert sorted(links) == sorted(f"/tictactoe/{n}" for n, _ in found.values())
        number, _ = found[frozenset(("alice", "bob"))]
        browser.find_element("css selector", f'.rounds a[href="/tictactoe/{number}"]').click()
        # (the test game is not installed in the web process: the link is what is checked)
        wait_for(browser, f"return location.pathname === '/tictactoe/{number}'")
