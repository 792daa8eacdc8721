"""Boards, layers, pins and square names (spec §1.1-§1.5)."""

from __future__ import annotations

from itertools import combinations

import pytest

from games.tridchess.geometry import (
    PIN_BY_NAME,
    PIN_CELLS,
    PIN_LAYER,
    PIN_NAME,
    PIN_Y0,
    SQ_NAME,
    XYZ,
    geometry,
    pin_mask,
)
from games.tridchess.notation import NotationError, parse_square

# spec §1.3: pin n -> (rank pair start, upright layer, inverted layer)
PIN_TABLE = {1: (0, 2, 0), 2: (4, 2, 0), 3: (2, 4, 2), 4: (6, 4, 2), 5: (4, 6, 4), 6: (8, 6, 4)}
# spec §1.3: positions per layer in rank order (queen's side)
LAYER_ORDER = {
    0: ["QL1i", "QL2i"],
    2: ["QL1", "QL3i", "QL2", "QL4i"],
    4: ["QL3", "QL5i", "QL4", "QL6i"],
    6: ["QL5", "QL6"],
}


@pytest.mark.parametrize("n", range(1, 7))
def test_pin_table(n: int) -> None:
    y0, up, down = PIN_TABLE[n]
    for side, files in (("QL", {0, 1}), ("KL", {4, 5})):
        for suffix, layer in (("", up), ("i", down)):
            p = PIN_BY_NAME[f"{side}{n}{suffix}".lower()]
            assert PIN_LAYER[p] == layer and PIN_Y0[p] == y0
            assert {XYZ[c] for c in PIN_CELLS[p]} == {
                (x, y, layer) for x in files for y in (y0, y0 + 1)
            }


def test_layer_lists_in_rank_order() -> None:
    for layer, names in LAYER_ORDER.items():
        here = sorted(
            (PIN_Y0[p], PIN_NAME[p]) for p in range(24) if PIN_LAYER[p] == layer and p < 12
        )
        assert [name for _y, name in here] == names


def test_24_pins_and_no_two_boards_overlap() -> None:
    assert len(PIN_NAME) == 24 and len(set(PIN_NAME)) == 24
    for p, q in combinations(range(24), 2):
        assert not set(PIN_CELLS[p]) & set(PIN_CELLS[q])
    main = {c for c, name in SQ_NAME.items() if name[-1] in "WNB"}
    assert len(main) == 48
    assert not main & {c for cells in PIN_CELLS for c in cells}


def test_existing_cells_at_start() -> None:
    g = geometry(pin_mask((0, 12, 10, 22)))  # QL1, KL1, QL6, KL6
    assert len(g.exists) == 48 + 16
    # files z, e and ranks 0, 9 exist only on attack boards
    for c in g.exists:
        x, y, h = XYZ[c]
        if x in (0, 5) or y in (0, 9):
            assert h % 2 == 0
    layers = sorted({XYZ[c][2] for c in g.exists})
    assert layers == [1, 2, 3, 5, 6]


def test_square_names_ignore_case_and_reject_non_squares() -> None:
    assert SQ_NAME[parse_square("A1w")] == "a1W"
    assert SQ_NAME[parse_square("a6ql4I")] == "a6QL4i"
    assert SQ_NAME[parse_square("D9kl6")] == "d9KL6"
    assert XYZ[parse_square("c5N")] == (3, 5, 3)
    for bad in ("e4N", "a0W", "b0QL1", "z0QL7", "a9B"):
        with pytest.raises(NotationError):
            parse_square(bad)
