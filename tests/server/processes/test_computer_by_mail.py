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
from tests.tictactoe import GAME as TTT

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


@pytest.mark.parametrize(("level", "accepts"), [(1, True), (2, False)],
                         ids=["level1-accepts", "level2-rejects"])
def test_the_computer_answers_an_undo_offered_by_reply_on_her_turn(running: Running, quick_levels: None,
                                                                    level: int, accepts: bool) -> None:
    """The computer owes a vote on a board where it is *not* to move, and still answers it.

    Why this test exists: the computer process only looks for work when a
    cheap read (``_ANYTHING`` in server/processes/computer.py) says a board
    needs it, and that read has two clauses: a computer seat is to move, or
    an offer is pending where a computer sits.  Here alice offers to take
    back a move on her own turn, by replying "undo" to the computer's board
    mail, so only the second clause can wake the computer.  Without it the
    offer would wait for ever; with it, level 1 accepts (its reply and her
    move before it are taken back, so she is to move again two plies back)
    and level 2 rejects (nothing changes).  The waits are bounded, so a
    computer that never answers fails the test instead of hanging it.
    """
    running.mail(ALICE, "signup alice apple1")
    running.mail(ALICE, "pictures alice apple1 off")
    new = running.mail(ALICE, f"tictactoe challenge alice computer -level={level}")
    assert [m.subject for m in new] == ["New Tic-Tac-Toe Board 101 alice"], [m.text for m in new]
    for _round in range(2):  # four plies: no line can be complete yet, the board stays active
        mail = running.sink.to(ALICE)[-1]
        move = TTT.legal_moves(TTT.load(board_row(running, TTT).state))[0]
        answer = reply(running, mail, move)
        assert answer and not any("Error" in m.subject for m in answer), [m.text for m in answer]
        before = wait_for_alice(running, TTT, timeout=20.0)
    assert before.status == "active" and before.ply == 4 and before.to_move == 0
    with running.db.transaction() as s:
        played = [(m.seat, m.move) for m in boards.moves_of(s, s.get(Board, before.id))]
    assert [seat for seat, _ in played] == [0, 1, 0, 1]
    computer_mail = running.sink.to(ALICE)[-1]
    assert f"computer-{level} played" in computer_mail.text, computer_mail.text[:400]

    # Her turn, and she offers to take a move back: the computer owes a vote but is not to move.
    seen = len(running.sink.to(ALICE))
    offer = reply(running, computer_mail, "undo")
    assert offer and not any("Error" in m.subject for m in offer), [m.text for m in offer]
    after = wait_for_alice(running, TTT, timeout=20.0)  # "the computer did not move" if it never votes
    # Two board mails: her offer, then the computer's answer (alice is the only one with an address).
    offered, answered = running.sink.to(ALICE)[seen:]
    assert offered.subject == answered.subject == "Tic-Tac-Toe Board 101 alice"
    assert "alice proposes taking back the last move" in offered.text, offered.text[:400]
    assert after.status == "active" and after.to_move == 0 and not (after.pending or {}).get("vote")
    with running.db.transaction() as s:
        stored = s.get(Board, after.id)
        moves = [(m.seat, m.move) for m in boards.moves_of(s, stored)]
        assert TTT.dump(boards.replay(TTT, stored, boards.moves_of(s, stored))) == stored.state
    if accepts:
        # Her undo takes back the computer's reply; the computer then takes back her move too,
        # so it is her move again at move #3, on the board as it stood after the first round.
        assert after.ply == 2 and moves == played[:2], moves
        assert "computer-1 accepts: the last move is taken back." in answered.text, answered.text[:600]
        # Why a second move went, as one sentence the player reads (the mail wraps it).
        assert ("The computer's reply was the move taken back, so the move before it is taken back too."
                in " ".join(answered.text.split())), answered.text[:600]
    else:
        assert after.ply == 4 and moves == played, moves
        assert "computer-2 rejects taking back the last move (proposed by alice)." in answered.text, \
            answered.text[:600]
    assert answered.message["Reply-To"]  # the mail invites her next move, by reply
