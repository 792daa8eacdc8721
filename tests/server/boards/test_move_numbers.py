"""One mail names one move number: the #N the server accepts next."""

from __future__ import annotations

import re

import games
from tests.server.conftest import Running

SEATS = [("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3")]
NUMBER = re.compile(r"\bmove (#?\d+)", re.IGNORECASE)


def numbers(text: str) -> set[str]:
    return {n.lstrip("#") for n in NUMBER.findall(text)}


def test_board_mails_name_only_the_next_move_number(sqlite_players: Running) -> None:
    run = sqlite_players
    run.mail("carol@example.org", "signup carol cherry3")
    number = 101  # each game numbers its boards from 101
    for game in (g for g in games.available() if g.name != "tictactoe"):
        seats = SEATS[:game.players]
        run.mail("alice@example.org", f"{game.name} challenge " + " ".join(u for u, _ in seats))
        state = game.start(game.parse_options([]), game.players)
        plies = [] if game.name != "warpandweft" else [None, "swap"]
        for ply in range(1, 6):
            seat = game.to_move(state)
            user, password = seats[seat]
            move = plies[ply - 1] if ply <= len(plies) and plies[ply - 1] else game.legal_moves(state)[0]
            mails = run.mail(f"{user}@example.org", f"{game.name} move {number} {user} {password} {move}#{ply}")
            state = game.play(state, seat, move)
            for mail in mails:
                assert "not carried out" not in mail.text, mail.text.split("carried out:")[-1][:300]
                assert numbers(mail.text) == {str(ply + 1)}, (game.name, ply, mail.text[-900:])
        error = run.mail("alice@example.org", f"{game.name} move {number} alice apple1 x#9")
        assert "(was it sent twice" not in error[0].text and "send MOVE#6" in error[0].text.replace("\r\n", " ")
