"""Tournament rules by mail on SQLite only (the long runs in test_tournaments.py cover PostgreSQL too):
a Swiss's bye and a withdrawal, the tournament's vacation rule, the board limit at joining, signoff.

Standings are checked against numbers computed by hand in each test.
"""

from __future__ import annotations

import re
from datetime import timedelta
from itertools import combinations

import pytest
from sqlalchemy import select

from server.store.model import Board, utcnow
from tests.server.boards.test_tournaments import (
    PASSWORDS,
    admin,
    admin_fails,
    final_table,
    flat,
    remind,
    say,
    signup,
    tournament_boards,
    win,
)
from tests.server.conftest import Running


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


def test_swiss_bye_and_withdrawal(running: Running) -> None:
    """Five players: one bye a round (a point); a player who withdraws forfeits and is paired no more."""
    names = ["alice", "bob", "carol", "dave", "erin"]
    signup(running, *names)
    admin(running, "tournament", "create", "tictactoe", "small", "--kind", "swiss", "--rounds", "2")
    for user in names:
        say(running, user, f"tictactoe tournament join small {user} {PASSWORDS[user]}")
    running.sink.clear()
    admin(running, "tournament", "start", "small")
    byes = [m for m in running.sink.messages if m.subject.endswith("round 1: bye")]
    assert len(byes) == 1 and "has the bye in round 1" in byes[0].text  # to that player alone
    tables = [(n, seats) for n, r, seats in tournament_boards(running, "small") if r == 1]
    assert len(tables) == 2
    sitting = [u for _, seats in tables for u in seats]
    (bye,) = set(names) - set(sitting)
    assert byes[0].rcpt_tos == [f"{bye}@example.org"]
    number, seats = tables[0]
    quitter = seats[0]
    mails = say(running, quitter, f"tictactoe tournament leave small {quitter} {PASSWORDS[quitter]}")
    assert any(f"{quitter} withdrew from tournament small" in flat(m.text) for m in mails)
    standings = [m for m in mails if m.subject.endswith("tournament small standings")]
    assert len(standings) == 5  # one table for the withdrawal, to each player
    assert f"{quitter} (withdrawn)" in standings[0].text
    win(running, *tables[1], min(tables[1][1]))
    out, _ = remind(running, utcnow())
    assert "started small round 2" in out
    second = [seats for _, r, seats in tournament_boards(running, "small") if r == 2]
    assert quitter not in {u for seats in second for u in seats}
    assert len(second) == 2  # four left: no bye
    again = say(running, quitter, f"tictactoe tournament leave small {quitter} {PASSWORDS[quitter]}")[0]
    assert "has withdrawn from tournament small already" in flat(again.text)
    text = say(running, "carol", "tictactoe tournament standings small")[0].text
    cells = {line.split()[1]: line.split()[2:7] for line in text.splitlines() if re.match(r"^\s+\d+\s+[a-z]", line)}
    # By hand after round 1 (points W D L Bye): the bye is a point without a game; the
    # withdrawal lost its board to the opponent.
    assert cells[bye] == ["1", "0", "0", "0", "1"]
    assert cells[seats[1]][:4] == ["1", "1", "0", "0"]
    assert re.search(rf"{quitter} \(withdrawn\)\s+0\s+0\s+0\s+1\s+0\b", text)


def test_vacation_limit_and_signoff_in_a_round_robin(running: Running) -> None:
    """The tournament's vacation rule, the board limit at joining, and a signoff's forfeits."""
    names = ["alice", "bob", "carol"]
    signup(running, *names, "dave")
    admin(running, "tournament", "create", "tictactoe", "club", "--kind", "roundrobin")
    # dave plays at most one Tic-Tac-Toe board and has one: he cannot join; nothing changes.
    say(running, "dave", "tictactoe limit dave date4 1")
    say(running, "dave", "tictactoe challenge dave alice")
    refused = say(running, "dave", "tictactoe tournament join club dave date4")[0]
    assert "dave plays at most 1 Tic-Tac-Toe boards at a time and has 1" in flat(refused.text)
    for user in names:
        say(running, user, f"tictactoe tournament join club {user} {PASSWORDS[user]}")
    assert "3 players" in say(running, "dave", "tictactoe tournaments")[0].text
    admin(running, "tournament", "start", "club")
    found = {frozenset(seats): (number, seats) for number, _, seats in tournament_boards(running, "club")}
    assert len(found) == 3
    # bob on vacation: where it is his move, no reminder after a day and no forfeit after 7,
    # but one after 7 + 7 days (the tournament's rule); the ordinary board is not touched.
    say(running, "bob", "vacation bob banana2 on")
    number, seats = found[frozenset(("bob", "carol"))]
    if seats[0] != "bob":
        say(running, "carol", f"tictactoe move {number} carol cherry3 a1")
    start = utcnow()
    win(running, *found[frozenset(("alice", "carol"))], "carol")
    number_ab, seats_ab = found[frozenset(("alice", "bob"))]
    if seats_ab[0] != "bob":
        say(running, "alice", f"tictactoe move {number_ab} alice apple1 c3")
    out, mails = remind(running, start + timedelta(days=1.5))
    assert not [m for m in mails if m.rcpt_tos == ["bob@example.org"] and "Reminder" in m.subject]
    out, mails = remind(running, start + timedelta(days=7.5))
    assert "forfeited 0" in out
    with running.db.transaction() as s:
        assert s.scalars(select(Board.status).where(Board.number == number)).one() == "active"
    out, mails = remind(running, start + timedelta(days=14.5))
    assert "forfeited 2" in out  # bob's two boards; dave's ordinary board waits for dave, not a tournament's
    _, rows = final_table(mails, "club")
    # By hand: carol beat alice and bob (forfeit): 2; alice beat bob (forfeit): 1; bob 0.
    # S-B: carol 1 + 0 = 1; alice 0; bob 0.
    assert rows == {"carol": ["1", "2", "2", "0", "0", "1"], "alice": ["2", "1", "1", "0", "1", "0"],
                    "bob": ["3", "0", "0", "0", "2", "0"]}


