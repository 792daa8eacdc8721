"""Boards against the computer by mail: challenge, limits, votes, chat, hint and review, races.

Real server, real SMTP both ways, real database files.  The computer plays
tic-tac-toe here (the suite's toy game): what is tested is the server
around the engine, and a toy game keeps every test to a second or two.
"""

from __future__ import annotations

import smtplib
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

import games
from server.boards import boards
from server.mail.replies import board_root
from server.processes import computer as computer_process
from server.processes.computer import ComputerPlayer
from server.store.database import Database
from server.store.model import Board, ComputerJob, Move, Outbox
from tests.client_replies import thunderbird_flowed
from tests.mailtools import Received, Sink
from tests.server.conftest import Running, start_server
from tests.tictactoe import GAME as TTT

ALICE, BOB = "alice@example.org", "bob@example.org"


@pytest.fixture
def idle(db_url: str, sink: Sink) -> Iterator[Running]:
    """A server that does not play the computer's turns itself: the test drives the computer's steps."""
    server = start_server(db_url, sink, computer=False)
    running = Running(server, sink)
    running.mail(ALICE, "signup alice apple1")
    sink.clear()
    yield running
    server.stop()


@pytest.fixture
def live(db_url: str, sink: Sink) -> Iterator[Running]:
    server = start_server(db_url, sink, computer_boards_per_account=2)
    running = Running(server, sink)
    running.mail(ALICE, "signup alice apple1")
    running.mail(BOB, "signup bob banana2")
    sink.clear()
    yield running
    server.stop()


def board(running: Running, number: int = 101) -> Board:
    with running.db.transaction() as s:
        row = s.scalars(select(Board).where(Board.number == number)).one()
        s.expunge(row)
        return row


