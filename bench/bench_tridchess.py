"""Tri-D chess speed: perft from the start and legal-move generation per position.

Legal-move generation is compared with python-chess on standard chess in the
same run: both sides are timed on positions sampled from random games, the
generator is called on fresh position objects (no per-position cache), and
the ratio of the mean times is printed.

    python bench/bench_tridchess.py [perft-depth]
"""

from __future__ import annotations

import random
import sys
import time

import chess

from games.tridchess import GAME, perft
from games.tridchess.rules import State, legal_moves


def tridchess_positions(n: int, seed: int = 1) -> list[State]:
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        s = GAME.start(GAME.parse_options([]), 2)
        for _ in range(200):
            if GAME.to_move(s) is None:
                break
            out.append(s)
            s = GAME.play(s, s.turn, rng.choice(GAME.legal_moves(s)))
    return out[:n]


def chess_positions(n: int, seed: int = 1) -> list[chess.Board]:
    rng = random.Random(seed)
    out: list[chess.Board] = []
    while len(out) < n:
        b = chess.Board()
        for _ in range(200):
            if b.is_game_over():
                break
            out.append(b.copy(stack=False))
            b.push(rng.choice(list(b.legal_moves)))
    return out[:n]


def fresh(s: State) -> State:
    return State(s.pins, s.board, s.turn, s.castling, s.ep, s.halfmove, s.fullmove, s.history)


def main() -> None:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    start = GAME.start(GAME.parse_options([]), 2)
    for d in range(1, depth + 1):
        t = time.perf_counter()
        n = perft(start, d)
        print(f"perft({d}) = {n:>9}  {time.perf_counter() - t:8.3f} s")

    n = 2000
    tri = [fresh(s) for s in tridchess_positions(n)]
    t = time.perf_counter()
    tri_moves = sum(len(legal_moves(s)) for s in tri)
    tri_t = (time.perf_counter() - t) / n
    std = chess_positions(n)
    t = time.perf_counter()
    std_moves = sum(len(list(b.legal_moves)) for b in std)
    std_t = (time.perf_counter() - t) / n
    print(f"tridchess  legal moves: {tri_t * 1e6:7.1f} us/position ({tri_moves / n:.1f} moves)")
    print(f"python-chess legal moves: {std_t * 1e6:7.1f} us/position ({std_moves / n:.1f} moves)")
    print(f"ratio: {tri_t / std_t:.2f}x  (per move: {tri_t / tri_moves * std_moves / std_t:.2f}x)")

    t = time.perf_counter()
    plies = 0
    rng = random.Random(3)
    while plies < 3000:
        s = GAME.start(GAME.parse_options([]), 2)
        for _ in range(600):
            if GAME.to_move(s) is None:
                break
            s = GAME.play(s, s.turn, rng.choice(GAME.legal_moves(s)))
            plies += 1
    print(f"random playout: {plies / (time.perf_counter() - t):.0f} plies/s")


if __name__ == "__main__":
    main()
