"""Interweave's picture: the checkered 8x8 board, lettered pieces, the reserves.

Drawn from the viewer's side like the ASCII board: White's, or Black's for
Black's player (``seat`` 1; rank 1 at the top).  Square colour matters in every Interweave decision, so the
board keeps chess colours (a1 dark); the squares of the last turn (origin,
every landing, every Remover victim) are framed.

The board (squares, frame, labels) is built once per side and marked as the
drawing's fixed part, and a square's frame and piece are kept per (square,
piece, side): a position hands the renderer the same shape objects again,
which is what lets it draw a position in about a millisecond (issue 25).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from games.drawing import HIGHLIGHT, Drawing, Rect, Shape, Text, caption, grid_labels, token
from games.interweave.board import DARK, EMPTY, FILES, NAMES
from games.interweave.rules import State

CELL = 54
X0, Y0 = 30, 62
LIGHT, DARK_SQ = "#f0d9b5", "#b58863"
_SQUARE = re.compile(r"[a-h][1-8]")
WIDTH, HEIGHT = X0 * 2 + CELL * 8, Y0 + CELL * 8 + 80


def last_squares(last: str | None) -> list[str]:
    """The squares a turn's text names (origin, landings, victims), in order."""
    return list(dict.fromkeys(_SQUARE.findall((last or "").lower().split("{")[0])))


def _reserve(counts: tuple[int, ...], white: bool) -> str:
    letters = "".join(t * n for t, n in zip("SLR", counts, strict=True))
    letters = letters if white else letters.lower()
    return " ".join(letters) if letters else "none"


def _corner(s: int, flipped: bool) -> tuple[int, int]:
    f, r = s % 8, s // 8
    if flipped:
        f, r = 7 - f, 7 - r
    return X0 + f * CELL, Y0 + (7 - r) * CELL


@cache
def _board(flipped: bool) -> tuple[Shape, ...]:
    """The squares, the board's frame and its labels: the same in every position."""
    d = Drawing(WIDTH, HEIGHT)
    for s, name in enumerate(NAMES):
        x, y = _corner(s, flipped)
        d.add(Rect(x, y, CELL, CELL, fill=DARK_SQ if DARK[s] else LIGHT, role="square", at=name))
    d.add(Rect(X0, Y0, CELL * 8, CELL * 8, stroke="#333333", width=1.5))
    grid_labels(d, X0, Y0, CELL, FILES, 8, flipped=flipped)
    return tuple(d.shapes)


@cache
def _frame(s: int, flipped: bool) -> Shape:
    x, y = _corner(s, flipped)
    return Rect(x + 2, y + 2, CELL - 4, CELL - 4, stroke=HIGHLIGHT, width=4, role="last", at=NAMES[s])


@cache
def _piece(s: int, piece: str, flipped: bool) -> tuple[Shape, ...]:
    x, y = _corner(s, flipped)
    return tuple(token(x + CELL / 2, y + CELL / 2, CELL * 0.36, piece.upper(), piece.islower(), at=NAMES[s]))


def title(game: Any, state: State, seat: int | None, players: list[str] | None) -> str:
    """The picture's title (its alt text), without drawing it (Game.picture_title)."""
    return f"Interweave board: {caption(game, state, players)}"


def draw(game: Any, state: State, seat: int | None, players: list[str] | None) -> Drawing:
    pos = state.pos
    d = Drawing(
        width=WIDTH,
        height=HEIGHT,
        title=title(game, state, seat, players),
        grid=(X0, Y0, CELL),
    )
    flipped = seat == 1
    # The frame and labels sit outside the squares' insides, so drawing them
    # before the pieces and last-turn frames changes no pixel.
    d.extend(_board(flipped))
    d.mark_base(f"interweave-{flipped}")
    d.add(Text(d.width / 2, 18, caption(game, state, players), size=16, role="status"))
    marked = set(last_squares(state.last))
    for s, name in enumerate(NAMES):
        if name in marked:
            d.add(_frame(s, flipped))
        piece = pos.board[s]
        if piece != EMPTY:
            d.extend(_piece(s, piece, flipped))
    foot = Y0 + CELL * 8 + 34
    d.add(
        Text(
            X0,
            foot,
            f"Reserves: White {_reserve(pos.reserves[0], True)};"
            f" Black {_reserve(pos.reserves[1], False)}",
            size=13,
            anchor="start",
            role="reserves",
        )
    )
    last = f"Last turn: {state.last}" if state.last else "No turn played yet"
    d.add(
        Text(
            X0,
            foot + 22,
            last + "   K King  S Smasher  L Leaper  R Remover  P Pawn",
            size=12,
            anchor="start",
            fill="#444444",
            role="legend",
        )
    )
    return d
