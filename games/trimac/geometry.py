"""The TriMac 3 Friends board as precomputed tables (spec §2).

Three identical 69-point lattices (Red, Blue, Green) joined across a
three-way river.  Everything the move generator needs -- neighbours, lines
that bend and branch across the river, knight/banner/bishop paths with
their blocking points, pawn steps and their reverse tables -- is computed
once at import time, so move generation is table lookups only.

A point is an integer 0..206: ``lattice * 69 + local`` where ``local``
orders a lattice's points by file, then rank.  That order is also the
order the piece lists and the spec use ("by lattice, then file, then rank").
"""

from __future__ import annotations

LATTICES = "RBG"
COLOURS = "rbg"
SEAT_NAMES = ("Red", "Blue", "Green")
FILES = "abcdefghijk"
PER_LATTICE = 69
NPOINTS = 3 * PER_LATTICE

# -- orthogonal and diagonal directions (spec §2.2) -------------------------
N, NE, SE, S, SW, NW = range(6)
ORTHO = ((0, 2), (1, 1), (1, -1), (0, -2), (-1, -1), (-1, 1))
ORTHO_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
E_, NNE, NNW, W_, SSW, SSE = range(6)
DIAG = ((2, 0), (1, 3), (-1, 3), (-2, 0), (-1, -3), (1, -3))
DIAG_NAMES = ("E", "NNE", "NNW", "W", "SSW", "SSE")
#: The two diagonals 30 degrees either side of each orthogonal direction.
OUTWARD = ((NNW, NNE), (NNE, E_), (E_, SSE), (SSE, SSW), (SSW, W_), (W_, NNW))
#: Crossing the river turns (dx, dy) into (dx, -dy).
FLIP = (S, SE, NE, N, NW, SW)

#: The 12-point fortress kite of spec §2.5, in local coordinates.
FORTRESS_LOCAL = frozenset(
    [
        (0, 0),
        (-1, 1),
        (1, 1),
        (0, 2),
        (-1, 3),
        (1, 3),
        (0, 4),
        (-2, 4),
        (2, 4),
        (-1, 5),
        (1, 5),
        (0, 6),
    ]
)


def left(lattice: int) -> int:
    """The army across a lattice's left front: the next player in turn order."""
    return (lattice + 1) % 3


def right(lattice: int) -> int:
    """The army across a lattice's right front: the previous player."""
    return (lattice + 2) % 3


def _local_points() -> list[tuple[int, int]]:
    pts = []
    for x in range(-5, 6):
        for y in range(abs(x), 17 - abs(x), 2):
            pts.append((x, y))
    return pts


LOCAL: list[tuple[int, int]] = _local_points()
assert len(LOCAL) == PER_LATTICE
_LOCAL_INDEX = {xy: i for i, xy in enumerate(LOCAL)}

