"""Weave & Dungeon by mail end to end: challenge, a refusal, moves, a graded mate.

Real SMTP on loopback, a real SQLite file and the relay sink, through the
server's own test harness (tests/server/conftest.py).
"""

from __future__ import annotations

from tests.server.conftest import Running


def test_weave_and_dungeon_by_mail_to_a_triumph(sqlite_players: Running) -> None:
    server = sqlite_players
    new = server.mail("alice@example.org", "weave challenge alice bob")
    assert new and all("Weave & Dungeon" in m.subject for m in new)
    board = new[0].text
    assert "!P! -S- =T= -C- !K! -C- =T= -S- !P!" in board and "White to move" in board

    refused = server.mail("alice@example.org", "weavedungeon move 101 alice apple1 Da2-a4")
    assert refused and all(m.rcpt_tos == ["alice@example.org"] for m in refused)
    assert "different segments" in refused[0].text

    for user, password, move in [("alice", "apple1", "Da2-a3"), ("bob", "banana2", "Da8-a7")]:
        out = server.mail(f"{user}@example.org", f"weave move 101 {user} {password} {move}")
        assert out and "Finished" not in out[0].subject, out[0].text

    # Mate in one from a position string ('_' for its spaces): Circles on b7 c7
    # d7 cover b8 b9 c9 d9, and Ca5-a7 attacks a9; White's Star never left e1.
    pos = "k8/9/1CCC5/9/C8/9/9/9/4K4_w_-_1"
    new = server.mail("bob@example.org", f"weave challenge alice bob -compact -position={pos}")
    assert new and "102" in new[0].subject
    assert "1 ! - = - K - = - !" in new[0].text
    end = server.mail("alice@example.org", "weave move 102 alice apple1 Ca5-a7")
    assert any("Finished" in m.subject for m in end)
    text = end[0].text
    assert "checkmated" in text and "Triumph" in text
