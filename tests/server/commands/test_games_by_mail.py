"""Every installed game played by mail to its end through the real server.

The moves are a random legal game worked out beforehand with the plugin
itself; what is tested is the server around it: challenge, seats, turn
order, move numbers, board mails to every player, the finish, and that the
stored board replays from its move list.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select

import games
from server.boards import boards
from server.store.model import Board
from tests.server.conftest import Running


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    """SQLite only: the PostgreSQL path is the same code, exercised by the other mail tests."""
    return sqlite_url


GAMES = [g for g in games.available() if g.name != "tictactoe"]
PEOPLE = [("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3")]
MAX_PLIES = 300
#: Where random play does not end a game (TriMac's three armies), this many plies, then resignations.
SHORT_GAME = 60


def finished_game(game: games.Game) -> tuple[list[tuple[int, str]], games.Outcome | None]:
    """A random legal game that ends within MAX_PLIES, or a short one (outcome None) to end by resigning."""
    for seed in range(10):
        rng = random.Random(seed)
        state = game.start(game.parse_options([]), game.players)
        moves: list[tuple[int, str]] = []
        while len(moves) < MAX_PLIES and (seat := game.to_move(state)) is not None:
            move = rng.choice(game.legal_moves(state))
            state = game.play(state, seat, move)
            moves.append((seat, move))
        outcome = game.outcome(state)
        if outcome is not None:
            return moves, outcome
    return moves[:SHORT_GAME], None


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_game_by_mail_to_the_end(running: Running, game: games.Game) -> None:
    seats = PEOPLE[: game.players]
    for user, pw in seats:
        running.mail(f"{user}@example.org", f"signup {user} {pw}")
    names = " ".join(u for u, _ in seats)
    new = running.mail("alice@example.org", f"{game.name.upper()} challenge {names}", "Let us play.")
    # " **": the mail carries a comment (the challenge's body), as pbmserv marked it.
    assert {m.subject for m in new} == {f"New {game.title} Board 101 alice **"}
    assert len(new) == game.players

    moves, outcome = finished_game(game)
    # A refused move first: out of turn, with the plugin's own reason left alone.
    wrong = seats[1]
    err = running.mail(f"{wrong[0]}@example.org", f"{game.name} move 101 {wrong[0]} {wrong[1]} {moves[0][1]}")
    assert err[0].subject == f"{game.title} Board 101 Error" and "It is not your move: waiting for alice" in err[0].text

    running.sink.clear()
    lines = [f"{game.name} move 101 {seats[s][0]} {seats[s][1]} {m}#{i}" for i, (s, m) in enumerate(moves, start=1)]
    for start in range(0, len(lines), 50):
        running.mail("alice@example.org", "multiple", "\n".join(lines[start:start + 50]) + "\nend\n")
    resigned: list[int] = []
    if outcome is None:  # end it by resignations, each on the resigner's turn
        for _ in range(game.players - 1):
            with running.db.transaction() as s:
                board = s.scalars(select(Board).where(Board.game == game.name)).one()
                if board.status != "active":
                    break
                seat = board.to_move
            user, pw = seats[seat]
            resigned.append(seat)
            running.mail(f"{user}@example.org", f"{game.name} resign 101 {user} {pw}")
    with running.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == game.name)).one()
        stored = boards.moves_of(s, board)
        assert board.status == "finished"
        assert [(m.seat, m.move) for m in stored if m.move != "resign"] == moves
        replayed = boards.replay(game, board, stored)
        assert game.dump(replayed) == board.state
        if outcome is not None:
            assert board.outcome["winners"] == list(outcome.winners)
        else:
            survivors = [i for i in range(game.players) if i not in resigned]
            assert board.outcome["winners"] == survivors
    finals = [m for m in running.sink.messages if m.subject == f"{game.title} Board 101 Finished"]
    # Every player hears of the end (alice's copy is in her combined reply).
    assert {m.rcpt_tos[0] for m in finals} >= {f"{u}@example.org" for u, _ in seats[1:]}
    assert "Game over" in finals[0].text
    results = [m for m in running.sink.messages if m.subject in ("pbmserv results", "pbmserv Error")]
    assert all("refused" not in m.text.split("\n")[0] or "0 refused" in m.text.split("\n")[0] for m in results)


@pytest.mark.parametrize("game", [g for g in GAMES if g.has_position], ids=lambda g: g.name)
def test_challenge_from_a_quoted_position_string(running: Running, game: games.Game) -> None:
    """Position strings have spaces: -position="..." keeps them together through the mail split."""
    start = game.start(game.parse_options([]), game.players)
    played = game.play(start, 0, sorted(game.legal_moves(start))[0])
    text = game.position(played)
    seats = PEOPLE[: game.players]
    for user, pw in seats:
        running.mail(f"{user}@example.org", f"signup {user} {pw}")
    names = [u for u, _ in seats]
    out = running.mail("alice@example.org", f'{game.name} challenge {names[0]} -position="{text}" {" ".join(names[1:])}')
    assert all(m.subject.startswith(f"New {game.title} Board 101") for m in out), [m.text[:300] for m in out]
    with running.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == game.name)).one()
    assert game.position(game.load(board.state)) == text
    assert board.to_move == game.to_move(played)


def test_warpandweft_challenge_with_options_first(running: Running) -> None:
    """The issue's own example: options before the userids, mixed-case command word."""
    for user, pw in PEOPLE[:2]:
        running.mail(f"{user}@example.org", f"signup {user} {pw}")
    out = running.mail("carol@example.org", "WarpAndWeft challenge -size=3 -patch alice bob")
    boards = [m for m in out if m.rcpt_tos != ["carol@example.org"]]
    assert sorted(m.rcpt_tos[0] for m in boards) == ["alice@example.org", "bob@example.org"]
    assert all(m.subject == "New Warp and Weft Board 101 alice" for m in boards)
    with running.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == "warpandweft")).one()
    game = games.load_game("warpandweft")
    state = game.load(board.state)
    assert game.dump(state) == game.dump(game.start(game.parse_options(["-size=3", "-patch"]), 2))
    header = next(line for line in boards[0].text.splitlines() if "A   B   C" in line)
    assert header.strip().endswith("K")  # size 3: columns A..K
    swap = running.mail("alice@example.org", "warpandweft move 101 alice apple1 B2")
    assert swap[0].subject == "Warp and Weft Board 101 bob"
    swapped = running.mail("bob@example.org", "warpandweft swap 101 bob banana2")
    assert "bob played swap." in swapped[0].text
