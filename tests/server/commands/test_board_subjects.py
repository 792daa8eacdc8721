"""Replying to a board mail by editing its subject, in every installed game.

pbmserv players answer ``New Warp and Weft Board 101 alice`` with
``Re: New Warp and Weft Board 101 alice PASSWORD MOVE`` and every later board
mail the same way; a reply left unedited is told the exact subject to send.
"""

from __future__ import annotations

import pytest

import games
from tests import mail_corpus
from tests.mailtools import send
from tests.server.conftest import ADDRESS, Running

PLAYERS = [("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3")]
GAMES = [g.name for g in games.available() if g.name != "tictactoe"]


def reply(running: Running, sender: str, subject: str, shape: str = "gmail_top_posted") -> list:  # type: ignore[type-arg]
    """Hit Reply on a board mail (as Gmail writes it) with ``subject``."""
    before = len(running.sink.messages)
    send(running.port, mail_corpus.load(shape, sender=sender, subject=subject), sender=sender, to=ADDRESS)
    running.quiesce()
    return running.sink.messages[before:]


@pytest.mark.parametrize("name", GAMES)
def test_every_game_plays_by_editing_the_board_subject(sqlite_players: Running, name: str) -> None:
    running = sqlite_players
    running.mail("carol@example.org", "signup carol cherry3")
    game = games.load_game(name)
    seats = PLAYERS[:game.players]
    mails = running.mail("alice@example.org", f"{name} challenge " + " ".join(u for u, _ in seats))
    state = game.start(game.parse_options([]), game.players)
    subject = next(m.subject for m in mails if "alice@example.org" in m.rcpt_tos).replace(" **", "")
    assert subject.startswith(f"New {game.title} Board ")
    prefixes = ["Re: ", "RE: AW: ", "Fwd: ", "[PBM] Re: ", "SV: "]
    for ply in range(1, 4):
        seat = game.to_move(state)
        userid, password = seats[seat]
        move = game.legal_moves(state)[0]
        sent = f"{prefixes[ply % len(prefixes)]}{subject} {password} {move}#{ply}"
        mails = reply(running, f"{userid}@example.org", sent)
        state = game.play(state, seat, move)
        nxt = seats[game.to_move(state)][0]
        to_next = [m for m in mails if f"{nxt}@example.org" in m.rcpt_tos]
        assert to_next, (sent, [m.text for m in mails])
        subject = to_next[0].subject.replace(" **", "")  # ** marks an attached comment
        assert subject.startswith(f"{game.title} Board ") and subject.split()[-1] == nxt, subject
        assert f"{userid} played" in to_next[0].text
    # Hitting Reply without editing the subject: told exactly what to send.
    number = subject.split()[-2]
    for sent in (f"Re: {subject}", f"Re: New {game.title} Board {number} {nxt}"):
        mails = reply(running, f"{nxt}@example.org", sent, shape="iphone_reply")
        assert [m.rcpt_tos for m in mails] == [[f"{nxt}@example.org"]]
        text = mails[0].text
        assert f"Re: {game.title} Board {number} {nxt} PASSWORD MOVE" in text, text
        assert "Unknown command" not in text
        assert mails[0].subject == f"{game.title} Board {number} Error"
