"""Tri-Dimensional Chess's picture: the levels as levels.

On the left, every level that holds a board is drawn from above as a plate
with a shadowed edge, the highest level at the top (L6, B, L4, N, L2, W,
L0): main boards 4x4, attack boards 2x2 at their pins.  Files keep their
column on every level (z a b c d e), as on the ASCII board, and every row
carries its rank.  On the right a side view shows the same boards as bars at
their heights over the ranks 0-9, so where each level sits reads at a
glance.  Drawn from White's side (spec decision 13), except for Black's
player, who sees it turned (issue 26 item 8, ``flip``): ranks 0 at the top
of each level, files e to z, and in the side view rank 9 on the left; the
labels turn with it, the names do not.  The squares and attack board of the
last move are framed in gold.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from games.drawing import HIGHLIGHT, Drawing, Line, Polygon, Rect, Shape, Text, caption, token
from games.tridchess.geometry import (
    FILES,
    MAIN_BOARDS,
    PIN_BY_NAME,
    PIN_CELLS,
    PIN_LAYER,
    PIN_NAME,
    PIN_SIDE,
    PIN_Y0,
    SIDE_FILES,
    SQ_BY_NAME,
    SQ_NAME,
    cell,
)
from games.tridchess.rules import AB_NAMES, BLACK, PIECE_LETTERS, State

CELL = 32
GAP = 22
LEFT = 70
LABELS = {6: "L6", 5: "B", 4: "L4", 3: "N", 2: "L2", 1: "W", 0: "L0"}
LIGHT, DARK = "#eee6d2", "#9d8766"
AB_LIGHT, AB_DARK = "#e3e9ef", "#7f93a8"
_SQUARE = re.compile(r"[zabcde][0-9](?:W|N|B|[QK]L[1-6]i?)", re.IGNORECASE)
_PIN = re.compile(r"\b[QK]L[1-6]i?\b", re.IGNORECASE)


def boards_on(st: State) -> dict[int, list[tuple[str, tuple[int, ...], int, int]]]:
    """layer -> [(name, files, first rank, last rank)] of the boards standing there."""
    return boards_on_pins(st.pins)


def boards_on_pins(pins: tuple[int, ...]) -> dict[int, list[tuple[str, tuple[int, ...], int, int]]]:
    """layer -> [(name, files, first rank, last rank)] of the boards standing there, the attack boards at ``pins``."""
    out: dict[int, list[tuple[str, tuple[int, ...], int, int]]] = {}
    for name, (layer, y0) in MAIN_BOARDS.items():
        out.setdefault(layer, []).append((name, (1, 2, 3, 4), y0, y0 + 3))
    for i, p in enumerate(pins):
        out.setdefault(PIN_LAYER[p], []).append(
            (f"{AB_NAMES[i]} {PIN_NAME[p]}", SIDE_FILES[PIN_SIDE[p]], PIN_Y0[p], PIN_Y0[p] + 1))
    return out


def last_cells(st: State) -> set[int]:
    text = st.last or ""
    marked = {SQ_BY_NAME[s.lower()] for s in _SQUARE.findall(text) if s.lower() in SQ_BY_NAME}
    pins = [PIN_BY_NAME[p.lower()] for p in _PIN.findall(text) if p.lower() in PIN_BY_NAME]
    if pins and not marked:  # an attack-board move: frame the board where it arrived
        marked = set(PIN_CELLS[pins[-1]])
    return marked


@lru_cache(maxsize=64)
def _board(pins: tuple[int, ...],
           turned: bool = False) -> tuple[tuple[Shape, ...], tuple[tuple[int, float, float], ...], int]:
    """What stands still while the attack boards do: the levels' plates, squares, labels and frames, and
    the side view's scale and main boards; with every square's (cell, left, top) and the picture's height.
    ``turned``: seen from Black's side."""

    def col(x: int) -> int:
        """The drawn column of file ``x`` (0 = z)."""
        return 5 - x if turned else x

    layers = boards_on_pins(pins)
    side_x = LEFT + 6 * CELL + 60
    rows = sum(max(b[3] for b in bs) - min(b[2] for b in bs) + 1 for bs in layers.values())
    height = 66 + rows * CELL + GAP * (len(layers) - 1) + 70
    d = Drawing(width=side_x + 10 * 24 + 50, height=height)
    top = 62
    for i, name in enumerate(FILES):
        d.add(Text(LEFT + (col(i) + 0.5) * CELL, top - 12, name, size=13, fill="#333333", role="label"))
    squares = []
    y = top
    for layer in sorted(layers, reverse=True):
        bs = layers[layer]
        hi, lo = max(b[3] for b in bs), min(b[2] for b in bs)
        band = (hi - lo + 1) * CELL
        d.add(Text(14, y + band / 2, LABELS[layer], size=14, fill="#222222", anchor="start", role="level"))

        def row(rank: int) -> int:
            """Rows down from the top of this level's band to ``rank``."""
            return rank - lo if turned else hi - rank  # noqa: B023 (used within this iteration only)

        for _name, files, y0, y1 in bs:
            bx, by = LEFT + min(col(f) for f in files) * CELL, y + min(row(y0), row(y1)) * CELL
            bw, bh = len(files) * CELL, (y1 - y0 + 1) * CELL
            d.add(Polygon(((bx + 5, by + bh), (bx + bw, by + bh), (bx + bw + 5, by + bh + 6), (bx + 5, by + bh + 6)),
                          fill="#6b5d4a"),
                  Polygon(((bx + bw, by + 5), (bx + bw + 5, by + 11), (bx + bw + 5, by + bh + 6), (bx + bw, by + bh)),
                          fill="#857560"))
            main = len(files) == 4
            for yy in range(y0, y1 + 1):
                cy = y + row(yy) * CELL
                d.add(Text(bx - 9, cy + CELL / 2, str(yy), size=11, fill="#555555", role="label"))
                for xx in files:
                    c = cell(xx, yy, layer)
                    dark = (xx + yy) % 2 == 0
                    fill = (DARK if dark else LIGHT) if main else (AB_DARK if dark else AB_LIGHT)
                    cx = LEFT + col(xx) * CELL
                    d.add(Rect(cx, cy, CELL, CELL, fill=fill, role="square", at=SQ_NAME[c]))
                    squares.append((c, cx, cy))
            d.add(Rect(bx, by, bw, bh, stroke="#333333", width=1.2))
        y += band + GAP
    _side_scale(d, pins, side_x, top, turned)
    return tuple(d.shapes), tuple(squares), height


