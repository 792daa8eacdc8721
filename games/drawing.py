"""The drawing model every game's picture is made of: shapes, text, colours.

A game turns a state into a :class:`Drawing` (pure data, no I/O); the server
has one renderer to SVG (web pages) and one to PNG (mail).  Keeping the model
this small -- rectangles, circles, polygons, lines, text -- is what lets one
pair of renderers serve five very different boards, and lets tests read a
drawing back: a shape may name the square it stands for (``at``) and what it
shows (``role``, e.g. "piece", "last"), which the SVG carries as
``data-at``/``class`` attributes.

Coordinates are pixels of the PNG at scale 1, y growing downward.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain

Point = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class Tagged:
    """What every shape may say about itself: ``role`` (what it shows) and ``at`` (the square)."""

    role: str = ""
    at: str = ""


@dataclass(frozen=True, kw_only=True)
class Painted(Tagged):
    """A closed shape: its fill and outline (``None``: none)."""

    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0


@dataclass(frozen=True)
class Rect(Painted):
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Circle(Painted):
    cx: float
    cy: float
    r: float


@dataclass(frozen=True)
class Polygon(Painted):
    points: tuple[Point, ...]


@dataclass(frozen=True)
class Line(Tagged):
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = "#000000"
    width: float = 1.0


@dataclass(frozen=True)
class Text(Tagged):
    """Text centred vertically on ``y``; ``anchor`` is start, middle or end (SVG's words)."""

    x: float
    y: float
    text: str
    size: float = 12.0
    fill: str = "#000000"
    anchor: str = "middle"


Shape = Rect | Circle | Polygon | Line | Text


@dataclass
class Drawing:
    """A picture: its size, background, shapes in painting order, and a title.

    ``title`` is the one-line description used as the image's alt text.
    """

    width: int
    height: int
    title: str = ""
    background: str = "#ffffff"
    shapes: list[Shape] = field(default_factory=list)
    #: The first ``base_count`` shapes depend on ``base_key`` alone (the board's
    #: geometry, never the position): a renderer may paint them once and reuse them.
    base_key: str = ""
    base_count: int = 0
    #: The board's squares (left, top, size in whole pixels), where it has a square grid: a renderer
    #: may cut the picture along them, so one piece on one square is one piece of the picture.
    grid: tuple[int, int, int] | None = None
    #: ``shapes`` as it was handed over: each ``add`` and ``extend`` is one run (a tuple), so a game that
    #: hands the same tuple of shapes again (a square's piece, kept by ``functools.cache``) lets a renderer
    #: tell what changed from the position before by looking at runs, not at every shape (issue 25: the
    #: PNG renderer's diff of Warp and Weft's 770 shapes was a sixth of its picture).  ``shapes`` is to be
    #: changed through ``add`` and ``extend`` only, so the runs are the shapes (a renderer that finds their
    #: count different looks at the shapes).
    runs: list[tuple[Shape, ...]] = field(default_factory=list, repr=False, compare=False)
    #: The runs of the first ``base_count`` shapes.
    base_runs: int = field(default=0, repr=False, compare=False)

    def mark_base(self, key: str) -> None:
        """Everything added so far is the same for every position of ``key``."""
        self.base_key, self.base_count, self.base_runs = key, len(self.shapes), len(self.runs)

    def add(self, *shapes: Shape) -> None:
        self.shapes.extend(shapes)
        if shapes:
            self.runs.append(shapes)

    def extend(self, shapes: Iterable[Shape]) -> None:
        """Add ``shapes``; hand the same tuple for the same shapes (see ``runs``)."""
        run = shapes if type(shapes) is tuple else tuple(shapes)
        self.shapes.extend(run)
        if run:
            self.runs.append(run)

    def extend_runs(self, runs: Iterable[tuple[Shape, ...]]) -> None:
        """Add each tuple of ``runs`` as one run: ``extend`` for each, in one call (a board of 200 kept
        squares handed square by square spent a third of its drawing in the calls).  The loops are C's
        (a comprehension and two ``extend``s): Warp and Weft hands ~600 runs a picture."""
        handed = [run for run in runs if run]
        self.runs.extend(handed)
        self.shapes.extend(chain.from_iterable(handed))

    def find(self, role: str = "", at: str = "") -> list[Shape]:
        """The shapes with that role and/or square (for tests and tools)."""
        return [s for s in self.shapes if (not role or s.role == role) and (not at or s.at == at)]


# -- small helpers the games share ---------------------------------------------

#: Fill colours of the usual "light" and "dark" piece sides.
LIGHT_PIECE = "#fbf7ea"
DARK_PIECE = "#2b2b2b"
#: The last-move highlight: a ring or frame in this colour on from/to squares.
HIGHLIGHT = "#f2b600"


def regular_polygon(cx: float, cy: float, r: float, n: int, rotation: float = -90.0) -> tuple[Point, ...]:
    """The corners of a regular ``n``-gon around (cx, cy); the first corner points up."""
    return tuple(
        (cx + r * math.cos(math.radians(rotation + 360 * i / n)), cy + r * math.sin(math.radians(rotation + 360 * i / n)))
        for i in range(n)
    )


def star(cx: float, cy: float, r: float, points: int = 5, inner: float = 0.45) -> tuple[Point, ...]:
    """A star polygon with ``points`` tips."""
    out = []
    for i in range(points * 2):
        rad = r if i % 2 == 0 else r * inner
        a = math.radians(-90 + 180 * i / points)
        out.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    return tuple(out)


def token(
    cx: float, cy: float, r: float, letter: str, dark: bool, at: str = "", fill: str | None = None
) -> list[Shape]:
    """A round piece with its letter: light or dark side, or a colour of its own."""
    body = fill or (DARK_PIECE if dark else LIGHT_PIECE)
    ink = "#ffffff" if (fill or dark) else "#111111"
    return [
        Circle(cx, cy, r, fill=body, stroke="#111111", width=1.5, role="piece", at=at),
        Text(cx, cy + 0.5, letter, size=r * 1.15, fill=ink, role="piece-letter", at=at),
    ]


def status_line(drawing: Drawing, text: str, y: float, size: float = 14.0, colour: str = "#111111") -> None:
    """A line of text across the picture (whose move, the result)."""
    drawing.add(Text(drawing.width / 2, y, text, size=size, fill=colour, role="status"))


def caption(game: object, state: object, players: list[str] | None) -> str:
    """Whose move it is, or the result, in the seat names the game uses.

    ``game`` is the plugin (duck-typed: this module sits below the contract).
    """
    names = game.seat_names(state)  # type: ignore[attr-defined]

    def who(seat: int) -> str:
        side = names[seat] if seat < len(names) else f"Player {seat + 1}"
        return f"{side} ({players[seat]})" if players and seat < len(players) else side

    out = game.outcome(state)  # type: ignore[attr-defined]
    if out is not None:
        if not out.winners:
            return f"Game over: a draw ({out.reason})"
        return f"Game over: {' and '.join(who(s) for s in out.winners)} won"
    seat = game.to_move(state)  # type: ignore[attr-defined]
    return "Game over" if seat is None else f"{who(seat)} to move"


def grid_labels(
    drawing: Drawing, x0: float, y0: float, cell: float, files: str, ranks: int, size: float = 13.0,
    flipped: bool = False,
) -> None:
    """File letters under and over a square grid, rank numbers left and right (rank 1 at the bottom;
    ``flipped``: the board turned for the second player, rank 1 at the top and the last file on the left)."""
    n = len(files)
    for i, letter in enumerate(files):
        x = x0 + ((n - 1 - i if flipped else i) + 0.5) * cell
        drawing.add(Text(x, y0 + ranks * cell + size * 0.9, letter, size=size, fill="#333333", role="label"),
                    Text(x, y0 - size * 0.8, letter, size=size, fill="#333333", role="label"))
    for r in range(ranks):
        y = y0 + ((r + 0.5) if flipped else (ranks - r - 0.5)) * cell
        drawing.add(Text(x0 - size * 0.8, y, str(r + 1), size=size, fill="#333333", role="label"),
                    Text(x0 + n * cell + size * 0.8, y, str(r + 1), size=size, fill="#333333", role="label"))
