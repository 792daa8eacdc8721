"""The schedules on their own: Berger round robins, pools, and Swisses of many sizes played with random results.

The Swiss is paired round after round on a real SQLite database (the Dutch
engine is stateless: every round is rebuilt from the stored boards), with
results drawn at random; what must hold whatever the results is checked
here: no pair meets twice, everyone still in plays once a round or has the
bye, nobody has two byes, a withdrawn player is paired no more.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from sqlalchemy import select

from games import Outcome
from server.boards import boards, tournaments
from server.boards.context import Context, Request
from server.core.config import Settings
from server.store.database import Database
from server.store.model import Board, User, utcnow


class Named:
    """Just enough of a user for the schedules."""

    def __init__(self, name: str) -> None:
        self.userid = name


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 10])
@pytest.mark.parametrize("cycles", [1, 2])
def test_round_robin_meets_everyone_cycles_times(n: int, cycles: int) -> None:
    users = [Named(f"p{i}") for i in range(n)]
    schedule = tournaments.round_robin(users, cycles)  # type: ignore[arg-type]
    rounds = (n - 1 if n % 2 == 0 else n) * cycles
    assert [number for number, _ in schedule] == list(range(1, rounds + 1))
    met: Counter[frozenset[str]] = Counter()
    orders: Counter[tuple[str, str]] = Counter()
    for _, tables in schedule:
        seated = [u.userid for seats in tables for u in seats]
        assert len(seated) == len(set(seated))  # nobody twice in a round
        assert len(tables) == n // 2
        for white, black in tables:
            met[frozenset((white.userid, black.userid))] += 1
            orders[(white.userid, black.userid)] += 1
    assert met == {frozenset(p): cycles for p in combinations([u.userid for u in users], 2)}
    if cycles == 2:
        assert all(count == 1 for count in orders.values())  # the seats exchanged in the second cycle


def test_pools_of_three_play_every_seat_order() -> None:
    users = [Named(f"p{i}") for i in range(6)]
    pools = tournaments.pools(users)  # type: ignore[arg-type]
    assert [number for number, _ in pools] == [1, 2]
    for number, tables in pools:
        members = {u.userid for u in users[(number - 1) * 3:number * 3]}
        assert len(tables) == 6
        assert len({tuple(u.userid for u in seats) for seats in tables}) == 6
        assert all({u.userid for u in seats} == members for seats in tables)


@pytest.mark.parametrize(("n", "rounds", "seed"), [(5, 4, 1), (7, 5, 2), (8, 5, 3), (9, 4, 4), (12, 6, 5)])
def test_swiss_never_repeats_a_pairing(sqlite_url: str, n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    db = Database(sqlite_url)
    db.upgrade()
    settings = Settings(database_url=sqlite_url, addresses=["pbmserv@games.test"])

    def ctx(session):  # type: ignore[no-untyped-def]
        return Context(session, settings, Request(words=[], line="", sender="pbmserv@games.test", admin=True),
                       utcnow())

    def setup(session):  # type: ignore[no-untyped-def]
        game = boards.plugin_for("tictactoe")
        t = tournaments.create(session, game, "sw", "swiss", rounds, [], None, None)
        for i in range(n):
            user = User(userid=f"p{i:02d}", password_hash="x")
            session.add(user)
            session.flush()
            tournaments.join(session, t, user, utcnow())
        tournaments.start(ctx(session), t)

    db.run(setup)
    quitter = "p03"
    for number in range(1, rounds + 1):
        def check_and_finish(session, number=number):  # type: ignore[no-untyped-def]
            t = tournaments.find(session, "sw")
            assert t.current_round == number
            rows = session.scalars(select(Board).where(Board.tournament_id == t.id)).all()
            this = [b for b in rows if b.tournament_round == number]
            seated = [s.user.userid for b in this for s in b.seats]
            byes = [e.user.userid for e in t.entries if number in (e.byes or [])]
            still = [e.user.userid for e in tournaments.active_entries(t)]
            assert sorted(seated + byes) == sorted(still)  # everyone still in: one board or the bye
            assert len(byes) == len(still) % 2
            pairs = Counter(frozenset(s.user.userid for s in b.seats) for b in rows)
            assert max(pairs.values()) == 1, "a pair met twice"
            assert all(len(e.byes or []) <= 1 for e in t.entries), "two byes"
            for board in this:
                roll = rng.random()
                outcome = (Outcome((), (), "agreed") if roll < 0.2 else
                           Outcome((0,), (1,), "won") if roll < 0.6 else Outcome((1,), (0,), "won"))
                boards.finish(board, outcome)
            if number == 2 and n >= 7:  # a withdrawal after round 2: paired no more
                entry = next(e for e in t.entries if e.user.userid == quitter)
                entry.withdrawn_at = utcnow()
            if number < rounds:
                session.flush()
                done = tournaments.tick(ctx(session))
                assert done.rounds == [f"sw round {number + 1}"], done

        db.run(check_and_finish)


def test_a_round_that_cannot_be_paired_changes_nothing(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    db = Database(sqlite_url)
    db.upgrade()
    settings = Settings(database_url=sqlite_url, addresses=["pbmserv@games.test"])

    def ctx(session):  # type: ignore[no-untyped-def]
        return Context(session, settings, Request(words=[], line="", sender="pbmserv@games.test", admin=True),
                       utcnow())

    def setup(session):  # type: ignore[no-untyped-def]
        t = tournaments.create(session, boards.plugin_for("tictactoe"), "sw", "swiss", 2, [], None, None)
        for i in range(4):
            user = User(userid=f"p{i}", password_hash="x")
            session.add(user)
            session.flush()
            tournaments.join(session, t, user, utcnow())
        tournaments.start(ctx(session), t)
        for board in session.scalars(select(Board).where(Board.tournament_id == t.id)):
            boards.finish(board, Outcome((0,), (1,), "won"))

    db.run(setup)

    def broken(**kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("no pairing today")

    monkeypatch.setattr(tournaments, "generate_pairings", broken)
    done = db.run(lambda s: tournaments.tick(ctx(s)))
    assert done.rounds == [] and "round 2 not paired (RuntimeError: no pairing today)" in done.waiting[0]
    with db.transaction() as s:
        assert tournaments.find(s, "sw").current_round == 1
        assert len(s.scalars(select(Board.id).where(Board.tournament_round == 2)).all()) == 0
    monkeypatch.undo()
    done = db.run(lambda s: tournaments.tick(ctx(s)))
    assert done.rounds == ["sw round 2"]
