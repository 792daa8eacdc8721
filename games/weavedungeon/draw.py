"""Weave & Dungeon's picture: the 9x9 weave of ribbons over the dark Dungeon.

Vertical strands (files a c e g i) are sand-coloured ribbons, horizontal
strands (ranks 1 3 5 7 9) blue ones.  At a bridge the strand on top is drawn
over the one passing under it, in a lighter tone with a rim; a slope is a
plain stretch of its ribbon with a small arrow pointing up to its crest (its
segment's bridge).  Cells are the stone squares between the ribbons.  The
thrones e1/e9 carry a gold ring.  Pieces have the shapes they are named
after, white or black, with their letter.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from games.drawing import (
    DARK_PIECE,
    HIGHLIGHT,
    LIGHT_PIECE,
    Circle,
    Drawing,
    Polygon,
    Rect,
    Text,
    caption,
    grid_labels,
    regular_polygon,
    star,
)
from games.weavedungeon import geometry as g
from games.weavedungeon.moves import (
    CIRCLE,
    DIAMOND,
    LETTERS,
    PENTAGON,
    POOL_TYPES,
    SQUARE,
    STAR,
    THRONE,
    TRIANGLE,
    WHITE,
    Position,
)

CELL = 52
X0, Y0 = 30, 62
FLOOR = "#3b342e"
STONE = "#544a41"
RIBBON = {"V": ("#d9b36c", "#f3d99a", "#9c7a3c"), "H": ("#7fa8c9", "#b5d4ea", "#4d7394")}  # plain, crest, rim
_SQUARE = re.compile(r"[a-i][1-9]")


def last_squares(last: str | None) -> list[str]:
    return list(dict.fromkeys(_SQUARE.findall((last or "").lower())))


def _ribbon(x: float, y: float, vertical: bool, tone: str, rim: str | None, at: str, role: str) -> Polygon:
    """A ribbon across the whole square, 70% as wide as it."""
    m = CELL * 0.15
    if vertical:
        pts = ((x + m, y), (x + CELL - m, y), (x + CELL - m, y + CELL), (x + m, y + CELL))
    else:
        pts = ((x, y + m), (x + CELL, y + m), (x + CELL, y + CELL - m), (x, y + CELL - m))
    return Polygon(pts, fill=tone, stroke=rim, width=1.5, role=role, at=at)


def _piece(kind: int, white: bool, cx: float, cy: float, at: str) -> list[Any]:
    r = CELL * 0.36
    fill, ink = (LIGHT_PIECE, "#111111") if white else (DARK_PIECE, "#ffffff")
    common = {"fill": fill, "stroke": "#111111" if white else "#dddddd", "width": 1.5, "role": "piece", "at": at}
    shape: Any
    if kind == STAR:
        shape = Polygon(star(cx, cy, r * 1.25), **common)
    elif kind == CIRCLE:
        shape = Circle(cx, cy, r * 0.9, **common)
    elif kind == TRIANGLE:
        shape = Polygon(regular_polygon(cx, cy + r * 0.15, r * 1.3, 3), **common)
    elif kind == SQUARE:
        shape = Polygon(regular_polygon(cx, cy, r * 1.05, 4, rotation=-45), **common)
    elif kind == PENTAGON:
        shape = Polygon(regular_polygon(cx, cy, r, 5), **common)
    else:  # DIAMOND
        shape = Polygon(((cx, cy - r * 1.05), (cx + r * 0.7, cy), (cx, cy + r * 1.05), (cx - r * 0.7, cy)), **common)
    letter = LETTERS[kind]
    # Every letter at least 0.28 of a square (T and K were 0.22, too small to read in mail):
    # the star and the triangle are drawn larger to hold it.
    size = CELL * (0.28 if kind in (STAR, TRIANGLE, DIAMOND) else 0.3)
    dy = r * 0.3 if kind == TRIANGLE else 0.5
    return [shape, Text(cx, cy + dy, letter, size=size, fill=ink, role="piece-letter", at=at)]


def _uphill(x: float, y: float, sq: int, flipped: bool = False) -> Polygon:
    """A small arrow on a slope pointing toward its crest (on a turned board, turned too)."""
    crest = g.segment_bridge(sq)
    df, dr = g.file_of(crest) - g.file_of(sq), g.rank_of(crest) - g.rank_of(sq)
    if flipped:
        df, dr = -df, -dr
    cx, cy = x + CELL / 2 + df * CELL * 0.3, y + CELL / 2 - dr * CELL * 0.3
    a, b = CELL * 0.1, CELL * 0.09
    if df:
        pts = ((cx + df * a, cy), (cx - df * a, cy - b), (cx - df * a, cy + b))
    else:
        pts = ((cx, cy - dr * a), (cx - b, cy + dr * a), (cx + b, cy + dr * a))
    return Polygon(pts, fill="#6b5a40", role="uphill", at=g.name(sq))


def _corner(sq: int, flipped: bool) -> tuple[int, int]:
    f, r = g.file_of(sq), g.rank_of(sq)
    if flipped:
        return X0 + (g.SIZE - 1 - f) * CELL, Y0 + r * CELL
    return X0 + f * CELL, Y0 + (g.SIZE - 1 - r) * CELL


@cache
def _board(flipped: bool) -> tuple[Any, ...]:
    """The Dungeon, the weave and the thrones with the labels: the same in every position."""
    side = CELL * g.SIZE
    d = Drawing(width=X0 * 2 + side, height=Y0 + side + 100)
    d.add(Rect(X0, Y0, side, side, fill=FLOOR))
    for sq in g.SQUARES:
        x, y = _corner(sq, flipped)
        name = g.name(sq)
        ch = g.BOARD_MAP[g.SIZE - 1 - g.rank_of(sq)][g.file_of(sq)]
        if ch == "#":
            d.add(Rect(x + 3, y + 3, CELL - 6, CELL - 6, fill=STONE, stroke="#2a241f", width=2, role="cell", at=name))
        elif ch in "|-":
            tone = RIBBON["V" if ch == "|" else "H"]
            d.add(_ribbon(x, y, ch == "|", tone[0], None, name, "slope"), _uphill(x, y, sq, flipped))
        else:  # a bridge: the strand underneath first, then the crest on top
            top_v = ch == "V"
            under = RIBBON["H" if top_v else "V"]
            over = RIBBON[ch]
            d.add(_ribbon(x, y, not top_v, under[2], None, name, "underpass"),
                  _ribbon(x, y, top_v, over[1], over[2], name, "bridge"))
        if sq in THRONE:
            d.add(Circle(x + CELL / 2, y + CELL / 2, CELL * 0.46, stroke="#e0a800", width=3, role="throne", at=name))
    grid_labels(d, X0, Y0, CELL, g.FILES, g.SIZE, flipped=flipped)
    return tuple(d.shapes)


@cache
def _frame(sq: int, flipped: bool) -> Rect:
    x, y = _corner(sq, flipped)
    return Rect(x + 2, y + 2, CELL - 4, CELL - 4, stroke=HIGHLIGHT, width=4, role="last", at=g.name(sq))


@cache
def _piece_at(sq: int, pc: int, flipped: bool) -> tuple[Any, ...]:
    x, y = _corner(sq, flipped)
    return tuple(_piece(pc & 7, pc >> 3 == WHITE, x + CELL / 2, y + CELL / 2, g.name(sq)))


def title(game: Any, pos: Position, seat: int | None, players: list[str] | None) -> str:
    """The picture's title (its alt text), without drawing it (Game.picture_title)."""
    return f"Weave & Dungeon board: {caption(game, pos, players)}"


