"""A whole game against the computer, by reply, in every game, through a real server and relay sink.

alice signs up by mail, challenges ``computer`` and then only ever hits
Reply on the board mail she last received (Thunderbird's format=flowed
shape), typing a legal move she picks from the board as it stands.  The
computer answers on its own: its moves arrive as ordinary board mails
("computer-1 played ...").  What is checked is the server around the
engine: the challenge, that the computer's moves come through the same
path as hers (board mails, move numbers, the stored move list replays),
that its turns never leave a board waiting, and the end of the game.

The level-1 budget is made smaller here (fewer iterations), so a game takes
seconds; the engine's strength is the benchmark's business.
"""

from __future__ import annotations

import os
import random
import time

import pytest
from sqlalchemy import select

import games
from games.engine import levels as engine_levels
from server.boards import boards
from server.store.model import Board, ComputerJob
from tests.server.commands.test_computer_commands import reply
from tests.server.conftest import Running

ALICE = "alice@example.org"
GAMES = [g for g in games.available() if g.name != "tictactoe"]
#: Small boards where a game has them: the mail round trips are the cost.
OPTIONS = {"warpandweft": "-size=2"}
#: alice's moves before she resigns, which ends a long game (knob: PBMSERV_COMPUTER_TURNS).
MAX_TURNS = int(os.environ.get("PBMSERV_COMPUTER_TURNS", "40"))
#: TriMac: after her resignation only the computer is left, which ends the board too.
TRIMAC_TURNS = int(os.environ.get("PBMSERV_COMPUTER_TURNS", "12"))


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


@pytest.fixture
def quick_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    for number in (1, 2):  # TriMac seats computer-1 and computer-2
        monkeypatch.setitem(engine_levels.LEVELS, number, engine_levels.Level(number, iterations=40, cpu_seconds=0.2,
                                                                              accepts_undo=number == 1))


def board_row(running: Running, game: games.Game) -> Board:
    with running.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == game.name)).one()
        s.expunge(board)
        return board


def wait_for_alice(running: Running, game: games.Game, timeout: float = 60.0) -> Board:
    """Until it is alice's turn (seat 0 is hers) or the game is over, and every mail is out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running.quiesce()
        board = board_row(running, game)
        if board.status != "active" or (board.to_move == 0 and not (board.pending or {}).get("vote")):
            running.quiesce()
            return board
        time.sleep(0.05)
    raise AssertionError("the computer did not move")




@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_whole_game_against_the_computer_by_reply(running: Running, quick_levels: None, game: games.Game) -> None:
    running.mail(ALICE, "signup alice apple1")
    running.mail(ALICE, "pictures alice apple1 off")  # the PNG per board mail is the dearest part; not tested here
    others = " ".join(["computer"] if game.players == 2 else ["computer-1", "computer-2"])
    level = " -level=1" if game.players == 2 else ""
    new = running.mail(ALICE, f"{game.name} challenge alice {others}{level} {OPTIONS.get(game.name, '')}".strip())
    assert [m.subject for m in new] == [f"New {game.title} Board 101 alice"], [m.text for m in new]
    rng = random.Random(5)
    computer_mails = 0
    for _turn in range(TRIMAC_TURNS if game.players == 3 else MAX_TURNS):
        board = wait_for_alice(running, game)
        if board.status != "active":
            break
        mail = running.sink.to(ALICE)[-1]
        assert mail.message["Reply-To"], mail.subject
        if board.ply:
            # The computer's move came as an ordinary board mail to her, threaded with the board.
            assert " played " in mail.text and "computer-" in mail.text, mail.text[:400]
            assert f"{game.title} Board 101" in mail.subject
            computer_mails += 1
        state = game.load(board.state)
        move = rng.choice(game.legal_moves(state))
        answer = reply(running, mail, move)
        assert answer and not any("Error" in m.subject for m in answer), [m.text for m in answer]
    else:
        # Resign by replying to the computer's latest board mail: a reply token acts only at
        # the ply of its mail (issue 32 item 3), so wait for the computer's answer first.
        board = wait_for_alice(running, game)
        if board.status == "active":
            mail = running.sink.to(ALICE)[-1]
            reply(running, mail, "resign")
            board = wait_for_alice(running, game)
    assert board.status == "finished", board.status
    assert computer_mails >= 1
    with running.db.transaction() as s:
        stored = s.scalars(select(Board).where(Board.game == game.name)).one()
        moves = boards.moves_of(s, stored)
        # Computer moves and hers alike are stored moves, and replay to the board.
        assert {m.seat for m in moves} >= {0, 1}
        assert game.dump(boards.replay(game, stored, moves)) == stored.state or stored.outcome
        assert not stored.rated  # against the computer: unrated unless the admin says otherwise
        assert s.scalars(select(ComputerJob).where(ComputerJob.status == "cut")).all() == []
    for m in running.sink.messages:
        assert max(len(line) for line in m.text.splitlines()) <= 79, m.subject
