"""A finished board shows the result, not a turn (issue 26, item 7).

A game the server ends (a resignation, an agreed draw) still has a side to
move in its position; the final mail must not name one, nor speak of
reminders and forfeits.
"""

from __future__ import annotations

import pytest

import games
from tests.server.conftest import Running

PEOPLE = [("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3")]
GAMES = [g for g in games.available() if g.name != "tictactoe"]


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_final_mail_names_no_player_to_move(running: Running, game: games.Game) -> None:
    seats = PEOPLE[: game.players]
    for user, pw in seats:
        running.mail(f"{user}@example.org", f"signup {user} {pw}")
    running.mail("alice@example.org", f"{game.name} challenge {' '.join(u for u, _ in seats)}")
    state = game.start(game.parse_options([]), game.players)
    for seat in range(game.players):  # everyone moves once (a seat that never moved removes the board)
        move = game.legal_moves(state)[0]
        state = game.play(state, seat, move)
        user, pw = seats[seat]
        running.mail(f"{user}@example.org", f"{game.name} move 101 {user} {pw} {move}")
    running.sink.clear()
    if game.players == 2:  # alice resigns on her turn: the position still has her to move
        final = running.mail("alice@example.org", f"{game.name} move 101 alice apple1 resign")
    else:  # three armies: a draw agreed by all
        running.mail("bob@example.org", f"{game.name} move 101 bob banana2 propose")
        running.mail("alice@example.org", f"{game.name} move 101 alice apple1 accept")
        final = running.mail("carol@example.org", f"{game.name} move 101 carol cherry3 accept")
    finals = [m for m in final if "Finished" in m.subject]
    assert len(finals) == game.players, [m.subject for m in final]
    for mail in finals:
        text = mail.text.lower()
        assert "game over" in text
        assert "to move" not in text, mail.text
        assert "reminder" not in text and "forfeit" not in text, mail.text
