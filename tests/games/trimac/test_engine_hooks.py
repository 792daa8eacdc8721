"""TriMac's evaluation hook: the per-piece tables give what summing piece by piece gives.

``engine_hooks.scores`` looks each piece up in a table made per placement
of the three Generals (``_worth``).  The reference here sums the terms the
module's docstring names -- value, and ATTACK * reach * closeness to each
enemy General in play -- piece by piece, then the General's plight as the
hook does, over positions of random games.
"""

from __future__ import annotations

import random

import games
from games.trimac import engine_hooks as hooks
from games.trimac.moves import general_point, has_legal_move
from games.trimac.state import ALIVE


def reference_scores(state) -> list[float]:  # type: ignore[no-untyped-def]
    board = state.board
    gens = [general_point(board, s) if state.status[s] == ALIVE else -1 for s in range(3)]
    out = [0.0, 0.0, 0.0]
    for p, c in enumerate(board):
        if c < 8:
            continue
        owner, kind = (c >> 3) - 1, c & 7
        value = hooks.VALUES[kind]
        for enemy in range(3):
            if enemy != owner and gens[enemy] >= 0 and hooks.REACH[kind]:
                value += hooks.ATTACK * hooks.REACH[kind] * hooks.CLOSE[gens[enemy]][p]
        out[owner] += value
    for s in range(3):
        if gens[s] >= 0:
            closed, check = hooks.cornered(board, s, gens[s])
            out[s] -= hooks.BLOCKED * closed + (hooks.CHECK if check else 0.0)
            if check and s != state.to and not has_legal_move(board, s):
                out[s] -= hooks.MATED
    return out


def test_scores_match_a_piece_by_piece_sum() -> None:
    game = games.load_game("trimac")
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = game.start(game.parse_options([]), 3)
        for _ in range(250):
            if game.to_move(state) is None:
                break
            assert hooks.scores(state) == reference_scores(state), (seed, checked)
            checked += 1
            state = game.play(state, game.to_move(state), rng.choice(game.legal_moves(state)))
    assert checked > 1000
