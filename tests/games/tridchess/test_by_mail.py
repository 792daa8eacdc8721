"""A short Tri-D chess game by mail through the real server (SQLite, loopback SMTP).

The generic all-games mail test plays a random game; this one checks what is
particular to Tri-D chess: a -position= challenge written with underscores
(mail commands split on spaces), a refusal whose reason speaks of attack
boards, the seven-layer board in the mails, and a mate that ends the game.
"""

from __future__ import annotations

from tests.server.conftest import Running

MATE_IN_ONE = "WQ:QL1,WK:KL1,BQ:QL6,BK:KL6_Qb7B,Ra7B,Kb1W,kz9QL6_w_-_-_0_40"



def test_tridchess_by_mail(sqlite_players: Running) -> None:
    run = sqlite_players
    new = run.mail("alice@example.org", f"3DCHESS challenge alice bob -position={MATE_IN_ONE}")
    assert {m.subject for m in new} == {"New Tri-Dimensional Chess Board 101 alice"}
    board = new[0].text
    assert "zabcde  zabcde" in board and "WQ=QL1 WK=KL1 BQ=QL6 BK=KL6" in board

    err = run.mail("alice@example.org", "tridchess move 101 alice apple1 QL1-QL3")
    assert err[0].subject.endswith("Error")
    assert "QL3 is not next to QL1" in err[0].text, err[0].text

    done = run.mail("alice@example.org", "tridchess move 101 alice apple1 Qb7B-a8QL6")
    finished = [m for m in done if m.subject == "Tri-Dimensional Chess Board 101 Finished"]
    assert finished, [m.subject for m in done]
    assert "White wins by checkmate" in finished[0].text
