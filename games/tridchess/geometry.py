"""Cells, pins and the per-configuration geometry of Tri-D chess (spec §1, §4.1).

A cell is an int ``h * 60 + y * 6 + x`` (file x 0..5 = z..e, rank y 0..9,
layer h 0..6).  Which cells *exist* depends only on the set of occupied pin
positions, so everything derived from it (the level lists per column, the
slider rays, the knight and king targets, the pawn steps) lives in a
:class:`Geometry` that is cached per pin mask.  Move generation is then table
lookups; an attack-board move just switches to another cached geometry.
"""

from __future__ import annotations

from itertools import permutations, product

FILES = "zabcde"
NX, NY, NH = 6, 10, 7
NCELLS = NX * NY * NH


def cell(x: int, y: int, h: int) -> int:
    return h * 60 + y * 6 + x


XYZ: list[tuple[int, int, int]] = [(c % 6, (c // 6) % 10, c // 60) for c in range(NCELLS)]

# -- main boards: name -> (layer, first rank); files a..d (x 1..4) ---------
MAIN_BOARDS: dict[str, tuple[int, int]] = {"W": (1, 1), "N": (3, 3), "B": (5, 5)}
MAIN_BY_LAYER = {layer: name for name, (layer, _y0) in MAIN_BOARDS.items()}

# -- the 24 pin positions (spec §1.3) ---------------------------------------
_PIN_Y0 = {1: 0, 2: 4, 3: 2, 4: 6, 5: 4, 6: 8}
_PIN_UP_LAYER = {1: 2, 2: 2, 3: 4, 4: 4, 5: 6, 6: 6}
SIDE_FILES = ((0, 1), (4, 5))  # queen's side z,a ; king's side d,e


def pin_index(side: int, n: int, inv: int) -> int:
    return side * 12 + (n - 1) * 2 + inv


PIN_NAME: list[str] = [""] * 24
PIN_SIDE: list[int] = [0] * 24
PIN_N: list[int] = [0] * 24
PIN_INV: list[int] = [0] * 24
PIN_LAYER: list[int] = [0] * 24
PIN_Y0: list[int] = [0] * 24
PIN_CELLS: list[tuple[int, ...]] = [()] * 24
for _s, _n, _i in product((0, 1), range(1, 7), (0, 1)):
    _p = pin_index(_s, _n, _i)
    PIN_NAME[_p] = ("QL" if _s == 0 else "KL") + str(_n) + ("i" if _i else "")
    PIN_SIDE[_p], PIN_N[_p], PIN_INV[_p] = _s, _n, _i
    PIN_LAYER[_p] = _PIN_UP_LAYER[_n] - 2 * _i
    PIN_Y0[_p] = _PIN_Y0[_n]
    PIN_CELLS[_p] = tuple(
        cell(x, y, PIN_LAYER[_p]) for y in (PIN_Y0[_p], PIN_Y0[_p] + 1) for x in SIDE_FILES[_s]
    )
PIN_BY_NAME = {name.lower(): p for p, name in enumerate(PIN_NAME)}
#: cell -> the pin whose attack board would hold it (AB layers only)
PIN_OF_CELL: dict[int, int] = {c: p for p in range(24) for c in PIN_CELLS[p]}

# -- attack-board adjacency (spec §3.1 A4, table §3.2) ----------------------


def _adjacency(p: int) -> list[tuple[int, str]]:
    """Nearest pin along the ranks either way, the sideways twin, the flip."""
    side, layer, y0 = PIN_SIDE[p], PIN_LAYER[p], PIN_Y0[p]
    same = sorted(
        (PIN_Y0[q], q)
        for q in range(24)
        if q != p and PIN_SIDE[q] == side and PIN_LAYER[q] == layer
    )
    out: list[tuple[int, str]] = []
    below = [q for y, q in same if y < y0]
    above = [q for y, q in same if y > y0]
    if below:
        out.append((below[-1], "rank"))
    if above:
        out.append((above[0], "rank"))
    out.append((pin_index(1 - side, PIN_N[p], PIN_INV[p]), "side"))
    out.append((pin_index(side, PIN_N[p], 1 - PIN_INV[p]), "flip"))
    return out


PIN_ADJ: list[list[tuple[int, str]]] = [_adjacency(p) for p in range(24)]

# -- square names (spec §1.5) -------------------------------------------------
SQ_NAME: dict[int, str] = {}
for _name, (_layer, _y0) in MAIN_BOARDS.items():
    for _y in range(_y0, _y0 + 4):
        for _x in range(1, 5):
            SQ_NAME[cell(_x, _y, _layer)] = f"{FILES[_x]}{_y}{_name}"
for _p in range(24):
    for _c in PIN_CELLS[_p]:
        _x, _y, _h = XYZ[_c]
        SQ_NAME[_c] = f"{FILES[_x]}{_y}{PIN_NAME[_p]}"
SQ_BY_NAME = {name.lower(): c for c, name in SQ_NAME.items()}


def main_layers(x: int, y: int) -> tuple[int, ...]:
    out = []
    for layer, y0 in MAIN_BOARDS.values():
        if 1 <= x <= 4 and y0 <= y < y0 + 4:
            out.append(layer)
    return tuple(sorted(out))


_MAIN_COLS = [main_layers(col % 6, col // 6) for col in range(60)]

# -- direction sets (spec §4.2) ----------------------------------------------
DIRS: list[tuple[int, int, int]] = [d for d in product((-1, 0, 1), repeat=3) if d != (0, 0, 0)]
DIR_INDEX = {d: i for i, d in enumerate(DIRS)}
ROOK_DIRS = tuple(i for i, (dx, dy, _dz) in enumerate(DIRS) if dx == 0 or dy == 0)
BISHOP_DIRS = tuple(i for i, (dx, dy, _dz) in enumerate(DIRS) if dx != 0 and dy != 0)
QUEEN_DIRS = tuple(range(len(DIRS)))
KNIGHT_VECTORS: list[tuple[int, int, int]] = sorted(
    {
        (a * sa, b * sb, c * sc)
        for a, b, c in permutations((2, 1, 0))
        for sa, sb, sc in product((1, -1), repeat=3)
    }
)
assert len(ROOK_DIRS) == 14 and len(BISHOP_DIRS) == 12 and len(KNIGHT_VECTORS) == 24

# Level tables: for a column's tuple of existing layers, for each h, the layer
# reached by dz = -2..+2 levels (-1 = none).  Shared by all configurations.
_LVL_CACHE: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}


def _level_table(layers: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    tab = _LVL_CACHE.get(layers)
    if tab is None:
        rows = []
        for h in range(NH):
            below = [lv for lv in layers if lv < h]
            above = [lv for lv in layers if lv > h]
            rows.append(
                (
                    below[-2] if len(below) >= 2 else -1,
                    below[-1] if below else -1,
                    h if h in layers else -1,
                    above[0] if above else -1,
                    above[1] if len(above) >= 2 else -1,
                )
            )
        tab = _LVL_CACHE[layers] = tuple(rows)
    return tab


class Geometry:
    """Which cells exist, and the lines through them, for one pin mask.

    The column tables are built eagerly (60 lookups); rays and step targets
    are filled in lazily per cell, because a configuration reached only to
    test an attack-board move's legality needs a handful of cells at most.
    """

    __slots__ = ("mask", "cols", "exists", "_rays", "_knight", "_king", "_pawn")

    def __init__(self, mask: int) -> None:
        self.mask = mask
        extra: list[list[int]] = [[] for _ in range(60)]
        for p in range(24):
            if mask >> p & 1:
                for c in PIN_CELLS[p]:
                    x, y, h = XYZ[c]
                    extra[y * 6 + x].append(h)
        self.cols = [
            _level_table(tuple(sorted(_MAIN_COLS[i] + tuple(extra[i])))) for i in range(60)
        ]
        ex = set()
        for i in range(60):
            for h in range(NH):
                if self.cols[i][h][2] >= 0:
                    ex.add(h * 60 + i)
        self.exists = frozenset(ex)
        self._rays: dict[int, tuple[int, ...]] = {}
        self._knight: dict[int, tuple[int, ...]] = {}
        self._king: dict[int, tuple[int, ...]] = {}
        self._pawn: dict[int, tuple] = {}

    def step(self, c: int, dx: int, dy: int, dz: int) -> int:
        """The cell one step away (dz counted in levels of the target column), or -1."""
        x, y, h = XYZ[c]
        nx, ny = x + dx, y + dy
        if not (0 <= nx < NX and 0 <= ny < NY):
            return -1
        col = ny * 6 + nx
        layer = self.cols[col][h][dz + 2]
        return -1 if layer < 0 else layer * 60 + col

    def ray(self, c: int, d: int) -> tuple[int, ...]:
        """Cells a slider on ``c`` passes in direction ``d``, up to the first missing cell."""
        key = c * 26 + d
        r = self._rays.get(key)
        if r is None:
            dx, dy, dz = DIRS[d]
            out = []
            cur = self.step(c, dx, dy, dz)
            while cur >= 0:
                out.append(cur)
                cur = self.step(cur, dx, dy, dz)
            r = self._rays[key] = tuple(out)
        return r

    def knight(self, c: int) -> tuple[int, ...]:
        r = self._knight.get(c)
        if r is None:
            r = tuple(t for t in (self.step(c, *v) for v in KNIGHT_VECTORS) if t >= 0)
            self._knight[c] = r
        return r

    def king(self, c: int) -> tuple[int, ...]:
        r = self._king.get(c)
        if r is None:
            r = tuple(t for t in (self.step(c, *d) for d in DIRS) if t >= 0)
            self._king[c] = r
        return r

    def pawn(self, c: int, black: bool) -> tuple:
        """(forward, double, vertical, forward+vertical, captures) for a pawn (§4.3).

        ``double`` is -1 unless both cells of the in-layer double step exist.
        """
        key = c * 2 + black
        r = self._pawn.get(key)
        if r is None:
            f, v = (-1, -1) if black else (1, 1)
            fwd = self.step(c, 0, f, 0)
            dbl = self.step(fwd, 0, f, 0) if fwd >= 0 else -1
            up = self.step(c, 0, 0, v)
            fup = self.step(c, 0, f, v)
            caps = tuple(
                t for t in (self.step(c, dx, f, dz) for dx in (-1, 1) for dz in (0, v)) if t >= 0
            )
            r = self._pawn[key] = (fwd, dbl, up, fup, caps)
        return r


_GEO_CACHE: dict[int, Geometry] = {}
_GEO_LIMIT = 4096


def geometry(mask: int) -> Geometry:
    """The cached geometry for a pin mask (bit p set = an AB stands on pin p)."""
    g = _GEO_CACHE.get(mask)
    if g is None:
        if len(_GEO_CACHE) >= _GEO_LIMIT:
            _GEO_CACHE.clear()
        g = _GEO_CACHE[mask] = Geometry(mask)
    return g


def pin_mask(pins: tuple[int, ...]) -> int:
    m = 0
    for p in pins:
        m |= 1 << p
    return m
