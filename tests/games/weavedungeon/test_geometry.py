"""The board of spec section 1, checked against the spec's own tables."""

from __future__ import annotations

import pytest

from games.weavedungeon import geometry as g
from games.weavedungeon.moves import STAR, TEMPLATES, code
from tests.games.weavedungeon.helpers import words

V_ON_TOP = words("a1 e1 i1 c3 g3 a5 e5 i5 c7 g7 a9 e9 i9")
H_ON_TOP = words("c1 g1 a3 e3 i3 c5 g5 a7 e7 i7 c9 g9")

# Spec 1.4, bridges marked with *.
SEGMENTS = """
*a1 a2 | a4 *a5 a6 | a8 *a9
c2 *c3 c4 | c6 *c7 c8
*e1 e2 | e4 *e5 e6 | e8 *e9
g2 *g3 g4 | g6 *g7 g8
*i1 i2 | i4 *i5 i6 | i8 *i9
b1 *c1 d1 | f1 *g1 h1
*a3 b3 | d3 *e3 f3 | h3 *i3
b5 *c5 d5 | f5 *g5 h5
*a7 b7 | d7 *e7 f7 | h7 *i7
b9 *c9 d9 | f9 *g9 h9
"""

# Spec 1.6: bridge -> (normal slope, new segment) pairs.
STEP_DOWNS = """
a1: b1=b1 c1 d1
c1: c2=c2 c3 c4
e1: d1=b1 c1 d1; f1=f1 g1 h1
g1: g2=g2 g3 g4
i1: h1=f1 g1 h1
a3: a2=a1 a2; a4=a4 a5 a6
c3: b3=a3 b3; d3=d3 e3 f3
e3: e2=e1 e2; e4=e4 e5 e6
g3: f3=d3 e3 f3; h3=h3 i3
i3: i2=i1 i2; i4=i4 i5 i6
a5: b5=b5 c5 d5
c5: c4=c2 c3 c4; c6=c6 c7 c8
e5: d5=b5 c5 d5; f5=f5 g5 h5
g5: g4=g2 g3 g4; g6=g6 g7 g8
i5: h5=f5 g5 h5
a7: a6=a4 a5 a6; a8=a8 a9
c7: b7=a7 b7; d7=d7 e7 f7
e7: e6=e4 e5 e6; e8=e8 e9
g7: f7=d7 e7 f7; h7=h7 i7
i7: i6=i4 i5 i6; i8=i8 i9
a9: b9=b9 c9 d9
c9: c8=c6 c7 c8
e9: d9=b9 c9 d9; f9=f9 g9 h9
g9: g8=g6 g7 g8
i9: h9=f9 g9 h9
"""

# Spec 1.7.
PINWHEEL = """
b8 cw d8 ccw f8 cw h8 ccw
b6 ccw d6 cw f6 ccw h6 cw
b4 cw d4 ccw f4 cw h4 ccw
b2 ccw d2 cw f2 ccw h2 cw
"""

# Spec 1.2: over/under along each strand.
PATTERNS = {
    "a": "OuOuO", "c": "uOuOu", "e": "OuOuO", "g": "uOuOu", "i": "OuOuO",
    "1": "uOuOu", "3": "OuOuO", "5": "uOuOu", "7": "OuOuO", "9": "uOuOu",
}  # fmt: skip


def sq(name: str) -> int:
    s = g.parse_square(name)
    assert s is not None
    return s


def test_square_kinds_and_counts():
    assert len(g.CELLS) == 16 and len(g.BRIDGES) == 25 and len(g.SLOPES) == 40
    assert {g.name(c) for c in g.CELLS} == {f + r for f in "bdfh" for r in "2468"}
    for s in g.SQUARES:
        f, r = g.file_of(s) + 1, g.rank_of(s) + 1
        kind = g.CELL if f % 2 == 0 and r % 2 == 0 else g.BRIDGE if f % 2 and r % 2 else g.SLOPE
        assert g.KIND[s] == kind, g.name(s)


def test_which_strand_is_on_top():
    assert sorted(g.name(b) for b in g.BRIDGES if g.OWNER[b] < 9) == sorted(V_ON_TOP)
    assert sorted(g.name(b) for b in g.BRIDGES if g.OWNER[b] >= 9) == sorted(H_ON_TOP)
    for b in g.BRIDGES:
        f, r = g.file_of(b) + 1, g.rank_of(b) + 1
        assert (g.OWNER[b] < 9) == ((f + r) % 4 == 2)
        assert {g.OWNER[b], g.UNDER[b]} == {g.file_of(b), 9 + g.rank_of(b)}


@pytest.mark.parametrize("strand, pattern", list(PATTERNS.items()))
def test_over_under_pattern(strand, pattern):
    s = g.vertical("abcdefghi".index(strand)) if strand.isalpha() else g.horizontal(int(strand) - 1)
    crossings = [q for q in g.strand_line(s) if g.KIND[q] == g.BRIDGE]
    assert "".join("O" if g.OWNER[q] == s else "u" for q in crossings) == pattern


