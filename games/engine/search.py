"""Monte-Carlo tree search (UCT) over the plugin contract.

Why MCTS: it needs nothing but the contract -- legal moves, play, the
outcome -- so it plays any game, including a third party's, and a game's
hooks (an evaluation, a playout policy) only make it better.  Alpha-beta
would need an evaluation from every game before it plays at all.

Rewards are vectors, one entry per seat (max^n-style MCTS, as Sturtevant,
"An analysis of UCT in multi-player games", 2008): a finished playout gives
each winner 1, each loser 0 and each seat sharing a draw 0.5; an evaluation
hook gives its own value per seat.  Every node keeps the sum of the vectors
that passed through it, and at a node the search maximises the entry *of
the seat to move there*.  With two players that is ordinary UCT; with
TriMac's three, each army plays for itself (no paranoid "everyone is against
me" assumption), which is what the rules reward: a single winner.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.contract import Game, Outcome
from games.engine.hooks import Hooks, hooks_for
from games.engine.levels import Level

#: UCT's exploration constant for rewards in [0, 1].
EXPLORATION = 0.7
#: How often (in iterations) the CPU clock is read.
CLOCK_EVERY = 8


def reward_vector(outcome: Outcome, players: int) -> list[float]:
    """1 for a winner, 0 for a loser, 0.5 for a seat sharing a draw."""
    out = [0.5] * players
    for seat in outcome.winners:
        out[seat] = 1.0
    for seat in outcome.losers:
        out[seat] = 0.0
    if outcome.winners:  # a win: everyone not named a winner has lost it
        out = [1.0 if seat in outcome.winners else 0.0 for seat in range(players)]
    return out


class Node:
    __slots__ = ("state", "seat", "untried", "children", "visits", "totals", "terminal")

    def __init__(self, state: Any, seat: int | None, players: int) -> None:
        self.state = state
        self.seat = seat
        self.untried: list[str] | None = None
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.totals = [0.0] * players
        self.terminal: list[float] | None = None

    def mean(self, seat: int) -> float:
        return self.totals[seat] / self.visits if self.visits else 0.0


@dataclass(frozen=True)
class Choice:
    """One candidate move at the root: how often it was searched and its mean value for the mover."""

    move: str
    visits: int
    value: float


@dataclass
class Analysis:
    """What one search found: the move, the runners-up and the position's value per seat."""

    seat: int
    best: str
    top: list[Choice]
    #: The searched position's mean reward per seat (its evaluation).
    values: list[float]
    iterations: int
    nodes: int
    cpu: float
    #: Why, in a line: "wins at once", or the search's figures and the hook's terms.
    reason: str
    moves: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.cpu if self.cpu > 0 else 0.0


class Search:
    def __init__(self, game: Game, hooks: Hooks, rng: random.Random) -> None:
        self.game = game
        self.hooks = hooks
        self.rng = rng
        self.players = game.players
        self.nodes = 0
        #: UCT's exploration constant: the game's (hooks), else the default.
        self.exploration = hooks.exploration if hooks.exploration is not None else EXPLORATION
        #: The searching seat when the other seats are taken to play against it (a paranoid
        #: search, Level.paranoid), else None: each seat maximises its own value (max^n).
        self.paranoid: int | None = None

    # -- the four steps -----------------------------------------------------
    def node(self, state: Any) -> Node:
        seat = self.game.to_move(state)
        node = Node(state, seat, self.players)
        if seat is None:
            outcome = self.game.outcome(state)
            node.terminal = (reward_vector(outcome, self.players) if outcome is not None
                             else [0.5] * self.players)
        return node

    def untried(self, node: Node) -> list[str]:
        if node.untried is None:
            node.untried = self.arrange(node.state, list(self.game.legal_moves(node.state)))
        return node.untried

    def arrange(self, state: Any, moves: list[str]) -> list[str]:
        """A node's moves in the order they are expanded, popped from the end.

        Shuffled first, so moves the ordering hook ranks alike (its sort is
        stable) come in no fixed order and a small budget is not spent on
        the start of ``legal_moves`` alone.
        """
        self.rng.shuffle(moves)
        if self.hooks.order is not None:
            moves = self.hooks.order(self.game, state, moves)
        moves.reverse()
        return moves

    def iterate(self, root: Node) -> None:
        path = [root]
        node = root
        # Selection: down while every move of the node has a child.
        while node.terminal is None and not self.untried(node) and node.children:
            node = self.select(node)
            path.append(node)
        # Expansion.
        if node.terminal is None and node.untried:
            move = node.untried.pop()
            assert node.seat is not None
            child = self.node(self.game.play(node.state, node.seat, move))
            self.nodes += 1
            node.children[move] = child
            node = child
            path.append(node)
        # Simulation.
        reward = node.terminal if node.terminal is not None else self.playout(node.state)
        # Backpropagation: every node adds the whole vector.
        for n in path:
            n.visits += 1
            totals = n.totals
            for i in range(self.players):
                totals[i] += reward[i]

    def select(self, node: Node) -> Node:
        seat = node.seat
        assert seat is not None
        log_n = math.log(node.visits)
        best, best_score = None, -1.0
        me = self.paranoid
        exploration = self.exploration
        for child in node.children.values():
            # An opponent of a paranoid search picks what is worst for the searching seat.
            own = child.totals[seat] if me is None or seat == me else child.visits - child.totals[me]
            score = own / child.visits + exploration * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best

    def playout(self, state: Any) -> Sequence[float]:
        game, hooks, rng = self.game, self.hooks, self.rng
        evaluate, depth = hooks.evaluate, hooks.playout_depth
        policy = hooks.playout_move
        plies = 0
        while True:
            seat = game.to_move(state)
            if seat is None:
                outcome = game.outcome(state)
                return reward_vector(outcome, self.players) if outcome else [0.5] * self.players
            if plies >= depth:
                return evaluate(game, state) if evaluate is not None else [0.5] * self.players
            moves = game.legal_moves(state)
            move = policy(game, state, moves, rng) if policy is not None else rng.choice(moves)
            state = game.play(state, seat, move)
            self.nodes += 1
            plies += 1