def test_signoff_forfeits_tournament_boards(running: Running) -> None:
    names = ["alice", "bob", "carol"]
    signup(running, *names)
    admin(running, "tournament", "create", "tictactoe", "quit", "--kind", "double")
    for user in names:
        say(running, user, f"tictactoe tournament join quit {user} {PASSWORDS[user]}")
    admin(running, "tournament", "start", "quit")
    found = tournament_boards(running, "quit")
    assert len(found) == 6  # three pairs, twice
    for pair in combinations(names, 2):
        orders = sorted(tuple(seats) for _, _, seats in found if set(seats) == set(pair))
        assert orders == sorted([pair, pair[::-1]])  # the second cycle exchanges the seats
    mails = say(running, "carol", "signoff carol cherry3")
    # Four boards forfeited, one standings table to each player still in.
    tables = [m for m in mails if m.subject == "tictactoe tournament quit standings"]
    assert sorted(m.rcpt_tos[0] for m in tables) == ["alice@example.org", "bob@example.org"]
    assert "carol signed off: their boards of tournament quit are forfeited." in flat(tables[0].text)
    assert "The account carol is closed" in flat(mails[0].text) or any(
        "The account carol is closed" in flat(m.text) for m in mails)
    for number, _, seats in found:
        if "carol" not in seats:
            win(running, number, seats, "alice")
    final, rows = final_table(running.sink.messages, "quit")
    assert "carol (withdrawn)" in final.text
    # By hand: carol's four boards are losses for her, wins for alice and bob (2 each);
    # alice beat bob twice: alice 4, bob 2, carol 0.
    assert {u: r[1:5] for u, r in rows.items()} == {"alice": ["4", "4", "0", "0"], "bob": ["2", "2", "0", "2"],
                                                     "carol": ["0", "0", "0", "4"]}


def test_announcement_reply_joins_and_cron_starts_at_the_date(running: Running) -> None:
    """The game's followers get the announcement; replying to it (userid and password added) joins;
    ``pbmserv remind`` starts the tournament at its date, not before, and not without enough players."""
    signup(running, "alice", "bob", "carol")
    say(running, "alice", "tictactoe notify alice apple1")
    running.sink.clear()
    start = utcnow() + timedelta(days=3)
    out = admin(running, "tournament", "create", "tictactoe", "dated", "--kind", "roundrobin", "--starts",
                start.isoformat())
    assert "announced to 1 followers" in out
    (announce,) = running.sink.messages
    assert announce.rcpt_tos == ["alice@example.org"] and announce.subject == "tictactoe tournament join dated"
    assert "Re: tictactoe tournament join dated USERID PASSWORD" in announce.text
    joined = say(running, "alice", f"Re: {announce.subject} alice apple1")[0]
    assert "alice has joined tournament dated (1 player)" in flat(joined.text)
    out, _ = remind(running, start + timedelta(hours=1))
    assert "tournament dated: Tournament dated needs at least 2 players to start; 1 joined" in flat(out)
    say(running, "bob", "tictactoe tournament join dated bob banana2")
    say(running, "carol", "tictactoe tournament join dated carol cherry3")
    say(running, "carol", "tictactoe tournament leave dated carol cherry3")
    out, _ = remind(running, start - timedelta(hours=1))
    assert "started tournament" not in out
    out, mails = remind(running, start + timedelta(hours=2))
    assert "started tournament dated" in out
    assert sorted(m.rcpt_tos[0] for m in mails if "New Tic-Tac-Toe Board" in m.subject) == [
        "alice@example.org", "bob@example.org"]
    assert len(tournament_boards(running, "dated")) == 1


def test_admin_refusals_change_nothing(running: Running) -> None:
    signup(running, "alice")
    assert "A Swiss needs --rounds N" in admin_fails(running, "tournament", "create", "tictactoe", "s1",
                                                       "--kind", "swiss")
    assert "roundrobin is for two-player games" in admin_fails(running, "tournament", "create", "trimac", "t1",
                                                                 "--kind", "roundrobin")
    assert "Unknown option" in admin_fails(running, "tournament", "create", "tictactoe", "o1", "--kind",
                                           "roundrobin", "--options", "-nosuch")
    admin(running, "tournament", "create", "tictactoe", "one", "--kind", "roundrobin")
    assert "There is a tournament called 'one' already" in admin_fails(
        running, "tournament", "create", "tictactoe", "ONE", "--kind", "double")
    assert "needs at least 2 players to start; 0 joined" in admin_fails(running, "tournament", "start", "one")
    assert "There is no tournament called 'nope'" in admin_fails(running, "tournament", "start", "nope")
    listing = admin(running, "tournament", "list")
    assert listing.split() == ["one", "tictactoe", "roundrobin", "open", "0", "players"]
