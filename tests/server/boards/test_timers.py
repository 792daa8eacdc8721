"""``pbmserv remind`` run as cron would, with ``--now`` at chosen moments.

The server runs for real (mail in over SMTP, replies out to the relay sink);
``remind`` is the real click command on the same database, and its mail
reaches the sink through the running server's outbox delivery.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from click.testing import CliRunner
from sqlalchemy import func, select

from server.processes.cli import main
from server.store.model import Board, Outbox, Rating, Reminder
from tests.mailtools import Received
from tests.server.conftest import ADDRESS, Running


def turn_since(running: Running, number: int = 101, game: str = "tictactoe") -> datetime:
    with running.db.transaction() as s:
        return s.scalars(select(Board.turn_since).where(Board.game == game, Board.number == number)).one()


def board(running: Running, number: int = 101, game: str = "tictactoe") -> Board:
    with running.db.transaction() as s:
        return s.scalars(select(Board).where(Board.game == game, Board.number == number)).one()


def remind(running: Running, at: datetime, *extra: str) -> tuple[str, list[Received]]:
    """Run ``pbmserv remind --now AT`` and return its output and the mail it caused."""
    before = len(running.sink.messages)
    result = CliRunner().invoke(main, ["--database-url", running.server.settings.database_url,
                                       "--address", ADDRESS, "remind", "--now", at.isoformat(), *extra])
    assert result.exit_code == 0, result.output + repr(result.exception)
    running.quiesce()
    return result.output, running.sink.messages[before:]


def flat(text: str) -> str:
    """The text with line breaks (CRLF on the wire) and runs of spaces as single spaces."""
    return " ".join(text.split())


def days(start: datetime, n: float) -> datetime:
    return start + timedelta(days=n)


def test_reminders_once_per_period_then_forfeit(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    for sender, cmd in [("alice", "alice apple1 b2"), ("bob", "bob banana2 a1"), ("alice", "alice apple1 b1")]:
        players.mail(f"{sender}@example.org", f"tictactoe move 101 {cmd}")
    start = turn_since(players)  # bob to move since his turn began

    out, mails = remind(players, days(start, 6.99))
    assert mails == [] and "checked 1 boards: reminded 0, forfeited 0, skipped 0" in out

    out, mails = remind(players, days(start, 7.01))
    assert "reminded 1, forfeited 0" in out
    assert [m.rcpt_tos for m in mails] == [["bob@example.org"]]
    reminder = mails[0]
    assert reminder.subject == "Tic-Tac-Toe Board 101 Reminder"
    assert reminder.message["Auto-Submitted"] == "auto-generated"
    assert "bob, it is your move on Tic-Tac-Toe Board 101, and has been for 7 days" in flat(reminder.text)
    assert "It is bob (O)'s move (move #4)" in reminder.text  # the board comes along
    assert reminder.message["References"] == "<tictactoe.101.board@games.test>"

    # Same moment again, and later in the same period: nothing.
    for moment in (days(start, 7.01), days(start, 10), days(start, 13.99)):
        out, mails = remind(players, moment)
        assert mails == [] and "reminded 0" in out
    # The next period: one more, once.
    out, mails = remind(players, days(start, 14.2))
    assert len(mails) == 1 and mails[0].subject.endswith("Reminder") and "reminded 1" in out
    assert remind(players, days(start, 14.2))[1] == []
    with players.db.transaction() as s:
        assert sorted(s.scalars(select(Reminder.period))) == [1, 2]

    # The forfeit time: bob loses, everyone is told, the game is rated.
    out, mails = remind(players, days(start, 21.0))
    assert "reminded 0, forfeited 1" in out
    assert sorted(m.rcpt_tos[0] for m in mails) == ["alice@example.org", "bob@example.org"]
    assert {m.subject for m in mails} == {"Tic-Tac-Toe Board 101 Finished"}
    assert "bob forfeits (no move for 21 days)." in mails[0].text
    assert "alice (X) wins (bob forfeited: no move for 21 days)" in mails[0].text
    assert all(m.message["Auto-Submitted"] == "auto-generated" for m in mails)
    row = board(players)
    assert row.status == "finished" and row.outcome["winners"] == [0]
    with players.db.transaction() as s:
        assert {r.user.userid: round(r.rating) for r in s.scalars(select(Rating))} == {"alice": 1824, "bob": 1424}
    # Nothing more to do for a finished board, however often cron runs.
    out, mails = remind(players, days(start, 40))
    assert mails == [] and "checked 0 boards" in out


def test_a_move_restarts_the_clock_and_nagtime_is_per_board(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob --nagtime=2 --forfeittime=5")
    start = turn_since(players)
    assert [m.rcpt_tos for m in remind(players, days(start, 2.1))[1]] == [["alice@example.org"]]
    assert remind(players, days(start, 3.9))[1] == []  # still alice's first period
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    # The move passes the turn: bob's clock starts now, with periods of its own.
    bob_start = turn_since(players)
    assert bob_start > start
    assert remind(players, days(bob_start, 1.99))[1] == []
    mails = remind(players, days(bob_start, 2.5))[1]
    assert [m.rcpt_tos for m in mails] == [["bob@example.org"]]
    assert remind(players, days(bob_start, 2.5))[1] == []
    # bob never moved: his forfeit removes the board (unrated), as a resign before a first move would.
    out, mails = remind(players, days(bob_start, 5))
    assert "forfeited 1" in out and len(mails) == 2
    assert "bob forfeits (no move for 5 days) before making a move" in mails[0].text
    assert board(players).status == "removed"
    with players.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Rating)) == 0


def test_vacation_skips_reminders_and_forfeits(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    start = turn_since(players)
    players.mail("alice@example.org", "vacation alice apple1 on")
    out, mails = remind(players, days(start, 30))
    assert mails == [] and "reminded 0, forfeited 0, skipped 1 (vacation)" in out
    assert board(players).status == "active"
    # Shown to the opponent in board mails and tables.
    shown = players.mail("bob@example.org", "tictactoe show 101")[0].text
    assert "On vacation (no reminders, no forfeits): alice" in shown
    assert "alice to move (vacation)" in players.mail("bob@example.org", "tictactoe games")[0].text
    # Back from vacation: the clock starts afresh, so a full nag time passes before a reminder.
    back = players.mail("alice@example.org", "vacation alice apple1 off")[0].text
    assert "The clock starts afresh on the 1 boards waiting for your move." in flat(back)
    restarted = turn_since(players)
    assert restarted > start
    assert remind(players, days(restarted, 6.9))[1] == []
    out, mails = remind(players, days(restarted, 7.1))
    assert "reminded 1, forfeited 0, skipped 0" in out and mails[0].rcpt_tos == ["alice@example.org"]


def test_dry_run_lists_and_changes_nothing(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe challenge bob alice")
    start = turn_since(players)
    out, mails = remind(players, days(start, 7.5), "--dry-run")
    assert mails == []
    assert "would remind tictactoe 101 (alice), reminder 1" in out
    assert "would remind tictactoe 102 (bob), reminder 1" in out
    assert out.strip().endswith("dry run, nothing sent: checked 2 boards: would be reminded 2, would be forfeited 0, "
                                "skipped 0 (vacation)")
    out, mails = remind(players, days(start, 22), "--dry-run")
    assert "would forfeit tictactoe 101 (alice)" in out
    with players.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Reminder)) == 0
        assert s.scalar(select(func.count()).select_from(Outbox).where(Outbox.subject.like("%Reminder%"))) == 0
        assert {b.status for b in s.scalars(select(Board))} == {"active"}
    # The real run afterwards sends what the dry run listed.
    assert len(remind(players, days(start, 7.5))[1]) == 2


def test_digest_groups_boards_into_one_mail(players: Running) -> None:
    players.mail("bob@example.org", "digest bob banana2 on")
    for _ in range(3):
        players.mail("alice@example.org", "tictactoe challenge bob alice")  # bob moves first on 101..103
    players.mail("alice@example.org", "tictactoe challenge alice bob")  # alice to move on 104
    start = turn_since(players, 103)
    out, mails = remind(players, days(start, 8))
    assert "reminded 4" in out
    to_bob = [m for m in mails if m.rcpt_tos == ["bob@example.org"]]
    to_alice = [m for m in mails if m.rcpt_tos == ["alice@example.org"]]
    assert len(to_bob) == 1 and len(to_alice) == 1
    digest = to_bob[0]
    assert digest.subject == "pbmserv Reminder: 3 boards waiting for your move"
    assert digest.message["Auto-Submitted"] == "auto-generated"
    for number in (101, 102, 103):
        assert f"Tic-Tac-Toe Board {number}: waiting 8 days" in digest.text
    assert to_alice[0].subject == "Tic-Tac-Toe Board 104 Reminder"
    # Idempotent: the same moment again sends nothing.
    assert remind(players, days(start, 8))[1] == []
    # Digest off again: the next period comes one mail per board.
    players.mail("bob@example.org", "digest bob banana2 off")
    mails = remind(players, days(start, 14.5))[1]
    assert sorted(m.subject for m in mails if m.rcpt_tos == ["bob@example.org"]) == [
        f"Tic-Tac-Toe Board {n} Reminder" for n in (101, 102, 103)]


def test_bad_now_is_refused(sqlite_url: str) -> None:
    result = CliRunner().invoke(main, ["--database-url", sqlite_url, "remind", "--now", "next tuesday"])
    assert result.exit_code == 2 and "is not a timestamp" in result.output


def test_two_runs_at_once_send_each_reminder_once(players: Running) -> None:
    """Two cron runs overlapping (say a slow run and the next): the board locks and the
    unique (board, ply, period) key leave exactly one reminder per board."""
    import threading

    from server.boards.timers import Reminders

    for _ in range(4):
        players.mail("alice@example.org", "tictactoe challenge alice bob")
    moment = days(turn_since(players, 104), 7.5)
    summaries = []

    def run() -> None:
        summaries.append(Reminders(players.db, players.server.settings, moment).run())

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    players.quiesce()
    assert sum(s.reminded for s in summaries) == 4
    mails = [m for m in players.sink.messages if m.subject.endswith("Reminder")]
    assert sorted(m.subject for m in mails) == [f"Tic-Tac-Toe Board {n} Reminder" for n in (101, 102, 103, 104)]
    with players.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Reminder)) == 4


def test_a_forfeit_at_now_t_ends_the_game_at_t(players: Running) -> None:
    """Issue 26 item 18: ``remind --now T`` records T as the end (and says so in the mail), not the clock."""
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    for sender, cmd in [("alice", "alice apple1 b2"), ("bob", "bob banana2 a1"), ("alice", "alice apple1 b1")]:
        players.mail(f"{sender}@example.org", f"tictactoe move 101 {cmd}")
    at = days(turn_since(players), 30)  # a month from now: far from the wall clock
    out, mails = remind(players, at)
    assert "forfeited 1" in out
    row = board(players)
    assert row.status == "finished" and row.finished_at == at.replace(tzinfo=None)
    assert f"Ended {at:%Y-%m-%d %H:%M} UTC." in mails[0].text


def test_back_from_vacation_nags_resume_but_no_forfeit_until_the_next_move(players: Running) -> None:
    """Issue 26 item 17: the original's "back" half-state."""
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 a1")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b1")
    players.mail("bob@example.org", "vacation bob banana2 on")
    (back,) = players.mail("bob@example.org", "vacation bob banana2 off")
    assert "no board is forfeited before your next move" in flat(back.text)
    start = turn_since(players)  # the clock restarted when bob came back
    out, mails = remind(players, days(start, 7.5))
    assert "reminded 1" in out and [m.rcpt_tos for m in mails] == [["bob@example.org"]]
    assert "the board is forfeited only after your next move (you are back from vacation)" in flat(mails[0].text)
    out, mails = remind(players, days(start, 30))  # long past the forfeit time: reminded, not forfeited
    assert "forfeited 0" in out and "reminded 1" in out
    assert board(players).status == "active"
    # bob moves: the half-state ends, and his next silence is forfeited as usual
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 c3")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 c1")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 a3")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 c2")
    if board(players).status == "active":
        bob_turn = turn_since(players)
        out, _ = remind(players, days(bob_turn, 21.5))
        assert "forfeited 1" in out


