"""``GAME games``: filtered, counted and paged in SQL (issue 32), with the same answers as before.

105 boards alice-bob (alice to move on each) and 3 bob-carol (bob to move),
made directly in the database; the tables and their continuation notes
are checked against numbers worked out here, not read from the code.
"""

from __future__ import annotations

import re

from sqlalchemy import select

from server.boards import boards
from server.store.model import Board, User
from tests.server.conftest import Running
from tests.tictactoe import GAME


def numbers_in(text: str, known: set[int]) -> set[int]:
    return {int(n) for n in re.findall(r"\b(\d{3,})\b", text)} & known


def test_games_filters_and_pages(sqlite_players: Running) -> None:
    players = sqlite_players
    players.mail("carol@example.org", "signup carol cherry3")

    def work(session) -> tuple[list[int], list[int]]:  # type: ignore[no-untyped-def]
        users = {u.userid: u for u in session.scalars(select(User))}
        ab = [boards.create_board(session, GAME, [users["alice"], users["bob"]], {}, 7.0, 21.0)[0] for _ in range(105)]
        bc = [boards.create_board(session, GAME, [users["bob"], users["carol"]], {}, 7.0, 21.0)[0] for _ in range(3)]
        session.flush()
        return [b.number for b in ab], [b.number for b in bc]

    ab, bc = players.db.run(work)
    known = set(ab) | set(bc)
    with players.db.transaction() as s:
        assert {b.to_move for b in s.scalars(select(Board))} == {0}
    first = players.mail("carol@example.org", "tictactoe games alice")[0].text
    second = players.mail("carol@example.org", "tictactoe games alice page 2")[0].text
    assert numbers_in(first, known) == set(sorted(ab)[:100])
    assert "and 5 more (this reply shows 1-100 of 105)" in " ".join(first.split())
    assert "tictactoe games alice page 2" in " ".join(first.split())
    assert numbers_in(second, known) == set(sorted(ab)[100:])
    assert numbers_in(players.mail("carol@example.org", "tictactoe games carol")[0].text, known) == set(bc)
    # bob is to move only where he sits first: the three boards with carol.
    assert numbers_in(players.mail("carol@example.org", "tictactoe games bob next")[0].text, known) == set(bc)
    # alice or bob to move: every board, 108; the first page holds the lowest 100 numbers.
    both = players.mail("carol@example.org", "tictactoe games alice bob next")[0].text
    assert numbers_in(both, known) == set(sorted(ab + bc)[:100])
    assert "of 108)" in both