def draw(game: Any, pos: Position, seat: int | None, players: list[str] | None) -> Drawing:
    side = CELL * g.SIZE
    text = caption(game, pos, players)
    if game.outcome(pos) is None and pos.in_check():
        text += " (in check)"
    d = Drawing(width=X0 * 2 + side, height=Y0 + side + 100, title=title(game, pos, seat, players),
                grid=(X0, Y0, CELL))
    flipped = seat == 1  # Black's player: Black at the bottom
    # Every square's board shapes, frame and piece stay inside the square, so
    # the board drawn first, as one fixed part, changes no pixel (issue 25).
    d.extend(_board(flipped))
    d.mark_base(f"weavedungeon-{flipped}")
    d.add(Text(d.width / 2, 18, text, size=16, role="status"))
    marked = set(last_squares(pos.last_move))
    for sq in g.SQUARES:
        if g.name(sq) in marked:
            d.add(_frame(sq, flipped))
        pc = pos.board[sq]
        if pc:
            d.extend(_piece_at(sq, pc, flipped))
    pools = []
    for colour, label in ((0, "White"), (1, "Black")):
        letters = " ".join(LETTERS[t] for t, n in zip(POOL_TYPES, pos.pools[colour], strict=True) for _ in range(n))
        pools.append(f"{label} {letters or 'none'}")
    foot = Y0 + side + 34
    last = f"Last move: {pos.last_move}" if pos.last_move else "No move yet"
    d.add(Text(X0, foot, f"{last}    Rescuable: {'; '.join(pools)}", size=13, anchor="start", role="pools"))
    d.add(*_LEGEND)
    return d


_FOOT = Y0 + CELL * g.SIZE + 34
#: The key lines under the board: one pair of shape objects for every picture.
_LEGEND = (
    Text(X0, _FOOT + 22, "Star K  Circle C  Triangle T  Square S  Pentagon P  Diamond D;"
         "  arrows point up a slope", size=12, anchor="start", fill="#444444", role="legend"),
    Text(X0, _FOOT + 42, "Gold ring: a throne (e1, e9), the Stars' home squares; gold frame: the last move",
         size=12, anchor="start", fill="#444444", role="legend"),
)