def test_totaltime_is_shown_per_player_and_enforced_by_remind(players: Running) -> None:
    """Issue 26 item 16: the original's --totaltime=DAYS, each player's time used in all."""
    new = players.mail("alice@example.org", "tictactoe challenge alice bob --totaltime=3")
    assert "Time used: alice 0.0 days, bob 0.0 days (of 3 days each)." in flat(new[0].text)
    for sender, cmd in [("alice", "alice apple1 b2"), ("bob", "bob banana2 a1"), ("alice", "alice apple1 b1")]:
        players.mail(f"{sender}@example.org", f"tictactoe move 101 {cmd}")
    start = turn_since(players)
    out, _ = remind(players, days(start, 2.9))
    assert "forfeited 0" in out  # 2.9 of 3 days used
    out, mails = remind(players, days(start, 3.1))  # long before the 21-day forfeit: out of total time
    assert "forfeited 1" in out
    assert "bob forfeits (out of time: more than 3 days used in all)" in flat(mails[0].text)
    assert "Time used: alice 0.0 days, bob 3.1 days (of 3 days each)." in flat(mails[0].text)
    assert board(players).status == "finished"
    (refused,) = players.mail("alice@example.org", "tictactoe challenge alice bob --totaltime=0.1")
    assert "--totaltime=0.1: give between 1 and 365 days" in flat(refused.text)
