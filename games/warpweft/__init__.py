"""Warp and Weft (Phil Bordelon, 2004): the pbmserv rules plugin.

The :class:`WarpAndWeft` game object is the only thing the server sees; it
turns the contract's roles into calls on the modules of this package:

* ``geometry``: per-size tables (regions, names, adjacency, edges);
* ``notation``: reading moves;
* ``rules``: the immutable :class:`~games.warpweft.rules.State` and play;
* ``render``: the seed's ASCII board and the compact form.

The spec is ``rules/warpweft.md`` in the shared folder.
"""

from __future__ import annotations

from typing import Any

from games.contract import Game, OptionError, Outcome, clip_input, split_option
from games.digits import is_digits
from games.warpweft import rules
from games.warpweft.geometry import PATCH, SIZES
from games.warpweft.help import HELP
from games.warpweft.notation import PATCHING, THREADING
from games.warpweft.render import draw_board
from games.warpweft.rules import FREE, SIDE_MARKS, SIDE_NAMES, State

__all__ = ["GAME", "State", "WarpAndWeft"]

_PRIMARY_WORDS = {"thread": "thread", "threads": "thread", "patch": "patch", "patches": "patch"}
_VALID = "valid options: -size=N (N = 2..6, default 4), -compact, -threads or -patches"
_EDGES = ("top-bottom", "left-right")


