"""The Weave & Dungeon board, coded once as data (spec section 1).

Everything the move generator needs is derived here from a single picture of
the board, :data:`BOARD_MAP`: which squares are cells, slopes and bridges,
which strand is on top at each bridge, the 25 segments, the step-downs of
segment stepping and, as a consequence, the pinwheel direction of each cell.
Nothing about the pinwheel is written by hand: it is read off the step-down
table, so the geometry cannot disagree with itself.

Squares are numbered ``rank * 9 + file`` with 0-based file (a=0) and rank
(1=0); White sits on rank 1.
"""

from __future__ import annotations

SIZE = 9
FILES = "abcdefghi"
SQUARES = range(SIZE * SIZE)

#: The board seen from above, rank 9 first (spec section 1.3).
#: ``V``/``H``: bridge with the vertical / horizontal strand on top;
#: ``|``/``-``: slope of a vertical / horizontal strand; ``#``: Dungeon cell.
BOARD_MAP = (
    "V-H-V-H-V",  # 9
    "|#|#|#|#|",  # 8
    "H-V-H-V-H",  # 7
    "|#|#|#|#|",  # 6
    "V-H-V-H-V",  # 5
    "|#|#|#|#|",  # 4
    "H-V-H-V-H",  # 3
    "|#|#|#|#|",  # 2
    "V-H-V-H-V",  # 1
)

CELL, SLOPE, BRIDGE = "cell", "slope", "bridge"


def square(file: int, rank: int) -> int:
    """Square number from 0-based file and rank."""
    return rank * SIZE + file


def file_of(sq: int) -> int:
    return sq % SIZE


def rank_of(sq: int) -> int:
    return sq // SIZE


def name(sq: int) -> str:
    """Algebraic name, e.g. ``e1``."""
    return f"{FILES[sq % SIZE]}{sq // SIZE + 1}"


def parse_square(text: str) -> int | None:
    """Square number of an algebraic name, or None if it is not one."""
    text = text.strip().lower()
    if len(text) != 2 or text[0] not in FILES or text[1] not in "123456789":
        return None
    return square(FILES.index(text[0]), int(text[1]) - 1)


def on_board(file: int, rank: int) -> bool:
    return 0 <= file < SIZE and 0 <= rank < SIZE


def offset(sq: int, df: int, dr: int) -> int | None:
    """The square ``(df, dr)`` away from ``sq``, or None off the board."""
    f, r = sq % SIZE + df, sq // SIZE + dr
    return square(f, r) if on_board(f, r) else None


# -- strands ----------------------------------------------------------------
# A strand is identified by an int: 0..8 = the vertical strand on that file,
# 9..17 = the horizontal strand on rank (id - 9).  Only odd files/ranks
# (0-based even) carry strands.


def vertical(file: int) -> int:
    return file


def horizontal(rank: int) -> int:
    return SIZE + rank


def strand_name(strand: int) -> str:
    """``file c`` / ``rank 3``."""
    if strand < SIZE:
        return f"file {FILES[strand]}"
    return f"rank {strand - SIZE + 1}"


def strand_line(strand: int) -> tuple[int, ...]:
    """Every square of the strand's line, in increasing file or rank order."""
    if strand < SIZE:
        return tuple(square(strand, r) for r in range(SIZE))
    return tuple(square(f, strand - SIZE) for f in range(SIZE))


