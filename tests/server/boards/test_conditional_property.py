"""Random trees, random play: a tree never plays an illegal move and is never shown to anyone else.

Hypothesis draws a game (Tic-Tac-Toe, Warp and Weft, TriMac for three
players), random branches for the last seat (legal lines, and some with a
wrong word or a second answer slipped in), and a random game in which the
others often follow the tree and sometimes leave it.  Every command goes
through the real command dispatch on a real SQLite file.  After every
command:

- the stored moves replay from the start (``game.play`` refuses an illegal
  one) to the stored state;
- every move marked ``(auto)`` is the answer the tree gave, by a model of
  the tree kept here (a plain trie of the accepted lines, stepped by hand);
- a refused tree changes nothing stored;
- no mail or reply to anyone but the owner carries the tree: neither the
  "Your conditional moves" block nor any branch still pending.

``PBMSERV_CONDITIONAL_EXAMPLES`` sets how many games are tried (default 15).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

import games
from server.boards import boards
from server.commands import Context, Request, dispatch
from server.core.config import Settings
from server.core.errors import CommandError
from server.store.database import Database
from server.store.model import Board, Move, utcnow

EXAMPLES = int(os.environ.get("PBMSERV_CONDITIONAL_EXAMPLES", "15"))
PEOPLE = [("alice", "apple1"), ("bob", "banana2"), ("carol", "cherry3")]
GAMES = ["tictactoe", "warpandweft", "trimac"]
MAX_PLIES = 24
#: The head of the block that shows a player their tree.
SHOWN = "Your conditional moves (each line"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, Settings]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('cond')}/cond.db"
    db = Database(url)
    db.upgrade()
    cfg = Settings(database_url=url, addresses=["pbmserv@games.test"], pictures=False)
    for user, pw in PEOPLE:
        run(db, cfg, f"{user}@example.org", ["signup", user, pw])
    yield db, cfg
    db.dispose()


def run(db: Database, cfg: Settings, sender: str, words: list[str], comment: str = "") -> Any:
    """One command in its own transaction, as the worker runs it; the Result, or the CommandError."""
    try:
        with db.transaction() as s:
            request = Request(words=words, line=" ".join(words), sender=sender, comment=comment)
            return dispatch(Context(session=s, settings=cfg, request=request, now=utcnow()), words)
    except (CommandError, games.GameError) as exc:
        return exc


def snapshot(db: Database, number: int, name: str) -> tuple[Any, ...]:
    with db.transaction() as s:
        b = s.scalars(select(Board).where(Board.game == name, Board.number == number)).one()
        moves = [(m.seat, m.move, m.auto) for m in s.scalars(select(Move).where(Move.board_id == b.id)
                                                              .order_by(Move.ply))]
        return b.ply, b.to_move, b.status, b.pending, b.state, moves


def trie(lines: list[list[str]]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for line in lines:
        node = root
        for move in line:
            node = node.setdefault(move, {})
    return root


def branches(tree: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for move, child in tree.items():
        out += branches(child, (*prefix, move)) if child else [(*prefix, move)]
    return out


@st.composite
def scenario(draw: st.DrawFn) -> tuple[str, list[str], list[int]]:
    """A game, the tree's lines as typed (some spoiled), and the choices of the random game."""
    name = draw(st.sampled_from(GAMES))
    game = games.load_game(name)
    owner = game.players - 1
    lines = []
    count = draw(st.integers(1, 4))
    spoiled = draw(st.sampled_from([None, None, *range(count)]))  # a third of the trees have a bad line
    for index in range(count):
        state = game.start(game.parse_options([]), game.players)
        line: list[str] = []
        movers: list[int] = []
        for _ in range(draw(st.integers(1, 3)) * game.players):
            seat = game.to_move(state)
            if seat is None:
                break
            legal = [m for m in game.legal_moves(state) if m != "swap"]
            move = legal[draw(st.integers(0, len(legal) - 1))]
            line.append(move)
            movers.append(seat)
            state = game.play(state, seat, move)
        while movers and movers[-1] != owner:
            line.pop()  # end with the owner's answer
            movers.pop()
        spoil = draw(st.sampled_from(["word", "answer"])) if index == spoiled else ""
        if line and spoil == "word":
            line[draw(st.integers(0, len(line) - 1))] = draw(st.sampled_from(["zz9", "resign", "Q"]))
        elif line and spoil == "answer":  # a second, different answer to the same position
            legal = game.legal_moves(game_after(game, line[:-1]))
            other = legal[draw(st.integers(0, len(legal) - 1))]
            lines.append(" ".join([*line[:-1], other]))
        if line:
            lines.append(" ".join(line))
    choices = draw(st.lists(st.integers(0, 10_000), min_size=MAX_PLIES, max_size=MAX_PLIES))
    return name, lines, choices


