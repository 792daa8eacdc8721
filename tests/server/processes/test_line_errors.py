"""Issue 32, item 11: an unexpected exception in one line is that line's refusal.

A game whose move raises (a bug, not an illegal move) once failed the whole
mail three times and set it aside, and a mover whose first line was already
played only heard "could not be processed".  Here a test game raises
RuntimeError on the move ``boom``: the line is refused, the other lines of
the mail are applied and answered, and the mail is handled, not set aside.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

import games
from server.store.model import Inbound
from tests.server.conftest import Running
from tests.tictactoe import TicTacToe


class Crashing(TicTacToe):
    name = "crashtoe"
    aliases = ()
    title = "Crash-Tac-Toe"

    def play(self, state: dict[str, Any], seat: int, move: str) -> dict[str, Any]:
        if move == "boom":
            raise RuntimeError("a bug in the game")
        return super().play(state, seat, move)


games.register(Crashing())


def test_a_crashing_line_is_refused_and_the_rest_answered(sqlite_players: Running) -> None:
    players = sqlite_players
    players.mail("alice@example.org", "crashtoe challenge alice bob")
    replies = players.mail("alice@example.org", "", "crashtoe move 101 alice apple1 boom\n"
                           "crashtoe move 101 alice apple1 a1\ncrashtoe show 101")
    [reply] = [r for r in replies if "alice@example.org" in r.rcpt_tos]
    assert "alice played a1" in reply.text
    assert "met an error in the server (RuntimeError)" in reply.text
    assert "set aside" not in reply.text
    assert reply.text.count("Refused") == 1, reply.text
    with players.db.transaction() as s:
        assert s.scalars(select(Inbound.status).order_by(Inbound.id.desc())).first() == "done"
