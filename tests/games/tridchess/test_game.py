"""Contract-level checks: registry, perft, replay, round trips, random play."""

from __future__ import annotations

import json
import time

from games import load_game
from games.tridchess import GAME, perft
from tests.games.playout import (
    PLAYOUT_PLIES,
    assert_refused,
    assert_replays,
    assert_roundtrip,
    random_playout,
)
from tests.games.playout import (
    perft as perft_strings,
)
from tests.games.tridchess.helpers import ST, play, pos


def test_registry_names() -> None:
    for word in ("tridchess", "3dchess", "startrek", "TriDChess"):
        assert load_game(word) is GAME
    assert GAME.title == "Tri-Dimensional Chess"
    assert GAME.players == 2 and GAME.has_position
    s = GAME.start(GAME.parse_options([]), 2)
    assert GAME.seat_names(s) == ["White", "Black"]
    assert GAME.to_move(s) == 0
    assert all(len(line) <= 79 for line in GAME.help().splitlines())


def test_perft_from_start_through_the_contract() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert perft_strings(GAME, s, 1) == 16
    assert perft_strings(GAME, s, 2) == 256
    assert perft_strings(GAME, s, 3) == 4576


def test_perft_helper_agrees() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    t = time.perf_counter()
    assert [perft(s, d) for d in (1, 2, 3)] == [16, 256, 4576]
    assert perft(2) == 256  # perft(depth) starts from the start position
    assert time.perf_counter() - t < 20


SCRIPT = [
    "b2W-b4W", "c7B-c5B", "b4W-b5N", "Nd8B-c6B", "Nd1W-c3W", "a7B-a6B",
    "O-O", "c5B-c4N", "b5Nxa6B", "Bb8B-a7B", "a6Bxb7B", "c4N-c3N", "b7B-b8B=N",
]  # fmt: skip


def test_replay_of_a_scripted_game() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    moves = []
    for mv in SCRIPT:
        seat = GAME.to_move(s)
        assert mv in GAME.legal_moves(s), mv
        s = GAME.play(s, seat, mv)
        moves.append((seat, mv))
    assert_replays(GAME, GAME.parse_options([]), moves, s)
    assert_roundtrip(GAME, s)
    fields = GAME.position(s).split()
    assert fields[2:] == ["b", "kq", "-", "0", "7"]
    pieces = fields[1].split(",")
    assert "Nb8B" in pieces and "Ke0KL1" in pieces and "pc3N*" in pieces
    assert len(pieces) == 30  # two captures, one promotion


def test_play_never_mutates_and_dump_is_json() -> None:
    s = pos(f"{ST} Pd5N*,pc7B,Kb1W,ka8B b - - 0 10")
    before = json.dumps(GAME.dump(s), sort_keys=True)
    s2 = GAME.play(s, 1, "c7B-c5B")
    assert json.dumps(GAME.dump(s), sort_keys=True) == before
    assert_roundtrip(GAME, s2)  # with an en-passant chance
    assert "d5Nxc6B e.p." in GAME.legal_moves(GAME.load(GAME.dump(s2)))


def test_random_playout() -> None:
    counts = random_playout(GAME)
    if PLAYOUT_PLIES == 3000:  # the default bound: a fixed seed gives a known run
        assert counts == {"games": 6, "finished": 1, "plies": 3000, "endings": ["checkmate"]}
    else:
        assert counts["plies"] == PLAYOUT_PLIES


def test_random_playouts_from_an_open_position() -> None:
    # free boards and few pieces: many attack-board moves, promotions, mates
    opts = GAME.parse_options(
        [f"-position={ST} Qb4N,Rc3W,Pa2W,Pd2W*,Kb1W,qc6N,rb6B,pa7B,pd7B*,kc8B w - - 0 10"]
    )
    counts = random_playout(GAME, opts, plies=1500, seed=7, max_game_plies=300)
    assert counts == {
        "games": 6,
        "finished": 2,
        "plies": 1500,
        "endings": [
            "draw: only the two kings are left",
            "draw: 100 plies without a capture or pawn move",
        ],
    }


def test_game_over_refuses_moves_and_lists_none() -> None:
    mate = play(pos(f"{ST} Qb7B,Ra7B,Kb1W,kz9QL6 w - - 0 40"), "Qb7B-a8QL6")
    assert GAME.legal_moves(mate) == []
    assert_refused(GAME, mate, 1, "KL6-KL5", "game is over")
