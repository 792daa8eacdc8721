"""Print one game record per installed game, from a seeded random playout.

The examples in docs/record-format.md are this script's output (so they are
real games the rules accept, not hand-typed), and
tests/games/test_record_doc.py replays every one of them:

    python3 tools/record_examples.py > /tmp/examples.md

A game that ends within ``--plies`` plies in one of the first seeds is shown
finished; otherwise its first ``--plies`` plies (TriMac's with a
resignation, as it plays on without the resigned army).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games  # noqa: E402
from games.record import RESIGN, build, write  # noqa: E402

#: Options of each example (a size-2 Warp and Weft ends in a few dozen moves).
OPTIONS = {"warpandweft": ["-size=2", "-patches"], "interweave": ["-fifty=off"]}
NAMES = ["alice", "bob", "carol"]


def example(game: games.Game, plies: int) -> str:
    options = game.parse_options(OPTIONS.get(game.name, []))
    best: tuple[list[tuple[int, str]], games.Outcome | None] | None = None
    for seed in range(200):
        rng = random.Random(seed)
        state = game.start(options, game.players)
        moves: list[tuple[int, str]] = []
        while len(moves) < plies and (seat := game.to_move(state)) is not None:
            if game.players == 3 and len(moves) == plies // 2:
                state = game.resign(state, 2)
                moves.append((2, RESIGN))
                continue
            move = rng.choice(game.legal_moves(state))
            state = game.play(state, seat, move)
            moves.append((seat, move))
        outcome = game.outcome(state)
        if outcome is not None or best is None:
            best = (moves, outcome)
        if outcome is not None:
            break
    assert best is not None
    moves, outcome = best
    record = build(game, options, NAMES[: game.players], moves, outcome, Site="pbmserv@example.org",
                   Board="101", Started="2026-11-20", Finished="2026-11-27" if outcome else "")
    if moves:
        record.entries[0].comment = "comments in braces are kept; the server writes none itself"
    return write(record)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=24, help="longest example game (default 24)")
    args = parser.parse_args()
    for game in games.available():
        if game.name == "tictactoe":
            continue
        print(f"### {game.title}\n\n```text\n{example(game, args.plies)}```\n")


if __name__ == "__main__":
    main()
