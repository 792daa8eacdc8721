"""Warp and Weft's picture: the weave of threads and patches, owners in colour.

The same region map as the ASCII board (spec 2.1) is drawn square by square:
Warp (vertical) threads in a pale blue with a thread line down their middle,
Weft (horizontal) threads in a pale red with a line across, patches white.
A claimed thread or patch is filled with its owner's colour -- Warp blue,
Weft red -- and carries the owner's letter (V or H), so a chain from edge
to edge reads at a glance.  The region claimed last is outlined in gold;
on the final picture the winner's chain from edge to edge is traced over it
(gold discs joined by a line), the shortest one the board holds.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from itertools import repeat
from typing import Any

from games.drawing import HIGHLIGHT, Circle, Drawing, Line, Rect, Shape, Text, caption
from games.warpweft.geometry import OUT, PATCH, WARP, Geometry, column_letter, geometry
from games.warpweft.notation import THREADING
from games.warpweft.rules import FREE, SIDE_MARKS, SIDE_NAMES, State, winning_chain

OWNER_FILL = ("#2f5fb3", "#c0392b")
FREE_FILL = {WARP: "#d7e3f6", 1: "#f6d9d5", PATCH: "#ffffff"}
THREAD_LINE = {WARP: "#8aa6d6", 1: "#dc9c93"}
EDGES = ("top-bottom", "left-right")
CHAIN = "#ffd23f"
X0, Y0 = 30, 60


def _cell(span: int) -> int:
    return max(16, min(30, 480 // (span + 2)))


@cache
def _squares(size: int) -> dict[int, list[tuple[int, int]]]:
    """Each region's squares, in the geometry's order."""
    out: dict[int, list[tuple[int, int]]] = {}
    for (x, y), rid in geometry(size).squares.items():
        if rid != OUT:
            out.setdefault(rid, []).append((x, y))
    return out


@cache
def _region(size: int, rid: int, owner: int) -> tuple[Shape, ...]:
    """A region's squares in its owner's colour (or free), the same objects in every picture."""
    geo = geometry(size)
    cell = _cell(geo.span)
    kind = geo.kinds[rid]
    fill = OWNER_FILL[owner] if owner != FREE else FREE_FILL[kind]
    role = "claimed" if owner != FREE else ("patch" if kind == PATCH else "thread")
    return tuple(Rect(X0 + (x + 1) * cell, Y0 + (geo.span - y) * cell, cell, cell, fill=fill, role=role,
                      at=geo.names[rid]) for x, y in _squares(size)[rid])


@cache
def _marking(size: int, rid: int, owner: int) -> tuple[Shape, ...]:
    """The thread line through a free thread, or the owner's letter on a claimed region."""
    geo = geometry(size)
    cell = _cell(geo.span)
    kind = geo.kinds[rid]
    cx, cy = geo.centres[rid]
    mx, my = X0 + (cx + 1) * cell + cell / 2, Y0 + (geo.span - cy) * cell + cell / 2
    if owner == FREE and kind != PATCH:
        if kind == WARP:
            return (Line(mx, my - cell * 1.3, mx, my + cell * 1.3, stroke=THREAD_LINE[kind], width=2),)
        return (Line(mx - cell * 1.3, my, mx + cell * 1.3, my, stroke=THREAD_LINE[kind], width=2),)
    if owner != FREE:
        return (Text(mx, my, SIDE_MARKS[owner], size=cell * 0.6, fill="#ffffff", role="mark", at=geo.names[rid]),)
    return ()


def _screen(geo: Geometry) -> tuple[Callable[[int], float], Callable[[int], float]]:
    """Grid column and row to the picture's x and y (row 0 at the bottom)."""
    span, cell = geo.span, _cell(geo.span)
    return (lambda x: X0 + (x + 1) * cell), (lambda y: Y0 + (span - y) * cell)


@cache
def _borders(size: int) -> tuple[Shape, ...]:
    """The lines wherever two squares belong to different regions: the same in every position."""
    geo = geometry(size)
    span, cell = geo.span, _cell(geo.span)

    sx, sy = _screen(geo)

    def region(x: int, y: int) -> int:
        return geo.squares.get((x, y), OUT)

    out: list[Shape] = []
    for x in range(-1, span + 1):
        for y in range(-1, span + 1):
            here = region(x, y)
            if here != region(x + 1, y) and (here != OUT or region(x + 1, y) != OUT):
                out.append(Line(sx(x + 1), sy(y), sx(x + 1), sy(y) + cell, stroke="#555555", width=1.2))
            if here != region(x, y - 1) and (here != OUT or region(x, y - 1) != OUT):
                out.append(Line(sx(x), sy(y) + cell, sx(x) + cell, sy(y) + cell, stroke="#555555", width=1.2))
            if x == -1 and here != OUT:
                out.append(Line(sx(x), sy(y), sx(x), sy(y) + cell, stroke="#555555", width=1.2))
            if y == span and here != OUT:
                out.append(Line(sx(x), sy(y), sx(x) + cell, sy(y), stroke="#555555", width=1.2))
    return tuple(out)


