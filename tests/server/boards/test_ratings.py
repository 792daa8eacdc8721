"""Ratings: the original pbmserv's arithmetic against hand-computed values, then by mail.

The formula is in server/boards/ratings.py's docstring.  Hand computations
(R: rating, g: rated games, before the game):

* Two new players, alice beats bob.  Both provisional, opponent provisional:
  alice perf = (1600 + 1600)/2 + 200 = 1800, new = (1600·0 + 1800)/1 +
  (1720 - 1600)/5 = 1800 + 24 = 1824; bob perf = 1600 - 200 = 1400,
  new = 1400 + 24 = 1424.
* A draw between two new players: perf = 1600, new = 1600 + 24 = 1624 each.
* alice (1824, 1 game) beats bob (1424, 1 game) again: alice perf =
  (1824 + 1424)/2 + 200 = 1824, new = (1824 + 1824)/2 + (1720 - 1824)/5 =
  1824 - 20.8 = 1803.2; bob perf = 1624 - 200 = 1424, new = (1424 + 1424)/2
  + (1720 - 1424)/5 = 1424 + 59.2 = 1483.2.
* Provisional carol (1500, 5 games) beats established dan (1700, 30 games):
  carol perf = 1700 + 400 = 2100, new = (1500·5 + 2100)/6 + (1720 - 1500)/5
  = 1600 + 44 = 1644.  dan: K = 32 · 5/20 = 8, E = 1/(1 + 10^(-200/400))
  = 1/1.316227766 = 0.759746927, new = 1700 - 8 · 0.759746927 = 1693.922025.
* Established 1700 (20 games) beats established 1500 (40 games): E =
  0.759746927, 1700 + 32 · 0.240253073 = 1707.688098 and 1500 - 7.688098 =
  1492.311902.  A draw of two established 1600s changes nothing.
* Three new players, alice wins: each rated against 1600 (average of
  the others) with 0 games: alice 1824, bob and carol 1424.  Then bob
  wins: bob's others average (1824 + 1424)/2 = 1624 (1 game): perf =
  (1424 + 1624)/2 + 200 = 1724, new = (1424 + 1724)/2 + 59.2 = 1633.2;
  alice's others average 1424: perf = (1824 + 1424)/2 - 200 = 1424, new =
  (1824 + 1424)/2 - 20.8 = 1603.2; carol's others average 1624: perf =
  1524 - 200 = 1324, new = (1424 + 1324)/2 + 59.2 = 1433.2.
* Three new players, bob resigned, alice and carol agree a draw: alice and
  carol tie (perf 1600, new 1624), bob loses (perf 1400, new 1424).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

import games
from games import Game, IllegalMove, OptionError, Outcome
from server.boards import ratings
from server.processes.cli import main
from server.store.model import Board, Rating, User
from tests.server.conftest import ADDRESS, Running

# -- the arithmetic ---------------------------------------------------------------------------


def test_two_new_players() -> None:
    assert ratings.updated(1600, 0, 1600, 0, 1.0) == 1824
    assert ratings.updated(1600, 0, 1600, 0, 0.0) == 1424
    assert ratings.updated(1600, 0, 1600, 0, 0.5) == 1624
    assert ratings.updated(1824, 1, 1424, 1, 1.0) == pytest.approx(1803.2)
    assert ratings.updated(1424, 1, 1824, 1, 0.0) == pytest.approx(1483.2)
    assert ratings.is_provisional(19) and not ratings.is_provisional(20)


def test_provisional_against_established() -> None:
    assert ratings.updated(1500, 5, 1700, 30, 1.0) == pytest.approx(1644)
    assert ratings.expected(1700, 1500) == pytest.approx(0.759746927)
    assert ratings.updated(1700, 30, 1500, 5, 0.0) == pytest.approx(1693.922025)


def test_established_is_elo_with_k_32() -> None:
    assert ratings.updated(1700, 20, 1500, 40, 1.0) == pytest.approx(1707.688098)
    assert ratings.updated(1500, 40, 1700, 20, 0.0) == pytest.approx(1492.311902)
    assert ratings.updated(1600, 35, 1600, 20, 0.5) == 1600


def test_three_players_rate_against_the_average_of_the_others() -> None:
    a, b, c = 1, 2, 3  # user ids
    first = ratings.changes({a: (1600, 0), b: (1600, 0), c: (1600, 0)}, ratings.player_scores([a, b, c], [0], [1, 2]))
    assert first == {a: 1824, b: 1424, c: 1424}
    second = ratings.changes({a: (1824, 1), b: (1424, 1), c: (1424, 1)},
                             ratings.player_scores([a, b, c], [1], [0, 2]))
    assert second == pytest.approx({a: 1603.2, b: 1633.2, c: 1433.2})
    # A draw after bob resigned: the two still in tie, bob loses.
    assert ratings.player_scores([a, b, c], [], [1]) == {a: 0.5, b: 0.0, c: 0.5}
    assert ratings.changes({a: (1600, 0), b: (1600, 0), c: (1600, 0)}, {a: 0.5, b: 0.0, c: 0.5}) == {
        a: 1624, b: 1424, c: 1624}


def test_a_userid_in_several_seats_counts_once() -> None:
    # alice fills seats 0 and 1, bob seat 2; seat 1 wins: alice vs bob, one game each way.
    assert ratings.player_scores([7, 7, 8], [1], [0, 2]) == {7: 1.0, 8: 0.0}
    assert ratings.changes({7: (1600, 0), 8: (1600, 0)}, {7: 1.0, 8: 0.0}) == {7: 1824, 8: 1424}


# -- by mail ------------------------------------------------------------------------------------


def rating_table(running: Running, game: str = "tictactoe") -> dict[str, tuple[float, int]]:
    with running.db.transaction() as s:
        return {r.user.userid: (r.rating, r.games) for r in s.scalars(select(Rating).where(Rating.game == game))}


def play(running: Running, number: int, moves: list[tuple[str, str]]) -> None:
    passwords = {"alice": "apple1", "bob": "banana2", "carol": "carolpw1"}
    for who, move in moves:
        running.mail(f"{who}@example.org", f"tictactoe move {number} {who} {passwords[who]} {move}")


def test_two_player_ratings_by_mail(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    play(players, 101, [("alice", "b2"), ("bob", "a1"), ("alice", "b1"), ("bob", "c1"), ("alice", "b3")])
    assert rating_table(players) == {"alice": (1824, 1), "bob": (1424, 1)}
    # alice (O this time, second) wins again: 1803.2 and 1483.2 (see the docstring).
    players.mail("alice@example.org", "tictactoe challenge bob alice")
    play(players, 102, [("bob", "a1"), ("alice", "b2"), ("bob", "a2"), ("alice", "b1"), ("bob", "c1"),
                        ("alice", "b3")])
    table = rating_table(players)
    assert table["alice"] == (pytest.approx(1803.2), 2) and table["bob"] == (pytest.approx(1483.2), 2)
    # Not rated: a resign before one's first move (the board is removed) ...
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("bob@example.org", "tictactoe resign 103 bob banana2")
    # ... nor a draw agreed before any move.
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 104 alice apple1 propose")
    players.mail("bob@example.org", "tictactoe move 104 bob banana2 accept")
    assert rating_table(players) == table
    # The finished board records what changed.
    with players.db.transaction() as s:
        b = s.scalars(select(Board).where(Board.number == 102)).one()
        assert b.outcome["ratings"] == [[0, 1424.0, 1483.2], [1, 1824.0, 1803.2]]


def test_established_players_by_mail(players: Running) -> None:
    with players.db.transaction() as s:
        for userid, rating in (("alice", 1700.0), ("bob", 1500.0)):
            user = s.scalars(select(User).where(User.userid == userid)).one()
            s.add(Rating(game="tictactoe", user_id=user.id, rating=rating, games=20 if userid == "alice" else 40,
                         wins=10, losses=10, draws=0))
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    play(players, 101, [("alice", "b2"), ("bob", "a1"), ("alice", "b1"), ("bob", "c1"), ("alice", "b3")])
    table = rating_table(players)
    assert table["alice"][0] == pytest.approx(1707.688098) and table["bob"][0] == pytest.approx(1492.311902)
    standings = players.mail("dave@example.org", "tictactoe standings")[0].text
    rows = [line.split() for line in standings.splitlines() if line.strip()[:1].isdigit()]
    assert [r[:7] for r in rows] == [["1", "alice", "1708", "21", "11", "10", "0"],
                                     ["2", "bob", "1492", "41", "10", "11", "0"]]


# -- three players -----------------------------------------------------------------------------


class Race(Game):
    """Three players take turns adding 1, 2 or 3; whoever brings the total to 10 wins.

    A resigning seat drops out and play goes on (like TriMac); the last one
    left wins.
    """

    name = "race3"
    title = "Race to Ten"
    players = 3

    def help(self) -> str:
        return "Add 1, 2 or 3 to the total; reaching 10 wins."

    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        if tokens:
            raise OptionError(f"Unknown option {tokens[0]}; Race to Ten has none")
        return {}

    def start(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        return {"total": 0, "turn": 0, "out": [], "winner": None}

    def to_move(self, state: dict[str, Any]) -> int | None:
        return None if state["winner"] is not None else state["turn"]

    def _next(self, state: dict[str, Any], seat: int) -> int:
        for step in (1, 2):
            if (seat + step) % 3 not in state["out"]:
                return (seat + step) % 3
        return seat

    def play(self, state: dict[str, Any], seat: int, move: str) -> dict[str, Any]:
        if move not in ("1", "2", "3"):
            raise IllegalMove(f"{move!r}: add 1, 2 or 3")
        new = {**state, "out": list(state["out"]), "total": state["total"] + int(move)}
        if new["total"] >= 10:
            new["winner"] = seat
        else:
            new["turn"] = self._next(state, seat)
        return new

    def resign(self, state: dict[str, Any], seat: int) -> dict[str, Any]:
        new = {**state, "out": [*state["out"], seat]}
        left = [s for s in range(3) if s not in new["out"]]
        if len(left) == 1:
            new["winner"] = left[0]
        elif state["turn"] == seat:
            new["turn"] = self._next(new, seat)
        return new

    def outcome(self, state: dict[str, Any]) -> Outcome | None:
        w = state["winner"]
        if w is None:
            return None
        return Outcome(winners=(w,), losers=tuple(s for s in range(3) if s != w), reason="reached ten")

    def legal_moves(self, state: dict[str, Any]) -> list[str]:
        return [] if state["winner"] is not None else ["1", "2", "3"]

    def render(
        self,
        state: dict[str, Any],
        compact: bool = False,
        seat: int | None = None,
        board: int | None = None,
        players: list[str] | None = None,
    ) -> str:
        return f"Total: {state['total']}"

    def dump(self, state: dict[str, Any]) -> dict[str, Any]:
        return {**state, "out": list(state["out"])}

    def load(self, data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "out": list(data["out"])}


@pytest.fixture
def trio(players: Running) -> Iterator[Running]:
    """alice, bob and carol, with the three-player test game installed for this test only."""
    games.register(Race())
    players.mail("carol@example.org", "signup carol carolpw1")
    players.sink.clear()
    yield players
    games.unregister("race3")


def race(running: Running, number: int, moves: list[tuple[str, str]]) -> None:
    passwords = {"alice": "apple1", "bob": "banana2", "carol": "carolpw1"}
    for who, move in moves:
        running.mail(f"{who}@example.org", f"race3 move {number} {who} {passwords[who]} {move}")


def test_three_player_ratings_by_mail(trio: Running) -> None:
    trio.mail("alice@example.org", "race3 challenge alice bob carol")
    race(trio, 101, [("alice", "3"), ("bob", "3"), ("carol", "1"), ("alice", "3")])
    assert rating_table(trio, "race3") == {"alice": (1824, 1), "bob": (1424, 1), "carol": (1424, 1)}
    trio.mail("alice@example.org", "race3 challenge alice bob carol")
    race(trio, 102, [("alice", "3"), ("bob", "3"), ("carol", "1"), ("alice", "1"), ("bob", "2")])
    table = rating_table(trio, "race3")
    assert table == {"alice": (pytest.approx(1603.2), 2), "bob": (pytest.approx(1633.2), 2),
                     "carol": (pytest.approx(1433.2), 2)}


def test_three_player_forfeit_plays_on_without_the_seat(trio: Running) -> None:
    trio.mail("alice@example.org", "race3 challenge alice bob carol --nagtime=2 --forfeittime=4")
    race(trio, 101, [("alice", "1"), ("bob", "1"), ("carol", "1"), ("alice", "1")])
    with trio.db.transaction() as s:
        start = s.scalars(select(Board.turn_since).where(Board.game == "race3")).one()

    def remind(days: float) -> tuple[str, list[Any]]:
        before = len(trio.sink.messages)
        result = CliRunner().invoke(main, ["--database-url", trio.server.settings.database_url, "--address",
                                           ADDRESS, "remind", "--now", (start + timedelta(days=days)).isoformat()])
        assert result.exit_code == 0, result.output
        trio.quiesce()
        return result.output, trio.sink.messages[before:]

    out, mails = remind(4.5)  # bob, to move, forfeits; alice and carol play on
    assert "forfeited 1" in out
    assert sorted(m.rcpt_tos[0] for m in mails) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    assert {m.subject for m in mails} == {"Race to Ten Board 101 carol"}
    assert "bob forfeits (no move for 4 days)." in mails[0].text
    with trio.db.transaction() as s:
        b = s.scalars(select(Board).where(Board.game == "race3")).one()
        assert b.status == "active" and b.to_move == 2 and b.state["out"] == [1]
        # carol's clock starts at the moment the run stood for, not at the wall clock.
        assert b.turn_since == start + timedelta(days=4.5)
    assert remind(4.5)[1] == []  # idempotent
    # carol stalls too: alice is the last one left and wins; everyone is rated.
    out, mails = remind(4.5 + 4.1)
    assert "forfeited 1" in out and {m.subject for m in mails} == {"Race to Ten Board 101 Finished"}
    table = rating_table(trio, "race3")
    assert table == {"alice": (1824, 1), "bob": (1424, 1), "carol": (1424, 1)}


def test_three_player_draw_after_a_resign(trio: Running) -> None:
    """bob resigns and play goes on; a draw agreed by the two left is half a point each, bob lost.

    Hand computation (all new): alice and carol tie, perf 1600, new 1600 + 24
    = 1624; bob loses, perf 1400, new 1424.
    """
    trio.mail("alice@example.org", "race3 challenge alice bob carol")
    race(trio, 101, [("alice", "1"), ("bob", "1"), ("carol", "1"), ("alice", "1")])
    out = trio.mail("bob@example.org", "race3 resign 101 bob banana2")
    assert {m.subject for m in out} == {"Race to Ten Board 101 carol"}
    trio.mail("carol@example.org", "race3 move 101 carol carolpw1 propose")
    out = trio.mail("bob@example.org", "race3 move 101 bob banana2 accept")
    assert len(out) == 1 and "bob has resigned from Race to Ten Board 101 and has no vote" in out[0].text
    out = trio.mail("alice@example.org", "race3 move 101 alice apple1 accept")
    assert {m.subject for m in out} == {"Race to Ten Board 101 Finished"}
    assert "Game over: a draw (draw by agreement)." in out[0].text
    assert rating_table(trio, "race3") == {"alice": (1624, 1), "bob": (1424, 1), "carol": (1624, 1)}


def test_ratings_share_the_transaction_of_the_games_end(players: Running) -> None:
    """finish() rates in the caller's transaction: roll it back and neither the end nor the ratings stay."""
    from server.boards import boards

    players.mail("alice@example.org", "tictactoe challenge alice bob")
    play(players, 101, [("alice", "b2"), ("bob", "a1")])

    class Abort(Exception):
        pass

    try:
        with players.db.transaction() as s:
            b = s.scalars(select(Board).where(Board.number == 101)).one()
            boards.finish(b, Outcome(winners=(0,), losers=(1,), reason="test"))
            s.flush()
            assert s.scalar(select(func.count()).select_from(Rating)) == 2  # written, not yet committed
            raise Abort
    except Abort:
        pass
    with players.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Rating)) == 0
        assert s.scalars(select(Board.status).where(Board.number == 101)).one() == "active"
