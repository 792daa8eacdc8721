"""A forfeit in a game that plays on (TriMac) clears the trees, and their owners alone are told."""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import Board
from tests.server.boards.test_timers import days, flat, remind, turn_since
from tests.server.conftest import Running


def test_a_forfeit_clears_the_trees_and_play_goes_on(players: Running) -> None:
    run = players
    run.mail("carol@example.org", "signup carol cherry3")
    run.mail("alice@example.org", "trimac challenge alice bob carol")
    # A first round (a player who never moved would remove the board instead), then carol
    # answers alice's and bob's second moves (the help's own example line).
    for n, (user, pw, move) in enumerate([("alice", "apple1", "Rf5-Rg4"), ("bob", "banana2", "Bf5-Be5"),
                                          ("carol", "cherry3", "Gf5-Gg5")], start=1):
        run.mail(f"{user}@example.org", f"trimac move 101 {user} {pw} {move}#{n}")
    out = run.mail("carol@example.org", "trimac conditional 101 carol cherry3", "Rf6-Ri2 Bf3-Bd3 Gf7-Gd3\n")
    assert "Your conditional moves (1 line) are stored." in flat(out[0].text)
    start = turn_since(run, game="trimac")
    _, mails = remind(run, days(start, 21.5))
    to = {m.rcpt_tos[0].split("@")[0]: m.text for m in mails if "Reminder" not in m.subject}
    assert "alice forfeits" in flat(to["bob"]) and "It is bob" in flat(to["bob"])  # the game plays on
    assert "Your conditional moves are cleared: alice forfeited." in flat(to["carol"])
    assert "conditional" not in to["bob"] and "conditional" not in to["alice"]
    with run.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == "trimac")).one()
        assert board.status == "active" and "conditional" not in board.pending


def test_a_swap_clears_the_trees(players: Running) -> None:
    run = players
    run.mail("alice@example.org", "warpandweft challenge alice bob")
    run.mail("alice@example.org", "warpandweft move 101 alice apple1 C9#1")
    out = run.mail("alice@example.org", "warpandweft conditional 101 alice apple1", "O7 K9\n")
    assert "Your conditional moves (1 line) are stored." in flat(out[0].text)
    mails = run.mail("bob@example.org", "warpandweft swap 101 bob banana2")
    to = {m.rcpt_tos[0].split("@")[0]: m.text for m in mails}
    assert "Your conditional moves are cleared: bob swapped sides." in flat(to["alice"])
    assert "conditional" not in to["bob"]
    with run.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == "warpandweft")).one()
        assert board.ply == 2 and board.to_move == 0 and "conditional" not in board.pending


def test_an_answer_the_game_refuses_now_costs_nobody_their_move(players: Running) -> None:
    """A stored answer that is no longer legal (the rules changed since it was checked, e.g. a
    plugin upgrade; stored here by hand) is not played: the opponent's move stands, the tree
    goes, and its owner alone is told."""
    run = players
    run.mail("alice@example.org", "tictactoe challenge alice bob")
    with run.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == "tictactoe")).one()
        board.pending = {"conditional": {"1": {"a1": {"a1": {}}}}}
    mails = run.mail("alice@example.org", "tictactoe move 101 alice apple1 a1#1")
    to = {m.rcpt_tos[0].split("@")[0]: m.text for m in mails}
    assert ("Your conditional move a1 is not legal now (a1 is already taken): it is not played, your "
            "conditional moves are cleared, and it is your move.") in flat(to["bob"])
    assert "alice played a1." in flat(to["alice"]) and "conditional" not in to["alice"]
    with run.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == "tictactoe")).one()
        assert board.ply == 1 and board.to_move == 1 and board.pending == {}
