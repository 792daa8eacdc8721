"""TriMac 3 Friends' picture: the 207-point lattice in the plane (spec 2.9).

Red's lattice at the bottom, Blue upper left, Green upper right, each a
hexagon of triangles with its 12-point fortress shaded in the army's tint;
a pale-blue three-armed river runs between them, crossed by the joins
(spec 2.4) as thin lines.  Pieces are discs in the army colour with their
letter (K A E H R C P F).  File letters stand behind each army's back edge
and rank numbers beside its f-file, as the notation names the points
(``Rf1``, ``Bi6``); every empty point carries its full name in small type,
so any target can be named from the picture alone.  The last move's two
points carry gold rings.
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache
from itertools import repeat
from typing import Any

from games.drawing import HIGHLIGHT, Circle, Drawing, Line, Polygon, Shape, Text, caption
from games.trimac import geometry as geo
from games.trimac.moves import KINDS, owner_of
from games.trimac.state import State

UNIT = 34
ARMY = ("#c0392b", "#2f5fb3", "#2e8b3e")
TINT = ("#f6dcd8", "#d9e4f5", "#d8eedb")
RIVER = "#cfe6f5"
KITE = ((0, 0), (1, 1), (2, 4), (1, 5), (0, 6), (-1, 5), (-2, 4), (-1, 1))
_POINT = re.compile(r"[RBG][a-k][0-9]", re.IGNORECASE)


def plane(lattice: int, x: float, y: float, viewer: int = 0) -> tuple[float, float]:
    """Plane position (y up) of local (x, y) in ``lattice``: Red's, rotated for Blue and Green;
    the whole turned so that ``viewer``'s army is at the bottom, nearest its player."""
    px, py = math.sqrt(3) / 2 * x, y / 2 - 8.5
    a = math.radians((0, -120, 120)[lattice] - (0, -120, 120)[viewer])
    return px * math.cos(a) - py * math.sin(a), px * math.sin(a) + py * math.cos(a)


@cache
def _board(viewer: int) -> tuple[tuple[Shape, ...], tuple[tuple[float, float], ...], int, int, Text]:
    """The lattice seen by ``viewer``: the fixed shapes (river, fortresses, lines, labels), every
    point's place on the picture, its size, and the key line under it."""
    # the extent of everything drawn, labels included, in plane units
    reach = [plane(lat, x, y, viewer) for lat in range(3)
             for x, y in ((0, -3.6), (-5, 3.8), (5, 3.8), (-6, 4), (6, 4))]
    left, right = min(p[0] for p in reach), max(p[0] for p in reach)
    low, high = min(p[1] for p in reach), max(p[1] for p in reach)
    width, top = int((right - left) * UNIT) + 40, 40
    cx, cy = 20 - left * UNIT, top + high * UNIT

    def screen(lattice: int, x: float, y: float) -> tuple[float, float]:
        px, py = plane(lattice, x, y, viewer)
        return cx + px * UNIT, cy - py * UNIT

    def at(p: int) -> tuple[float, float]:
        return screen(geo.LATTICE_OF[p], *geo.XY[p])

    d = Drawing(width=width, height=int(cy - low * UNIT + 60))
    # the river: one thick pale band per arm, from the centre out past the last join
    arms: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for p, q in geo.joins():
        key = tuple(sorted((geo.LATTICE_OF[p], geo.LATTICE_OF[q])))
        (x1, y1), (x2, y2) = at(p), at(q)
        arms.setdefault(key, []).append(((x1 + x2) / 2, (y1 + y2) / 2))  # type: ignore[arg-type]
    for mids in arms.values():
        far = max(mids, key=lambda m: (m[0] - cx) ** 2 + (m[1] - cy) ** 2)
        k = 1 + 0.9 * UNIT / math.hypot(far[0] - cx, far[1] - cy)
        d.add(Line(cx, cy, cx + (far[0] - cx) * k, cy + (far[1] - cy) * k, stroke=RIVER, width=UNIT * 0.8,
                   role="river"))
    for lat in range(3):
        d.add(Polygon(tuple(screen(lat, x, y) for x, y in KITE), fill=TINT[lat], stroke=ARMY[lat], width=1,
                      role="fortress", at=geo.LATTICES[lat]))
    # lattice lines (N, NE, SE from every point; within a lattice) and the joins
    for p in range(geo.NPOINTS):
        for dirn in range(3):
            for q, _ in geo.ORTHO_NEXT[p][dirn]:
                same = geo.LATTICE_OF[q] == geo.LATTICE_OF[p]
                d.add(Line(*at(p), *at(q), stroke="#9a9a9a" if same else "#7fb3d5", width=1 if same else 1.4,
                           role="line" if same else "join"))
    # coordinates: files behind each back edge, ranks beside each f-file
    for lat in range(3):
        for xi in range(-5, 6):
            lx, ly = screen(lat, xi, abs(xi) - 1.25)
            d.add(Text(lx, ly, geo.FILES[xi + 5], size=11, fill="#555555", role="label"))
        for rank in range(1, 10):
            lx, ly = screen(lat, 0.56, 2 * (rank - 1))
            d.add(Text(lx, ly, str(rank), size=11, fill="#555555", role="label"))
        bx, by = screen(lat, 0, -3.2)
        d.add(Text(bx, by, geo.SEAT_NAMES[lat], size=13, fill=ARMY[lat], role="label"))
    key = Text(24, d.height - 46 + 22, "K General  A Guard  E Bishop  H Knight  R Rook  C Cannon  P Pawn  F Banner",
               size=12, anchor="start", fill="#444444", role="legend")
    return tuple(d.shapes), tuple(at(p) for p in range(geo.NPOINTS)), d.width, d.height, key


