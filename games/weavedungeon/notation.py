"""Move notation (spec 3.9) and the position string (spec 3.10)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.contract import GameError, clip_input
from games.digits import is_digits
from games.weavedungeon import geometry as g
from games.weavedungeon.moves import (
    BLACK,
    LETTERS,
    PENTAGON,
    POOL_TYPES,
    STAR,
    THRONE,
    TYPE_OF_LETTER,
    WHITE,
    Move,
    Position,
    code,
)

#: Words a player may use for a piece, besides its letter.
PIECE_WORDS = {
    "k": "K",
    "star": "K",
    "c": "C",
    "circle": "C",
    "t": "T",
    "triangle": "T",
    "s": "S",
    "square": "S",
    "p": "P",
    "pentagon": "P",
    "d": "D",
    "diamond": "D",
}

_MOVE = re.compile(
    r"^(?:(?P<piece>[a-z]+)\s*)??"
    r"(?P<frm>[a-i][1-9])\s*(?P<sep>[-x:]?)\s*(?P<to>[a-i][1-9])"
    r"\s*(?:=\s*(?P<rescue>[a-z]+))?\s*[+#!?]*$",
    re.IGNORECASE,
)

MOVE_SYNTAX = (
    "write a move as piece letter, from, to, e.g. Tc1-e3 or Cd1xd3 "
    "(x for a capture, =T to rescue a Triangle)"
)


class NotationError(GameError):
    """Text that is not a move or not a position string."""


@dataclass(frozen=True)
class ParsedMove:
    """A move as written: the piece letter is optional, squares are numbers."""

    letter: str | None
    frm: int
    to: int
    rescue: str | None
    text: str


def parse_move(text: str) -> ParsedMove:
    m = _MOVE.match(text.strip())
    if not m:
        raise NotationError(f"{clip_input(text)!r} is not a move: {MOVE_SYNTAX}")
    letter = rescue = None
    if m.group("piece"):
        letter = PIECE_WORDS.get(m.group("piece").lower())
        if letter is None:
            raise NotationError(
                f"{clip_input(m.group('piece'))!r} is not a piece: use K (Star), C (Circle), "
                "T (Triangle), S (Square), P (Pentagon) or D (Diamond)"
            )
    if m.group("rescue"):
        rescue = PIECE_WORDS.get(m.group("rescue").lower())
        if rescue is None or rescue in "KD":
            raise NotationError(
                f"{clip_input(m.group('rescue'))!r} cannot be rescued: only a Circle (C), "
                "Triangle (T), Square (S) or Pentagon (P) can"
            )
    frm = g.parse_square(m.group("frm"))
    to = g.parse_square(m.group("to"))
    assert frm is not None and to is not None
    return ParsedMove(letter, frm, to, rescue, text.strip())


def format_move(pos: Position, move: Move) -> str:
    """Canonical notation: piece letter, x exactly for captures, =L for a rescue."""
    x, dest, rescue = move
    text = f"{LETTERS[pos.board[x] & 7]}{_NAMES[x]}{'x' if pos.board[dest] else '-'}{_NAMES[dest]}"
    return f"{text}={LETTERS[rescue]}" if rescue else text


_NAMES = [g.name(sq) for sq in g.SQUARES]


# -- position string -----------------------------------------------------------

INITIAL_FEN = "pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1"


def parse_position(text: str) -> Position:
    """A Position from a 3.10 string; NotationError saying what is wrong."""
    fields = text.split()
    if len(fields) == 3:
        fields.append("1")
    if len(fields) != 4:
        raise NotationError(
            f"a position is <placement> <side> <rescue-pool> <fullmove>, e.g. {INITIAL_FEN!r}"
        )
    placement, side, pool, fullmove = fields
    rows = placement.split("/")
    if len(rows) != 9:
        raise NotationError(f"the placement needs 9 ranks separated by '/', not {len(rows)}")
    board = [0] * 81
    for i, row in enumerate(rows):
        rank = 8 - i
        file = 0
        for ch in row:
            if ch in "123456789":
                file += int(ch)
            elif ch.upper() in TYPE_OF_LETTER:
                if file >= 9:
                    raise NotationError(
                        f"rank {rank + 1} ({clip_input(row)!r}) does not cover exactly 9 squares"
                    )
                colour = WHITE if ch.isupper() else BLACK
                board[g.square(file, rank)] = code(TYPE_OF_LETTER[ch.upper()], colour)
                file += 1
            else:
                raise NotationError(
                    f"{ch!r} in rank {rank + 1} is not a piece letter (K C T S P D) or a digit"
                )
        if file != 9:
            raise NotationError(
                f"rank {rank + 1} ({clip_input(row)!r}) does not cover exactly 9 squares"
            )
    for colour in (WHITE, BLACK):
        stars = [sq for sq, pc in enumerate(board) if pc == code(STAR, colour)]
        if len(stars) != 1:
            side_name = ("White", "Black")[colour]
            raise NotationError(f"{side_name} must have exactly one Star, not {len(stars)}")
    for sq, pc in enumerate(board):
        if pc & 7 == PENTAGON and g.is_cell(sq):
            raise NotationError(
                f"a Pentagon cannot stand on {g.name(sq)}: the Pentagon can never enter the Dungeon"
            )
    if side not in ("w", "b"):
        raise NotationError(f"the side to move is 'w' or 'b', not {clip_input(side)!r}")
    pools = [[0, 0, 0, 0], [0, 0, 0, 0]]
    if pool != "-":
        for ch in pool:
            t = TYPE_OF_LETTER.get(ch.upper())
            if t not in POOL_TYPES:
                raise NotationError(
                    f"{ch!r} cannot be in the rescue pool: only C, T, S, P (White upper case, "
                    "Black lower case), or '-' for none"
                )
            pools[WHITE if ch.isupper() else BLACK][POOL_TYPES.index(t)] += 1
    if not is_digits(fullmove) or int(fullmove) < 1:
        raise NotationError(
            f"the move number must be a whole number from 1, not {clip_input(fullmove)!r}"
        )
    moved = (board[THRONE[WHITE]] != code(STAR, WHITE), board[THRONE[BLACK]] != code(STAR, BLACK))
    pos = Position(
        tuple(board),
        WHITE if side == "w" else BLACK,
        (tuple(pools[0]), tuple(pools[1])),
        int(fullmove),
        moved,
    )
    if pos.in_check(1 - pos.side):
        raise NotationError(
            f"{('White', 'Black')[1 - pos.side]} is not to move but its Star is in check"
        )
    return pos
