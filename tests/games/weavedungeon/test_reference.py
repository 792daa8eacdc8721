"""The engine agrees with a literal reading of the spec on many positions."""

from __future__ import annotations

import random

from games.weavedungeon import GAME
from games.weavedungeon import geometry as g
from tests.games.weavedungeon import reference


def engine_pairs(st):
    out = set()
    for mv in GAME.legal_moves(st):
        body = mv[1:].split("=")[0]
        out.add((g.parse_square(body[:2]), g.parse_square(body[3:5])))
    return out


def test_engine_matches_reference_on_random_games():
    rng = random.Random(5)
    checked = 0
    starts = [
        [],
        ["-position=1stckctsp/d1ddddddd/1d1p5/9/2T6/9/D8/1DDDDDDDD/PSTCKC1SP w Tp 12"],
        ["-position=2t1k1t2/1s5s1/9/3C1c3/P8/2p2S3/9/1T5t1/4K4 w - 1"],
    ]
    for opts in starts:
        for _game in range(2):
            st = GAME.start(GAME.parse_options(opts), 2)
            for _ply in range(120):
                if GAME.to_move(st) is None:
                    break
                board = list(st.board)
                assert engine_pairs(st) == reference.legal_pairs(board, st.side), GAME.position(st)
                assert st.in_check() == reference.in_check(board, st.side)
                checked += 1
                st = GAME.play(st, st.side, rng.choice(GAME.legal_moves(st)))
    assert checked > 300