@lru_cache(maxsize=4096)
def _point(viewer: int, p: int, c: int, marked: bool) -> tuple[Shape, ...]:
    """A point's shapes: its gold ring if the last move was there, then its piece or its name."""
    x, y = _board(viewer)[1][p]
    name = geo.NAMES[p]
    out: list[Shape] = []
    if marked:
        out.append(Circle(x, y, UNIT * 0.48, stroke=HIGHLIGHT, width=3.5, role="last", at=name))
    if c:
        out += [Circle(x, y, UNIT * 0.38, fill=ARMY[owner_of(c)], stroke="#222222", width=1.2, role="piece", at=name),
                Text(x, y + 0.5, KINDS[c & 7], size=UNIT * 0.42, fill="#ffffff", role="piece-letter", at=name)]
    else:
        # Every empty point says its name (Gj5): a player names a target without the help's key.
        out += [Circle(x, y, 2.6, fill="#666666", role="point", at=name),
                Text(x, y + 11, name[0].upper() + name[1:], size=8, fill="#6b6b6b", role="coord", at=name)]
    return tuple(out)


@lru_cache(maxsize=256)
def _status(width: int, text: str) -> Text:
    """Whose move it is, over the board: the same object while it says the same (the PNG renderer takes
    a shape it was handed before as unchanged without looking at it)."""
    return Text(width / 2, 18, text, size=16, role="status")


def title(game: Any, state: State, seat: int | None, players: list[str] | None) -> str:
    """The picture's title (its alt text), without drawing it (Game.picture_title)."""
    return f"TriMac 3 Friends board: {caption(game, state, players)}"


def draw(game: Any, state: State, seat: int | None, players: list[str] | None) -> Drawing:
    text = caption(game, state, players)
    viewer = seat if seat in (0, 1, 2) else 0  # each player's own army nearest (Red's view by default)
    board, _, width, height, key = _board(viewer)
    d = Drawing(width=width, height=height, title=title(game, state, seat, players))
    d.extend(board)
    d.mark_base(f"trimac-{viewer}")
    d.add(_status(width, text))
    marked: set[int] = set()
    if state.history:
        for name in _POINT.findall(state.history[-1][1]):
            p = geo.BY_NAME.get(name.lower())
            if p is not None:
                marked.add(p)
    d.extend_runs(map(_point, repeat(viewer), range(geo.NPOINTS), state.board,
                      map(marked.__contains__, range(geo.NPOINTS))))
    foot = d.height - 46
    alive = ", ".join(geo.SEAT_NAMES[s] for s in state.alive) or "none"
    last = state.history[-1] if state.history else None
    d.add(Text(24, foot, f"Turn order: {alive}." + (f"  Last: {geo.SEAT_NAMES[last[0]]} {last[1]}" if last else ""),
               size=13, anchor="start", role="legend"))
    d.add(key)
    return d