def _build() -> None:
    for rank in range(SIZE):
        row = BOARD_MAP[SIZE - 1 - rank]
        for file in range(SIZE):
            sq = square(file, rank)
            ch = row[file]
            if ch == "#":
                KIND[sq] = CELL
            elif ch in "|-":
                KIND[sq] = SLOPE
                OWNER[sq] = vertical(file) if ch == "|" else horizontal(rank)
            elif ch in "VH":
                KIND[sq] = BRIDGE
                v, h = vertical(file), horizontal(rank)
                OWNER[sq], UNDER[sq] = (v, h) if ch == "V" else (h, v)
            else:  # pragma: no cover - the map is fixed
                raise AssertionError(f"bad map character {ch!r}")
    # Segments: maximal runs of a strand's own squares, cut at its troughs.
    for strand in [vertical(f) for f in range(0, SIZE, 2)] + [
        horizontal(r) for r in range(0, SIZE, 2)
    ]:
        run: list[int] = []
        for sq in strand_line(strand) + (-1,):
            if sq >= 0 and OWNER.get(sq) == strand:
                run.append(sq)
                continue
            if run:
                seg = tuple(run)
                bridges = [q for q in seg if KIND[q] == BRIDGE]
                assert len(bridges) == 1, seg
                for q in seg:
                    SEGMENT[q] = seg
                SEGMENTS.append(seg)
                SEG_BRIDGE[seg] = bridges[0]
                run = []
    # Step-downs: from a bridge onto its normal slopes, then along the new
    # segment away from the bridge (spec 1.6).
    for b in (q for q in SQUARES if KIND[q] == BRIDGE):
        under = UNDER[b]
        line = strand_line(under)
        i = line.index(b)
        steps = []
        for j in (i - 1, i + 1):
            if 0 <= j < SIZE:
                s2 = line[j]
                seg = SEGMENT[s2]
                walk = seg if seg[0] == s2 else tuple(reversed(seg))
                assert walk[0] == s2
                steps.append((s2, walk))
        STEP_DOWN[b] = tuple(steps)
    # Pinwheel, read off the step-downs around each cell.
    for c in (q for q in SQUARES if KIND[q] == CELL):
        ring = {
            q
            for q in (offset(c, df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1))
            if q is not None
        }
        signs = set()
        for b in ring:
            if KIND[b] != BRIDGE:
                continue
            for s2, _walk in STEP_DOWN[b]:
                if s2 in ring:
                    bx, by = file_of(b) - file_of(c), rank_of(b) - rank_of(c)
                    sx, sy = file_of(s2) - file_of(c), rank_of(s2) - rank_of(c)
                    signs.add(1 if bx * sy - by * sx > 0 else -1)
        assert len(signs) == 1, (name(c), signs)
        PINWHEEL[c] = "counterclockwise" if signs.pop() > 0 else "clockwise"


KIND: dict[int, str] = {}
#: The strand a Weave square belongs to (for a bridge: the strand on top).
OWNER: dict[int, int] = {}
#: For a bridge: the strand passing underneath it.
UNDER: dict[int, int] = {}
#: Weave square -> its segment (a tuple of squares in line order).
SEGMENT: dict[int, tuple[int, ...]] = {}
SEGMENTS: list[tuple[int, ...]] = []
SEG_BRIDGE: dict[tuple[int, ...], int] = {}
#: Bridge -> ((normal slope, walk of the new segment starting there), ...).
STEP_DOWN: dict[int, tuple[tuple[int, tuple[int, ...]], ...]] = {}
#: Cell -> "clockwise" / "counterclockwise": the only way segment steppers go round it.
PINWHEEL: dict[int, str] = {}

_build()

CELLS = tuple(q for q in SQUARES if KIND[q] == CELL)
BRIDGES = tuple(q for q in SQUARES if KIND[q] == BRIDGE)
SLOPES = tuple(q for q in SQUARES if KIND[q] == SLOPE)


def is_cell(sq: int) -> bool:
    return KIND[sq] == CELL


def is_weave(sq: int) -> bool:
    return KIND[sq] != CELL


def segment_bridge(sq: int) -> int:
    """The crest of the segment ``sq`` lies in."""
    return SEG_BRIDGE[SEGMENT[sq]]


def normal_slopes(bridge: int) -> tuple[int, ...]:
    """The bridge's neighbours on the strand passing under it."""
    return tuple(s2 for s2, _ in STEP_DOWN[bridge])


def segment_text(seg: tuple[int, ...]) -> str:
    """``[b1 c1 d1]``."""
    return "[" + " ".join(name(q) for q in seg) + "]"


def is_step(a: int, b: int) -> bool:
    """Whether moving between orthogonal neighbours ``a``/``b`` is a step.

    Only a continuous bridge-slope pair (the same segment) is a slide; a
    normal bridge-slope pair and any Weave-Dungeon move is a step (1.5).
    """
    if KIND[a] == CELL or KIND[b] == CELL:
        return True
    return SEGMENT[a] is not SEGMENT[b]


def describe(sq: int) -> str:
    """What a square is, in the game's words (for messages and help)."""
    kind = KIND[sq]
    if kind == CELL:
        return f"{name(sq)} is a Dungeon cell"
    if kind == SLOPE:
        return f"{name(sq)} is a slope of {strand_name(OWNER[sq])}"
    return (
        f"{name(sq)} is a bridge: {strand_name(OWNER[sq])} on top, "
        f"{strand_name(UNDER[sq])} underneath"
    )
