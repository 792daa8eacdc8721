"""Board geometry of Warp and Weft, precomputed once per size as tables.

The labelled board of size N is a (4N-1) x (4N-1) grid of squares, columns
``A``.. and rows ``1``.. (x, y = 0..4N-2), with an unlabelled rim of one
square on every side (x or y = -1 or 4N-1) that only thread stubs occupy.
Every labelled square belongs to exactly one *region* (spec 1.1):

* x odd, y odd: a patch, named by its square;
* x even, y even: the centre of a thread; the thread is Warp (vertical,
  three squares tall) iff x + y == 2 (mod 4), else Weft (horizontal);
* the remaining squares are the arms of the thread next to them.

Everything the rules and the renderer need (region kinds, names, the square
map including the rim, edge-adjacency, the sides each player connects) is a
table on :class:`Geometry`, so play never recomputes geometry.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

#: Region kinds.  The thread kinds equal the side that may claim them.
WARP = 0
WEFT = 1
PATCH = 2
#: The region id of squares outside every region (the rim corners etc.).
OUT = -1

SIZES = range(2, 7)
KIND_NAMES = {WARP: "Warp thread", WEFT: "Weft thread", PATCH: "patch"}


def column_letter(x: int) -> str:
    return chr(ord("A") + x)


def square_name(x: int, y: int) -> str:
    """``(0, 0)`` is ``A1``; rows count from the bottom."""
    return f"{column_letter(x)}{y + 1}"


class Geometry:
    """All tables for one board size.  Build through :func:`geometry`."""

    def __init__(self, size: int) -> None:
        if size not in SIZES:
            raise ValueError(f"size must be 2..6, not {size}")
        self.size = size
        #: Number of labelled columns (= rows).
        self.span = span = 4 * size - 1
        #: Region ids in board order: row 1 first, left to right.
        kinds: list[int] = []
        names: list[str] = []
        centres: list[tuple[int, int]] = []
        #: square (x, y) -> region id, for every square of the drawn grid
        #: (x, y = -1..span); squares in no region map to OUT.
        squares: dict[tuple[int, int], int] = {
            (x, y): OUT for x in range(-1, span + 1) for y in range(-1, span + 1)
        }
        for y in range(span):
            for x in range(span):
                if x % 2 == 1 and y % 2 == 1:
                    kind, cells = PATCH, [(x, y)]
                elif x % 2 == 0 and y % 2 == 0:
                    if (x + y) % 4 == 2:
                        kind, cells = WARP, [(x, y - 1), (x, y), (x, y + 1)]
                    else:
                        kind, cells = WEFT, [(x - 1, y), (x, y), (x + 1, y)]
                else:
                    continue
                rid = len(kinds)
                kinds.append(kind)
                names.append(square_name(x, y))
                centres.append((x, y))
                for cell in cells:
                    assert squares[cell] == OUT, (cell, names[-1])
                    squares[cell] = rid
        self.kinds: tuple[int, ...] = tuple(kinds)
        self.names: tuple[str, ...] = tuple(names)
        self.centres: tuple[tuple[int, int], ...] = tuple(centres)
        self.squares = squares
        self.count = len(kinds)
        #: name of a centre or patch square -> region id
        self.by_name: dict[str, int] = {n: i for i, n in enumerate(names)}
        #: name of an arm square -> region id of its thread
        self.arms: dict[str, int] = {
            square_name(x, y): rid
            for (x, y), rid in squares.items()
            if rid != OUT and 0 <= x < span and 0 <= y < span and (x, y) != centres[rid]
        }

        neighbours: list[set[int]] = [set() for _ in kinds]
        for (x, y), rid in squares.items():
            if rid == OUT:
                continue
            for other in ((x + 1, y), (x, y + 1)):
                oid = squares.get(other, OUT)
                if oid not in (OUT, rid):
                    neighbours[rid].add(oid)
                    neighbours[oid].add(rid)
        #: region id -> every region sharing an edge with it, in board order
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(n)) for n in neighbours)
        #: region id -> the neighbouring patches (threads) / threads (patches)
        self.patches_of: tuple[tuple[int, ...], ...] = tuple(
            tuple(n for n in nb if kinds[n] == PATCH) for nb in self.neighbours
        )
        self.threads_of: tuple[tuple[int, ...], ...] = tuple(
            tuple(n for n in nb if kinds[n] != PATCH) for nb in self.neighbours
        )
        #: kind -> region ids of that kind, in board order
        self.of_kind: dict[int, tuple[int, ...]] = {
            k: tuple(i for i, kk in enumerate(kinds) if kk == k) for k in (WARP, WEFT, PATCH)
        }

        # Sides (spec 1.4): the threads whose stubs stick out of that edge.
        def stubs(pred: Callable[[int, int], bool]) -> frozenset[int]:
            return frozenset(rid for (x, y), rid in squares.items() if rid != OUT and pred(x, y))

        #: side -> (first edge, second edge) as sets of thread ids:
        #: Warp top and bottom, Weft left and right.
        self.edges: tuple[tuple[frozenset[int], frozenset[int]], ...] = (
            (stubs(lambda x, y: y == span), stubs(lambda x, y: y == -1)),
            (stubs(lambda x, y: x == -1), stubs(lambda x, y: x == span)),
        )
        for side, pair in enumerate(self.edges):
            for edge in pair:
                assert len(edge) == size and all(kinds[r] == side for r in edge)

    def in_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.span and 0 <= y < self.span

    @property
    def last_letter(self) -> str:
        return column_letter(self.span - 1)


@cache
def geometry(size: int) -> Geometry:
    """The (shared, read-only) tables for board size ``size``."""
    return Geometry(size)