@cache
def _frame(c: int, cx: float, cy: float) -> Shape:
    return Rect(cx + 2, cy + 2, CELL - 4, CELL - 4, stroke=HIGHLIGHT, width=3.5, role="last", at=SQ_NAME[c])


@cache
def _piece(c: int, cx: float, cy: float, p: int) -> tuple[Shape, ...]:
    return tuple(token(cx + CELL / 2, cy + CELL / 2, CELL * 0.37, PIECE_LETTERS[p & 7], bool(p & BLACK),
                       at=SQ_NAME[c]))


def title(game: Any, st: State, seat: int | None, players: list[str] | None) -> str:
    """The picture's title (its alt text), without drawing it (Game.picture_title)."""
    return f"Tri-Dimensional Chess board: {caption(game, st, players)}"


def draw(game: Any, st: State, seat: int | None, players: list[str] | None) -> Drawing:
    turned = seat == 1  # Black's player: Black at the bottom (the server passes no seat with "flip off")
    text = caption(game, st, players)
    if game.outcome(st) is None and st.in_check():
        text += " (check)"
    marked = last_cells(st)
    board, squares, height = _board(st.pins, turned)
    side_x = LEFT + 6 * CELL + 60
    d = Drawing(width=side_x + 10 * 24 + 50, height=height, title=title(game, st, seat, players))
    # A square's last-move frame and piece stay inside it, and the boards'
    # frames on their edges, so the board drawn first as the fixed part (for
    # these attack-board places) changes no pixel (issue 25).
    d.extend(board)
    d.mark_base(f"tridchess-{st.pins}-{'black' if turned else 'white'}")
    d.add(Text(d.width / 2, 18, text, size=16, role="status"))
    for c, cx, cy in squares:
        if c in marked:
            d.add(_frame(c, cx, cy))
        p = st.board.get(c)
        if p is not None:
            d.extend(_piece(c, cx, cy, p))
    _side_boards(d, st, side_x, 62, marked, turned)
    foot = height - 40
    boards = "  ".join(f"{AB_NAMES[i]}={PIN_NAME[p]}" for i, p in enumerate(st.pins))
    d.add(Text(14, foot, f"Attack boards: {boards}", size=12, anchor="start", role="legend"),
          Text(14, foot + 20, f"Last move: {st.last or '-'}    K Q R B N P: white light, black dark",
               size=12, anchor="start", fill="#444444", role="legend"))
    return d


