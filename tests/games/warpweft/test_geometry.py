"""Geometry of every size against the spec (section 1): counts, the size-4
inventory tables, adjacency rules, sides, 4.8.8 meeting points, symmetry and
the no-draw (Hex) property."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from games.warpweft import rules
from games.warpweft.geometry import OUT, PATCH, SIZES, WARP, WEFT, geometry, square_name
from tests.games.warpweft.spec_data import spec_table

SIZE_TABLE = {int(row[0]): row for row in spec_table("| N | columns")}
KIND = {"Warp": WARP, "Weft": WEFT}


def test_size_table_covers_every_size() -> None:
    assert sorted(SIZE_TABLE) == list(SIZES) == [2, 3, 4, 5, 6]


@pytest.mark.parametrize("n", SIZES)
def test_counts_per_size(n: int) -> None:
    _, columns, rows, warp, weft, patches, *_ = SIZE_TABLE[n]
    geo = geometry(n)
    assert f"A-{geo.last_letter}" == columns
    assert f"1-{geo.span}" == rows
    assert len(geo.of_kind[WARP]) == int(warp) == 2 * n * n
    assert len(geo.of_kind[WEFT]) == int(weft) == 2 * n * n
    assert len(geo.of_kind[PATCH]) == int(patches) == (2 * n - 1) ** 2


@pytest.mark.parametrize("n", SIZES)
def test_every_labelled_square_in_exactly_one_region(n: int) -> None:
    geo = geometry(n)
    span = 4 * n - 1
    covered = {sq for sq, rid in geo.squares.items() if rid != OUT}
    labelled = {(x, y) for x in range(span) for y in range(span)}
    assert labelled <= covered
    stubs = covered - labelled
    # only thread stubs lie on the rim: one per edge thread, N per edge
    assert len(stubs) == 4 * n
    assert all(geo.kinds[geo.squares[sq]] != PATCH for sq in stubs)
    for rid, (cx, cy) in enumerate(geo.centres):
        cells = sorted(sq for sq, r in geo.squares.items() if r == rid)
        if geo.kinds[rid] == PATCH:
            assert cells == [(cx, cy)] and cx % 2 == 1 and cy % 2 == 1
        elif geo.kinds[rid] == WARP:
            assert cells == [(cx, cy - 1), (cx, cy), (cx, cy + 1)]
            assert (cx + cy) % 4 == 2
        else:
            assert cells == [(cx - 1, cy), (cx, cy), (cx + 1, cy)]
            assert (cx + cy) % 4 == 0


@pytest.mark.parametrize("n", SIZES)
def test_a1_is_a_weft_thread(n: int) -> None:
    geo = geometry(n)
    assert geo.kinds[geo.by_name["A1"]] == WEFT
    assert geo.kinds[geo.by_name["C1"]] == WARP
    assert geo.kinds[geo.by_name["B2"]] == PATCH


def _cells(geo, rid: int) -> set[str]:
    return {square_name(x, y) for (x, y), r in geo.squares.items() if r == rid}


@pytest.mark.parametrize(
    "heading", ["**Warp (vertical) threads, 32**", "**Weft (horizontal) threads, 32**"]
)
def test_size4_thread_inventory(heading: str) -> None:
    geo = geometry(4)
    kind = WARP if heading.startswith("**Warp") else WEFT
    rows = spec_table(heading)
    assert len(rows) == 32
    assert {row[0] for row in rows} == {geo.names[r] for r in geo.of_kind[kind]}
    for centre, cells, threads, patches in rows:
        rid = geo.by_name[centre]
        assert geo.kinds[rid] == kind, centre
        assert _cells(geo, rid) == set(cells.split()), centre
        assert {geo.names[t] for t in geo.threads_of[rid]} == set(threads.split()), centre
        assert {geo.names[p] for p in geo.patches_of[rid]} == set(patches.split()), centre


def test_size4_patch_inventory() -> None:
    geo = geometry(4)
    rows = spec_table("**Patches, 49**")
    triples = [row[i : i + 3] for row in rows for i in (0, 3, 6) if row[i]]
    assert len(triples) == 49
    assert {t[0] for t in triples} == {geo.names[r] for r in geo.of_kind[PATCH]}
    for patch, warp_pair, weft_pair in triples:
        rid = geo.by_name[patch]
        warp = {geo.names[t] for t in geo.threads_of[rid] if geo.kinds[t] == WARP}
        weft = {geo.names[t] for t in geo.threads_of[rid] if geo.kinds[t] == WEFT}
        assert warp == set(warp_pair.split("-")), patch
        assert weft == set(weft_pair.split("-")), patch


@pytest.mark.parametrize("n", SIZES)
def test_adjacency_rules(n: int) -> None:
    """Spec 1.3: patch diagonals, thread neighbours, no same-direction contact."""
    geo = geometry(n)
    centre_of = {c: r for r, c in enumerate(geo.centres)}
    for rid, (x, y) in enumerate(geo.centres):
        nbrs = set(geo.neighbours[rid])
        if geo.kinds[rid] == PATCH:
            assert len(nbrs) == 4
            nw_se = {centre_of[(x - 1, y + 1)], centre_of[(x + 1, y - 1)]}
            sw_ne = {centre_of[(x - 1, y - 1)], centre_of[(x + 1, y + 1)]}
            warp, weft = (nw_se, sw_ne) if (x + y) % 4 == 2 else (sw_ne, nw_se)
            assert all(geo.kinds[t] == WARP for t in warp)
            assert all(geo.kinds[t] == WEFT for t in weft)
            assert nbrs == warp | weft
            continue
        want_threads = {
            centre_of[c] for c in ((x + 2, y), (x - 2, y), (x, y + 2), (x, y - 2)) if c in centre_of
        }
        want_patches = {
            centre_of[c]
            for c in ((x + 1, y + 1), (x + 1, y - 1), (x - 1, y + 1), (x - 1, y - 1))
            if c in centre_of
        }
        assert set(geo.threads_of[rid]) == want_threads
        assert set(geo.patches_of[rid]) == want_patches
        assert nbrs == want_threads | want_patches
        # neighbouring threads always run the other way
        assert all(geo.kinds[t] == 1 - geo.kinds[rid] for t in want_threads)
        span = 4 * n - 1
        if 2 <= x <= span - 3 and 2 <= y <= span - 3:
            assert len(nbrs) == 8


SIDES = {
    2: ("A7 E7", "C1 G1", "A1 A5", "G3 G7"),
    3: ("A11 E11 I11", "C1 G1 K1", "A1 A5 A9", "K3 K7 K11"),
    4: ("A15 E15 I15 M15", "C1 G1 K1 O1", "A1 A5 A9 A13", "O3 O7 O11 O15"),
}


@pytest.mark.parametrize("n", sorted(SIDES))
def test_sides_listed_in_spec(n: int) -> None:
    geo = geometry(n)
    top, bottom, left, right = (set(s.split()) for s in SIDES[n])
    names = lambda ids: {geo.names[r] for r in ids}  # noqa: E731
    assert names(geo.edges[WARP][0]) == top
    assert names(geo.edges[WARP][1]) == bottom
    assert names(geo.edges[WEFT][0]) == left
    assert names(geo.edges[WEFT][1]) == right


@pytest.mark.parametrize("n", SIZES)
def test_sides_by_formula(n: int) -> None:
    """Spec 1.4: top row x = 0 mod 4, bottom row x = 2 mod 4, left column
    rows = 1 mod 4, right column rows = 3 mod 4."""
    geo = geometry(n)
    span = 4 * n - 1
    letter = lambda x: chr(ord("A") + x)  # noqa: E731
    top = {f"{letter(x)}{span}" for x in range(0, span, 4)}
    bottom = {f"{letter(x)}1" for x in range(2, span, 4)}
    left = {f"A{r}" for r in range(1, span + 1, 4)}
    right = {f"{letter(span - 1)}{r}" for r in range(3, span + 1, 4)}
    names = lambda ids: {geo.names[r] for r in ids}  # noqa: E731
    assert (names(geo.edges[WARP][0]), names(geo.edges[WARP][1])) == (top, bottom)
    assert (names(geo.edges[WEFT][0]), names(geo.edges[WEFT][1])) == (left, right)
    assert all(len(e) == n for pair in geo.edges for e in pair)


@pytest.mark.parametrize("n", SIZES)
def test_4_8_8_meeting_points(n: int) -> None:
    """Where three borders meet, the regions are one Warp thread, one Weft
    thread and one patch or the outside; four-way corners never occur."""
    geo = geometry(n)
    span = 4 * n - 1

    def reg(x: int, y: int) -> int:
        return geo.squares.get((x, y), OUT)

    def kind(r: int) -> int:
        return PATCH if r == OUT else geo.kinds[r]

    three = 0
    for x in range(-2, span + 1):
        for y in range(-2, span + 1):
            ul, ur, ll, lr = reg(x, y + 1), reg(x + 1, y + 1), reg(x, y), reg(x + 1, y)
            arms = (ul != ur) + (ll != lr) + (ul != ll) + (ur != lr)
            assert arms != 4, (x, y)
            if arms == 3:
                three += 1
                regions = {ul, ur, ll, lr}
                assert len(regions) == 3
                assert sorted(kind(r) for r in regions) == [WARP, WEFT, PATCH]
    assert three > 0


@pytest.mark.parametrize("n", SIZES)
def test_quarter_turn_symmetry(n: int) -> None:
    """Spec 1.1: the board (rim included) has 4-fold rotational symmetry."""
    geo = geometry(n)
    span = 4 * n - 1
    groups: dict[int, set[tuple[int, int]]] = {}
    for sq, rid in geo.squares.items():
        if rid != OUT:
            groups.setdefault(rid, set()).add(sq)
    shapes = {frozenset(s) for s in groups.values()}
    turned = {frozenset((y, span - 1 - x) for x, y in s) for s in shapes}
    assert turned == shapes


def _winners(state: rules.State) -> set[int]:
    geo = state.geo
    return {
        side
        for side in (WARP, WEFT)
        if any(
            state.owners[r] == side and rules.connected(state, side, r) for r in geo.edges[side][0]
        )
    }


def _filled(n: int, patch_sides: list[int]) -> rules.State:
    geo = geometry(n)
    owners = [geo.kinds[r] for r in range(geo.count)]
    for p, side in zip(geo.of_kind[PATCH], patch_sides, strict=True):
        owners[p] = side
    return replace(rules.start(n, False), owners=tuple(owners))


def test_no_draws_exhaustive_size2() -> None:
    """All 512 patch assignments on the size-2 board: exactly one side connects."""
    for sides in itertools.product((WARP, WEFT), repeat=9):
        assert len(_winners(_filled(2, list(sides)))) == 1, sides


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_no_draws_random_fillings(n: int) -> None:
    rng = random.Random(n)
    patches = (2 * n - 1) ** 2
    for _ in range(300):
        sides = [rng.randrange(2) for _ in range(patches)]
        assert len(_winners(_filled(n, sides))) == 1, sides


def test_arm_squares_name_their_centre() -> None:
    geo = geometry(2)
    assert geo.names[geo.arms["C2"]] == "C1"
    assert geo.names[geo.arms["B1"]] == "A1"
    assert geo.names[geo.arms["A2"]] == "A3"
    assert "A1" not in geo.arms and "B2" not in geo.arms


@pytest.mark.parametrize("n", [0, 1, 7])
def test_sizes_outside_2_to_6_have_no_geometry(n: int) -> None:
    """Spec 1.1: N runs from 2 to 6; any other size is refused by name."""
    with pytest.raises(ValueError) as exc:
        geometry(n)
    assert str(exc.value) == f"size must be 2..6, not {n}"


@pytest.mark.parametrize("n", SIZES)
def test_square_map_is_the_drawn_grid_exactly(n: int) -> None:
    """The square map covers the labelled board and its one-square rim (spec 1.1,
    x and y = -1 .. 4N-1), no more: the renderers draw what it holds."""
    geo = geometry(n)
    span = 4 * n - 1
    grid = {(x, y) for x in range(-1, span + 1) for y in range(-1, span + 1)}
    assert set(geo.squares) == grid
    # The four rim corners belong to no region; every labelled square to one.
    for corner in ((-1, -1), (-1, span), (span, -1), (span, span)):
        assert geo.squares[corner] == OUT
    assert all(geo.squares[(x, y)] != OUT for x in range(span) for y in range(span))
