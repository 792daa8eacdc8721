"""Move notation: coordinates, the state words and ``swap``.

Parsing turns a player's text into a :class:`Move` or an IllegalMove whose
message says what is wrong with the *text* (malformed, off the board, an arm
square).  Whether the move is legal in the position is for ``rules``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.contract import IllegalMove, clip_input
from games.warpweft.geometry import KIND_NAMES, Geometry

THREADING = "threads"
PATCHING = "patches"
SWAP = "swap"

#: Accepted spellings of the state words (spec 3.7, DECISION: singular too).
STATE_WORDS = {
    "threads": THREADING,
    "thread": THREADING,
    "patches": PATCHING,
    "patch": PATCHING,
}

_COORD = re.compile(r"^([A-Za-z])\s*([0-9]+)$")


@dataclass(frozen=True)
class Move:
    """One parsed move: a placement on ``region``, a switch, or a swap."""

    kind: str  # "place", "switch" or "swap"
    region: int = -1
    state: str = ""

    def text(self, geo: Geometry) -> str:
        """The canonical record of the move (``L11``, ``patches``, ``swap``)."""
        if self.kind == "place":
            return geo.names[self.region]
        return self.state if self.kind == "switch" else SWAP


def parse_move(geo: Geometry, text: str) -> Move:
    """Read a move; case-insensitive, surrounding blanks ignored."""
    word = text.strip()
    low = word.lower()
    if low in STATE_WORDS:
        return Move("switch", state=STATE_WORDS[low])
    if low == SWAP:
        return Move("swap")
    m = _COORD.match(word)
    if not m:
        raise IllegalMove(
            f"{clip_input(word)!r} is not a Warp and Weft move: give a coordinate such as "
            f"C3, or 'threads', 'patches' or 'swap'"
        )
    x = ord(m.group(1).upper()) - ord("A")
    y = int(m.group(2)) - 1
    name = f"{m.group(1).upper()}{int(m.group(2))}"
    if not geo.in_board(x, y):
        raise IllegalMove(
            f"{clip_input(name)} is off the board: columns run A-{geo.last_letter} "
            f"and rows 1-{geo.span}"
        )
    if name in geo.arms:
        centre = geo.arms[name]
        raise IllegalMove(
            f"{name} is part of {KIND_NAMES[geo.kinds[centre]]} {geo.names[centre]}; "
            f"name threads by their centre square"
        )
    return Move("place", region=geo.by_name[name])