def _side_at(x0: float, turned: bool, rank: float, width: int = 0) -> float:
    """The side view's left edge of a span of ``width`` ranks starting at ``rank`` (``turned``: rank 9 left)."""
    return x0 + ((10 - rank - width) if turned else rank) * 24


def _side_scale(d: Drawing, pins: tuple[int, ...], x0: float, top: float, turned: bool = False) -> None:
    """The side view's fixed part: the ranks 0-9, the levels, the main boards as bars, and the
    attack boards' names (the bars of the attack boards come with the position); ``turned``: seen
    from Black's side, rank 9 on the left."""
    step, lift = 24, 44
    base = top + 7 * lift

    def at(rank: float, width: int = 0) -> float:
        return _side_at(x0, turned, rank, width)

    d.add(Text(x0 + 5 * step, top - 12, "side view (ranks 9-0)" if turned else "side view (ranks 0-9)", size=12,
               fill="#333333", role="label"))
    for r in range(10):
        d.add(Text(at(r, 1) + 0.5 * step, base + 12, str(r), size=11, fill="#555555", role="label"))
    for layer in range(7):
        yy = base - layer * lift - 8
        d.add(Text(x0 - 10, yy, LABELS[layer], size=11, fill="#555555", anchor="end", role="label"))
        d.add(Line(x0, yy, x0 + 10 * step, yy, stroke="#e4e4e4", width=1))
    for name, (layer, y0) in MAIN_BOARDS.items():
        yy = base - layer * lift - 8
        d.add(Rect(at(y0, 4), yy - 5, 4 * step, 10, fill="#9d8766", stroke="#333333", width=1,
                   role="side-main", at=name),
              Text(at(y0, 4) + 2 * step, yy - 14, name, size=11, fill="#333333", role="label"))
    names: dict[tuple[int, int], list[str]] = {}
    for i, p in enumerate(pins):
        names.setdefault((PIN_LAYER[p], PIN_Y0[p]), []).append(AB_NAMES[i])
    for (layer, y0), who in names.items():
        d.add(Text(at(y0, 2) + step, base - layer * lift + 10, " ".join(who), size=10, fill="#333333",
                   role="label"))


def _side_boards(d: Drawing, st: State, x0: float, top: float, marked: set[int], turned: bool = False) -> None:
    """The attack boards as bars at their heights in the side view, framed in gold when the last move
    was on them (``turned``: seen from Black's side)."""
    step, lift = 24, 44
    base = top + 7 * lift
    for p in st.pins:
        yy = base - PIN_LAYER[p] * lift - 8
        hit = bool(marked & set(PIN_CELLS[p]))
        # queen's-side boards sit just in front of king's-side ones in this view
        dy = -3 if PIN_SIDE[p] == 0 else 3
        d.add(Rect(_side_at(x0, turned, PIN_Y0[p], 2) + 2, yy - 4 + dy, 2 * step - 4, 8, fill="#7f93a8",
                   stroke=HIGHLIGHT if hit else "#333333", width=2.5 if hit else 1, role="side-ab", at=PIN_NAME[p]))
