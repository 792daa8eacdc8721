"""Attack-board movement (spec §3, Loidl's seed page) and TC-01..TC-08."""

from __future__ import annotations

from collections import deque

import pytest

from games.tridchess import GAME
from games.tridchess.geometry import PIN_ADJ, PIN_BY_NAME, PIN_NAME
from tests.games.playout import assert_refused
from tests.games.tridchess.helpers import ST, board_moves, legal, play, pos

# Spec §3.2, queen's side, copied as data: along the ranks, sideways, flip.
ADJACENCY_TABLE = {
    "QL1": ({"QL3i"}, "KL1", "QL1i"),
    "QL1i": ({"QL2i"}, "KL1i", "QL1"),
    "QL2": ({"QL3i", "QL4i"}, "KL2", "QL2i"),
    "QL2i": ({"QL1i"}, "KL2i", "QL2"),
    "QL3": ({"QL5i"}, "KL3", "QL3i"),
    "QL3i": ({"QL1", "QL2"}, "KL3i", "QL3"),
    "QL4": ({"QL5i", "QL6i"}, "KL4", "QL4i"),
    "QL4i": ({"QL2"}, "KL4i", "QL4"),
    "QL5": ({"QL6"}, "KL5", "QL5i"),
    "QL5i": ({"QL3", "QL4"}, "KL5i", "QL5"),
    "QL6": ({"QL5"}, "KL6", "QL6i"),
    "QL6i": ({"QL4"}, "KL6i", "QL6"),
}


def _names(p: int) -> dict[str, str]:
    return {PIN_NAME[q]: how for q, how in PIN_ADJ[p]}


@pytest.mark.parametrize("pin", sorted(ADJACENCY_TABLE))
def test_adjacency_table_queen_side(pin: str) -> None:
    ranks, side, flip = ADJACENCY_TABLE[pin]
    got = _names(PIN_BY_NAME[pin.lower()])
    assert {n for n, how in got.items() if how == "rank"} == ranks
    assert {n for n, how in got.items() if how == "side"} == {side}
    assert {n for n, how in got.items() if how == "flip"} == {flip}


@pytest.mark.parametrize("pin", sorted(ADJACENCY_TABLE))
def test_adjacency_table_king_side_mirrors(pin: str) -> None:
    ranks, side, flip = ADJACENCY_TABLE[pin]
    swap = {"Q": "K", "K": "Q"}
    got = _names(PIN_BY_NAME[("K" + pin[1:]).lower()])
    assert {n for n, how in got.items() if how == "rank"} == {"KL" + r[2:] for r in ranks}
    assert {n for n, how in got.items() if how == "side"} == {swap[side[0]] + side[1:]}
    assert {n for n, how in got.items() if how == "flip"} == {"K" + flip[1:]}


