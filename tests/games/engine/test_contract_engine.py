"""The engine on a third-party game it knows nothing about: the suite's tic-tac-toe.

Tic-tac-toe has no engine hooks, so this is the bare search over the
contract.  The positions are set up by hand and the right answers reasoned
out on paper, not taken from the engine.
"""

from __future__ import annotations

import random

import pytest

from games.contract import Outcome
from games.engine import Choice, Hooks, Level, analyse, choose, hooks_for, reward_vector
from tests.tictactoe import GAME as TTT

#: Small and fixed, so the tests are quick and repeatable (iterations, not seconds).
QUICK = Level(0, iterations=400, cpu_seconds=30.0, accepts_undo=True)


def position(*moves: str) -> dict:
    state = TTT.start({}, 2)
    for i, move in enumerate(moves):
        state = TTT.play(state, i % 2, move)
    return state


def test_a_game_without_hooks_gets_none() -> None:
    assert hooks_for(TTT) == Hooks()


def test_it_takes_an_immediate_win() -> None:
    # X: a1 a2, O: b1 b2; X to move.  a3 completes the a-file; c3 does not.
    state = position("a1", "b1", "a2", "b2")
    assert choose(TTT, state, QUICK, seed=3) == "a3"


def test_it_blocks_an_immediate_loss() -> None:
    # X: a1 b2, O: c1; O to move with no win of its own: X threatens c3 (a1-b2-c3),
    # so O must take c3.
    state = position("a1", "c1", "b2")
    for seed in range(5):
        assert choose(TTT, state, QUICK, seed=seed) == "c3"


def test_it_blocks_on_the_other_side_too() -> None:
    # X: c1 c2, O: a1; O to move: X threatens c3 on the c-file, O has one mark only.
    state = position("c1", "a1", "c2")
    assert choose(TTT, state, QUICK, seed=1) == "c3"


@pytest.mark.parametrize("computer", [0, 1])
def test_it_never_loses_to_random(computer: int) -> None:
    for game_no in range(25):
        rng = random.Random(game_no)
        state = TTT.start({}, 2)
        while (seat := TTT.to_move(state)) is not None:
            if seat == computer:
                move = choose(TTT, state, QUICK, seed=game_no)
            else:
                move = rng.choice(TTT.legal_moves(state))
            state = TTT.play(state, seat, move)
        outcome = TTT.outcome(state)
        assert outcome is not None and computer not in outcome.losers, (game_no, state["cells"])


def test_analysis_names_three_candidates_and_a_reason() -> None:
    state = position("a1")
    found = analyse(TTT, state, QUICK, seed=2)
    assert found.seat == 1
    assert len(found.top) == 3 and len({c.move for c in found.top}) == 3
    assert found.best == found.top[0].move
    assert all(c.move in TTT.legal_moves(state) for c in found.top)
    # Against a corner the only answer that does not lose with best play is the centre.
    assert found.best == "b2"
    assert found.reason and found.iterations == QUICK.iterations
    # Eight empty squares; each candidate's count is how many of the searched lines began
    # with it (every line begins with one root move), the most searched first.
    assert found.moves == 8
    visits = [c.visits for c in found.top]
    assert all(isinstance(v, int) and v > 0 for v in visits) and visits == sorted(visits, reverse=True)
    assert sum(visits) <= found.iterations


def test_a_finished_game_has_no_move() -> None:
    with pytest.raises(ValueError):
        analyse(TTT, position("a1", "b1", "a2", "b2", "a3"), QUICK)


def test_rewards_are_per_seat() -> None:
    assert reward_vector(Outcome((2,), (0, 1), "mate"), 3) == [0.0, 0.0, 1.0]
    assert reward_vector(Outcome((), (), "draw"), 2) == [0.5, 0.5]
    # A draw among survivors of a three-player game: the seat already out lost.
    assert reward_vector(Outcome((), (0,), "draw"), 3) == [0.0, 0.5, 0.5]


