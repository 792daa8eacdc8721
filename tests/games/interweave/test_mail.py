"""Interweave by mail end to end: challenge, moves, a refusal, and a King capture.

Real SMTP on loopback, a real SQLite file and the relay sink, through the
server's own test harness (tests/server/conftest.py).
"""

from __future__ import annotations

from tests.server.conftest import Running


def test_interweave_by_mail_from_challenge_to_a_king_capture(sqlite_players: Running) -> None:
    server = sqlite_players
    new = server.mail("alice@example.org", "interweave challenge alice bob")
    assert new and all("Interweave" in m.subject for m in new)
    board = new[0].text
    assert "1 |:S:| R |:L:| K |:K:| L |:R:| S |" in board and "White to move" in board

    refused = server.mail("alice@example.org", "interweave move 101 alice apple1 c1-d3")
    assert refused and all(m.rcpt_tos == ["alice@example.org"] for m in refused)
    assert "not on its own colour" in refused[0].text

    # White: Smasher h1 goes to d5, then approaches d8 from d7 and captures the King.
    line = [
        ("alice", "apple1", "g2-h3"),
        ("bob", "banana2", "b7-a6"),
        ("alice", "apple1", "h1-d5"),
        ("bob", "banana2", "d7-e6"),
    ]
    for user, password, move in line:
        out = server.mail(f"{user}@example.org", f"interweave move 101 {user} {password} {move}")
        assert out and "Finished" not in out[0].subject, out[0].text
    end = server.mail("alice@example.org", "interweave move 101 alice apple1 d5-d7")
    assert any("Finished" in m.subject for m in end)
    text = end[0].text
    assert "king capture" in text and "d8" in text

    # A second board from a position string, written with '_' for its spaces.
    pos = "kk6/8/8/8/8/8/2p1p2K/7K_w_-_-_0_1"
    new = server.mail("bob@example.org", f"interweave challenge bob alice -compact -position={pos}")
    assert new and "102" in new[0].subject
    assert "2 .:p:p:.K" in new[0].text  # a2 light, b2 dark, ..., f2 dark, g2 light
