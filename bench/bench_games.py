"""Rules speed of every installed game next to python-chess, measured in the same run.

Run: ``python bench/bench_games.py``.  Per game, the operation timed is what
the server does with a move: ``play(state, seat, move)`` (which checks the
move and builds the new state) followed by end-of-game detection
(``outcome`` and ``to_move`` of the new state).  The positions come from
random playouts of the game (seeded), so early, middle and late positions
all count.  The baseline is python-chess on standard chess middlegames
(well-known opening lines played out to move 11-16): ``list(board.legal_moves)``
then ``board.push(move)`` (and ``pop`` to reuse the position).

The figure printed per game is ``game time per move / chess time per move``
(target of issue 10: within 5x).  Knobs: --seconds/BENCH_SECONDS (time per
measurement, 1.0), --playouts/BENCH_PLAYOUTS (random games per game, 12),
--max-plies/BENCH_MAX_PLIES (a playout stops there, 400), --game NAME (one game).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games  # noqa: E402

#: Standard middlegames: main lines of well-known openings, in SAN.
MIDDLEGAMES = {
    "Ruy Lopez, Chigorin": "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Na5 Bc2 c5 d4 Qc7 "
                           "Nbd2 cxd4 cxd4 Nc6 Nb3 a5 Be3 a4 Nbd2 Bd7",
    "Sicilian Najdorf, English Attack": "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6 f3 Be7 Qd2 O-O "
                                        "O-O-O Nbd7 g4 b5 g5 b4 Ne2 Ne8",
    "Queen's Gambit Declined": "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 Nbd7 Rc1 c6 Bd3 dxc4 Bxc4 Nd5 Bxe7 Qxe7 "
                               "O-O Nxc3 Rxc3 e5",
    "King's Indian, Mar del Plata": "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 Nf3 O-O Be2 e5 O-O Nc6 d5 Ne7 Ne1 Nd7 Nd3 f5 "
                                    "Bd2 Nf6 f3 f4",
    "Giuoco Piano": "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d3 d6 O-O O-O Re1 a6 a4 Ba7 h3 h6 Nbd2 Re8 Nf1 Be6",
    "French Winawer, Poisoned Pawn": "e4 e6 d4 d5 Nc3 Bb4 e5 c5 a3 Bxc3+ bxc3 Ne7 Qg4 Qc7 Qxg7 Rg8 Qxh7 cxd4 "
                                     "Ne2 Nbc6 f4 dxc3",
}


def chess_positions() -> list[Any]:
    import chess

    boards = []
    for name, line in MIDDLEGAMES.items():
        board = chess.Board()
        for san in line.split():
            try:
                board.push_san(san)
            except ValueError as exc:
                raise SystemExit(f"middlegame {name!r}: {san}: {exc}") from None
        boards.append(board)
    return boards


def time_loop(step, items: list[Any], seconds: float) -> float:  # type: ignore[no-untyped-def]
    """Seconds per call of ``step(item)``, cycling through ``items`` for about ``seconds``."""
    calls = 0
    start = time.perf_counter()
    while True:
        for item in items:
            step(item)
        calls += len(items)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


def chess_per_move(seconds: float) -> float:
    """python-chess: legal_moves + push (+ pop) on the middlegames, seconds per move."""
    boards = chess_positions()
    rng = random.Random(5)
    items = [(b, rng.randrange(b.legal_moves.count())) for b in boards for _ in range(8)]

    def step(item: tuple[Any, int]) -> None:
        board, k = item
        moves = list(board.legal_moves)
        board.push(moves[k % len(moves)])
        board.pop()

    return time_loop(step, items, seconds)


def playout_samples(game: games.Game, playouts: int, max_plies: int, seed: int) -> list[tuple[Any, int, str]]:
    """(state, seat, legal move) at every ply of ``playouts`` random games."""
    rng = random.Random(seed)
    options = game.parse_options([])
    samples = []
    for _ in range(playouts):
        state = game.start(options, game.players)
        for _ in range(max_plies):
            seat = game.to_move(state)
            if seat is None:
                break
            moves = game.legal_moves(state)
            if not moves:
                break
            move = rng.choice(moves)
            samples.append((state, seat, move))
            state = game.play(state, seat, move)
    return samples


def game_per_move(game: games.Game, samples: list[tuple[Any, int, str]], seconds: float) -> float:
    """play + outcome + to_move, seconds per move."""

    def step(item: tuple[Any, int, str]) -> None:
        state, seat, move = item
        after = game.play(state, seat, move)
        game.outcome(after)
        game.to_move(after)

    return time_loop(step, samples, seconds)


def main(argv: list[str] | None = None) -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=float(env("BENCH_SECONDS", "1.0")))
    parser.add_argument("--playouts", type=int, default=int(env("BENCH_PLAYOUTS", "12")))
    parser.add_argument("--max-plies", type=int, default=int(env("BENCH_MAX_PLIES", "400")))
    parser.add_argument("--game", default=None, help="only this game")
    args = parser.parse_args(argv)

    selected = [games.load_game(args.game)] if args.game else games.available()
    print("python-chess (legal_moves + push on the middlegames) is timed right before and right after "
          "each game; the ratio uses their mean, so a machine whose load changes during the run "
          "affects both sides alike")
    worst = 0.0
    for game in selected:
        try:
            samples = playout_samples(game, args.playouts, args.max_plies, seed=len(game.name))
            before = chess_per_move(args.seconds / 2)
            per_move = game_per_move(game, samples, args.seconds)
            after = chess_per_move(args.seconds / 2)
        except Exception as exc:  # a game still being written must not hide the others
            print(f"{game.name:<14} ERROR {type(exc).__name__}: {exc}")
            worst = float("inf")
            continue
        chess = (before + after) / 2
        ratio = per_move / chess
        worst = max(worst, ratio)
        print(f"{game.name:<14} play+outcome+to_move {per_move * 1e6:7.1f} us/move, python-chess "
              f"{before * 1e6:5.1f}/{after * 1e6:5.1f} us/move: {ratio:5.2f}x "
              f"({'ok' if ratio <= 5 else 'OVER'} target 5x)  [{len(samples)} positions, {args.playouts} playouts]")
    print("targets: " + ("all games within 5x" if worst <= 5 else "MISSED for some game (see above)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
