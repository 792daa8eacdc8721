"""The game record (games/record.py): random playouts -> record -> parse -> replay, per game.

The property: whatever random legal game is played (with random options,
and in TriMac a resignation on the way), its written record parses back to
the same moves, and replaying it gives the same stored state (``dump``) and
the same outcome.  The default run replays RECORD_EXAMPLES games per game of
up to RECORD_PLIES plies each and compares every position on the way, so
1,500 (Interweave: random games end fast) to 3,800 positions per game;
``PBMSERV_RECORD_EXAMPLES`` and ``PBMSERV_RECORD_PLIES`` raise it.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import Game, Outcome, available, load_game
from games.record import RESIGN, RecordError, build, parse, replay, result_text, write

RECORD_EXAMPLES = int(os.environ.get("PBMSERV_RECORD_EXAMPLES", "60"))
RECORD_PLIES = int(os.environ.get("PBMSERV_RECORD_PLIES", "160"))
PLUGINS = [g for g in available() if g.name in {"warpandweft", "interweave", "weavedungeon", "trimac", "tridchess"}]
NAMES = ["alice", "bob", "carol"]

#: Options drawn for each game (each list is a valid challenge; the first is the default).
OPTION_CHOICES = {
    "warpandweft": [[], ["-size=2"], ["-size=3", "-patches"], ["-size=5", "-compact"], ["-size=6", "-threads"]],
    "interweave": [[], ["-fifty=off"], ["-compact"]],
    "weavedungeon": [[], ["-compact"]],
    "trimac": [[], ["-compact"]],
    "tridchess": [[], ["-compact"]],
}


def playout(game: Game, options: dict[str, Any], rng: random.Random, plies: int
            ) -> tuple[list[tuple[int, str]], list[Any], Outcome | None]:
    """A random legal game and every state of it; TriMac seats sometimes resign (it plays on without them)."""
    state = game.start(options, game.players)
    states = [state]
    moves: list[tuple[int, str]] = []
    for _ in range(plies):
        seat = game.to_move(state)
        if seat is None:
            break
        if game.players == 3 and rng.random() < 0.02:
            resigner = rng.randrange(3)
            try:
                state = game.resign(state, resigner)
            except Exception:
                continue
            moves.append((resigner, RESIGN))
            states.append(state)
            continue
        move = rng.choice(game.legal_moves(state))
        state = game.play(state, seat, move)
        moves.append((seat, move))
        states.append(state)
    return moves, states, game.outcome(state)


def dumped(game: Game, state: Any) -> str:
    return json.dumps(game.dump(state), sort_keys=True)


@pytest.mark.parametrize("game", PLUGINS, ids=lambda g: g.name)
@settings(max_examples=RECORD_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_record_round_trip(game: Game, data: st.DataObject) -> None:
    tokens = data.draw(st.sampled_from(OPTION_CHOICES[game.name]), label="options")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    plies = data.draw(st.integers(0, RECORD_PLIES), label="plies")
    options = game.parse_options(tokens)
    if game.has_position and data.draw(st.booleans(), label="from a position"):
        # Start from a position string reached by a few random plies: the Position tag carries it.
        _, before, _ = playout(game, options, random.Random(~seed), data.draw(st.integers(1, 30), label="lead"))
        if game.to_move(before[-1]) is not None:
            options = game.parse_options([*tokens, f"-position={game.position(before[-1])}"])
    moves, states, outcome = playout(game, options, random.Random(seed), plies)
    text = write(build(game, options, NAMES[: game.players], moves, outcome, Board="101"))
    assert max(len(line) for line in text.splitlines()) <= 78
    again = parse(text)
    # One word a move (the grammar's move has no space: Tri-D's "x e.p." is written "xe.p.").
    assert [e.move for e in again.entries] == ["".join(m.split()) for _, m in moves]
    played = replay(game, again)
    assert played.moves == moves
    # Every position on the way is the stored one, not only the last.
    assert [dumped(game, st) for st in played.states] == [dumped(game, st) for st in states]
    assert game.outcome(played.final) == outcome
    # The options read back start the same game (not only a game that replays alike).
    assert dumped(game, game.start(played.options, game.players)) == dumped(game, game.start(options, game.players))
    # Every prefix replays too (preview record #N, challenge from move N).
    upto = data.draw(st.integers(0, len(moves)), label="upto")
    assert len(replay(game, again, upto).states) == upto + 1


def test_result_text_per_seat() -> None:
    # Hand-written: seat 1 wins over seat 2; a two-way draw; TriMac's draw with Green already out.
    assert result_text(Outcome((0,), (1,), "r"), 2) == "1-0"
    assert result_text(Outcome((1,), (0,), "r"), 2) == "0-1"
    assert result_text(Outcome((), (), "r"), 2) == "1/2-1/2"
    assert result_text(Outcome((), (2,), "r"), 3) == "1/2-1/2-0"
    assert result_text(Outcome((1,), (0, 2), "r"), 3) == "0-1-0"
    assert result_text(None, 3) == "*"


WARP = """[Record "pbmserv-record 1"]
[Game "warpandweft"]
[Options "-size=2 -threads"]
[Seat1 "alice"]
[Seat2 "bob"]
[Result "*"]

