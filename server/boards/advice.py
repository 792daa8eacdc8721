"""Hints and reviews: what the engine says about a board, worded for a mail.

Everything here works on a :class:`Plan` (plain data read from the board in a
short transaction) so that the search runs outside any transaction, in the
computer's process (server/processes/computer.py).
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass, field
from typing import Any

from games import Game, load_game
from games.engine import LEVELS, Analysis, Level, analyse, reward_vector

#: A hint thinks like a level-2 computer.
HINT_BUDGET = LEVELS[2]
#: A whole review may take this much CPU; each position gets its share (at most level 1's).
REVIEW_CPU = 30.0
#: Moves shown per player in a review.
REVIEW_MOVES = 3
#: A drop smaller than this (in expected score) is not worth a line.
REVIEW_MIN_DROP = 0.05


@dataclass
class Plan:
    kind: str  # "hint" or "review"
    game: str
    number: int
    options: dict[str, Any]
    players: list[str]
    #: (seat, move) in order, up to the position asked about.
    moves: list[tuple[int, str]] = field(default_factory=list)
    finished: bool = False
    #: The asking player's seat.
    seat: int | None = None


def replay(game: Game, plan: Plan, upto: int | None = None) -> Any:
    state = game.start(plan.options, len(plan.players))
    for seat, move in plan.moves[: len(plan.moves) if upto is None else upto]:
        state = game.resign(state, seat) if move == "resign" else game.play(state, seat, move)
    return state


def compose(plan: Plan) -> tuple[str, str]:
    """(subject, body) of the answer; this is where the engine thinks."""
    game = load_game(plan.game)
    if plan.kind == "hint":
        return hint(game, plan)
    return review(game, plan)


def _wrap(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, width=76, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False, break_long_words=False)


def hint(game: Game, plan: Plan) -> tuple[str, str]:
    state = replay(game, plan)
    ply = len(plan.moves)
    subject = f"{game.title} Board {plan.number} hint"
    where = f"{game.title} Board {plan.number} at move #{ply + 1}"
    seat = game.to_move(state)
    if seat is None:
        return subject, f"{where}: the game is over there, so there is no move to hint at.\n"
    found = analyse(game, state, HINT_BUDGET)
    side = game.seat_names(state)[seat]
    lines = [f"Hint for {where}, {plan.players[seat]} ({side}) to move:", "",
             f"  Best move: {found.best}", "", "  The engine's top three:"]
    for i, choice in enumerate(found.top, 1):
        lines.append(_wrap(f"{i}. {choice.move:<20} scores {choice.value:.0%} in {choice.visits} searched lines",
                           "    "))
    lines += ["", _wrap(f"Why: {found.reason}."), "",
              f"  ({found.iterations} lines searched in {found.cpu:.1f} s; a level-2 computer's look.)"]
    return subject, "\n".join(lines) + "\n"


def values_of(game: Game, state: Any, budget: Level) -> tuple[list[float], Analysis | None]:
    """The engine's value of a position per seat (exact once the game is over)."""
    if game.to_move(state) is None:
        outcome = game.outcome(state)
        return (reward_vector(outcome, game.players) if outcome else [0.5] * game.players), None
    found = analyse(game, state, budget, evaluate=True)
    return found.values, found


def review(game: Game, plan: Plan) -> tuple[str, str]:
    """The moves where each player's value dropped most, each with the engine's preferred move.

    The value of a position is the search's mean reward per seat; because
    the rewards are vectors (one entry per seat) one search gives every
    player's value, so a move's drop for its player is the value before it
    minus the value after it, for that player.
    """
    subject = f"{game.title} Board {plan.number} review"
    if not plan.moves:
        return subject, f"{game.title} Board {plan.number} has no moves to review.\n"
    started = time.process_time()
    per = min(LEVELS[1].cpu_seconds, REVIEW_CPU / (len(plan.moves) + 1))
    budget = Level(0, iterations=LEVELS[1].iterations * 2, cpu_seconds=per, accepts_undo=False)
    state = game.start(plan.options, len(plan.players))
    values, found = values_of(game, state, budget)
    drops: dict[int, list[tuple[float, int, str, str]]] = {}
    for ply, (seat, move) in enumerate(plan.moves, 1):
        state = game.resign(state, seat) if move == "resign" else game.play(state, seat, move)
        after, next_found = values_of(game, state, budget)
        drop = values[seat] - after[seat]
        if found is not None and move != "resign" and found.best != move and drop >= REVIEW_MIN_DROP:
            drops.setdefault(seat, []).append((drop, ply, move, found.best))
        values, found = after, next_found
    lines = [f"Review of {game.title} Board {plan.number} ({' vs '.join(plan.players)}), "
             f"{len(plan.moves)} moves:", "",
             textwrap.fill("For each player, the moves after which the engine's estimate of their chances "
                           "fell most, with the move it would have played instead.", width=76), ""]
    for seat, name in enumerate(plan.players):
        worst = sorted(drops.get(seat, []), reverse=True)[:REVIEW_MOVES]
        lines.append(f"{name}:")
        if not worst:
            lines.append("  no move lost much by the engine's estimate.")
        for drop, ply, move, best in sorted(worst, key=lambda w: w[1]):
            lines.append(_wrap(f"move #{ply}: {move}, chances down {drop:.0%}; the engine prefers {best}"))
        lines.append("")
    lines.append(f"({time.process_time() - started:.1f} s of search, {per:.2f} s a position at most.)")
    return subject, "\n".join(lines) + "\n"
