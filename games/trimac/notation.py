"""Square and move notation and the position string (spec §6.1).

Squares are lattice letter + file + rank (``Rf1``, ``Bi6``), read
case-insensitively by position.  Moves are ``<from>-<to>`` or
``<from>x<to>``; a trailing check mark ``+`` is accepted and ignored.
"""

from __future__ import annotations

import re

from games.contract import IllegalMove, OptionError, clip_input
from games.digits import is_digits
from games.trimac.geometry import (
    BY_NAME,
    COLOURS,
    FILE_LENGTH,
    FILES,
    FORTRESS,
    LATTICE_OF,
    LATTICES,
    NAMES,
    NPOINTS,
    SEAT_NAMES,
)
from games.trimac.moves import KIND_NAMES, KINDS, A, E, K, code

_SQUARE = r"([a-z])([a-z])([0-9]+)"
_MOVE = re.compile(rf"^{_SQUARE}\s*([-x:]?)\s*{_SQUARE}\s*[+#]?$", re.IGNORECASE)

SQUARE_HELP = "a point is R, B or G (the lattice), a file a-k and a rank, like Rf1 or Bi6"


def square_error(text: str) -> str | None:
    """Why ``text`` is not a point, or None when it is one."""
    t = text.lower()
    if t in BY_NAME:
        return None
    if len(t) >= 3 and t[0] in "rbg" and t[1] in FILES and is_digits(t[2:]):
        f = t[1]
        return f"{clip_input(text)} is not a point: file {f} has ranks 1-{FILE_LENGTH[f]}"
    return f"{clip_input(text)} is not a point: {SQUARE_HELP}"


def parse_square(text: str) -> int:
    err = square_error(text)
    if err:
        raise IllegalMove(err)
    return BY_NAME[text.lower()]


def parse_move(text: str) -> tuple[int, int, bool]:
    """(from, to, written as a capture) or IllegalMove with the syntax."""
    m = _MOVE.match(text.strip())
    if not m:
        raise IllegalMove(
            f"{clip_input(text)!r} is not a move: write <from>-<to> (or <from>x<to> for a capture) "
            f"where {SQUARE_HELP}, e.g. Rf5-Rf6 or Rc4xBf4"
        )
    a = "".join(m.group(1, 2, 3))
    b = "".join(m.group(5, 6, 7))
    return parse_square(a), parse_square(b), m.group(4).lower() == "x"


# -- position string ------------------------------------------------------------
def format_position(board: bytes, to: int, alive: list[int], last: int) -> str:
    """Pieces by colour, then kind (K A E H R C P F), then point; then the turn tokens."""
    placed = sorted((c, p) for p, c in enumerate(board) if c)
    tokens = [f"{COLOURS[(c >> 3) - 1]}{KINDS[c & 7]}@{NAMES[p]}" for c, p in placed]
    tokens.append(f"to={LATTICES[to]}")
    tokens.append("alive=" + "".join(LATTICES[s] for s in alive))
    tokens.append(f"last={LATTICES[last]}")
    return " ".join(tokens)


POSITION_HELP = (
    "a position is tokens like rK@Rf1 (colour r/b/g, piece K A E H R C P F, '@', point) "
    "then optional to=R|B|G, alive=RBG, last=R|B|G"
)


def _seat_letter(value: str, what: str) -> int:
    v = value.upper()
    if len(v) != 1 or v not in LATTICES:
        raise OptionError(f"{what}={clip_input(value)} must be one of R, B, G; {POSITION_HELP}")
    return LATTICES.index(v)


def parse_position(text: str) -> tuple[bytes, int, list[int], int]:
    """(board, to, alive seats, last) from a position string, or OptionError."""
    board = bytearray(NPOINTS)
    to: int | None = None
    alive: list[int] | None = None
    last: int | None = None
    for tok in text.replace(",", " ").split():
        low = tok.lower()
        if low.startswith("to="):
            to = _seat_letter(tok[3:], "to")
        elif low.startswith("alive="):
            letters = tok[6:].upper()
            if (
                not letters
                or any(ch not in LATTICES for ch in letters)
                or len(set(letters)) != len(letters)
            ):
                raise OptionError(f"alive={clip_input(tok[6:])} must list distinct letters of R, B, G")
            alive = sorted(LATTICES.index(ch) for ch in letters)
        elif low.startswith("last="):
            last = _seat_letter(tok[5:], "last")
        else:
            if (
                len(tok) < 4
                or tok[2] != "@"
                or low[0] not in COLOURS
                or tok[1].upper() not in KINDS
            ):
                raise OptionError(f"{clip_input(tok)!r} is not a position token; {POSITION_HELP}")
            err = square_error(tok[3:])
            if err:
                raise OptionError(err)
            p = BY_NAME[tok[3:].lower()]
            if board[p]:
                raise OptionError(f"two pieces on {NAMES[p]}")
            owner = COLOURS.index(low[0])
            kind = KINDS.index(tok[1].upper())
            board[p] = code(owner, kind)
            name = f"{SEAT_NAMES[owner]} {KIND_NAMES[kind]} on {NAMES[p]}"
            if kind in (K, A) and p not in FORTRESS[owner]:
                raise OptionError(f"{name}: a {KIND_NAMES[kind]} must stand in its own fortress")
            if kind == E and LATTICE_OF[p] != owner:
                raise OptionError(f"{name}: a Bishop must stand in its own lattice")
    if alive is None:
        alive = [0, 1, 2]
    if len(alive) < 2:
        raise OptionError("alive= must name at least two armies")
    for s in range(3):
        generals = board.count(code(s, K))
        pieces = sum(1 for c in board if c and (c >> 3) - 1 == s)
        if s in alive and generals != 1:
            raise OptionError(
                f"{SEAT_NAMES[s]} is alive and needs exactly one General (rK@Rf1 style)"
            )
        if s not in alive and pieces:
            raise OptionError(f"{SEAT_NAMES[s]} is not alive but has pieces on the board")
    if to is None:
        to = alive[0] if 0 not in alive else 0
    if to not in alive:
        raise OptionError(f"to={LATTICES[to]}: that army is not alive")
    if last is None:
        last = next(s for s in ((to - i) % 3 for i in range(1, 3)) if s in alive)
    if last not in alive or last == to:
        raise OptionError(f"last={LATTICES[last]} must be another surviving army than to=")
    return bytes(board), to, alive, last
