"""A tiny game for the server's own tests, registered by the test suite.

Small enough that the expected outcome of every test game is obvious, so
server tests check the server, not a game.  Moves are squares a1..c3.
"""

from __future__ import annotations

from typing import Any

from games import Game, IllegalMove, OptionError, Outcome, split_option

LINES = [
    ("a1", "b1", "c1"), ("a2", "b2", "c2"), ("a3", "b3", "c3"),
    ("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3"),
    ("a1", "b2", "c3"), ("c1", "b2", "a3"),
]
SQUARES = [f"{f}{r}" for r in "123" for f in "abc"]


class TicTacToe(Game):
    name = "tictactoe"
    aliases = ("ttt",)
    option_names = ("compact", "swap")
    title = "Tic-Tac-Toe"
    players = 2
    has_position = False

    def help(self) -> str:
        return "Tic-Tac-Toe: three in a row wins. Moves: a1..c3. Options: -compact, -swap (pie rule)."

    def seat_names(self, state: dict[str, Any]) -> list[str]:
        return ["O", "X"] if state.get("swapped") else ["X", "O"]

    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for token in tokens:
            name, value = split_option(token)
            if name in ("compact", "swap") and value is None:
                options[name] = True
            else:
                raise OptionError(f"Unknown option {token}; options are -compact, -swap")
        return options

    def start(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        return {"cells": {}, "turn": 0, "swap": bool(options.get("swap")), "swapped": False, "n": 0}

    def _winner(self, state: dict[str, Any]) -> str | None:
        cells = state["cells"]
        for line in LINES:
            marks = {cells.get(sq) for sq in line}
            if len(marks) == 1 and None not in marks:
                return marks.pop()
        return None

    def to_move(self, state: dict[str, Any]) -> int | None:
        if self._winner(state) or len(state["cells"]) == 9:
            return None
        return state["turn"]

    def outcome(self, state: dict[str, Any]) -> Outcome | None:
        mark = self._winner(state)
        if mark:
            side = 0 if mark == "X" else 1
            seat = 1 - side if state["swapped"] else side
            return Outcome(winners=(seat,), losers=(1 - seat,), reason="three in a row")
        if len(state["cells"]) == 9:
            return Outcome(winners=(), losers=(), reason="board full")
        return None

    def legal_moves(self, state: dict[str, Any]) -> list[str]:
        if self.to_move(state) is None:
            return []
        moves = [sq for sq in SQUARES if sq not in state["cells"]]
        if state["swap"] and state["n"] == 1:
            moves.append("swap")
        return moves

    def play(self, state: dict[str, Any], seat: int, move: str) -> dict[str, Any]:
        if self.to_move(state) is None:
            raise IllegalMove("The game is over")
        if seat != state["turn"]:
            raise IllegalMove("It is not your turn")
        word = move.strip().lower()
        new = {**state, "cells": dict(state["cells"])}
        if word == "swap":
            if not (state["swap"] and state["n"] == 1):
                raise IllegalMove("swap is only allowed as the second move, with -swap")
            new["swapped"] = True
        elif word in SQUARES:
            if word in state["cells"]:
                raise IllegalMove(f"{word} is already taken")
            side = seat if not state["swapped"] else 1 - seat
            new["cells"][word] = "X" if side == 0 else "O"
        else:
            raise IllegalMove(f"{move!r} is not a square: use a1..c3")
        new["turn"] = 1 - seat
        new["n"] = state["n"] + 1
        return new

    def render(
        self,
        state: dict[str, Any],
        compact: bool = False,
        seat: int | None = None,
        board: int | None = None,
        players: list[str] | None = None,
        moveno: int | None = None,
    ) -> str:
        rows = []
        for r in "321":
            rows.append(f" {r} " + "|".join(f" {state['cells'].get(f + r, '.')} " for f in "abc"))
        rows.append("    a   b   c")
        return "\n".join(rows)

    def dump(self, state: dict[str, Any]) -> dict[str, Any]:
        return {**state, "cells": dict(state["cells"])}

    def load(self, data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "cells": dict(data["cells"])}


GAME = TicTacToe()
