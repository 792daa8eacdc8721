"""Tournaments played to the end by mail on a running server, the clock driven by ``pbmserv remind --now``.

The admin's part goes through the real ``pbmserv tournament`` click commands;
players join, move, resign, vote and withdraw by mail (smtplib into the
listener, replies read at the relay sink).  Every final table is checked
against standings computed here by hand (the round robin's and the pool's
as literal numbers; the Swiss's from the pairings it made, with this
file's own arithmetic), never by the server's code.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime, timedelta
from itertools import combinations

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from server.processes.cli import main
from server.store.model import Board, Tournament, utcnow
from tests.mailtools import Received
from tests.server.conftest import ADDRESS, Running

PASSWORDS = {"alice": "apple1", "bob": "banana2", "carol": "cherry3", "dave": "date4", "erin": "elder5",
             "frank": "fig6", "gina": "grape7"}
#: Tic-tac-toe games the test can steer: seat 0 (X) wins, seat 1 (O) wins, a full-board draw.
X_WINS = ["a1", "b1", "a2", "b2", "a3"]
O_WINS = ["a1", "b1", "c3", "b2", "a2", "b3"]
DRAW = ["a1", "b2", "a2", "a3", "c1", "b1", "b3", "c2", "c3"]


def flat(text: str) -> str:
    return " ".join(text.split())


def admin(running: Running, *args: str) -> str:
    result = CliRunner().invoke(main, ["--database-url", running.server.settings.database_url, "--address", ADDRESS,
                                       *args])
    assert result.exit_code == 0, result.output
    running.quiesce()
    return result.output


def admin_fails(running: Running, *args: str) -> str:
    result = CliRunner().invoke(main, ["--database-url", running.server.settings.database_url, "--address", ADDRESS,
                                       *args])
    assert result.exit_code != 0
    return result.output


def remind(running: Running, at: datetime) -> tuple[str, list[Received]]:
    before = len(running.sink.messages)
    output = admin(running, "remind", "--now", at.isoformat())
    return output, running.sink.messages[before:]


def signup(running: Running, *names: str) -> None:
    for name in names:
        running.mail(f"{name}@example.org", f"signup {name} {PASSWORDS[name]}")
    running.sink.clear()


def say(running: Running, user: str, subject: str) -> list[Received]:
    return running.mail(f"{user}@example.org", subject)


def tournament_boards(running: Running, name: str) -> list[tuple[int, int, list[str]]]:
    """(board number, round, seat userids) of the tournament, from the database (to steer the games)."""
    with running.db.transaction() as s:
        t = s.scalars(select(Tournament).where(Tournament.name == name)).one()
        rows = s.scalars(select(Board).where(Board.tournament_id == t.id).order_by(Board.number)).all()
        return [(b.number, b.tournament_round or 0, [seat.user.userid for seat in b.seats]) for b in rows]


def play(running: Running, number: int, seats: list[str], moves: list[str], game: str = "tictactoe") -> list[Received]:
    mails: list[Received] = []
    for i, move in enumerate(moves):
        user = seats[i % 2]
        mails += say(running, user, f"{game} move {number} {user} {PASSWORDS[user]} {move}")
    return mails


def win(running: Running, number: int, seats: list[str], winner: str) -> list[Received]:
    return play(running, number, seats, X_WINS if seats[0] == winner else O_WINS)


def final_table(mails: list[Received], name: str) -> tuple[Received, dict[str, list[str]]]:
    """The final standings mail (one per player: all alike) and its rows by userid."""
    finals = [m for m in mails if m.subject.endswith(f"tournament {name} final standings")]
    assert finals, [m.subject for m in mails]
    rows = {}
    for line in finals[0].text.splitlines():
        m = re.match(r"^\s+(\d+)\s+(?:[A-Z]\s+)?([a-z]+)(?: \(withdrawn\))?\s+([\d.]+)\s+(.*)$", line)
        if m:
            rows[m.group(2)] = [m.group(1), m.group(3), *m.group(4).split()]
    return finals[0], rows


@pytest.fixture
def four(running: Running) -> Running:
    signup(running, "alice", "bob", "carol", "dave")
    return running


def test_round_robin_of_four_to_the_end(four: Running) -> None:
    running = four
    out = admin(running, "tournament", "create", "tictactoe", "Spring26", "--kind", "roundrobin")
    assert "created tournament spring26" in out
    # Joining by mail: as a reply to the announcement (subject edited), and by the plain command.
    assert "has joined tournament spring26 (1 player)" in say(
        running, "alice", "Re: tictactoe tournament join spring26 alice apple1")[0].text
    for user in ("bob", "carol", "dave"):
        say(running, user, f"tictactoe tournament join spring26 {user} {PASSWORDS[user]}")
    # Bad input: a clear answer and nothing changes.
    dup = say(running, "bob", "tictactoe tournament join spring26 bob banana2")[0]
    assert "bob has joined tournament spring26 already" in flat(dup.text)
    assert "banana2" not in flat(dup.text)
    assert "no tournament of Tic-Tac-Toe called 'autumn'" in flat(say(
        running, "bob", "tictactoe tournament join autumn bob banana2")[0].text)
    unedited = say(running, "bob", "Re: tictactoe tournament join spring26")[0]
    assert "Re: tictactoe tournament join spring26 USERID PASSWORD" in flat(unedited.text)
    listing = say(running, "carol", "tictactoe tournaments")[0].text
    assert "Open for entries:" in listing and "spring26" in listing and "4 players" in listing

    running.sink.clear()
    admin(running, "tournament", "start", "spring26")
    news = [m for m in running.sink.messages if "New Tic-Tac-Toe Board" in m.subject]
    assert len(news) == 12  # 6 boards, one mail to each of their two players
    assert all(m.subject.startswith("[spring26 round ") for m in news)
    assert "Tournament: spring26 (round robin), round" in news[0].text
    late = say(running, "dave", "tictactoe tournament join spring26 dave date4")[0]
    assert "Tournament spring26 has started: it takes no more entries" in flat(late.text)

    found = tournament_boards(running, "spring26")
    assert len(found) == 6
    assert {frozenset(seats) for _, _, seats in found} == {
        frozenset(p) for p in combinations(["alice", "bob", "carol", "dave"], 2)}
    board_of = {frozenset(seats): (number, seats) for number, _, seats in found}
    round_of = {number: rnd for number, rnd, _ in found}

    def pair(a: str, b: str) -> tuple[int, list[str]]:
        return board_of[frozenset((a, b))]

    mails = win(running, *pair("alice", "bob"), "alice")
    standings = [m for m in mails if "tournament spring26 standings" in m.subject]
    assert sorted(m.rcpt_tos[0] for m in standings) == [f"{u}@example.org" for u in ("alice", "bob", "carol", "dave")]
    assert "Boards finished: 1 of 6." in standings[0].text
    # Ratings change as for any rated board.
    ratings = say(running, "carol", "tictactoe standings")[0].text
    rating = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+\d+\s+(\w+)\s+(\d+)", ratings, re.M)}
    assert rating["alice"] > 1600 > rating["bob"], ratings
    play(running, *pair("alice", "carol"), DRAW)
    win(running, *pair("bob", "carol"), "bob")
    play(running, *pair("bob", "dave"), DRAW)
    number, seats = pair("carol", "dave")
    say(running, "dave", f"tictactoe resign {number} dave date4")  # before moving: still a loss, not removed
    # A subject edited on a tournament board mail (its [tag] in front) plays too.
    number, seats = pair("alice", "dave")
    if seats[0] == "alice":
        reply = say(running, "alice", f"Re: [spring26 round {round_of[number]}] Tic-Tac-Toe Board {number} alice apple1 b2")
        assert "alice played b2" in reply[0].text
    # dave never moves on the last board: reminded after a day, forfeited after seven.
    start = utcnow()
    out, mails = remind(running, start + timedelta(days=1.1))
    assert "reminded 1" in out and mails[0].rcpt_tos == ["dave@example.org"]
    assert mails[0].subject == f"[spring26 round {round_of[number]}] Tic-Tac-Toe Board {number} Reminder"
    assert "vacation stops its reminders but only delays the forfeit by 7 days" in flat(mails[0].text)
    out, mails = remind(running, start + timedelta(days=7.2))
    assert "forfeited 1" in out
    final, rows = final_table(mails, "spring26")
    # By hand: alice beat bob and dave, drew carol: 2.5; bob beat carol, drew dave: 1.5;
    # carol beat dave, drew alice: 1.5; dave drew bob: 0.5.
    # Sonneborn-Berger: alice 1.5 + 0.5 + 1.5/2 = 2.75; bob 1.5 + 0.5/2 = 1.75;
    # carol 0.5 + 2.5/2 = 1.75; dave 1.5/2 = 0.75.  bob and carol tie on points,
    # S-B and wins (1 each): they share second place.
    assert rows == {"alice": ["1", "2.5", "2", "1", "0", "2.75"], "bob": ["2", "1.5", "1", "1", "1", "1.75"],
                    "carol": ["2", "1.5", "1", "1", "1", "1.75"], "dave": ["4", "0.5", "0", "1", "2", "0.75"]}
    assert "Boards finished: 6 of 6." in final.text and "Tournament spring26 is over." in final.text
    assert max(len(line) for line in final.text.splitlines()) <= 78
    listing = say(running, "carol", "tictactoe tournaments")[0].text
    assert "Finished:" in listing


def test_swiss_of_six_over_three_rounds(running: Running) -> None:
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    signup(running, *names, "gina")
    admin(running, "tournament", "create", "tictactoe", "open26", "--kind", "swiss", "--rounds", "3",
          "--max-players", "6")
    for user in names:
        say(running, user, f"tictactoe tournament join open26 {user} {PASSWORDS[user]}")
    full = say(running, "gina", "tictactoe tournament join open26 gina grape7")[0]
    assert "open26 is full (6 players)" in flat(full.text)
    out, mails = remind(running, utcnow())  # full: cron starts it
    assert "started tournament open26" in out
    assert sum(1 for m in mails if m.subject.startswith("[open26 round 1] New Tic-Tac-Toe")) == 6

    # (white, black, white's score) of every game, as this test decides them.
    results: list[tuple[str, str, float]] = []
    start = utcnow()
    for rnd in (1, 2, 3):
        tables = [(n, seats) for n, r, seats in tournament_boards(running, "open26") if r == rnd]
        assert len(tables) == 3 and sorted(u for _, seats in tables for u in seats) == names
        met = {frozenset((w, b)) for w, b, _ in results}
        assert not any(frozenset(seats) in met for _, seats in tables), "a pairing repeated"
        for i, (number, seats) in enumerate(tables):
            white, black = seats
            if rnd == 2 and i == 0:
                play(running, number, seats, DRAW)
                results.append((white, black, 0.5))
            elif rnd == 3 and i == 0:
                results.append((white, black, 0.0))  # white never moves: forfeited below
            else:
                winner = min(seats)
                win(running, number, seats, winner)
                results.append((white, black, 1.0 if winner == white else 0.0))
            if rnd < 3 and i == 1:
                # Not every board of the round has ended: no new round yet.
                out, _ = remind(running, utcnow())
                assert "started open26 round" not in out
        if rnd < 3:
            out, _ = remind(running, utcnow())
            assert f"started open26 round {rnd + 1}" in out
    out, mails = remind(running, start + timedelta(days=7.5))
    assert "forfeited 1" in out
    _, rows = final_table(mails, "open26")

    # By hand: points, then Buchholz (the opponents' points) and Sonneborn-Berger
    # (opponents' points times the score against them).
    points: dict[str, float] = defaultdict(float)
    games: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for white, black, score in results:
        points[white] += score
        points[black] += 1 - score
        games[white].append((black, score))
        games[black].append((white, 1 - score))
    expected = {}
    for user in names:
        wins = sum(1 for _, s in games[user] if s == 1)
        draws = sum(1 for _, s in games[user] if s == 0.5)
        buchholz = sum(points[o] for o, _ in games[user])
        sonneborn = sum(points[o] * s for o, s in games[user])
        expected[user] = [f"{points[user]:g}", str(wins), str(draws), str(3 - wins - draws), "0",
                          f"{buchholz:g}", f"{sonneborn:g}"]
    assert {u: r[1:] for u, r in rows.items()} == expected
    order = sorted(names, key=lambda u: (-points[u], -float(expected[u][5]), -float(expected[u][6])))
    assert [u for u, _ in sorted(rows.items(), key=lambda kv: int(kv[1][0]))] == order
    assert "Finished:" in say(running, "erin", "tictactoe tournaments")[0].text


def test_trimac_pool_of_three(running: Running) -> None:
    """One pool of three plays all 3! = 6 seat orders; pool points are 2 x wins + ties."""
    import games

    names = ["alice", "bob", "carol"]
    signup(running, *names)
    admin(running, "tournament", "create", "trimac", "tri26", "--kind", "pools")
    assert "pools are for three-player games" in admin_fails(
        running, "tournament", "create", "tictactoe", "bad", "--kind", "pools")
    for user in names:
        say(running, user, f"trimac tournament join tri26 {user} {PASSWORDS[user]}")
    admin(running, "tournament", "start", "tri26")
    found = tournament_boards(running, "tri26")
    assert len(found) == 6 and {tuple(seats) for _, _, seats in found} == {
        ("alice", "bob", "carol"), ("alice", "carol", "bob"), ("bob", "alice", "carol"),
        ("bob", "carol", "alice"), ("carol", "alice", "bob"), ("carol", "bob", "alice")}
    board = {tuple(seats): number for number, _, seats in found}
    trimac = games.load_game("trimac")
    first = trimac.legal_moves(trimac.start({}, 3))[0]  # Red's opening, the same on every board

    def sole_win(seats: tuple[str, ...]) -> None:
        """seats[0] wins: the other two resign (recorded for their turn), then the first player moves."""
        number = board[seats]
        for user in seats[1:]:
            text = say(running, user, f"trimac resign {number} {user} {PASSWORDS[user]}")[0].text
            assert "takes effect at your next turn" in flat(text)
        say(running, seats[0], f"trimac move {number} {seats[0]} {PASSWORDS[seats[0]]} {first}")

    def three_way_draw(seats: tuple[str, ...]) -> None:
        number = board[seats]
        say(running, seats[0], f"trimac move {number} {seats[0]} {PASSWORDS[seats[0]]} propose")
        for user in seats[1:]:
            say(running, user, f"trimac move {number} {user} {PASSWORDS[user]} accept")

    sole_win(("alice", "bob", "carol"))
    sole_win(("alice", "carol", "bob"))
    sole_win(("bob", "alice", "carol"))
    three_way_draw(("bob", "carol", "alice"))
    three_way_draw(("carol", "alice", "bob"))
    # The last board: carol, then bob, never move; each forfeits after 7 days; alice wins.
    start = utcnow()
    out, _ = remind(running, start + timedelta(days=7.1))
    assert "forfeited 1" in out
    out, mails = remind(running, start + timedelta(days=14.3))
    assert "forfeited 1" in out
    final, rows = final_table(mails, "tri26")
    assert max(len(line) for line in final.text.splitlines()) <= 78
    # By hand: alice won 3 (2 each) and tied 2 (1 each) = 8; bob won 1, tied 2 = 4;
    # carol won none, tied 2 = 2.
    assert rows == {"alice": ["1", "8", "3", "2", "1"], "bob": ["2", "4", "1", "2", "3"],
                    "carol": ["3", "2", "0", "2", "4"]}
