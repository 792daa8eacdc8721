"""Pawns (spec §4.3) and the start position (TC-09..TC-12)."""

from __future__ import annotations

from games.tridchess import GAME
from tests.games.playout import assert_refused
from tests.games.tridchess.helpers import ST, legal, moves_from, play, pos

TC09_WHITE = [
    "Na1W-a3N",
    "Na1W-b3W",
    "Nd1W-c3W",
    "Nd1W-d3N",
    "a2W-a3W",
    "a2W-a4W",
    "a2W-a3N",
    "b2W-b3W",
    "b2W-b4W",
    "b2W-b3N",
    "c2W-c3W",
    "c2W-c4W",
    "c2W-c3N",
    "d2W-d3W",
    "d2W-d4W",
    "d2W-d3N",
]


def test_tc09_start_position_white() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert legal(s) == sorted(TC09_WHITE)


def test_tc09_start_position_black_mirror() -> None:
    s = play(GAME.start(GAME.parse_options([]), 2), "Na1W-b3W")
    expected = ["Na8B-a6N", "Na8B-b6B", "Nd8B-c6B", "Nd8B-d6N"]
    for f in "abcd":
        expected += [f"{f}7B-{f}6B", f"{f}7B-{f}5B", f"{f}7B-{f}6N"]
    assert legal(s) == sorted(expected)


def test_tc10_loidl_pawn_qn5() -> None:
    s = pos(f"{ST} Pb3N*,Kb1W,kc8B w - - 0 10")
    assert moves_from(s, "b3N") == ["b3N-b4N"]
    assert_refused(GAME, s, 0, "b3N-b3W", "white pawn never moves down")


def test_tc11_loidl_pawn_qn6() -> None:
    s = pos(f"{ST} Pb4N*,Kb1W,kc8B w - - 0 10")
    assert moves_from(s, "b4N") == ["b4N-b5B", "b4N-b5N"]


def test_tc12_loidl_black_pawn() -> None:
    s = pos(f"{ST} pc7B,Nd6N,Kb1W,ka8B b - - 0 10")
    assert moves_from(s, "c7B") == ["c7B-c5B", "c7B-c6B", "c7B-c6N", "c7Bxd6N"]
    assert_refused(GAME, s, 1, "c7B-c5N", "double step stays on its level")
    assert_refused(GAME, s, 1, "c7B-c8B", "never moves backward")


def test_double_step_stays_on_level() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert_refused(GAME, s, 0, "b2W-b4N", "b2W-b4N: a pawn's double step stays on its level")


def test_moved_pawn_has_no_double_step() -> None:
    s = pos(f"{ST} Pb2W*,Kd1W,kc8B w - - 0 10")
    assert moves_from(s, "b2W") == ["b2W-b3N", "b2W-b3W"]
    assert_refused(GAME, s, 0, "b2W-b4W", "already moved")


def test_blocked_pawn() -> None:
    # b3W is taken: neither the single nor the double step; b3N is still free
    s = pos(f"{ST} Pb2W,nb3W,Kd1W,kc8B w - - 0 10")
    assert moves_from(s, "b2W") == ["b2W-b3N"]
    assert_refused(GAME, s, 0, "b2W-b3W", "captures only diagonally")
    assert_refused(GAME, s, 0, "b2W-c3W", "diagonally only to capture")


def test_pawn_uses_attack_board_levels() -> None:
    # QL3i adds layer 2 to columns z2, a2, z3, a3
    s = pos("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 Pa2W*,Kc1W,kc8B w - - 0 10")
    assert moves_from(s, "a2W") == ["a2W-a2QL3i", "a2W-a3QL3i", "a2W-a3W"]


def test_start_board_pawns_wait_for_geometry() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert moves_from(s, "z1QL1") == []
    # once an attack board stands on QL3i, z2/z3 exist in layer 2
    s = pos("WQ:QL1,WK:KL1,BQ:QL3i,BK:KL6 Pz1QL1,Kc1W,kc8B w - - 0 10")
    assert moves_from(s, "z1QL1") == ["z1QL1-z2QL3i", "z1QL1-z3QL3i"]


def test_en_passant_in_three_dimensions() -> None:
    s = pos(f"{ST} Pd5N*,Pb5B*,pc7B,Kb1W,ka8B b - - 0 10")
    s = play(s, "c7B-c5B")
    assert GAME.position(s).split()[4] == "c6B"
    assert "d5Nxc6B e.p." in GAME.legal_moves(s)  # the diagonal stair-step lands on c6B
    assert "b5Bxc6B e.p." in GAME.legal_moves(s)  # the plain diagonal
    after = play(s, "d5Nxc6B e.p.")
    pieces = GAME.position(after).split()[1].split(",")
    assert "Pc6B*" in pieces and "pc5B" not in pieces and "pc5B*" not in pieces
    assert after.halfmove == 0
    # typed without the suffix it is still en passant
    assert GAME.position(play(s, "b5Bxc6B")) == GAME.position(play(s, "b5Bxc6B e.p."))


def test_en_passant_only_on_the_next_move() -> None:
    s = pos(f"{ST} Pd5N*,pc7B,Kb1W,ka8B b - - 0 10")
    s = play(s, "c7B-c5B", "Kb1W-b2W", "ka8B-a7B")
    assert not any("e.p." in m for m in GAME.legal_moves(s))
    assert_refused(GAME, s, 0, "d5Nxc6B", "en passant")


def test_promotion_on_any_cell_of_rank_8() -> None:
    s = pos(f"{ST} Pa7B*,Kb1W,kd9KL6 w - - 0 10")
    expected = [f"a7B-{t}={p}" for t in ("a8B", "a8QL6") for p in "QRBN"]
    assert moves_from(s, "a7B") == sorted(expected)
    assert_refused(GAME, s, 0, "a7B-a8B", "must promote")
    after = play(s, "a7B-a8BN")  # bare trailing letter accepted
    assert "Na8B" in GAME.position(after).split()[1].split(",")
    assert_refused(GAME, pos(f"{ST} Pb2W*,Kd1W,kc8B w - - 0 10"), 0, "b2W-b3W=Q", "promotes")


def test_black_promotion_rank_1() -> None:
    s = pos(f"{ST} pb2W*,Kd9KL6,kb8B b - - 0 10")
    assert moves_from(s, "b2W") == sorted(f"b2W-b1W={p}" for p in "QRBN")
