"""Interweave speed: perft, random playouts and legal-move generation.

Run: ``python bench/bench_interweave.py [seconds-per-line]``.  The baseline
is python-chess (the style model) listing legal moves of standard chess
middlegames, measured in the same process so the numbers compare across
machines.
"""

from __future__ import annotations

import random
import sys
import time

from games.interweave import GAME
from games.interweave.moves import legal_turn_texts
from tests.games.playout import perft

#: Standard chess middlegames (Kiwipete and two well-known perft positions).
CHESS_MIDDLEGAMES = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
)


def perft_times() -> list[tuple[int, int, float]]:
    st = GAME.start(GAME.parse_options([]), 2)
    out = []
    for depth in (1, 2, 3):
        t = time.perf_counter()
        n = perft(GAME, st, depth)
        out.append((depth, n, time.perf_counter() - t))
    return out


def playout_rate(seconds: float) -> tuple[float, float]:
    """(plies/s, games/s) of random complete games through the plugin API."""
    rng = random.Random(1)
    options = GAME.parse_options([])
    plies = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        st = GAME.start(options, 2)
        while (seat := GAME.to_move(st)) is not None:
            st = GAME.play(st, seat, rng.choice(GAME.legal_moves(st)))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return plies / elapsed, games / elapsed


def interweave_middlegames() -> list:
    """Positions 10-30 plies into random games (Interweave has no opening book)."""
    rng = random.Random(2)
    found = []
    while len(found) < 50:
        st = GAME.start(GAME.parse_options([]), 2)
        for ply in range(30):
            if GAME.to_move(st) is None:
                break
            if ply >= 10:
                found.append(st.pos)
            st = GAME.play(st, GAME.to_move(st), rng.choice(GAME.legal_moves(st)))
    return found


def interweave_gen_rate(seconds: float) -> float:
    positions = interweave_middlegames()
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for pos in positions:
            legal_turn_texts(pos)
            n += 1
    return n / (time.perf_counter() - start)


def chess_gen_rate(seconds: float) -> float | None:
    try:
        import chess
    except ImportError:
        return None
    boards = [chess.Board(f) for f in CHESS_MIDDLEGAMES]
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for b in boards:
            [m.uci() for m in b.legal_moves]
            n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    for depth, n, t in perft_times():
        print(f"perft({depth}) = {n:6}  {t * 1000:8.1f} ms")
    plies, games = playout_rate(seconds)
    print(f"random playouts: {plies:,.0f} plies/s, {games:,.1f} games/s")
    mine = interweave_gen_rate(seconds)
    print(f"interweave legal turn lists (middlegames): {mine:,.0f} positions/s")
    base = chess_gen_rate(seconds)
    if base is None:
        print("python-chess not installed: no baseline")
    else:
        print(f"python-chess legal move lists (middlegames): {base:,.0f} positions/s")
        print(f"ratio interweave / python-chess: {mine / base:.2f}")


if __name__ == "__main__":
    main()