def test_the_cpu_budget_cuts_a_search_short() -> None:
    slow = Level(0, iterations=10**9, cpu_seconds=0.05, accepts_undo=False)
    found = analyse(TTT, position(), slow, seed=1)
    assert found.iterations < 10**9 and found.cpu < 1.0


def test_a_forced_move_is_played_at_once_but_valued_when_asked() -> None:
    # X a1 c1 b2 c2, O b1 a2 a3 c3: no line yet, and b3 (the last square) makes none: a draw.
    state = position("a1", "b1", "c1", "a2", "b2", "a3", "c2", "c3")
    assert TTT.legal_moves(state) == ["b3"] and TTT.outcome(state) is None
    quick = analyse(TTT, state, QUICK, seed=1)
    assert quick.best == "b3" and quick.iterations == 0
    assert quick.reason == "it is the only legal move" and quick.moves == 1
    assert quick.values == [0.5, 0.5]  # not searched: no side is favoured
    valued = analyse(TTT, state, QUICK, seed=1, evaluate=True)
    assert valued.best == "b3" and valued.iterations == QUICK.iterations
    assert valued.values == [0.5, 0.5]  # every line searched ends in the draw


def test_a_win_at_once_is_played_named_and_valued_without_a_search() -> None:
    # X: a1 a2, O: b1 b2; X to move with five empty squares, and a3 ends the game X's way.
    found = analyse(TTT, position("a1", "b1", "a2", "b2"), QUICK, seed=3)
    assert found.best == "a3" and found.iterations == 0 and found.moves == 5
    assert found.reason == "it wins at once"
    assert found.values == [1.0, 0.0]  # the winner gets it all
    assert found.top == [Choice("a3", 1, 1.0)]


def test_a_playout_hook_moves_in_the_position_it_is_given() -> None:
    """A third-party playout policy is handed the position it chooses in, with its legal moves."""
    asked: list[int] = []

    def policy(game, state, moves, rng):  # type: ignore[no-untyped-def]
        assert sorted(moves) == sorted(game.legal_moves(state))
        asked.append(len(moves))
        return rng.choice(moves)

    few = Level(0, iterations=30, cpu_seconds=30.0, accepts_undo=True)
    analyse(TTT, position("a1"), few, seed=1, hooks=Hooks(playout_move=policy))
    assert asked


def test_a_paranoid_search_has_the_other_seats_play_against_the_searching_one() -> None:
    """Level 3 in a game of three: the seat to move at a node of another seat picks what is worst
    for the searching seat, not what is best for itself (max^n)."""
    from types import SimpleNamespace

    from games.engine.search import Node, Search

    search = Search(SimpleNamespace(players=3), Hooks(), random.Random(0))  # type: ignore[arg-type]
    node = Node(None, 1, 3)
    node.visits = 20
    # Seat 1 to move.  Move "a" is best for seat 1 (0.9) but also good for seat 0 (0.8);
    # move "b" is worse for seat 1 (0.6) and bad for seat 0 (0.1).  Equal visits: equal exploration.
    a, b = Node(None, 2, 3), Node(None, 2, 3)
    a.visits, a.totals = 10, [8.0, 9.0, 3.0]
    b.visits, b.totals = 10, [1.0, 6.0, 3.0]
    node.children = {"a": a, "b": b}
    assert search.select(node) is a  # max^n: seat 1 plays for itself
    search.paranoid = 0
    assert search.select(node) is b  # paranoid for seat 0: seat 1 plays against seat 0
    a_of_0 = Node(None, 0, 3)  # at seat 0's own node it still takes its own best
    a_of_0.visits = 20
    a_of_0.children = {"a": a, "b": b}
    assert search.select(a_of_0) is a