@cache
def _labels(size: int) -> tuple[Shape, ...]:
    """Column letters above and below, row numbers left and right: the same in every position."""
    geo = geometry(size)
    span, cell = geo.span, _cell(geo.span)
    x0, y0, grid = X0, Y0, cell * (span + 2)

    def sx(x: int) -> float:
        return x0 + (x + 1) * cell

    def sy(y: int) -> float:
        return y0 + (span - y) * cell

    d = Drawing(0, 0)
    font = 12 if cell >= 22 else 10
    for x in range(span):
        d.add(
            Text(
                sx(x) + cell / 2,
                y0 + grid + font,
                column_letter(x),
                size=font,
                fill="#333333",
                role="label",
            ),
            Text(
                sx(x) + cell / 2,
                y0 - font,
                column_letter(x),
                size=font,
                fill="#333333",
                role="label",
            ),
        )
    for y in range(span):
        d.add(
            Text(
                x0 - 4,
                sy(y) + cell / 2,
                str(y + 1),
                size=font,
                fill="#333333",
                anchor="end",
                role="label",
            ),
            Text(
                x0 + grid + 4,
                sy(y) + cell / 2,
                str(y + 1),
                size=font,
                fill="#333333",
                anchor="start",
                role="label",
            ),
        )
    return tuple(d.shapes)


# The shapes below change seldom from one position to the next: each is made once per what it shows and
# handed again as the same object, which the PNG renderer takes as unchanged without looking at it.


@lru_cache(maxsize=256)
def _status(width: int, text: str) -> Text:
    return Text(width / 2, 18, text, size=16, role="status")


@lru_cache(maxsize=256)
def _side(foot: float, side: int, text: str) -> tuple[Shape, ...]:
    """A side's swatch and line under the board."""
    return (Rect(X0, foot + side * 22 - 7, 14, 14, fill=OWNER_FILL[side]),
            Text(X0 + 22, foot + side * 22, text, size=13, anchor="start", role="side"))


@cache
def _outline(size: int, rid: int) -> tuple[Shape, ...]:
    """The gold outline of region ``rid``, the one claimed last: its edges that face another region."""
    geo = geometry(size)
    cell = _cell(geo.span)

    sx, sy = _screen(geo)

    out: list[Shape] = []
    for (x, y), r in geo.squares.items():
        if r != rid:
            continue
        for (nx, ny), line in (
            ((x - 1, y), (sx(x), sy(y), sx(x), sy(y) + cell)),
            ((x + 1, y), (sx(x) + cell, sy(y), sx(x) + cell, sy(y) + cell)),
            ((x, y + 1), (sx(x), sy(y), sx(x) + cell, sy(y))),
            ((x, y - 1), (sx(x), sy(y) + cell, sx(x) + cell, sy(y) + cell)),
        ):
            if geo.squares.get((nx, ny), OUT) != rid:
                out.append(Line(*line, stroke=HIGHLIGHT, width=4, role="last", at=geo.names[rid]))
    return tuple(out)


def title(game: Any, state: State, seat: int | None, players: list[str] | None) -> str:
    """The picture's title (its alt text), without drawing it (Game.picture_title)."""
    return f"Warp and Weft board: {caption(game, state, players)}"


def draw(game: Any, state: State, seat: int | None, players: list[str] | None) -> Drawing:
    geo = state.geo
    span = geo.span
    cell = _cell(span)
    x0, y0 = X0, Y0

    def sx(x: int) -> float:
        return x0 + (x + 1) * cell

    def sy(y: int) -> float:
        return y0 + (span - y) * cell  # row y = span (the top rim) at the top

    grid = cell * (span + 2)
    text = caption(game, state, players)
    d = Drawing(
        width=x0 * 2 + grid,
        height=y0 + grid + 90,
        title=title(game, state, seat, players),
        background="#ebe8e1",
        grid=(x0, y0, 2 * cell),
    )
    # Nothing of the picture is fixed (no shapes before the mark), but the key names the board for the PNG
    # renderer's palette table (its colours keep their palette slots from move to move: issue 25).
    d.mark_base(f"warpandweft-{state.size}")
    d.add(_status(d.width, text))

    # Squares, then thread lines and letters, then borders: each piece is a
    # kept tuple of shapes, so a position hands the renderer the same objects.
    owners, size = state.owners, state.size
    regions = _squares(size)
    d.extend_runs(map(_region, repeat(size), regions, map(owners.__getitem__, regions)))
    d.extend_runs(map(_marking, repeat(size), range(len(geo.centres)), owners))
    d.extend(_borders(state.size))
    # the region claimed last, outlined
    last = next((m for m in reversed(state.history) if m in geo.by_name), None)
    if last is not None:
        d.extend(_outline(state.size, geo.by_name[last]))
    # the winner's chain from edge to edge, on the final picture
    chain = [geo.centres[r] for r in winning_chain(state)]
    points = [(sx(cx) + cell / 2, sy(cy) + cell / 2) for cx, cy in chain]
    for (ax, ay), (bx, by) in zip(points, points[1:], strict=False):
        d.add(Line(ax, ay, bx, by, stroke=CHAIN, width=max(3, cell * 0.18), role="chain"))
    for (px, py), rid in zip(points, winning_chain(state), strict=True):
        d.add(Circle(px, py, cell * 0.22, fill=CHAIN, stroke="#222222", width=1, role="chain", at=geo.names[rid]))
    d.extend(_labels(state.size))
    foot = y0 + grid + 36
    for side in (0, 1):
        who = players[state.seat_of(side)] if players and state.seat_of(side) < len(players) else ""
        mode = "Threading" if state.states[side] == THREADING else "Patching"
        d.extend(_side(foot, side, f"{SIDE_NAMES[side]} ({SIDE_MARKS[side]}, {EDGES[side]})"
                                   f"{': ' + who if who else ''}, {mode}"))
    primary = "Patch-Primary" if state.patch_primary else "Thread-Primary"
    d.add(
        Text(
            x0,
            foot + 46,
            f"{primary}, size {state.size}"
            + (", sides swapped" if state.swapped else "")
            + (f"; last move {state.history[-1]}" if state.history else ""),
            size=12,
            anchor="start",
            fill="#444444",
            role="legend",
        )
    )
    return d
