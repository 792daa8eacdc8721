"""Conditional moves played by mail in each of the five games, through the real server.

The last seat sends a tree (by the password command, or by replying to its
board mail from a real client's shape); the other players then mail their
moves, and each of the owner's answers is played at once: three or more
per game.  What each player reads is checked: everyone sees "OWNER's
conditional move X is played"; only the owner ever sees the tree; the
move list marks the answers "(auto)"; a move the tree does not answer
clears it and its owner alone is told.  The moves are a random legal game
worked out beforehand with the plugin itself, and at the end the stored
board must replay from its move list.
"""

from __future__ import annotations

import random
import re

import pytest
from sqlalchemy import select

import games
from server.boards import boards, conditional
from server.store.model import Board
from tests.client_replies import SHAPES
from tests.mailtools import Received, send
from tests.server.conftest import Running


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    """SQLite: the PostgreSQL path is the same code, run by test_conditional_refusals."""
    return sqlite_url


GAMES = [g for g in games.available() if g.name != "tictactoe"]
PEOPLE = [("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3")]
#: How each game's owner sends the tree: the password command, or a reply from one client's shape.
HOW = {"interweave": "thunderbird", "tridchess": "outlook", "trimac": "password",
       "warpandweft": "gmail", "weavedungeon": "iphone"}
ANSWERS = 3


def flat(text: str) -> str:
    return " ".join(text.split())


def random_line(game: games.Game, seed: int, plies: int) -> list[tuple[int, str]]:
    """``plies`` random legal moves from the start (no swap: a swap clears trees), the game still on."""
    rng = random.Random(seed)
    for _attempt in range(50):
        state = game.start(game.parse_options([]), game.players)
        line: list[tuple[int, str]] = []
        while len(line) < plies and (seat := game.to_move(state)) is not None:
            move = rng.choice([m for m in game.legal_moves(state) if m.lower() != "swap"])
            state = game.play(state, seat, move)
            line.append((seat, move))
        if len(line) == plies and game.to_move(state) is not None:
            return line
    raise AssertionError(f"no {plies}-ply line for {game.name}")


def other_first_move(game: games.Game, line: list[tuple[int, str]]) -> str:
    """A legal first move of seat 0 that is not the line's."""
    state = game.start(game.parse_options([]), game.players)
    return next(m for m in game.legal_moves(state) if m != line[0][1] and m.lower() != "swap")