def test_paranoia_changes_nothing_in_a_two_player_game() -> None:
    plain = Level(0, iterations=200, cpu_seconds=30.0, accepts_undo=True)
    wary = Level(0, iterations=200, cpu_seconds=30.0, accepts_undo=True, paranoid=True)
    state = position("a1")
    first, second = analyse(TTT, state, plain, seed=4), analyse(TTT, state, wary, seed=4)
    assert (first.best, first.top, first.values) == (second.best, second.top, second.values)


def test_a_games_exploration_constant_decides_between_a_better_mean_and_fewer_visits() -> None:
    """A hook's EXPLORATION replaces UCT's default: with little exploration the search takes the move
    with the better mean, with much it takes the one it has looked at less (same numbers both times)."""
    from types import SimpleNamespace

    from games.engine.search import EXPLORATION, Node, Search

    def pick(hooks: Hooks) -> str:
        search = Search(SimpleNamespace(players=2), hooks, random.Random(0))  # type: ignore[arg-type]
        node = Node(None, 0, 2)
        node.visits = 110
        known, fresh = Node(None, 1, 2), Node(None, 1, 2)
        known.visits, known.totals = 100, [60.0, 40.0]  # mean 0.6, well explored
        fresh.visits, fresh.totals = 10, [5.0, 5.0]  # mean 0.5, barely looked at
        node.children = {"known": known, "fresh": fresh}
        return next(m for m, c in node.children.items() if c is search.select(node))

    assert Hooks().exploration is None and pick(Hooks()) == "fresh"  # the default, 0.7
    assert pick(Hooks(exploration=0.1)) == "known"
    assert pick(Hooks(exploration=EXPLORATION)) == "fresh"


def test_a_games_hooks_are_read_from_its_engine_hooks_module() -> None:
    """Every hook TriMac's module defines is the one the search gets (its exploration constant too)."""
    import games
    from games.trimac import engine_hooks

    found = hooks_for(games.load_game("trimac"))
    assert (found.evaluate, found.order, found.explain, found.in_play) == (
        engine_hooks.evaluate, engine_hooks.order, engine_hooks.explain, engine_hooks.in_play)
    assert (found.playout_depth, found.exploration, found.playout_move) == (0, 0.3, None)
    assert hooks_for(TTT).exploration is None


def test_nodes_count_every_position_the_search_generated() -> None:
    """nodes: each root move tried for a win at once, then one new position per iteration (an
    evaluation at depth 0 plays no playout); with a win at once, only the moves tried up to it."""
    flat = Hooks(evaluate=lambda game, state: [0.5, 0.5], playout_depth=0)
    five = Level(0, iterations=5, cpu_seconds=30.0, accepts_undo=True)
    state = position("a1")  # O to move, eight empty squares, no win at once
    assert analyse(TTT, state, five, seed=1, hooks=flat).nodes == 8 + 5
    won = position("a1", "b1", "a2", "b2")  # X wins with a3
    legal = TTT.legal_moves(won)
    assert legal.index("a3") < len(legal) - 1  # a move after it would be counted by mistake
    assert analyse(TTT, won, five, seed=1, hooks=flat).nodes == legal.index("a3") + 1


def test_the_reason_names_the_position_after_the_move_unless_it_ends_the_game() -> None:
    """explain() speaks of the position after the best move; none is asked of a finished game."""
    asked: list[int] = []

    def explain(game, state, seat):  # type: ignore[no-untyped-def]
        asked.append(seat)
        return "the words of the hook"

    hooks = Hooks(explain=explain)
    found = analyse(TTT, position("a1"), QUICK, seed=2, hooks=hooks)
    assert found.reason.endswith("; after it, the words of the hook") and asked == [1]
    # One square left, and filling it draws: searched (evaluate=True), the best move ends the game,
    # so there is no position after it to explain.
    asked.clear()
    last = position("a3", "a2", "b2", "c3", "a1", "c1", "c2", "b3")
    found = analyse(TTT, last, QUICK, seed=2, hooks=hooks, evaluate=True)
    assert found.best == "b1" and found.iterations > 0 and asked == []
    assert "after it" not in found.reason