def test_tc01_layer_order_three_moves_from_ql6i_to_ql3() -> None:
    # breadth-first over the pin graph: QL6i -> QL3 is three moves (seed diagram 1)
    start, goal = PIN_BY_NAME["ql6i"], PIN_BY_NAME["ql3"]
    dist = {start: 0}
    todo = deque([start])
    while todo:
        p = todo.popleft()
        for q, _how in PIN_ADJ[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                todo.append(q)
    assert dist[goal] == 3
    # and played out with BQ, White answering with king moves
    s = pos("WQ:QL1,WK:KL1,BQ:QL6i,BK:KL6 Kb1W,kc8B b - - 0 10")
    assert_refused(GAME, s, 1, "QL6i-QL3", "not next to")
    assert_refused(GAME, s, 1, "QL6i-QL5i", "not next to")
    s = play(s, "QL6i-QL4", "Kb1W-b2W", "QL4-QL5i", "Kb2W-b1W", "QL5i-QL3")
    assert GAME.position(s).startswith("WQ:QL1,WK:KL1,BQ:QL3,BK:KL6 ")


def test_tc02_seed_diagram_2() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10")
    assert board_moves(s, "QL4") == ["QL4-KL4", "QL4-QL4i", "QL4-QL5i", "QL4-QL6i"]
    assert board_moves(s, "KL6") == ["KL6-KL5", "KL6-KL6i", "KL6-QL6"]
    assert_refused(GAME, s, 1, "QL4-QL3", "not next to")


def test_tc03_seed_diagram_3_renumbered_pins() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL5i,BK:KL6 Kb1W,kc8B b - - 0 10")
    assert board_moves(s, "QL5i") == ["QL5i-KL5i", "QL5i-QL3", "QL5i-QL4", "QL5i-QL5"]
    assert_refused(GAME, s, 1, "QL5i-QL6i", "not next to")  # pin 4: pin 1 comes first
    assert_refused(GAME, s, 1, "QL5i-QL2", "not next to")  # pin 5: other main board


def test_tc04_one_pawn_no_flip_and_carry_keeps_place() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B,pz7QL4* b - - 0 10")
    assert board_moves(s, "QL4") == ["QL4-KL4", "QL4-QL5i", "QL4-QL6i"]
    after = play(s, "QL4-KL4")
    assert "pd7KL4*" in GAME.position(after).split()[1].split(",")
    assert_refused(GAME, s, 1, "QL4-QL4i", "only an empty board")


def test_tc05_immobile_boards() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B,nz7QL4 b - - 0 10")
    assert board_moves(s, "QL4") == []
    assert_refused(GAME, s, 1, "QL4-QL5i", "QL4 cannot move", "knight")
    s = pos("WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B,pz7QL4*,pa6QL4* b - - 0 10")
    assert board_moves(s, "QL4") == []
    assert_refused(GAME, s, 1, "QL4-QL5i", "QL4 cannot move: it carries two pieces")


def test_tc06_only_the_owner_moves_a_board() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,Rz0QL1,Re0KL1,kc8B w - - 0 10")
    assert board_moves(s) == []
    assert_refused(GAME, s, 0, "QL4-QL5i", "Black's attack board", "owner")
    assert_refused(GAME, s, 0, "QL1-QL3i", "rook")


def test_tc07_owner_carries_enemy_pawn() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B,Pa6QL4* b - - 0 10")
    assert board_moves(s, "QL4") == ["QL4-KL4", "QL4-QL5i"]
    assert_refused(GAME, s, 1, "QL4-QL6i", "last rank")
    assert_refused(GAME, s, 1, "QL4-QL4i", "only an empty board")
    after = play(s, "QL4-QL5i")
    assert "Pa4QL5i*" in GAME.position(after).split()[1].split(",")


def test_tc08_target_pin_occupied() -> None:
    s = pos("WQ:QL1,WK:KL4,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10")
    assert board_moves(s, "QL4") == ["QL4-QL4i", "QL4-QL5i", "QL4-QL6i"]
    assert_refused(GAME, s, 1, "QL4-KL4", "KL4 is taken by WK")


def test_no_board_stands_on_pin() -> None:
    s = pos(f"{ST} Kb1W,kc8B w - - 0 10")
    assert_refused(GAME, s, 0, "QL3-QL5i", "no attack board stands on QL3")
    assert_refused(GAME, s, 0, "QL7-QL5", "not a pin position")


def test_a5_rank_move_shifts_by_four_and_sideways_by_four_files() -> None:
    s = pos("WQ:QL1i,WK:KL1,BQ:QL6,BK:KL6 Pa1QL1i*,Kb1W,kc8B w - - 0 10")
    assert board_moves(s, "QL1i") == ["QL1i-KL1i", "QL1i-QL2i"]  # no flip: it carries a pawn
    assert "Pa5QL2i*" in GAME.position(play(s, "QL1i-QL2i")).split()[1].split(",")
    assert "Pe1KL1i*" in GAME.position(play(s, "QL1i-KL1i")).split()[1].split(",")


def test_a6_carried_pawn_counts_as_moved() -> None:
    # a fresh pawn (no *) carried from QL1 to QL3i loses its double step
    s = pos("WQ:QL1,WK:KL4,BQ:QL6,BK:KL6 Pa1QL1,Kc1W,kc8B w - - 0 10")
    after = play(s, "QL1-QL3i")
    assert "Pa3QL3i*" in GAME.position(after).split()[1].split(",")
    assert after.halfmove == 0  # a carry counts as a pawn move for the 100-ply rule
    assert GAME.position(after).split()[4] == "-"  # never an en-passant chance


def test_a8_own_pawn_promotes_when_carried_to_last_rank() -> None:
    s = pos("WQ:QL4,WK:KL1,BQ:QL6,BK:KL6 Pa7QL4*,Kb1W,kc8B w - - 0 10")
    assert board_moves(s) == [
        "KL1-KL1i",
        "KL1-KL3i",
        "KL1-QL1",
        "QL4-KL4",
        "QL4-QL5i",
        "QL4-QL6i=B",
        "QL4-QL6i=N",
        "QL4-QL6i=Q",
        "QL4-QL6i=R",
    ]
    default = play(s, "QL4-QL6i")  # no =X means a queen
    assert "Qa9QL6i" in GAME.position(default).split()[1].split(",")
    knight = play(s, "QL4-QL6i=N")
    assert "Na9QL6i" in GAME.position(knight).split()[1].split(",")
    assert_refused(GAME, s, 0, "QL4-QL5i=Q", "no pawn is promoted")


def test_a3_board_move_uses_the_turn_and_keeps_name() -> None:
    s = pos(f"{ST} Kb1W,kc8B w - - 0 10")
    after = play(s, "QL1-QL3i")
    assert GAME.to_move(after) == 1
    assert GAME.position(after).startswith("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 ")
    assert "QL3i-QL1" not in legal(after)  # Black may not move White's board


def test_a9_board_move_gives_check() -> None:
    # WQ on QL3i puts a level into column a3: Rb3W's stair step ends on a3QL3i.
    s = pos("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 Rb3W,Kc1W,ka3N w - - 0 10")
    assert board_moves(s, "QL3i") == ["QL3i-KL3i", "QL3i-QL1", "QL3i-QL2", "QL3i-QL3"]
    for mv in board_moves(s, "QL3i"):
        after = play(s, mv)
        assert after.in_check(), mv  # the line b3W-a3N is open again
    assert not play(s, "KL1-KL1i").in_check()


def test_a9_board_move_answers_check() -> None:
    s = pos("WQ:QL1,WK:KL1,BQ:QL3,BK:KL6 Rb3W,Kc1W,ka3N b - - 0 10")
    assert s.in_check()
    assert board_moves(s) == ["QL3-QL3i"]  # the flip puts a3QL3i into the line


def test_a9_board_move_illegal_when_it_exposes_own_king() -> None:
    s = pos("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 rb3W,Ka3N,kc8B w - - 0 10")
    assert board_moves(s) == ["KL1-KL1i", "KL1-KL3i", "KL1-QL1"]
    assert_refused(GAME, s, 0, "QL3i-QL3", "would leave your king in check")
    assert_refused(GAME, s, 0, "QL3i-QL1", "would leave your king in check")


def test_start_position_has_no_board_moves() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert board_moves(s) == []
    assert_refused(GAME, s, 0, "QL1-QL3i", "QL1 cannot move", "four pieces")


def test_a9_carrying_a_pawn_into_an_attacking_cell_gives_check() -> None:
    # §5: the pawn on a3QL3i attacks b4N (U of column b4 from layer 2); carried
    # to a5QL2 it attacks U(b6) from layer 2 = b6N, where the black king stands.
    s = pos("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 Pa3QL3i*,Kc1W,kb6N w - - 0 10")
    assert not s.in_check()
    assert board_moves(s, "QL3i") == ["QL3i-KL3i", "QL3i-QL1", "QL3i-QL2"]  # no flip
    after = play(s, "QL3i-QL2")
    assert "Pa5QL2*" in GAME.position(after).split()[1].split(",")
    assert after.in_check()
    assert not play(s, "QL3i-QL1").in_check()