def settle(running: Running, number: int = 101, timeout: float = 20.0) -> Board:
    """Until the computer owes nothing on the board (its move or vote) and every mail is out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running.quiesce()
        row = board(running, number)
        vote = (row.pending or {}).get("vote")
        computer_to_move = row.status == "active" and row.to_move is not None and \
            row.seats[row.to_move].user.userid.startswith("computer-")
        if not computer_to_move and not (vote and 1 not in vote["accepted"]):
            with running.db.transaction() as s:
                waiting = s.scalar(select(func.count()).select_from(ComputerJob).where(
                    ComputerJob.status == "new", ComputerJob.kind != "move"))
            if not waiting:
                running.quiesce()
                return row
        time.sleep(0.05)
    raise AssertionError("the computer did not settle")


def reply(running: Running, mail: Received, typed: str) -> list[Received]:
    before = len(running.sink.messages)
    with smtplib.SMTP("127.0.0.1", running.port, timeout=30) as smtp:
        smtp.sendmail(ALICE, [str(mail.message["Reply-To"])], thunderbird_flowed(mail, ALICE, typed))
    running.quiesce()
    return running.sink.messages[before:]


# -- challenge and limits -------------------------------------------------------------------


def test_the_computer_answers_a_move_with_an_ordinary_board_mail(live: Running) -> None:
    new = live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    assert [m.subject for m in new] == ["New Tic-Tac-Toe Board 101 alice"]
    assert "alice vs computer-1" in new[0].text
    live.mail(ALICE, "tictactoe move 101 alice apple1 b2#1")
    row = settle(live)
    assert row.ply == 2 and row.to_move == 0 and not row.rated
    last = live.sink.to(ALICE)[-1]
    assert "computer-1 played" in last.text and last.message["Reply-To"]
    # The computer's move is a stored move like hers, on another square.
    with live.db.transaction() as s:
        moves = [(m.seat, m.move) for m in s.scalars(select(Move).order_by(Move.ply))]
    assert moves[0] == (0, "b2") and moves[1][0] == 1 and moves[1][1] != "b2"
    # Nobody else got mail: the computer has no address.
    assert {r for m in live.sink.messages for r in m.rcpt_tos} == {ALICE}


def test_the_computer_moves_first_when_it_holds_the_first_seat(live: Running) -> None:
    live.mail(ALICE, "tictactoe challenge computer alice")
    row = settle(live)
    assert row.ply == 1 and row.to_move == 1
    assert "computer-2 played" in live.sink.to(ALICE)[-1].text  # level 2 when none is named


def test_limits_strangers_and_bad_levels_are_refused_and_change_nothing(live: Running) -> None:
    live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    third = live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    assert "already plays 2 boards against the computer" in third[0].text
    stranger = live.mail("eve@example.net", "tictactoe challenge alice computer")
    assert "Only a player with an account" in stranger[0].text
    for command, why in [("tictactoe challenge bob computer -level=4", "-level=1, -level=2 or -level=3"),
                         ("tictactoe challenge alice bob -level=1", "is for a board against the computer"),
                         ("tictactoe challenge computer-1 computer-2", "at least one person"),
                         ("tictactoe challenge computer computer-2", "two seats only at two levels")]:
        answer = live.mail(BOB if "bob computer" in command else ALICE, command)
        assert why in answer[0].text, answer[0].text
    signup = live.mail("mallory@example.org", "signup computer-1 secret99")
    assert "cannot be a userid" in signup[0].text
    with live.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Board)) == 2


def test_chat_with_only_the_computer_gets_a_clear_answer(live: Running) -> None:
    live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    settle(live)
    answer = live.mail(ALICE, "tictactoe chat 101 alice apple1", "good game?")
    assert answer[0].subject == "Tic-Tac-Toe Board 101 Error"
    assert "The computer does not read chat" in answer[0].text


# -- votes -----------------------------------------------------------------------------------


def test_level_one_takes_back_and_level_two_does_not(live: Running) -> None:
    live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    live.mail(ALICE, "tictactoe move 101 alice apple1 a1#1")
    settle(live)
    live.mail(ALICE, "tictactoe move 101 alice apple1 undo")
    row = settle(live)
    # Her move and the computer's answer are both taken back: it is her move on an empty board.
    assert row.ply == 0 and row.to_move == 0 and row.status == "active"
    assert "taken back" in live.sink.to(ALICE)[-1].text
    live.mail(ALICE, "tictactoe challenge alice computer -level=2", "")
    live.mail(ALICE, "tictactoe move 102 alice apple1 a1#1")
    settle(live, 102)
    live.mail(ALICE, "tictactoe move 102 alice apple1 undo")
    row = settle(live, 102)
    assert row.ply == 2 and "computer-2 rejects taking back the last move" in live.sink.to(ALICE)[-1].text


# -- hint and review ---------------------------------------------------------------------------


def test_hint_by_command_and_by_reply_and_review_of_the_finished_board(live: Running) -> None:
    live.mail(ALICE, "tictactoe challenge alice computer -level=1")
    live.mail(ALICE, "tictactoe move 101 alice apple1 a1#1")
    settle(live)
    ack = live.mail(ALICE, "tictactoe hint 101 alice apple1")
    assert "working out a hint" in ack[0].text
    settle(live)
    hint = live.sink.to(ALICE)[-1]
    assert hint.subject == "Tic-Tac-Toe Board 101 hint"
    assert hint.message["In-Reply-To"]
    assert board_root(live.server.settings, "tictactoe", 101) in str(hint.message["References"])
    row = board(live)
    state = TTT.load(row.state)
    best = next(line.split(":", 1)[1].strip() for line in hint.text.splitlines() if "Best move:" in line)
    assert best in TTT.legal_moves(state)
    assert "top three" in hint.text and "Why:" in hint.text
    # The same by reply to the board mail.
    mail = next(m for m in reversed(live.sink.to(ALICE)) if m.message["Reply-To"])
    reply(live, mail, "hint")
    settle(live)
    assert live.sink.to(ALICE)[-1].subject == "Tic-Tac-Toe Board 101 hint"
    # A running board is not reviewed; a finished one is, in one mail.
    early = live.mail(ALICE, "tictactoe review 101 alice apple1")
    assert "still being played" in early[0].text
    live.mail(ALICE, "tictactoe move 101 alice apple1 resign")
    assert board(live).status == "finished"
    live.mail(ALICE, "tictactoe review 101 alice apple1")
    settle(live)
    review = live.sink.to(ALICE)[-1]
    assert review.subject == "Tic-Tac-Toe Board 101 review"
    assert "alice:" in review.text and "computer-1:" in review.text
    assert all(len(line) <= 78 for line in review.text.splitlines())


def test_no_hint_against_a_person(live: Running) -> None:
    live.mail(ALICE, "tictactoe challenge alice bob")
    answer = live.mail(ALICE, "tictactoe hint 101 alice apple1")
    assert "a person is playing you here" in answer[0].text
    with live.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(ComputerJob)) == 0


# -- the computer's turn: no lock while thinking, stale moves refused -----------------------


def test_a_computer_move_that_raced_an_undo_is_refused_like_a_stale_mail(idle: Running) -> None:
    idle.mail(ALICE, "tictactoe challenge alice computer -level=1")
    idle.mail(ALICE, "tictactoe move 101 alice apple1 a1#1")
    player = ComputerPlayer(idle.db, idle.server.settings)
    turn = idle.db.run(player._look)
    assert turn is not None and turn.ply == 1 and turn.vote is None
    # While it "thinks", she proposes to take her move back, and the level-1 computer agrees.
    idle.mail(ALICE, "tictactoe move 101 alice apple1 undo")
    assert player.run_once()  # the vote
    row = board(idle)
    assert row.ply == 0 and row.to_move == 0
    with idle.db.transaction() as s:
        before = s.scalar(select(func.count()).select_from(Outbox))
    idle.db.run(lambda s: player._hand_in(s, TTT, turn, "b2"))
    row = board(idle)
    assert row.ply == 0 and row.to_move == 0 and row.state["cells"] == {}
    with idle.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Outbox)) == before
        job = s.scalars(select(ComputerJob).where(ComputerJob.kind == "move")).one()
        assert job.status == "stale" and "board is at move #1" in (job.error or "")


def test_an_offer_made_while_the_computer_thinks_is_answered_before_it_moves(idle: Running) -> None:
    """Its move would cancel the offer unanswered (a normal move clears a pending proposal):
    the computer hands in nothing, keeps the turn's try, and answers the offer on its next look."""
    idle.mail(ALICE, "tictactoe challenge alice computer -level=1")
    idle.mail(ALICE, "tictactoe move 101 alice apple1 a1#1")
    player = ComputerPlayer(idle.db, idle.server.settings)
    turn = idle.db.run(player._look)
    assert turn is not None and turn.ply == 1 and turn.vote is None
    with idle.db.transaction() as s:
        tries = s.scalars(select(ComputerJob).where(ComputerJob.kind == "move")).one().tries
    # While it "thinks", she offers a draw (the board stays at move 1: nothing is taken back yet).
    idle.mail(ALICE, "tictactoe move 101 alice apple1 propose")
    idle.db.run(lambda s: player._hand_in(s, TTT, turn, "b2"))
    row = board(idle)
    assert row.ply == 1 and row.to_move == 1 and (row.pending or {}).get("vote", {}).get("word") == "propose"
    with idle.db.transaction() as s:
        assert s.scalars(select(ComputerJob).where(ComputerJob.kind == "move")).one().tries == tries - 1
    # Its next look answers the offer (the computer rejects every draw offer) ...
    assert player.run_once()
    row = board(idle)
    assert not (row.pending or {}).get("vote") and row.ply == 1
    # ... and the one after that plays its move.
    assert player.run_once()
    assert board(idle).ply == 2


