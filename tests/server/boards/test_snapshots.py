"""Issue 32, item 4: ``#N`` positions are rebuilt from snapshots, not from move 0.

A counting game (every move adds one; it never ends) shows how many moves
a replay plays; the positions are checked against the count worked out
here.  Plain objects stand in for the board and move rows: ``replay`` reads
only their fields.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from server.boards import snapshots
from server.boards.boards import replay


class Counting:
    name = "counting"

    def __init__(self) -> None:
        self.played = 0

    def start(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        return {"total": 0, "last": None}

    def play(self, state: dict[str, Any], seat: int, move: str) -> dict[str, Any]:
        self.played += 1
        return {"total": state["total"] + int(move), "last": seat}

    def resign(self, state: dict[str, Any], seat: int) -> dict[str, Any]:
        return state

    def dump(self, state: dict[str, Any]) -> dict[str, Any]:
        return dict(state)

    def load(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)


def board_and_moves(board_id: int, plies: int) -> tuple[Any, list[Any]]:
    board = SimpleNamespace(id=board_id, game="counting", options={}, seats=[0, 1])
    moves = [SimpleNamespace(id=i + 1, seat=i % 2, move=str(i % 7 + 1), ply=i + 1) for i in range(plies)]
    return board, moves


def expected(plies: int) -> int:
    return sum(i % 7 + 1 for i in range(plies))


def test_later_positions_start_from_a_snapshot() -> None:
    game = Counting()
    board, moves = board_and_moves(9_001, 1300)
    assert replay(game, board, moves, 1290)["total"] == expected(1290)  # type: ignore[arg-type]
    first = game.played
    assert first == 1290
    for at in (1295, 1299, 1251, 700, 0):
        game.played = 0
        state = replay(game, board, moves, at)  # type: ignore[arg-type]
        assert state["total"] == expected(at)
        # From the snapshot at or before ``at`` (every 50 moves), never from move 0.
        assert game.played == at % snapshots.SNAPSHOT_EVERY, (at, game.played)


def test_a_changed_move_list_does_not_use_old_snapshots() -> None:
    game = Counting()
    board, moves = board_and_moves(9_002, 120)
    replay(game, board, moves, 120)  # type: ignore[arg-type]
    # Take back the last 30 moves and play others (the same ids again, as SQLite may give them).
    changed = moves[:90] + [SimpleNamespace(id=91 + i, seat=i % 2, move="7", ply=91 + i) for i in range(30)]
    state = replay(game, board, changed, 120)  # type: ignore[arg-type]
    assert state["total"] == expected(90) + 7 * 30