def latest_to(mails: list[Received], user: str) -> Received:
    return [m for m in mails if m.rcpt_tos == [f"{user}@example.org"]][-1]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_tree_answers_three_moves_by_mail(running: Running, game: games.Game) -> None:
    seats = PEOPLE[: game.players]
    owner, owner_pw = seats[-1]
    others = [u for u, _ in seats[:-1]]
    for user, pw in seats:
        running.mail(f"{user}@example.org", f"signup {user} {pw}")
    new = running.mail("alice@example.org", f"{game.name} challenge " + " ".join(u for u, _ in seats))
    n = game.players
    line = random_line(game, 28, n * ANSWERS)  # the others' moves and the owner's answer, three times
    assert [s for s, _ in line] == list(range(n)) * ANSWERS  # turn order as the line is written
    # A second branch: the same first round, then a different move of seat 0 with an answer.
    state = game.start(game.parse_options([]), n)
    for seat, move in line[:n]:
        state = game.play(state, seat, move)
    alt = [m for m in game.legal_moves(state) if m != line[n][1] and m.lower() != "swap"][0]
    state = game.play(state, 0, alt)
    alt_rest = []
    while game.to_move(state) != n - 1:
        mv = game.legal_moves(state)[0]
        alt_rest.append(mv)
        state = game.play(state, game.to_move(state), mv)
    alt_answer = game.legal_moves(state)[0]
    first = " ".join(m for _, m in line)
    second = " ".join([m for _, m in line[:n]] + [alt, *alt_rest, alt_answer])
    tree_text = f"{first}\n{second}"

    running.sink.clear()
    how = HOW[game.name]
    if how == "password":
        out = running.mail(f"{owner}@example.org", f"{game.name} conditional 101 {owner} {owner_pw}", tree_text)
    else:
        board_mail = latest_to(new, owner)
        raw = SHAPES[how](board_mail, f"{owner}@example.org", "conditional\n" + tree_text)
        send(running.port, raw, sender=f"{owner}@example.org", to=str(board_mail.message["Reply-To"]))
        running.quiesce()
        out = running.sink.messages
    # The tree's answer goes to its owner alone, with their board and the tree on it.
    assert [m.rcpt_tos for m in out] == [[f"{owner}@example.org"]], [m.text[:400] for m in out]
    text = out[0].text
    assert "Your conditional moves (2 lines) are stored." in text, text[:600]
    assert f"  {first}" in text.replace("\r\n", "\n") or flat(first) in flat(text)
    assert flat(second) in flat(text)

    running.sink.clear()
    movers = dict(enumerate(u for u, _ in seats))
    ply = 0
    for index, (seat, move) in enumerate(line):
        if seat == n - 1:
            continue  # the owner's answer: played by the tree, not mailed
        ply += 1
        user = movers[seat]
        mails = running.mail(f"{user}@example.org", f"{game.name} move 101 {user} {dict(seats)[user]} {move}#{ply}")
        answered = index + 1 < len(line) and line[index + 1][0] == n - 1
        if answered:
            ply += 1
            answer = line[index + 1][1]
            headline = f"{user} played {move}. {owner}'s conditional move {answer} is played."
            for person, _ in seats:
                got = latest_to(mails, person).text
                assert headline in flat(got), (person, got[:500])
        rest_of_tree = index + 2 < len(line)
        for person, _ in seats:
            got = latest_to(mails, person).text
            if person == owner and rest_of_tree:
                assert "Your conditional moves" in got
            else:
                assert "conditional moves" not in got.lower().replace(f"{owner}'s conditional move", "")
            if person != owner:
                assert flat(second) not in flat(got) and flat(first) not in flat(got)
    # All three answers were played for the owner, and the move list says so.
    shown = running.mail("alice@example.org", f"{game.name} show 101")[0].text
    auto_lines = [ln for ln in shown.splitlines() if ln.rstrip().endswith("(auto)")]
    assert len(auto_lines) == ANSWERS and all(owner in ln for ln in auto_lines), shown[:1500]
    assert [ln.split()[-2] for ln in auto_lines] == [m for s, m in line if s == n - 1]

    # A new tree, and the first player deviates at once: cleared, and only the owner is told.
    state_now = game.start(game.parse_options([]), n)
    for seat, move in line:
        state_now = game.play(state_now, seat, move)
    expect = []
    st = state_now
    while game.to_move(st) != n - 1:
        mv = game.legal_moves(st)[0]
        expect.append(mv)
        st = game.play(st, game.to_move(st), mv)
    expect.append(game.legal_moves(st)[0])
    running.mail(f"{owner}@example.org", f"{game.name} conditional 101 {owner} {owner_pw}", " ".join(expect))
    deviation = [m for m in game.legal_moves(state_now) if m != expect[0] and m.lower() != "swap"][0]
    mails = running.mail("alice@example.org", f"{game.name} move 101 alice apple1 {deviation}#{ply + 1}")
    told = f"Your conditional moves did not answer alice's {deviation}: they are cleared."
    assert told in flat(latest_to(mails, owner).text)
    for person in others:
        assert "conditional" not in latest_to(mails, person).text

    with running.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == game.name)).one()
        assert "conditional" not in (board.pending or {})
        replayed = boards.replay(game, board, boards.moves_of(s, board))
        assert game.dump(replayed) == board.state
        assert board.ply == ply + 1


def test_help_conditional_examples_are_legal_in_each_game(players: Running) -> None:
    """Every example in 'help conditional' is a tree the game's own plugin accepts from the start."""
    text = players.mail("alice@example.org", "help conditional")[0].text.replace("\r\n", "\n")
    blocks = re.findall(r"^  (.+?): (\w+) conditional 101 (\w+) PASSWORD\n((?:    .+\n)+)", text, re.M)
    assert sorted(name for _, name, _, _ in blocks) == sorted(g.name for g in GAMES)
    for title, name, user, body in blocks:
        game = games.load_game(name)
        assert title == game.title and user == PEOPLE[game.players - 1][0]
        state = game.start(game.parse_options([]), game.players)
        checked = conditional.check(game, state, game.players - 1, conditional.branch_lines(body),
                                    boards.canonical_move)
        assert checked.lines == 2
    assert f"At most {conditional.MAX_BRANCHES} lines, and at most {conditional.MAX_DEPTH} moves" in text
