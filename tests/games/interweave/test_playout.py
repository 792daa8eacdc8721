"""Perft from the start (spec §5), replay, and random games played to their end."""

from __future__ import annotations

import random
import time

from games.interweave import GAME
from games.interweave.board import BLACK_PIECES, DARK, WHITE_PIECES
from games.interweave.moves import piece_steps, turns
from tests.games.playout import assert_replays, assert_roundtrip, perft, random_playout

END_WORDS = ("king capture", "stalemate", "repetition", "fifty-move")


def start():
    return GAME.start(GAME.parse_options([]), 2)


def test_perft_from_the_start() -> None:
    st = start()
    t = time.perf_counter()
    assert [perft(GAME, st, d) for d in (1, 2, 3)] == [30, 888, 26318]
    assert time.perf_counter() - t < 20


def test_replay_of_a_played_game() -> None:
    st = start()
    rng = random.Random(7)
    moves = []
    while GAME.to_move(st) is not None and len(moves) < 60:
        seat = GAME.to_move(st)
        mv = rng.choice(GAME.legal_moves(st))
        moves.append((seat, mv))
        st = GAME.play(st, seat, mv)
        assert_roundtrip(GAME, st)
    assert_replays(GAME, GAME.parse_options([]), moves, st)


def test_random_playout() -> None:
    counts = random_playout(GAME)
    assert counts["plies"] > 0 and counts["finished"] > 0


def test_random_playout_from_a_position_with_reserves() -> None:
    opts = GAME.parse_options(
        ["-position=srlkklrs/1ppppppp/8/8/8/8/PPPPPPP1/SRLKKLRS w - SLRslr 0 1"]
    )
    random_playout(GAME, opts, plies=600, seed=3)


def _check_invariants(pos) -> None:
    """Colour invariant and notation uniqueness (spec §3, §2) on every turn."""
    mine = WHITE_PIECES if pos.side == 0 else BLACK_PIECES
    for s in range(64):
        if pos.board[s] in mine:
            steps = piece_steps(pos.board, s, pos.ep, pos.reserves[pos.side], False)
            keys = [(st.star, st.target, st.promo) for st in steps]
            assert len(keys) == len(set(keys)), (pos.fen(), s)
    for steps, work in turns(pos):
        colour = DARK[steps[0].origin]
        for st in steps:
            assert DARK[st.dest] == colour, (pos.fen(), steps)
            assert all(DARK[v] != colour for v in st.victims), (pos.fen(), steps)
        assert DARK[work.square] == colour


def test_hundreds_of_random_games_end_by_a_rule() -> None:
    rng = random.Random(2026)
    reasons: dict[str, int] = {}
    for game_no in range(300):
        st = start()
        plies = 0
        while (seat := GAME.to_move(st)) is not None:
            if game_no < 30:
                _check_invariants(st.pos)
            legal = GAME.legal_moves(st)
            st = GAME.play(st, seat, rng.choice(legal))
            plies += 1
            assert plies < 5000
        out = GAME.outcome(st)
        mover = 1 - st.pos.side  # who played the last turn
        word = next(w for w in END_WORDS if w in out.reason)
        reasons[word] = reasons.get(word, 0) + 1
        if word == "king capture":
            assert out.winners == (mover,) and out.losers == (1 - mover,)
            assert GAME.position(st).split()[0].count("Kk"[1 - mover]) == 1
        elif word == "repetition":
            assert out.losers == (mover,)
        elif word == "stalemate":
            assert out.losers == (1 - mover,)
        else:
            assert out.is_draw and st.pos.halfmove >= 100
    assert sum(reasons.values()) == 300
