"""Board geometry: spec §2, test cases T1, T2 and the cell formulas of T25."""

from __future__ import annotations

import pytest

from games.trimac import geometry as g
from games.trimac.geometry import BY_NAME, NAMES

ORTHO = dict(zip(g.ORTHO_NAMES, range(6), strict=True))
DIAG = dict(zip(g.DIAG_NAMES, range(6), strict=True))


def pt(name: str) -> int:
    return BY_NAME[name.lower()]


def step(name: str, d: str) -> set[tuple[str, str]]:
    return {(NAMES[q], g.ORTHO_NAMES[d2]) for q, d2 in g.ORTHO_NEXT[pt(name)][ORTHO[d]]}


def test_direction_names_and_vectors_are_the_spec_tables() -> None:
    """§2.2's tables, name by name (the other tests look directions up by name)."""
    assert dict(zip(g.ORTHO_NAMES, g.ORTHO, strict=True)) == {
        "N": (0, 2), "NE": (1, 1), "SE": (1, -1), "S": (0, -2), "SW": (-1, -1), "NW": (-1, 1),
    }
    assert dict(zip(g.DIAG_NAMES, g.DIAG, strict=True)) == {
        "E": (2, 0), "NNE": (1, 3), "NNW": (-1, 3), "W": (-2, 0), "SSW": (-1, -3), "SSE": (1, -3),
    }


def test_t1_point_counts() -> None:
    assert g.NPOINTS == 207
    for lat in range(3):
        pts = [p for p in range(207) if g.LATTICE_OF[p] == lat]
        assert len(pts) == 69
        lengths = [sum(1 for p in pts if NAMES[p][1] == f) for f in "abcdefghijk"]
        assert lengths == [4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4]
        assert len(g.FORTRESS[lat]) == 12
        assert len([p for p in pts if g.is_front(p)]) == 11
    assert len(set(NAMES)) == 207


def test_t1_front_points_and_joins() -> None:
    fronts = sorted(NAMES[p][1:] for p in range(69) if g.is_front(p))
    assert fronts == sorted(["a4", "b5", "c6", "d7", "e8", "f9", "g8", "h7", "i6", "j5", "k4"])
    pairs = {frozenset((NAMES[a], NAMES[b])) for a, b in g.joins()}
    assert len(pairs) == 18
    spec = (
        "Ra4-Bk4 Rb5-Bj5 Rc6-Bi6 Rd7-Bh7 Re8-Bg8 Rf9-Bf9 "
        "Ba4-Gk4 Bb5-Gj5 Bc6-Gi6 Bd7-Gh7 Be8-Gg8 Bf9-Gf9 "
        "Ga4-Rk4 Gb5-Rj5 Gc6-Ri6 Gd7-Rh7 Ge8-Rg8 Gf9-Rf9"
    )
    assert pairs == {frozenset(p.split("-")) for p in spec.split()}


def test_fortress_is_the_kite_of_d6() -> None:
    for lat in "RBG":
        names = {NAMES[p] for p in g.FORTRESS["RBG".index(lat)]}
        assert names == {
            lat + s
            for s in ["f1", "e1", "g1", "f2", "e2", "g2", "f3", "d2", "h2", "e3", "g3", "f4"]
        }


def _guard_reach(start: str) -> set[str]:
    seen = {pt(start)}
    todo = [pt(start)]
    while todo:
        p = todo.pop()
        for q in g.GUARD_STEPS[p]:
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return {NAMES[p] for p in seen}


def test_f7_guard_points() -> None:
    assert _guard_reach("Re1") == {"Re1", "Rg1", "Rf3", "Rd2", "Rh2"}
    assert _guard_reach("Rg1") == {"Re1", "Rg1", "Rf3", "Rd2", "Rh2"}
    assert _guard_reach("Rf4") == {"Rf4", "Re2", "Rg2", "Rf1"}


@pytest.mark.parametrize(
    ("square", "direction", "expected"),
    [
        ("Ra4", "N", {("Bk4", "S")}),
        ("Ra4", "NW", {("Bk4", "SW")}),
        ("Ra4", "NE", {("Rb5", "NE")}),
        ("Re8", "N", {("Bg8", "S")}),
        ("Re8", "NW", {("Bg8", "SW")}),
        ("Re8", "NE", {("Rf9", "NE")}),
        ("Rf9", "N", {("Gf9", "S"), ("Bf9", "S")}),
        ("Rf9", "NE", {("Gf9", "SE")}),
        ("Rf9", "NW", {("Bf9", "SW")}),
        ("Rg8", "N", {("Ge8", "S")}),
        ("Rg8", "NE", {("Ge8", "SE")}),
        ("Rg8", "NW", {("Rf9", "NW")}),
        ("Rk4", "N", {("Ga4", "S")}),
        ("Rk4", "NE", {("Ga4", "SE")}),
        ("Rk4", "SE", set()),
        ("Bc6", "N", {("Gi6", "S")}),
        ("Bc6", "NW", {("Gi6", "SW")}),
        ("Gd7", "N", {("Rh7", "S")}),
        ("Gd7", "NW", {("Rh7", "SW")}),
    ],
)
def test_t2_crossing_table(square: str, direction: str, expected: set[tuple[str, str]]) -> None:
    assert step(square, direction) == expected