def immediate_win(game: Game, state: Any, seat: int, moves: list[str]) -> str | None:
    """A move that wins the game at once for ``seat``, if there is one (checked before searching)."""
    for move in moves:
        after = game.play(state, seat, move)
        if game.to_move(after) is None:
            outcome = game.outcome(after)
            if outcome is not None and outcome.winners == (seat,):
                return move
    return None


def analyse(game: Game, state: Any, budget: Level, seed: int | None = None,
            hooks: Hooks | None = None, evaluate: bool = False) -> Analysis:
    """Search ``state`` within ``budget``; the best move, the top three and why.

    ``seed`` makes a search with an iteration budget repeatable (tests, the
    benchmark); the CPU budget still cuts it short on a slow machine.
    A position with one legal move is answered without searching, unless
    ``evaluate`` asks for its value (a review needs the value of every
    position, forced ones included).
    """
    seat = game.to_move(state)
    if seat is None:
        raise ValueError("the game is over: there is no move to choose")
    hooks = hooks if hooks is not None else hooks_for(game)
    rng = random.Random(seed)
    started = time.process_time()
    moves = list(game.legal_moves(state))
    if not moves:
        raise ValueError("no legal move")
    search = Search(game, hooks, rng)
    if budget.paranoid and game.players > 2:
        search.paranoid = seat
    win = immediate_win(game, state, seat, moves)
    search.nodes += len(moves) if win is None else moves.index(win) + 1
    if win is not None or (len(moves) == 1 and not evaluate):
        move = win if win is not None else moves[0]
        value = 1.0 if win is not None else 0.5
        values = reward_vector(Outcome((seat,), (), ""), game.players) if win else [0.5] * game.players
        reason = "it wins at once" if win is not None else "it is the only legal move"
        return Analysis(seat, move, [Choice(move, 1, value)], values, 0, search.nodes,
                        time.process_time() - started, reason, len(moves))
    root = search.node(state)
    root.untried = search.arrange(state, list(moves))
    iterations = 0
    deadline = started + budget.cpu_seconds
    while iterations < budget.iterations:
        search.iterate(root)
        iterations += 1
        if iterations % CLOCK_EVERY == 0 and time.process_time() >= deadline:
            break
    ranked = sorted(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].mean(seat)), reverse=True)
    top = [Choice(m, c.visits, c.mean(seat)) for m, c in ranked[:3]]
    best = top[0]
    values = [root.mean(i) for i in range(game.players)]
    reason = (f"it scored {best.value:.0%} for {game.seat_names(state)[seat]} in {best.visits} of "
              f"{iterations} searched lines")
    if hooks.explain is not None:
        after = root.children[best.move].state
        if game.to_move(after) is not None:
            reason += f"; after it, {hooks.explain(game, after, seat)}"
    return Analysis(seat, best.move, top, values, iterations, search.nodes,
                    time.process_time() - started, reason, len(moves))


def choose(game: Game, state: Any, budget: Level, seed: int | None = None) -> str:
    """The computer's move in ``state`` at that budget."""
    return analyse(game, state, budget, seed).best