class WarpAndWeft(Game):
    """Warp and Weft: a connection game on the 4.8.8 weave board."""

    name = "warpandweft"
    aliases = ("warpweft",)
    option_names = ("size", "compact", "thread", "threads", "patch", "patches")
    title = "Warp and Weft"
    players = 2
    has_position = False

    # -- description -----------------------------------------------------
    def help(self) -> str:
        return HELP

    def seat_names(self, state: State) -> list[str]:
        """Seat 0 plays Warp until the second player swaps sides."""
        return [SIDE_NAMES[state.side_of(seat)] for seat in range(2)]

    # -- setting up ------------------------------------------------------
    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        size = 4
        compact = False
        primary: str | None = None
        for token in tokens:
            name, value = split_option(token)
            if name == "size":
                if value is None or not is_digits(value.strip()):
                    raise OptionError(f"-size needs a number from 2 to 6, e.g. -size=5; {_VALID}")
                size = int(value)
                if size not in SIZES:
                    raise OptionError(
                        f"-size={clip_input(value)} is out of range: sizes run from 2 to 6"
                    )
                continue
            if value is not None:
                if name in ("compact", *_PRIMARY_WORDS):
                    raise OptionError(f"-{name} takes no value (got {clip_input(token)})")
                raise OptionError(f"unknown option {clip_input(token)!r}; {_VALID}")
            if name == "compact":
                compact = True
            elif name in _PRIMARY_WORDS:
                chosen = _PRIMARY_WORDS[name]
                if primary is not None and primary != chosen:
                    raise OptionError(
                        "choose either -threads (Thread-Primary) or -patches "
                        "(Patch-Primary), not both"
                    )
                primary = chosen
            else:
                raise OptionError(f"unknown option {clip_input(token)!r}; {_VALID}")
        return {"size": size, "primary": primary or "thread", "compact": compact}

    def record_options(self, options: dict[str, Any]) -> list[str]:
        """The stored ``primary`` word is the option ``-threads`` or ``-patches``."""
        tokens = [f"-size={int(options.get('size', 4))}"]
        tokens.append("-patches" if options.get("primary") == "patch" else "-threads")
        return tokens + (["-compact"] if options.get("compact") else [])

    def start(self, options: dict[str, Any], players: int) -> State:
        if players != 2:
            raise OptionError(f"Warp and Weft is a game for 2 players, not {players}")
        size = int(options.get("size", 4))
        if size not in SIZES:
            raise OptionError(f"-size={size} is out of range: sizes run from 2 to 6")
        primary = options.get("primary", "thread")
        if primary not in ("thread", "patch"):
            raise OptionError(f"unknown primary {primary!r}; use 'thread' or 'patch'")
        return rules.start(size, primary == "patch", bool(options.get("compact", False)))

    # -- playing ---------------------------------------------------------
    def to_move(self, state: State) -> int | None:
        side = state.side_to_move
        return None if side is None else state.seat_of(side)

    def play(self, state: State, seat: int, move: str) -> State:
        return rules.apply(state, seat, move)

    def legal_moves(self, state: State) -> list[str]:
        return rules.legal_moves(state)

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        win = state.seat_of(state.winner)
        return Outcome(winners=(win,), losers=(1 - win,), reason=state.reason)

    # -- showing and storing ----------------------------------------------
    def render(
        self,
        state: State,
        compact: bool = False,
        seat: int | None = None,
        board: int | None = None,
        players: list[str] | None = None,
        moveno: int | None = None,
        over: bool = False,
    ) -> str:
        """The board (standard or compact) and the status lines under it.

        The standard form of sizes 5 and 6 is 91 and 107 columns wide, as on
        pbmserv; the help says so and points to -compact.
        """

        def who(seat_no: int) -> str:
            """The userid where the server gave it, else "player N"."""
            if players and seat_no < len(players):
                return players[seat_no]
            return f"player {seat_no + 1}"

        width = 1 if (compact or state.compact) else 3
        lines = draw_board(state.geo, state.owners, SIDE_MARKS, width)
        lines.append("")
        mover = None if over else state.side_to_move
        for side in (0, 1):
            mode = "Threading" if state.states[side] == THREADING else "Patching"
            arrow = "   <- to move" if side == mover else ""
            lines.append(
                f"{SIDE_NAMES[side]} ({SIDE_MARKS[side]}, {_EDGES[side]}): "
                f"{who(state.seat_of(side))}, {mode}{arrow}"
            )
        primary = "Patch-Primary" if state.patch_primary else "Thread-Primary"
        swapped = ", sides swapped" if state.swapped else ""
        lines.append(f"{primary}, size {state.size}{swapped}.")
        if mover is None and state.winner is None:
            lines.append("Game over.")  # ended by the server (resignation, forfeit, agreed draw)
        elif mover is None:
            assert state.winner is not None
            lines.append(
                f"Game over: {SIDE_NAMES[state.winner]} "
                f"({who(state.seat_of(state.winner))}) wins; {state.reason}."
            )
        else:
            number = f"#{moveno}" if moveno is not None else str(state.plies + 1)
            lines.append(
                f"Move {number}: {SIDE_NAMES[mover]} "
                f"({who(state.seat_of(mover))}) to move."
            )
        return "\n".join(lines) + "\n"

    def dump(self, state: State) -> dict[str, Any]:
        geo = state.geo
        return {
            "size": state.size,
            "primary": "patch" if state.patch_primary else "thread",
            "compact": state.compact,
            "claimed": {
                geo.names[r]: SIDE_MARKS[o] for r, o in enumerate(state.owners) if o != FREE
            },
            "states": {SIDE_NAMES[s]: state.states[s] for s in (0, 1)},
            "swapped": state.swapped,
            "plies": state.plies,
            "history": list(state.history),
            "winner": None if state.winner is None else SIDE_NAMES[state.winner],
            "reason": state.reason,
        }

    def load(self, data: dict[str, Any]) -> State:
        """The state back from :meth:`dump`; ValueError if the data is inconsistent."""
        try:
            base = self.start(
                {"size": data["size"], "primary": data["primary"], "compact": data.get("compact")},
                2,
            )
            geo = base.geo
            owners = [FREE] * geo.count
            for name, mark in data["claimed"].items():
                rid = geo.by_name[name]
                side = SIDE_MARKS.index(mark)
                if geo.kinds[rid] not in (side, PATCH):
                    raise ValueError(f"{name} cannot belong to {SIDE_NAMES[side]}")
                owners[rid] = side
            states = tuple(data["states"][SIDE_NAMES[s]] for s in (0, 1))
            if any(s not in (THREADING, PATCHING) for s in states):
                raise ValueError(f"bad states {states!r}")
            plies = int(data["plies"])
            if plies < 0:
                raise ValueError(f"bad ply count {plies}")
            winner = data.get("winner")
            return State(
                size=base.size,
                patch_primary=base.patch_primary,
                compact=base.compact,
                owners=tuple(owners),
                states=(states[0], states[1]),
                swapped=bool(data["swapped"]),
                plies=plies,
                history=tuple(str(m) for m in data["history"]),
                winner=None if winner is None else SIDE_NAMES.index(winner),
                reason=str(data.get("reason", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a valid Warp and Weft game record: {exc}") from exc


GAME = WarpAndWeft()