def test_t2_diagonals_never_cross() -> None:
    assert g.DIAG_NEXT[pt("Rg8")][DIAG["E"]] == -1
    assert NAMES[g.DIAG_NEXT[pt("Rg8")][DIAG["W"]]] == "Re8"
    assert NAMES[g.DIAG_NEXT[pt("Rf7")][DIAG["NNE"]]] == "Rg8"
    assert g.DIAG_NEXT[pt("Rg8")][DIAG["NNE"]] == -1
    for p in range(207):
        for q in g.DIAG_NEXT[p]:
            assert q == -1 or g.LATTICE_OF[q] == g.LATTICE_OF[p]


def test_t2_longest_line_and_single_crossing() -> None:
    longest = max(len(ray) for p in range(207) for _, ray in g.RAYS[p])
    assert longest == 17
    ne = [ray for d, ray in g.RAYS[pt("Rc1")] if d == ORTHO["NE"]]
    assert [NAMES[q] for q in ne[0]] == (
        [
            "Rd2",
            "Re3",
            "Rf4",
            "Rg4",
            "Rh4",
            "Ri4",
            "Rj4",
            "Rk4",
            "Ga4",
            "Gb4",
            "Gc4",
            "Gd4",
            "Ge4",
            "Gf4",
            "Gg3",
            "Gh2",
            "Gi1",
        ]
    )
    for p in range(207):
        for _, ray in g.RAYS[p]:
            lats = [g.LATTICE_OF[p]] + [g.LATTICE_OF[q] for q in ray]
            changes = sum(1 for a, b in zip(lats, lats[1:], strict=False) if a != b)
            assert changes <= 1


def test_spec_example_red_ne_line_through_c4() -> None:
    rays = [ray for d, ray in g.RAYS[pt("Rc4")] if d == ORTHO["NE"]]
    assert [NAMES[q] for q in rays[0]] == [
        "Rd5",
        "Re6",
        "Rf7",
        "Rg7",
        "Rh7",
        "Gd7",
        "Ge7",
        "Gf7",
        "Gg6",
        "Gh5",
        "Gi4",
        "Gj3",
        "Gk2",
    ]


def test_lines_are_reversible() -> None:
    """Facing is symmetric (§2.7) because every step can be walked back."""
    for p in range(207):
        for d in range(6):
            for q, d2 in g.ORTHO_NEXT[p][d]:
                back = (d2 + 3) % 6
                assert (p, (d + 3) % 6) in g.ORTHO_NEXT[q][back]


def test_unobstructed_knight_and_banner_reach_12() -> None:
    """F10/F13: 12 destinations in open board, at distance sqrt 7 / sqrt 13."""
    p = pt("Rf6")
    assert len({q for _, q in g.KNIGHT[p]}) == 12
    for _, q in g.KNIGHT[p]:
        (x0, y0), (x1, y1) = g.XY[p], g.XY[q]
        assert 3 * (x1 - x0) ** 2 + (y1 - y0) ** 2 == 28  # (sqrt7)^2 in half-step units
    # inside one lattice (no bend) a Banner has at most 12 targets, all at sqrt 13
    home = [
        {q for _, _, q in g.BANNER[p] if g.LATTICE_OF[q] == g.LATTICE_OF[p]} for p in range(207)
    ]
    assert max(len(t) for t in home) == 12
    for p in range(207):
        for q in home[p]:
            (x0, y0), (x1, y1) = g.XY[p], g.XY[q]
            assert 3 * (x1 - x0) ** 2 + (y1 - y0) ** 2 == 52


@pytest.mark.parametrize(
    ("square", "cell"),
    [
        ("Rf1", (17, 0)),
        ("Rf9", (1, 0)),
        ("Bf1", (-9, -26)),
        ("Bf9", (-1, -2)),
        ("Gf1", (-9, 26)),
        ("Gf9", (-1, 2)),
        ("Ba1", (-14, -11)),
        ("Gk1", (-14, 11)),
    ],
)
def test_t25_cells(square: str, cell: tuple[int, int]) -> None:
    assert g.CELLS[pt(square)] == cell


def test_cells_distinct_and_spaced() -> None:
    assert len(set(g.CELLS)) == 207
    rows: dict[int, list[int]] = {}
    for r, c in g.CELLS:
        rows.setdefault(r, []).append(c)
    assert min(rows) == -14 and max(rows) == 17
    for cols in rows.values():
        cols.sort()
        assert all(b - a >= 4 for a, b in zip(cols, cols[1:], strict=False))


SETUP_SPEC = {  # spec §3, the same local points for every army
    "K": "f1",
    "A": "e1 g1 f4",
    "E": "d1 h1 f7",
    "H": "b1 j1 f8",
    "R": "a1 k1 f5",
    "C": "c1 i1 f3",
    "F": "c3 i3 f6",
    "P": "a3 b4 c5 e7 g7 i5 j4 k3",
}


def test_d7_start_array() -> None:
    from games.trimac import GAME

    state = GAME.start(GAME.parse_options([]), 3)
    tokens = {t for t in GAME.position(state).split() if "@" in t}
    expected = {
        f"{c}{kind}@{lat}{sq}"
        for c, lat in zip("rbg", "RBG", strict=True)
        for kind, squares in SETUP_SPEC.items()
        for sq in squares.split()
    }
    assert tokens == expected
    assert len(expected) == 81  # 27 pieces per army (F2)
    # the General and Guards start inside the fortress
    for c, lat in zip("rbg", "RBG", strict=True):
        fort = {NAMES[p] for p in g.FORTRESS["RBG".index(lat)]}
        assert {f"{lat}{sq}" for sq in ("f1", "e1", "g1", "f4")} <= fort
        assert {t for t in tokens if t[0] == c and t[1] == "P"} == {
            f"{c}P@{lat}{sq}" for sq in SETUP_SPEC["P"].split()
        }
