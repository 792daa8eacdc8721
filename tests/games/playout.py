"""Shared checks every rules plugin must pass; game test modules call these.

Kept in one place so the five games are held to the same contract and the
bounds (and their knobs) are the same everywhere.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

from games import Game, IllegalMove

#: Total plies of random play per game in the default run; raise it for long fuzzing.
PLAYOUT_PLIES = int(os.environ.get("PBMSERV_PLAYOUT_PLIES", "3000"))
#: Every Nth ply, every listed move is played (not only the chosen one).
CHECK_ALL_EVERY = int(os.environ.get("PBMSERV_PLAYOUT_CHECK_EVERY", "7"))


def random_playout(
    game: Game,
    options: dict[str, Any] | None = None,
    plies: int = PLAYOUT_PLIES,
    seed: int = 1,
    max_game_plies: int = 600,
) -> dict[str, Any]:
    """Random legal games until ``plies`` plies were played in all.

    Checks on the way: ``play`` accepts every listed move (on every
    CHECK_ALL_EVERY-th ply, all of them; otherwise the chosen one), ``play``
    never mutates its input, ``to_move`` is None exactly when ``outcome`` is
    set, ``load(dump(s))`` plays like ``s``, and the stored move list replays
    to the same dump.  Returns counts (games, finished, plies) and
    ``endings`` (the outcome reason of each finished game, in order), so a
    test with a fixed seed can pin exactly which endings its games reached.
    """
    rng = random.Random(seed)
    options = game.parse_options([]) if options is None else options
    games = finished = total = 0
    endings: list[str] = []
    while total < plies:
        games += 1
        state = game.start(options, game.players)
        moves: list[tuple[int, str]] = []
        for _ in range(max_game_plies):
            seat = game.to_move(state)
            out = game.outcome(state)
            assert (seat is None) == (out is not None), (seat, out)
            if seat is None:
                finished += 1
                endings.append(out.reason)
                break
            legal = game.legal_moves(state)
            assert legal, "a game that is not over must offer a move"
            assert len(set(legal)) == len(legal), "legal_moves lists a move twice"
            before = json.dumps(game.dump(state), sort_keys=True)
            if total % CHECK_ALL_EVERY == 0:
                for mv in legal:
                    game.play(state, seat, mv)
            move = rng.choice(legal)
            new = game.play(state, seat, move)
            assert json.dumps(game.dump(state), sort_keys=True) == before, "play mutated its input"
            moves.append((seat, move))
            state = new
            total += 1
            if total % 97 == 0:
                assert_roundtrip(game, state)
            if total >= plies:
                break
        assert_replays(game, options, moves, state)
    return {"games": games, "finished": finished, "plies": total, "endings": endings}


def assert_roundtrip(game: Game, state: Any) -> None:
    """load(dump(s)) dumps the same, offers the same moves, and survives JSON."""
    data = json.loads(json.dumps(game.dump(state)))
    again = game.load(data)
    assert json.dumps(game.dump(again), sort_keys=True) == json.dumps(data, sort_keys=True)
    assert sorted(game.legal_moves(again)) == sorted(game.legal_moves(state))
    assert game.to_move(again) == game.to_move(state)


def assert_replays(game: Game, options: dict[str, Any], moves: list[tuple[int, str]], final: Any) -> None:
    """Replaying the move list from the start gives the final state's dump."""
    state = game.start(options, game.players)
    for seat, move in moves:
        state = game.play(state, seat, move)
    assert json.dumps(game.dump(state), sort_keys=True) == json.dumps(game.dump(final), sort_keys=True)


def assert_refused(game: Game, state: Any, seat: int, move: str, *fragments: str) -> str:
    """``move`` is refused and the reason mentions every fragment (case-insensitive)."""
    try:
        game.play(state, seat, move)
    except IllegalMove as exc:
        text = str(exc)
        for frag in fragments:
            assert frag.lower() in text.lower(), f"{text!r} does not mention {frag!r}"
        return text
    raise AssertionError(f"{move!r} was accepted")


def perft(game: Game, state: Any, depth: int) -> int:
    """Leaf count of the legal-move tree (python-chess style correctness by counting)."""
    if depth == 0:
        return 1
    seat = game.to_move(state)
    if seat is None:
        return 0
    legal = game.legal_moves(state)
    if depth == 1:
        return len(legal)
    return sum(perft(game, game.play(state, seat, mv), depth - 1) for mv in legal)