1. C1 {line 8}
2. E1
*
"""


def refusal(text: str, game: str = "warpandweft") -> str:
    with pytest.raises(RecordError) as info:
        replay(load_game(game), parse(text))
    return str(info.value)


def test_refusals_name_the_line_and_the_reason() -> None:
    # No record at all.
    assert refusal("hello\n").startswith("no record found")
    # A tag line that is not one.
    assert refusal(WARP.replace('[Seat2 "bob"]', "[Seat2 bob]")) == (
        "line 5: '[Seat2 bob]' is not a tag line: [Name \"value\"]")
    # A move number out of step.
    assert refusal(WARP.replace("2. E1", "3. Q9")) == "line 9: move number 3 where move 2 comes next"
    # A comment never closed.
    assert refusal(WARP.replace("{line 8}", "{line 8")) == "line 8: a comment opened with { is never closed with }"
    # Another game's record.
    assert refusal(WARP, "interweave") == "line 2: this is a record of 'warpandweft', not of interweave"
    # Bad options: the game's own words.
    assert refusal(WARP.replace("-size=2", "-size=9")).startswith("line 3: -size=9 is out of range")
    # A result the last token contradicts.
    assert refusal(WARP.replace("2. E1\n*", "2. E1\n1-0")) == (
        "line 10: the record ends with 1-0 but its Result tag says *")
    # A record cut short: its Plies tag counts more moves than it has.
    assert refusal(WARP.replace('[Result "*"]', '[Plies "3"]\n[Result "*"]')) == (
        "line 6: the Plies tag says 3 moves but the record has 2: was it cut short?")
    # A version this server does not read.
    assert refusal(WARP.replace("pbmserv-record 1", "pbmserv-record 2")) == (
        "line 1: this server reads pbmserv-record 1, not 'pbmserv-record 2'")


def test_an_illegal_move_is_refused_with_the_games_reason() -> None:
    game = load_game("warpandweft")
    state = game.start(game.parse_options(["-size=2"]), 2)
    state = game.play(state, 0, "C1")
    with pytest.raises(Exception) as rules:
        game.play(state, 1, "C1")
    text = WARP.replace("2. E1", "2. C1")
    assert refusal(text) == f"line 9: move 2 (C1) is refused: {rules.value}"


def test_comments_are_kept_and_text_around_the_record_is_ignored() -> None:
    mail = "Hi, here is our game.\n\n" + WARP.replace("2. E1", "2. E1 ; a fine reply") + "-- \nalice\n"
    record = parse(mail)
    assert record.entries[0].comment == "line 8"
    assert record.entries[1].comment == "a fine reply"
    written = write(record)
    assert "1. C1 {line 8}" in written and "2. E1 {a fine reply}" in written
    assert [e.comment for e in parse(written).entries] == ["line 8", "a fine reply"]
    # Quoted in a reply, it still reads.
    quoted = "\n".join("> " + line for line in WARP.splitlines())
    assert [e.move for e in parse(quoted).entries] == ["C1", "E1"]
    # Lenient: tags in any case and order, several moves a line, numbers left out.
    loose = '[game "warpandweft"]\n[options "-size=2"]\n\n1.C1 e1\n'
    assert [m for _, m in replay(load_game("warpandweft"), parse(loose)).moves] == ["C1", "E1"]


def test_a_move_spelled_with_a_space_is_one_word_and_comes_back_as_the_game_spells_it() -> None:
    """Tri-D writes an en passant capture ``b5Bxc6B e.p.``: the record's move is one word
    (docs/record-format.md), so it is written ``b5Bxc6Be.p.`` and replayed as the game's move.
    (Found by the round trip above: read back, ``e.p.`` had become a move of its own.)"""
    game = load_game("tridchess")
    rng, state, moves = random.Random(12), game.start(game.parse_options([]), 2), []
    while not any("e.p." in m for m in game.legal_moves(state)):  # seed 12: at ply 40
        seat = game.to_move(state)
        move = rng.choice(game.legal_moves(state))
        moves.append((seat, move))
        state = game.play(state, seat, move)
    capture = next(m for m in game.legal_moves(state) if "e.p." in m)
    assert " " in capture
    moves.append((game.to_move(state), capture))
    text = write(build(game, game.parse_options([]), NAMES[:2], moves, None, Board="101"))
    assert f"{len(moves)}. {capture.replace(' ', '')}" in text.splitlines()
    again = parse(text)
    assert len(again.entries) == len(moves)
    assert replay(game, again).moves == moves
