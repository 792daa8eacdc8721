"""Reading a mailed turn (spec §2) into its parts, before any rule is applied.

``[piece] origin step {step}`` with steps ``-sq``, ``xsq``, ``*sq``, an
optional ``=S|L|R`` promotion and optional ``{a1,b2}`` captured lists.
Input is case-insensitive and may contain spaces.  Whether ``-``/``x`` is
right is the board's business, so both are read as "a moving step".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.contract import clip_input
from games.interweave.board import SQUARE_OF

_TURN = re.compile(r"^([kslrp])?([a-h][1-8])((?:[-x*][a-h][1-8](?:=[slr])?(?:\{[^{}]*\})?)+)$")
_STEP = re.compile(r"([-x*])([a-h][1-8])(?:=([slr]))?(?:\{([^{}]*)\})?")
_SQ = re.compile(r"^[a-h][1-8]$")

SYNTAX_HELP = (
    "a turn looks like e2-d3, a1xa3xc3xc1, e4*e5*f4 or b6-b7=L "
    "(origin, then '-' or 'x' and a landing square, or '*' and a victim)"
)


class NotationError(ValueError):
    """The text is not a turn at all (a syntax error)."""


@dataclass(frozen=True)
class ParsedStep:
    star: bool
    square: int
    promo: str  # "" or S/L/R
    sep: str  # as written: "-", "x" or "*"


@dataclass(frozen=True)
class ParsedTurn:
    piece: str | None  # upper-case type letter if given
    origin: int
    steps: tuple[ParsedStep, ...]
    captured: frozenset[int] | None  # union of all {} lists, None if none given


def parse_turn(text: str) -> ParsedTurn:
    raw = "".join(text.split()).lower()
    m = _TURN.match(raw)
    if not m:
        raise NotationError(f"Cannot read {clip_input(text)!r}: {SYNTAX_HELP}")
    piece = m.group(1).upper() if m.group(1) else None
    steps = []
    captured: set[int] | None = None
    for sm in _STEP.finditer(m.group(3)):
        sep, sq, promo, lst = sm.groups()
        if sep == "*" and promo:
            raise NotationError(f"Cannot read {clip_input(text)!r}: a '*' capture cannot promote")
        steps.append(ParsedStep(sep == "*", SQUARE_OF[sq], (promo or "").upper(), sep))
        if lst is not None:
            captured = set() if captured is None else captured
            for name in filter(None, (x.strip() for x in lst.split(","))):
                if not _SQ.match(name):
                    raise NotationError(
                        f"Cannot read {clip_input(text)!r}: {clip_input(name)!r} in the captured list is not a square"
                    )
                captured.add(SQUARE_OF[name])
    return ParsedTurn(
        piece,
        SQUARE_OF[m.group(2)],
        tuple(steps),
        None if captured is None else frozenset(captured),
    )