def game_after(game: games.Game, line: list[str]) -> Any:
    state = game.start(game.parse_options([]), game.players)
    for move in line:
        state = game.play(state, game.to_move(state), move)
    return state


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=scenario())
def test_trees_play_only_legal_moves_and_stay_private(database: tuple[Database, Settings],
                                                       case: tuple[str, list[str], list[int]]) -> None:
    db, cfg = database
    name, lines, choices = case
    game = games.load_game(name)
    seats = PEOPLE[: game.players]
    owner, owner_pw = seats[-1]
    made = run(db, cfg, "alice@example.org", [name, "challenge", *(u for u, _ in seats)])
    assert not isinstance(made, Exception), str(made)
    number = int(made.subject.split("Board ")[1].split()[0])
    try:
        play_it(db, cfg, game, number, lines, choices)
    finally:  # bookkeeping, not under test: the players' finite board limit must not fill up
        with db.transaction() as s:
            s.scalars(select(Board).where(Board.game == name, Board.number == number)).one().status = "finished"


def play_it(db: Database, cfg: Settings, game: games.Game, number: int, lines: list[str],
            choices: list[int]) -> None:
    name = game.name
    seats = PEOPLE[: game.players]
    owner, owner_pw = seats[-1]
    before = snapshot(db, number, name)
    result = run(db, cfg, f"{owner}@example.org", [name, "conditional", str(number), owner, owner_pw],
                 "\n".join(lines))
    model: dict[str, Any] = {}
    if isinstance(result, Exception):
        event("tree refused")
        assert snapshot(db, number, name) == before, str(result)
    else:
        model = trie([line.split() for line in lines])
        assert SHOWN in result.text
    state = game.start(game.parse_options([]), game.players)
    ply = 0
    expected: list[tuple[int, str, bool]] = []
    for choice in choices:
        seat = game.to_move(state)
        if seat is None:
            break
        legal = game.legal_moves(state)
        follow = [m for m in model if m in legal] if seat != game.players - 1 else []
        move = follow[choice % len(follow)] if follow and choice % 4 else legal[choice % len(legal)]
        user, pw = seats[seat]
        result = run(db, cfg, f"{user}@example.org", [name, "move", str(number), user, pw, f"{move}#{ply + 1}"])
        assert not isinstance(result, Exception), str(result)
        # The model: the tree steps past the move; at the owner's turn its one child is the answer.
        state = game.play(state, seat, move)
        ply += 1
        expected.append((seat, move, False))
        model = model.get(move, {})
        while model and game.to_move(state) == game.players - 1:
            answer = next(iter(model))
            expected.append((game.players - 1, answer, True))
            state = game.play(state, game.players - 1, answer)
            ply += 1
            model = model[answer]
        stored_ply, _, status, pending, dumped, moves = snapshot(db, number, name)
        assert stored_ply == ply and dumped == game.dump(state)
        assert moves == expected  # the (auto) moves are exactly the tree's answers
        if expected[-1][2]:
            event("a tree answered")
        # Every stored move replays (game.play refuses an illegal one) to the stored state.
        with db.transaction() as s:
            board = s.scalars(select(Board).where(Board.game == name, Board.number == number)).one()
            assert game.dump(boards.replay(game, board, boards.moves_of(s, board))) == board.state
        # Nobody but the owner sees the tree.
        pending_lines = [" ".join(b) for b in branches(model) if len(b) > 1] if status == "active" else []
        texts = [(m.users, m.body) for m in result.mails] + [([user], result.text)]
        for users, body in texts:
            if owner in users:
                assert (SHOWN in body) == bool(model and status == "active")
                continue
            assert "Your conditional moves" not in body
            assert not any(b in body for b in pending_lines)
        if status != "active":
            assert "conditional" not in (pending or {})
            break
