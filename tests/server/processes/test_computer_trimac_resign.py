"""TriMac against two computer seats: the person's resignation ends the board in that very mail.

TriMac's rules let the two armies left after a resignation play on (spec
D15), but the server does not mail a person the computer playing itself:
when only computer seats are left in play the board ends, drawn between
them, and the person has lost.  That must happen where the resignation
happens -- the resignation's board mail is the last one -- not a turn later
in the computer's process, after a mail saying it is computer-1's move.

The server here does not play the computer's turns itself: the test takes
them one at a time (``ComputerPlayer.run_once``), so the queued-resignation
case is not a race against the computer's thread.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import games
from games.engine import levels as engine_levels
from server.processes.computer import ComputerPlayer
from tests.mailtools import Received, Sink
from tests.server.commands.test_computer_commands import board, reply
from tests.server.conftest import Running, start_server

ALICE = "alice@example.org"
TRIMAC = games.load_game("trimac")


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


@pytest.fixture
def idle(db_url: str, sink: Sink, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    """alice has signed up; the computer's turns are the test's to take, at a small budget."""
    for number in (1, 2):
        monkeypatch.setitem(engine_levels.LEVELS, number, engine_levels.Level(number, iterations=30, cpu_seconds=0.2,
                                                                              accepts_undo=number == 1))
    server = start_server(db_url, sink, computer=False)
    running = Running(server, sink)
    running.mail(ALICE, "signup alice apple1")
    running.mail(ALICE, "pictures alice apple1 off")
    sink.clear()
    yield running
    server.stop()


def start_and_let_the_computer_answer(idle: Running) -> ComputerPlayer:
    """alice (Red) against computer-1 (Blue) and computer-2 (Green); she moves, both computers answer."""
    new = idle.mail(ALICE, "trimac challenge alice computer-1 computer-2")
    assert [m.subject for m in new] == ["New TriMac 3 Friends Board 101 alice"], [m.text for m in new]
    idle.mail(ALICE, "trimac move 101 alice apple1 Re7-Re8#1")
    player = ComputerPlayer(idle.db, idle.server.settings)
    assert player.run_once() and player.run_once()
    idle.quiesce()
    assert board(idle).to_move == 0
    return player


def assert_final(mails: list[Received]) -> None:
    """One board mail to alice, and it is the end of the game: no turn of a computer seat in it."""
    assert len(mails) == 1, [m.text[:300] for m in mails]
    text = mails[0].text
    assert "Game over: a draw (only the computer was left in the game" in text, text[:600]
    assert "computer-1 (Blue)'s move" not in text and "computer-2 (Green)'s move" not in text, text[:600]


def test_resigning_on_her_turn_ends_the_board_in_the_resignation_mail(idle: Running) -> None:
    player = start_and_let_the_computer_answer(idle)
    last = idle.sink.to(ALICE)[-1]
    assert "computer-2 played" in last.text
    answer = reply(idle, last, "resign")
    row = board(idle)
    assert row.status == "finished" and row.to_move is None
    assert row.outcome["winners"] == [] and row.outcome["losers"] == [0]
    assert_final([m for m in answer if ALICE in m.rcpt_tos])
    # Nothing is left for the computer: no further mail.
    assert not player.run_once()
    idle.quiesce()
    assert idle.sink.to(ALICE)[-1].message["Message-ID"] == answer[-1].message["Message-ID"]


def test_a_resignation_queued_for_her_next_turn_ends_the_board_in_the_computer_s_move_mail(idle: Running) -> None:
    player = start_and_let_the_computer_answer(idle)
    last = idle.sink.to(ALICE)[-1]
    move = TRIMAC.legal_moves(TRIMAC.load(board(idle).state))[0]
    reply(idle, last, move)
    ack = idle.mail(ALICE, "trimac resign 101 alice apple1")
    assert "is recorded: it takes effect at" in ack[-1].text, ack[-1].text
    before = len(idle.sink.to(ALICE))
    assert player.run_once()  # computer-1 moves: the game goes on, computer-2 to move
    idle.quiesce()
    assert "It is computer-2 (Green)'s move" in idle.sink.to(ALICE)[-1].text
    assert player.run_once()  # computer-2 moves; alice's turn comes, and her resignation with it
    idle.quiesce()
    row = board(idle)
    assert row.status == "finished", row.to_move
    after = idle.sink.to(ALICE)[before + 1:]
    assert_final(after)
    assert "computer-2 played" in after[0].text and "alice's resignation takes effect" in after[0].text
    assert not player.run_once()
