"""The engine agrees with reference.py, a plain second reading of spec 3-5.

Engine and reference play the same random games side by side and must
agree after every turn on the full list of legal turns, the position string
(placement, side, en-passant field, reserves, both counters) and, when the
game ends, the result (winner and reason: king capture, stalemate,
repetition, fifty-move draw).  Games start from the opening, from positions
with reserves, and from random sparse positions that reach the rarer
endings quickly.

PBMSERV_REFERENCE_PLIES scales the random part (default 1500 plies in all).
"""

from __future__ import annotations

import os
import random

from games import OptionError
from games.interweave import GAME
from tests.games.interweave import reference as ref

PLIES = int(os.environ.get("PBMSERV_REFERENCE_PLIES", "1500"))
KINDS = ("king-capture", "stalemate", "repetition", "fifty-move")


def engine_result(st) -> tuple[str | None, str] | None:
    out = GAME.outcome(st)
    if out is None:
        return None
    kinds = [k for k in KINDS if f", {k})" in out.reason]
    assert len(kinds) == 1, out.reason
    winner = ("White", "Black")[out.winners[0]] if out.winners else None
    code = {"White": "1-0", "Black": "0-1", None: "1/2-1/2"}[winner]
    assert f"({code}, {kinds[0]})" in out.reason, out.reason  # 5: result codes
    assert out.losers == (() if winner is None else (1 - out.winners[0],))
    return (winner, kinds[0])


def new_stats() -> dict[str, int]:
    return dict.fromkeys([*KINDS, "promotions", "en passant rights"], 0)


def side_by_side(text: str, rng: random.Random, stats: dict, fifty: bool = True) -> int:
    """One random game on both; returns its plies.

    A side takes back its last plain move half the time it can (so
    repetitions happen); a turn that captures a King is always taken.
    """
    options = [f"-position={text}"] + ([] if fifty else ["-fifty=off"])
    st = GAME.start(GAME.parse_options(options), 2)
    game = ref.parse(text, fifty)
    plies = 0
    last: dict[bool, str] = {}
    while True:
        position = GAME.position(st)
        assert position == ref.position_string(game), text
        moves = GAME.legal_moves(st)
        assert sorted(moves) == sorted(ref.legal_moves(game)), position
        assert engine_result(st) == game.result, position
        if game.result:
            stats[game.result[1]] += 1
            return plies
        move = rng.choice(moves)
        back = last.get(game.white, "")
        undo = f"{back[3:5]}-{back[:2]}" if "-" in back and len(back) == 5 else ""
        if undo in moves and rng.random() < 0.5:
            move = undo
        kings = [m for m in moves if game.turns[m].king]
        move = kings[0] if kings else move
        stats["promotions"] += "=" in move
        last[game.white] = move
        st, game = GAME.play(st, GAME.to_move(st), move), ref.play(game, move)
        stats["en passant rights"] += game.ep is not None
        plies += 1


def test_engine_matches_reference_from_the_opening():
    rng = random.Random(11)
    starts = [
        "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1",
        "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - SLRslr 0 1",
        "1rlkklr1/pppppppp/8/8/8/8/PPPPPPPP/1RLKKLR1 w - SSss 0 1",
    ]
    stats = new_stats()
    plies = games = 0
    while plies < PLIES:
        plies += side_by_side(starts[games % 3], rng, stats)
        games += 1
    print(games, "games", stats)
    if PLIES == 1500:
        assert stats["king-capture"] and stats["promotions"] and stats["en passant rights"], stats


def random_position(rng: random.Random) -> str:
    """Few pieces: Kings, a handful of others, Pawns off the back ranks."""
    board = {}
    free = [(f, r) for f in range(8) for r in range(8)]
    rng.shuffle(free)
    for letter in "Kk" + ("Kk" if rng.random() < 0.3 else ""):
        board[free.pop()] = letter
    for _ in range(rng.randint(0, 6)):
        letter = rng.choice("SLRPPP")
        sq = free.pop()
        if letter == "P" and sq[1] in (0, 7):
            continue
        letter = letter if rng.random() < 0.5 else letter.lower()
        if letter in "Pp" and rng.random() < 0.4:  # frozen on its 7th rank (3.5)
            sq = next((q for q in free if q[1] == (6 if letter == "P" else 1)), sq)
            free = [q for q in free if q != sq]
        board[sq] = letter
    reserves = "".join(sorted(rng.sample("SLRslr", rng.randint(0, 3)), key="SLRslr".index))
    game = ref.Game(board, rng.random() < 0.5, None, {True: [], False: []}, 0, 1)
    fields = ref.position_string(game).split()
    halfmove = rng.choice([0, 0, 90, 97])
    return f"{fields[0]} {fields[1]} - {reserves or '-'} {halfmove} {rng.randint(1, 60)}"


def test_engine_matches_reference_in_random_sparse_positions():
    """Stalemates, repetitions and fifty-move draws, besides king captures."""
    rng = random.Random(18)
    stats = new_stats()
    plies = positions = 0
    while plies < PLIES:
        text = random_position(rng)
        try:
            GAME.parse_options([f"-position={text}"])
        except OptionError:
            continue
        plies += side_by_side(text, rng, stats, fifty=positions % 4 != 3)
        positions += 1
    print(positions, "positions", stats)
    if PLIES == 1500:
        assert all(stats[k] for k in KINDS if k != "stalemate"), stats


def test_engine_matches_reference_near_stalemate():
    """White's Kings hemmed in by their own frozen Pawns (3.5: a Pawn on its
    7th rank with an empty reserve has no move): Black moves first, and White
    is stalemated unless Black gives a King something to leap over."""
    rng = random.Random(3)
    stats = new_stats()
    plies = 0
    while plies < PLIES // 10 or not stats["stalemate"]:
        board = {(0, 7): "K", (1, 6): "P"}
        if rng.random() < 0.5:
            board.update({(7, 7): "K", (6, 6): "P"})
        free = [(f, r) for f in range(8) for r in range(1, 6)]
        rng.shuffle(free)
        for letter in "k" + "".join(rng.choice("slrp") for _ in range(rng.randint(0, 4))):
            board[free.pop()] = letter
        game = ref.Game(board, False, None, {True: [], False: []}, 0, 1)
        text = ref.position_string(game)
        plies += side_by_side(text, rng, stats)
    print(stats)