#: Per point: its lattice and local coordinates.
LATTICE_OF = tuple(p // PER_LATTICE for p in range(NPOINTS))
XY = tuple(LOCAL[p % PER_LATTICE] for p in range(NPOINTS))


def point(lattice: int, x: int, y: int) -> int:
    """The point at local (x, y) of ``lattice``, or -1 when there is none."""
    i = _LOCAL_INDEX.get((x, y))
    return -1 if i is None else lattice * PER_LATTICE + i


def _name(p: int) -> str:
    x, y = XY[p]
    return f"{LATTICES[LATTICE_OF[p]]}{FILES[x + 5]}{(y - abs(x)) // 2 + 1}"


NAMES = tuple(_name(p) for p in range(NPOINTS))
BY_NAME = {n.lower(): p for p, n in enumerate(NAMES)}
FILE_LENGTH = {FILES[x + 5]: (16 - 2 * abs(x)) // 2 + 1 for x in range(-5, 6)}


def is_front(p: int) -> bool:
    """The top point of a file: the edge that faces the river."""
    x, y = XY[p]
    return y == 16 - abs(x)


FORTRESS = tuple(frozenset(point(lat, x, y) for x, y in FORTRESS_LOCAL) for lat in range(3))
IN_FORTRESS = tuple(any(p in f for f in FORTRESS) for p in range(NPOINTS))


# -- step rules (spec §2.4) ---------------------------------------------------
def _ortho_step(p: int, d: int) -> tuple[tuple[int, int], ...]:
    """Orthogonal step from p in direction d: ((point, new direction), ...).

    Empty when the step leaves the board; two entries at an apex going N,
    where the f-file branches into both neighbours.
    """
    lat = LATTICE_OF[p]
    x, y = XY[p]
    dx, dy = ORTHO[d]
    q = point(lat, x + dx, y + dy)
    if q >= 0:
        return ((q, d),)
    if (x, y) == (0, 16):
        if d == N:
            return ((point(left(lat), 0, 16), S), (point(right(lat), 0, 16), S))
        if d == NW:
            return ((point(left(lat), 0, 16), SW),)
        if d == NE:
            return ((point(right(lat), 0, 16), SE),)
        return ()
    if is_front(p) and x < 0 and d in (N, NW):
        return ((point(left(lat), -x, y), FLIP[d]),)
    if is_front(p) and x > 0 and d in (N, NE):
        return ((point(right(lat), -x, y), FLIP[d]),)
    return ()


ORTHO_NEXT = tuple(tuple(_ortho_step(p, d) for d in range(6)) for p in range(NPOINTS))


def _diag_step(p: int, d: int) -> int:
    """Diagonal step: same lattice only (D5), else -1."""
    x, y = XY[p]
    dx, dy = DIAG[d]
    return point(LATTICE_OF[p], x + dx, y + dy)


DIAG_NEXT = tuple(tuple(_diag_step(p, d) for d in range(6)) for p in range(NPOINTS))


def _trace(p: int, d: int) -> list[tuple[int, ...]]:
    """Every line from p starting in direction d (two when it branches)."""
    rays: list[tuple[int, ...]] = []

    def go(prefix: tuple[int, ...], at: int, direction: int) -> None:
        nxt = ORTHO_NEXT[at][direction]
        if not nxt:
            if prefix:
                rays.append(prefix)
            return
        for q, d2 in nxt:
            go(prefix + (q,), q, d2)

    go((), p, d)
    return rays


#: RAYS[p] = ((start direction, line), ...) -- lines that branch appear twice
#: with a shared prefix, so users deduplicate destinations.
RAYS = tuple(tuple((d, ray) for d in range(6) for ray in _trace(p, d)) for p in range(NPOINTS))


def _knight(p: int) -> list[tuple[int, int]]:
    out = []
    for d in range(6):
        for leg, d2 in ORTHO_NEXT[p][d]:
            for dd in OUTWARD[d2]:
                q = DIAG_NEXT[leg][dd]
                if q >= 0:
                    out.append((leg, q))
    return out


def _banner(p: int) -> list[tuple[int, int, int]]:
    out = []
    for d in range(6):
        for l1, d1 in ORTHO_NEXT[p][d]:
            for l2, d2 in ORTHO_NEXT[l1][d1]:
                for dd in OUTWARD[d2]:
                    q = DIAG_NEXT[l2][dd]
                    if q >= 0:
                        out.append((l1, l2, q))
    return out


def _bishop(p: int) -> list[tuple[int, int]]:
    out = []
    for d in range(6):
        eye = DIAG_NEXT[p][d]
        if eye >= 0:
            q = DIAG_NEXT[eye][d]
            if q >= 0:
                out.append((eye, q))
    return out


#: (leg, target) per point; a target may appear twice via two legs.
KNIGHT = tuple(tuple(_knight(p)) for p in range(NPOINTS))
#: (first leg, second leg, target) per point.
BANNER = tuple(tuple(_banner(p)) for p in range(NPOINTS))
#: (eye, target) per point.
BISHOP = tuple(tuple(_bishop(p)) for p in range(NPOINTS))
#: General: one orthogonal step inside the fortress of the point's lattice.
GENERAL_STEPS = tuple(
    tuple(q for d in range(6) for q, _ in ORTHO_NEXT[p][d] if q in FORTRESS[LATTICE_OF[p]])
    if IN_FORTRESS[p]
    else ()
    for p in range(NPOINTS)
)
#: Guard: one diagonal step inside the fortress.
GUARD_STEPS = tuple(
    tuple(q for q in DIAG_NEXT[p] if q >= 0 and q in FORTRESS[LATTICE_OF[p]])
    if IN_FORTRESS[p]
    else ()
    for p in range(NPOINTS)
)


def _pawn(owner: int, p: int) -> tuple[int, ...]:
    """Pawn steps: N/NE/NW at home, S/SE/SW plus E/W abroad (D11)."""
    if LATTICE_OF[p] == owner:
        return tuple(q for d in (N, NE, NW) for q, _ in ORTHO_NEXT[p][d])
    steps = [q for d in (S, SE, SW) for q, _ in ORTHO_NEXT[p][d]]
    steps += [q for q in (DIAG_NEXT[p][E_], DIAG_NEXT[p][W_]) if q >= 0]
    return tuple(steps)


PAWN = tuple(tuple(_pawn(o, p) for p in range(NPOINTS)) for o in range(3))


def _reverse(table, arity: int):
    rev: list[list] = [[] for _ in range(NPOINTS)]
    for p in range(NPOINTS):
        for entry in table[p]:
            target = entry[-1] if arity else entry
            rev[target].append((p, *entry[:-1]) if arity else p)
    return tuple(tuple(r) for r in rev)


#: Reverse tables for attack detection: who could land on a point.
KNIGHT_FROM = _reverse(KNIGHT, 1)  # (source, leg)
BANNER_FROM = _reverse(BANNER, 1)  # (source, leg1, leg2)
PAWN_FROM = tuple(_reverse(PAWN[o], 0) for o in range(3))  # source


def _sensitive(g: int) -> frozenset[int]:
    """Points whose emptying could expose a General on g to attack.

    A move that neither starts on one of these points nor moves the General
    cannot put its own General in check, so the legality test can be skipped
    -- unless it lands on one of the General's lines, where it could become
    the screen of an enemy Cannon (see ``LINES``).
    """
    pts = {q for _, ray in RAYS[g] for q in ray}
    pts.update(leg for _, leg in KNIGHT_FROM[g])
    for _, l1, l2 in BANNER_FROM[g]:
        pts.add(l1)
        pts.add(l2)
    return frozenset(pts)


#: Every point on a line from a fortress point (where a Cannon screen matters).
LINES = tuple(
    frozenset(q for _, ray in RAYS[g] for q in ray) if IN_FORTRESS[g] else frozenset()
    for g in range(NPOINTS)
)
SENSITIVE = tuple(_sensitive(g) if IN_FORTRESS[g] else frozenset() for g in range(NPOINTS))


def _through(g: int) -> dict[int, tuple]:
    """For a General on g: per point, what a move from or to it can uncover.

    ``(rays through the point, knights using it as leg, banners using it as
    a leg)`` -- the only attacks a move of another own piece can open when
    the General was not in check before, so the legality test looks at
    these instead of scanning everything.
    """
    table: dict[int, tuple[list, list, list]] = {}

    def entry(q: int) -> tuple[list, list, list]:
        return table.setdefault(q, ([], [], []))

    for d, ray in RAYS[g]:
        for q in ray:
            if (d, ray) not in entry(q)[0]:
                entry(q)[0].append((d, ray))
    for src, leg in KNIGHT_FROM[g]:
        entry(leg)[1].append(src)
    for src, l1, l2 in BANNER_FROM[g]:
        entry(l1)[2].append((src, l1, l2))
        entry(l2)[2].append((src, l1, l2))
    return {q: (tuple(a), tuple(b), tuple(c)) for q, (a, b, c) in table.items()}


#: THROUGH[g][point] for fortress points g (see ``_through``).
THROUGH = tuple(_through(g) if IN_FORTRESS[g] else {} for g in range(NPOINTS))


# -- joins and the plane embedding (spec §2.4, §2.9) --------------------------
def joins() -> list[tuple[int, int]]:
    """The 18 joined pairs across the river: 6 per arm, apexes once per arm."""
    pairs = set()
    for p in range(NPOINTS):
        if not is_front(p):
            continue
        for d in range(6):
            for q, _ in ORTHO_NEXT[p][d]:
                if LATTICE_OF[q] != LATTICE_OF[p]:
                    pairs.add((min(p, q), max(p, q)))
    return sorted(pairs)


def cell(p: int) -> tuple[int, int]:
    """Text (row, column) of a point, centre at (0, 0) (spec §2.9)."""
    lat = LATTICE_OF[p]
    x, y = XY[p]
    if lat == 0:
        return 17 - y, 3 * x
    if lat == 1:
        return (3 * x + y - 17) // 2, (3 * (y - x - 17)) // 2
    return (y - 3 * x - 17) // 2, -((3 * (x + y - 17)) // 2)


CELLS = tuple(cell(p) for p in range(NPOINTS))
