"""Warp and Weft's picture: threads and patches as the geometry says, owners in colour."""

from __future__ import annotations

from collections import Counter

from games.warpweft import GAME
from tests.games.svgread import elements, squares_with, svg_of


def test_empty_board_has_the_specs_regions() -> None:
    state = GAME.start(GAME.parse_options(["-size=2"]), 2)
    root = svg_of(GAME, state)
    # spec 1.1: N=2 has 8 Warp + 8 Weft threads of 3 squares, 9 patches of one
    per_region = Counter(e.get("data-at") for e in elements(root, "thread"))
    assert len(per_region) == 16 and set(per_region.values()) == {3}
    assert squares_with(root, "patch") == {f"{c}{r}" for c in "BDF" for r in (2, 4, 6)}
    assert not elements(root, "claimed")


def test_t1_warp_chain_in_warp_colour() -> None:
    state = GAME.start(GAME.parse_options(["-size=2"]), 2)
    moves = ["C1", "A1", "E3", "E1", "C5", "G3", "E7", "A5", "patches", "C7", "D2", "G7", "D4", "E5", "D6"]
    for i, m in enumerate(moves):
        state = GAME.play(state, i % 2, m)
    root = svg_of(GAME, state, ["alice", "bob"])
    claimed = elements(root, "claimed")
    by_region: dict[str, set[str]] = {}
    for e in claimed:
        by_region.setdefault(e.get("data-at", ""), set()).add(e.get("fill", ""))
    warp = ["C1", "E3", "C5", "E7", "D2", "D4", "D6"]
    weft = ["A1", "E1", "G3", "A5", "C7", "G7", "E5"]
    assert set(by_region) == set(warp + weft)
    warp_fill = {f for r in warp for f in by_region[r]}
    weft_fill = {f for r in weft for f in by_region[r]}
    assert len(warp_fill) == 1 and len(weft_fill) == 1 and warp_fill != weft_fill
    marks = {e.get("data-at"): e.text for e in elements(root, "mark")}
    assert all(marks[r] == "V" for r in warp) and all(marks[r] == "H" for r in weft)
    assert squares_with(root, "last") == {"D6"}
    assert elements(root, "status")[0].text == "Game over: Warp (alice) won"


def test_the_final_picture_traces_the_winning_chain() -> None:
    """Issue 26 item 10: the winner's chain from edge to edge is drawn on the final picture only."""
    state = GAME.start(GAME.parse_options(["-size=2"]), 2)
    moves = ["C1", "A1", "E3", "E1", "C5", "G3", "E7", "A5", "patches", "C7", "D2", "G7", "D4", "E5", "D6"]
    for i, m in enumerate(moves):
        before = state
        state = GAME.play(state, i % 2, m)
    assert not elements(svg_of(GAME, before), "chain")  # not yet won: no chain
    root = svg_of(GAME, state, ["alice", "bob"])
    discs = [e.get("data-at") for e in elements(root, "chain") if e.get("data-at")]
    warp = {"C1", "E3", "C5", "E7", "D2", "D4", "D6"}
    assert discs and set(discs) <= warp and len(discs) == len(set(discs))
    geo = state.geo
    ids = [geo.by_name[n] for n in discs]
    top, bottom = geo.edges[0]
    assert (ids[0] in top and ids[-1] in bottom) or (ids[0] in bottom and ids[-1] in top)
    assert all(b in geo.neighbours[a] for a, b in zip(ids, ids[1:], strict=False))
    assert len([e for e in elements(root, "chain") if not e.get("data-at")]) == len(discs) - 1  # the joins
