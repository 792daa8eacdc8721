"""The position string of spec §1.1 (FEN-like), parsed and written.

``<placement> <side> <ep> <reserves> <halfmove> <fullmove>``, e.g. the start
``srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1``.  The first four
fields also form the repetition key (§5: placement, side, reserves, ep).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.contract import clip_input
from games.digits import is_digits
from games.interweave.board import (
    BLACK,
    EMPTY,
    FORWARD,
    LAST_RANK,
    NAMES,
    RESERVE_INDEX,
    RESERVE_TYPES,
    SQUARE_OF,
    START_RANK,
    WHITE,
)

START_FEN = "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1"

Reserve = tuple[int, int, int]  # counts of S, L, R


class PositionError(ValueError):
    """A malformed or impossible position string; the message says what."""


@dataclass(frozen=True)
class Position:
    """Everything the rules need to generate moves (no history)."""

    board: tuple[str, ...]
    side: int
    ep: tuple[int, int] | None  # (passed square M, victim square V)
    reserves: tuple[Reserve, Reserve]
    halfmove: int = 0
    fullmove: int = 1

    def key(self) -> str:
        """Repetition key: placement, side, ep and reserves (not the counters)."""
        return " ".join(_fields(self)[:4])

    def fen(self) -> str:
        return " ".join(_fields(self))


def placement(board: tuple[str, ...]) -> str:
    rows = []
    for r in range(7, -1, -1):
        row, gap = "", 0
        for f in range(8):
            c = board[r * 8 + f]
            if c == EMPTY:
                gap += 1
                continue
            if gap:
                row += str(gap)
                gap = 0
            row += c
        rows.append(row + (str(gap) if gap else ""))
    return "/".join(rows)


def reserve_text(reserves: tuple[Reserve, Reserve]) -> str:
    text = "".join(t * n for t, n in zip(RESERVE_TYPES, reserves[WHITE], strict=True))
    text += "".join(t.lower() * n for t, n in zip(RESERVE_TYPES, reserves[BLACK], strict=True))
    return text or "-"


def ep_text(ep: tuple[int, int] | None) -> str:
    return "-" if ep is None else f"{NAMES[ep[0]]}:{NAMES[ep[1]]}"


def _fields(pos: Position) -> list[str]:
    return [
        placement(pos.board),
        "w" if pos.side == WHITE else "b",
        ep_text(pos.ep),
        reserve_text(pos.reserves),
        str(pos.halfmove),
        str(pos.fullmove),
    ]


def parse_fen(text: str, stored: bool = False) -> Position:
    """Parse and validate a position string; PositionError says what is wrong.

    Underscores are accepted in place of spaces, because a mailed
    ``-position=`` option cannot always carry spaces.  The two counters may
    be left out (they default to ``0 1``).  ``stored`` positions (from
    ``dump``) may lack a King: the one that ended the game was captured.
    """
    fields = text.replace("_", " ").split()
    if len(fields) not in (4, 6):
        raise PositionError(
            "a position has 6 fields: placement, side (w/b), en passant (- or c3:d4), "
            "reserves (- or e.g. SLr), halfmove and fullmove counters, e.g. " + START_FEN
        )
    board = _parse_placement(fields[0], stored)
    if fields[1] not in ("w", "b"):
        raise PositionError(f"the side to move must be w or b, not {clip_input(fields[1])!r}")
    side = WHITE if fields[1] == "w" else BLACK
    reserves = _parse_reserves(fields[3])
    halfmove, fullmove = 0, 1
    if len(fields) == 6:
        try:
            halfmove, fullmove = int(fields[4]), int(fields[5])
        except ValueError:
            raise PositionError("the halfmove and fullmove counters must be numbers") from None
        if halfmove < 0 or fullmove < 1:
            raise PositionError("the halfmove counter must be >= 0 and the fullmove number >= 1")
    ep = _parse_ep(fields[2], board, side)
    return Position(tuple(board), side, ep, reserves, halfmove, fullmove)


def _parse_placement(text: str, stored: bool) -> list[str]:
    rows = text.split("/")
    if len(rows) != 8:
        raise PositionError(f"the placement needs 8 ranks separated by '/', not {len(rows)}")
    board = [EMPTY] * 64
    for i, row in enumerate(rows):
        r = 7 - i
        f = 0
        for c in row:
            if is_digits(c):
                f += int(c)
            elif c in "KSLRPkslrp":
                if f < 8:
                    board[r * 8 + f] = c
                f += 1
            else:
                raise PositionError(
                    f"{c!r} is not a piece letter (K S L R P for White, k s l r p for Black)"
                )
        if f != 8:
            raise PositionError(f"rank {r + 1} of the placement has {f} squares, not 8")
    for side, letters in ((WHITE, "KSLRP"), (BLACK, "kslrp")):
        name = "White" if side == WHITE else "Black"
        pieces = [c for c in board if c in letters]
        kings = pieces.count(letters[0])
        if not (0 if stored else 1) <= kings <= 2:
            raise PositionError(f"{name} must have one or two Kings, not {kings}")
        if pieces.count(letters[4]) > 8:
            raise PositionError(f"{name} has more than 8 Pawns")
        if len(pieces) > 16:
            raise PositionError(f"{name} has more than 16 pieces")
    for s, c in enumerate(board):
        if c in "Pp":
            side = WHITE if c == "P" else BLACK
            if s // 8 in (LAST_RANK[side], LAST_RANK[1 - side]):
                raise PositionError(f"a Pawn cannot stand on {NAMES[s]} (first or last rank)")
    return board


def _parse_reserves(text: str) -> tuple[Reserve, Reserve]:
    counts = [[0, 0, 0], [0, 0, 0]]
    if text != "-":
        for c in text:
            if c.upper() not in RESERVE_INDEX:
                raise PositionError(
                    f"{c!r} cannot be in a reserve: only S, L, R (White) and s, l, r (Black)"
                )
            counts[WHITE if c.isupper() else BLACK][RESERVE_INDEX[c.upper()]] += 1
    return (tuple(counts[WHITE]), tuple(counts[BLACK]))  # type: ignore[return-value]


def _parse_ep(text: str, board: list[str], side: int) -> tuple[int, int] | None:
    if text == "-":
        return None
    parts = text.split(":")
    if len(parts) != 2 or parts[0] not in SQUARE_OF or parts[1] not in SQUARE_OF:
        raise PositionError(
            f"the en-passant field must be - or passed:victim (e.g. c3:d4), not {clip_input(text)!r}"
        )
    m, v = SQUARE_OF[parts[0]], SQUARE_OF[parts[1]]
    mover = 1 - side  # the side that made the double step
    fwd = FORWARD[mover]
    df = v % 8 - m % 8
    start = m - (df + 8 * fwd)
    ok = (
        abs(df) == 1
        and v // 8 - m // 8 == fwd
        and m // 8 == START_RANK[mover] + fwd
        and board[m] == EMPTY
        and board[start] == EMPTY
        and board[v] == ("P" if mover == WHITE else "p")
    )
    if not ok:
        raise PositionError(
            f"en passant {text}: {parts[1]} must hold a Pawn of the side not to move that "
            f"has just passed {parts[0]} by a double step"
        )
    return (m, v)
