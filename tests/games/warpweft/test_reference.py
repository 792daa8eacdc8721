"""The engine agrees with reference.py, an independent reading of the spec.

The reference's geometry is pinned against the spec's own tables (size-4
inventory, the sides listed for N = 2..4, the counts per size); then engine
and reference play the same random games, every size and both primaries,
comparing after every move the legal moves (placements, switches, swap),
the claimed regions, both sides' states, whose turn it is, and at the end
the winner's seat and the reason.

PBMSERV_REFERENCE_PLIES scales the random part (default 1500 plies in all).
"""

from __future__ import annotations

import os
import random

import pytest

from games.warpweft import GAME
from tests.games.warpweft import reference as ref
from tests.games.warpweft.spec_data import spec_table

PLIES = int(os.environ.get("PBMSERV_REFERENCE_PLIES", "1500"))

#: Spec 1.4, verbatim: (top, bottom) for Warp, (left, right) for Weft.
SPEC_SIDES = {
    2: ("A7 E7", "C1 G1", "A1 A5", "G3 G7"),
    3: ("A11 E11 I11", "C1 G1 K1", "A1 A5 A9", "K3 K7 K11"),
    4: ("A15 E15 I15 M15", "C1 G1 K1 O1", "A1 A5 A9 A13", "O3 O7 O11 O15"),
}
#: Spec 1.1's table: Warp threads, Weft threads, patches.
SPEC_COUNTS = {2: (8, 8, 9), 3: (18, 18, 25), 4: (32, 32, 49), 5: (50, 50, 81), 6: (72, 72, 121)}


def cell_name(c: tuple[int, int], n: int) -> str:
    """The spec's names for cells, rim stubs included (``@13``, ``P15``, ``C0``, ``A16``)."""
    x, y = c
    letter = "@" if x == -1 else chr(ord("A") + x)
    return f"{letter}{y + 1}"


@pytest.mark.parametrize("n", sorted(SPEC_COUNTS))
def test_counts_and_sides(n: int) -> None:
    board = ref.build(n)
    kinds = list(board.kind.values())
    assert (kinds.count(ref.WARP), kinds.count(ref.WEFT), kinds.count(ref.PATCH)) == SPEC_COUNTS[n]
    assert board.kind["A1"] == ref.WEFT
    if n in SPEC_SIDES:
        top, bottom, left, right = (set(s.split()) for s in SPEC_SIDES[n])
        assert board.edges[ref.WARP] == (top, bottom)
        assert board.edges[ref.WEFT] == (left, right)


@pytest.mark.parametrize("kind", [ref.WARP, ref.WEFT])
def test_size4_threads_match_the_spec_inventory(kind: str) -> None:
    board = ref.build(4)
    rows = spec_table(
        f"**{kind} ({'vertical' if kind == ref.WARP else 'horizontal'}) threads, 32**"
    )
    assert {row[0] for row in rows} == {r for r, k in board.kind.items() if k == kind}
    for centre, cells, threads, patches in rows:
        assert {cell_name(c, 4) for c in board.cells[centre]} == set(cells.split()), centre
        near = board.touches[centre]
        assert {r for r in near if board.kind[r] != ref.PATCH} == set(threads.split()), centre
        assert {r for r in near if board.kind[r] == ref.PATCH} == set(patches.split()), centre


def test_size4_patches_match_the_spec_inventory() -> None:
    board = ref.build(4)
    rows = spec_table("**Patches, 49**")
    triples = [row[i : i + 3] for row in rows for i in (0, 3, 6) if row[i]]
    assert {t[0] for t in triples} == {r for r, k in board.kind.items() if k == ref.PATCH}
    for patch, warp, weft in triples:
        near = board.touches[patch]
        assert {r for r in near if board.kind[r] == ref.WARP} == set(warp.split("-"))
        assert {r for r in near if board.kind[r] == ref.WEFT} == set(weft.split("-"))


def compare(st, game: ref.Game) -> None:
    dump = GAME.dump(st)
    assert dump["claimed"] == {r: ref.MARK[o] for r, o in game.owner.items()}
    assert dump["states"] == game.state
    assert (dump["plies"], dump["swapped"]) == (game.plies, game.swapped)
    assert sorted(GAME.legal_moves(st)) == sorted(ref.legal_moves(game)), dump
    side = game.side_to_move
    assert GAME.to_move(st) == (None if side is None else game.seat(side))
    out = GAME.outcome(st)
    if game.winner is None:
        assert out is None
    else:
        win = game.seat(game.winner)
        assert (out.winners, out.losers) == ((win,), (1 - win,))
        assert ("connected" in out.reason) == (game.reason == "connection"), out.reason
        assert ("no valid play" in out.reason) == (game.reason == "no valid play"), out.reason


def side_by_side(n: int, patch_primary: bool, rng: random.Random, stats: dict) -> int:
    options = GAME.parse_options([f"-size={n}", "-patches" if patch_primary else "-threads"])
    st, game = GAME.start(options, 2), ref.start(n, patch_primary)
    plies = 0
    while True:
        compare(st, game)
        moves = ref.legal_moves(game)
        if not moves:
            break
        # Switches and swaps are rare among many placements: offer them often.
        special = [m for m in moves if m in ("swap", ref.THREADING, ref.PATCHING)]
        move = rng.choice(special if special and rng.random() < 0.3 else moves)
        stats[move if move in ("swap", "threads", "patches") else "placement"] += 1
        st = GAME.play(st, GAME.to_move(st), move)
        game = ref.play(game, move)
        plies += 1
    stats[game.reason] += 1
    return plies


def test_engine_matches_reference_in_random_games() -> None:
    rng = random.Random(18)
    stats = dict.fromkeys(["placement", "threads", "patches", "swap"], 0)
    stats.update({"connection": 0, "no valid play": 0})
    plies = games = 0
    while plies < PLIES:
        n = (2, 2, 2, 3, 3, 4, 5, 6)[games % 8]
        plies += side_by_side(n, games % 2 == 1, rng, stats)
        games += 1
    print(games, "games", stats)
    if PLIES == 1500:  # the default run meets every move kind and ending
        assert all(stats.values()), stats