def test_no_board_lock_is_held_while_the_computer_thinks(idle: Running, monkeypatch: pytest.MonkeyPatch,
                                                         db_url: str) -> None:
    idle.mail(ALICE, "tictactoe challenge alice computer -level=1")
    idle.mail(ALICE, "tictactoe move 101 alice apple1 a1#1")
    other = Database(db_url, busy_timeout=1)
    thought = []
    real = computer_process.analyse

    def analyse_and_meanwhile_write(*args, **kwargs):  # type: ignore[no-untyped-def]
        # Another process locks and changes the board while the search runs: it must
        # neither wait nor fail, so the computer holds no lock (and no transaction).
        def touch(session):  # type: ignore[no-untyped-def]
            row = boards.find_board(session, games.load_game("tictactoe"), 101, lock=True)
            row.nagtime = 3.0

        other.run(touch, attempts=1)
        thought.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(computer_process, "analyse", analyse_and_meanwhile_write)
    player = ComputerPlayer(idle.db, idle.server.settings)
    assert player.run_once()
    other.dispose()
    row = board(idle)
    assert thought and row.nagtime == 3.0 and row.ply == 2


def test_a_turn_that_keeps_failing_is_cut_and_status_shows_it(idle: Running,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    idle.mail(ALICE, "tictactoe challenge alice computer -level=1")
    idle.mail(ALICE, "tictactoe move 101 alice apple1 a1#1")

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(computer_process, "analyse", broken)
    player = ComputerPlayer(idle.db, idle.server.settings)
    for _ in range(computer_process.MAX_TRIES):
        assert player.run_once()
    assert not player.run_once()  # cut: not taken again
    with idle.db.transaction() as s:
        job = s.scalars(select(ComputerJob)).one()
        assert job.status == "cut" and "engine exploded" in (job.error or "")
    from click.testing import CliRunner

    from server.processes.cli import main
    out = CliRunner().invoke(main, ["--database-url", idle.server.settings.database_url, "status"]).output
    assert "computer queue:    0 turns, 0 hints, 0 reviews waiting; 1 boards against it; 1 turns cut" in out