def test_slope_ownership():
    for s in g.SLOPES:
        if g.file_of(s) % 2 == 0:  # odd file letter: vertical strand
            assert g.OWNER[s] == g.file_of(s)
        else:
            assert g.OWNER[s] == 9 + g.rank_of(s)
    assert g.strand_name(g.OWNER[sq("c4")]) == "file c"
    assert g.strand_name(g.OWNER[sq("h7")]) == "rank 7"


def test_the_25_segments():
    expected = set()
    bridges = {}
    for line in SEGMENTS.strip().splitlines():
        for part in line.split("|"):
            names = part.split()
            seg = frozenset(sq(n.lstrip("*")) for n in names)
            expected.add(seg)
            bridges[seg] = sq(next(n for n in names if n.startswith("*"))[1:])
    assert len(expected) == 25
    assert {frozenset(s) for s in g.SEGMENTS} == expected
    for seg in g.SEGMENTS:
        assert g.SEG_BRIDGE[seg] == bridges[frozenset(seg)]
        assert 2 <= len(seg) <= 3
    # Every Weave square is in exactly one segment; cells in none.
    assert sorted(q for s in g.SEGMENTS for q in s) == sorted(g.BRIDGES + g.SLOPES)


def test_step_down_table():
    for line in STEP_DOWNS.strip().splitlines():
        bridge, rest = line.split(":")
        expected = {}
        for item in rest.split(";"):
            slope, seg = item.split("=")
            expected[sq(slope.strip())] = frozenset(sq(n) for n in seg.split())
        got = {s2: frozenset(walk) for s2, walk in g.STEP_DOWN[sq(bridge)]}
        assert got == expected, bridge
        for s2, walk in g.STEP_DOWN[sq(bridge)]:
            assert walk[0] == s2  # the walk starts next to the trough under the bridge


def test_pinwheel_directions_as_the_spec_states():
    words = PINWHEEL.split()
    table = dict(zip(words[::2], words[1::2], strict=True))
    assert len(table) == 16
    for cell, d in table.items():
        assert g.PINWHEEL[sq(cell)] == ("counterclockwise" if d == "ccw" else "clockwise")
        f, r = g.file_of(sq(cell)) + 1, g.rank_of(sq(cell)) + 1
        assert (d == "ccw") == ((f + r) % 4 == 0)


def _turn(c, a, b):
    ax, ay = g.file_of(a) - g.file_of(c), g.rank_of(a) - g.rank_of(c)
    bx, by = g.file_of(b) - g.file_of(c), g.rank_of(b) - g.rank_of(c)
    return "counterclockwise" if ax * by - ay * bx > 0 else "clockwise"


def test_pinwheel_follows_from_the_star_moves():
    """Star moves between neighbouring ring squares of a cell go one way only."""
    star = code(STAR, 0)
    for c in g.CELLS:
        ring = [
            q
            for q in g.BRIDGES + g.SLOPES
            if max(abs(g.file_of(q) - g.file_of(c)), abs(g.rank_of(q) - g.rank_of(c))) == 1
        ]
        assert len(ring) == 8
        seen = 0
        for a in ring:
            for t in TEMPLATES[star][a]:
                b = t.dest
                if (
                    b in ring
                    and abs(g.file_of(a) - g.file_of(b)) + abs(g.rank_of(a) - g.rank_of(b)) == 1
                ):
                    seen += 1
                    assert _turn(c, a, b) == g.PINWHEEL[c], (g.name(c), g.name(a), g.name(b))
        assert seen >= 4  # each corner bridge's step-down (plus slide+step pairs)


def test_mirror_symmetry():
    for s in g.SQUARES:
        f, r = g.file_of(s), g.rank_of(s)
        for m in (g.square(8 - f, r), g.square(f, 8 - r)):
            assert g.KIND[m] == g.KIND[s]
            if g.KIND[s] == g.BRIDGE:
                assert (g.OWNER[m] < 9) == (g.OWNER[s] < 9)


def test_neighbourhoods():
    for c in g.CELLS:
        for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            assert g.KIND[g.offset(c, df, dr)] == g.BRIDGE
        for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            assert g.KIND[g.offset(c, df, dr)] == g.SLOPE
    for b in g.BRIDGES:
        for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = g.offset(b, df, dr)
            assert q is None or g.KIND[q] == g.SLOPE


def test_slide_or_step():
    assert not g.is_step(sq("a1"), sq("a2"))  # continuous: same segment
    assert g.is_step(sq("a2"), sq("a3"))  # normal: file a passes under a3
    assert g.is_step(sq("b1"), sq("b2"))  # slope to cell
    assert not g.is_step(sq("c2"), sq("c3"))
    assert g.is_step(sq("b1"), sq("a1")) and not g.is_step(sq("b1"), sq("c1"))
