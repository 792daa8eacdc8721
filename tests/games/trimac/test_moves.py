"""Piece movement: spec §4 and test cases T3-T13 (move lists from the spec)."""

from __future__ import annotations

import pytest

from games.trimac import GAME
from tests.games.playout import perft
from tests.games.trimac.common import base, moves_from, pos


def spec_list(text: str) -> list[str]:
    return sorted(text.split())


T3 = {
    "Ra1": "Ra2 Rb2",
    "Ra3": "Ra4",
    "Rb1": "Rc4 Rd4 Re3",
    "Rb4": "Ra4 Rb5",
    "Rc1": "Rc2 Rd2 Re3",
    "Rc3": "Rf2 Rg3 Rg5",
    "Rc5": "Rb5 Rc6 Rd6",
    "Rd1": "Rb3",
    "Re1": "Rd2",
    "Re7": "Rd7 Re8",
    "Rf1": "Rf2",
    "Rf3": "Rd3 Re2 Re3 Rf2 Rg2 Rg3 Rh3",
    "Rf4": "Re2 Rg2",
    "Rf5": "Rc2 Rd3 Rd5 Re4 Re5 Rg4 Rg5 Rh3 Rh5 Ri2",
    "Rf6": "Rb3 Rb5 Rc2 Ri2 Rj3 Rj5",
    "Rf7": "Rb5 Rd3 Rh3 Rj5",
    "Rf8": "",
    "Rg1": "Rh2",
    "Rg7": "Rg8 Rh7",
    "Rh1": "Rj3",
    "Ri1": "Rg3 Rh2 Ri2",
    "Ri3": "Re3 Re5 Rf2",
    "Ri5": "Rh6 Ri6 Rj5",
    "Rj1": "Rg3 Rh4 Ri4",
    "Rj4": "Rj5 Rk4",
    "Rk1": "Rj2 Rk2",
    "Rk3": "Rk4",
}


def _start(to: str = "R"):
    from games.trimac import start_position

    return pos(start_position().replace("to=R", f"to={to}").replace("last=G", ""))


def test_t3_initial_moves_by_piece() -> None:
    state = GAME.start(GAME.parse_options([]), 3)
    legal = GAME.legal_moves(state)
    assert len(legal) == 72
    assert all("x" not in mv for mv in legal)
    for square, dests in T3.items():
        assert moves_from(state, square) == spec_list(dests), square
    assert sum(len(d.split()) for d in T3.values()) == 72


@pytest.mark.parametrize("army", ["B", "G"])
def test_t3_blue_and_green_mirror_red(army: str) -> None:
    state = _start(army)
    assert GAME.to_move(state) == "RBG".index(army)
    assert len(GAME.legal_moves(state)) == 72
    for square, dests in T3.items():
        expected = sorted(army + d[1:] for d in dests.split())
        assert moves_from(state, army + square[1:]) == expected


def test_t3_nobody_in_check_at_start() -> None:
    state = GAME.start(GAME.parse_options([]), 3)
    assert "check" not in GAME.render(state)


def test_t3_perft() -> None:
    state = GAME.start(GAME.parse_options([]), 3)
    assert perft(GAME, state, 1) == 72
    assert perft(GAME, state, 2) == 5184
    assert perft(GAME, state, 3) == 373248


CASES = [
    # T4 rook bends across the river
    (
        "rR@Rc4",
        "Rc4",
        "Bf4(x) Bg4 Bh4 Bi1 Bi2 Bi3 Bi4 Bi5 Bi6 Bj4 Bk4 Gd7 Ge7 Gf7 Gg6 Gh5 Gi4 Gj3 Gk2 "
        "Ra2 Ra4 Rb3 Rb4 Rc1 Rc2 Rc3 Rc5 Rc6 Rd4 Rd5 Re4 Re6 Rf7 Rg7 Rh7",
    ),
    # T5 rook on the apex branches
    (
        "rR@Rf9",
        "Rf9",
        "Ba4 Bb5 Bc6 Bd7 Be8 Bf4(x) Bf5 Bf6 Bf7 Bf8 Bf9 Gf4(x) Gf5 Gf6 Gf7 Gf8 Gf9 Gg8 Gh7 Gi6 Gj5 "
        "Gk4 Ra4 Rb5 Rc6 Rd7 Re8 Rf5 Rf6 Rf7 Rf8 Rg8 Rh7 Ri6 Rj5 Rk4",
    ),
    # T6 cannon captures across the river
    (
        "rC@Rc2 rP@Rc5 bR@Bi4 bH@Bi2",
        "Rc2",
        "Bi4(x) Gb5 Gc5 Gd5 Ge5 Gf5 Gg4 Gh3 Gi2 Gj1 Ra2 Rb1 Rb2 Rc1 "
        "Rc3 Rc4 Rd2 Rd3 Re2 Re4 Rf2 Rf5 Rg1 Rg5 Rh5 Ri5 Rj5",
    ),
    # T8 knight, free
    ("rH@Rf6", "Rf6", "Rc4 Rc5 Rd3 Rd7 Re3 Re8 Rg3 Rg8 Rh3 Rh7 Ri4 Ri5"),
    # T9 knight, legs blocked (whatever their colour)
    ("rH@Rf6 rP@Rf7 bP@Rg6", "Rf6", "Rc4 Rc5 Rd3 Rd7 Re3 Rg3 Rh3 Ri4"),
    # T10 knight crossing with its orthogonal leg
    ("rH@Re8", "Re8", "Be8 Bf7 Bh6 Rc5 Rd5 Rf6 Rg6 Rh7"),
    # T11 banner
    ("rF@Rf5", "Rf5", "Rb2 Rb4 Rc1 Rc6 Re8 Rg8 Ri1 Ri6 Rj2 Rj4"),
    ("rF@Rf5 gP@Rf7", "Rf5", "Rb2 Rb4 Rc1 Rc6 Ri1 Ri6 Rj2 Rj4"),
    # T12 banner crossing
    ("rF@Re7", "Re7", "Bf7 Bf8 Bg6 Bh6 Ra4 Rb3 Rd3 Rh4 Ri5"),
    # T13 bishop
    ("rE@Rf5", "Rf5", "Rb3 Rd1 Rd7 Rh1 Rh7 Rj3"),
    ("rE@Rf5 rP@Re6", "Rf5", "Rb3 Rd1 Rh1 Rh7 Rj3"),
    ("rE@Rf7", "Rf7", "Rb5 Rd3 Rh3 Rj5"),
]


@pytest.mark.parametrize(("extra", "square", "expected"), CASES, ids=[c[0] for c in CASES])
def test_spec_move_lists(extra: str, square: str, expected: str) -> None:
    assert moves_from(base(extra), square) == spec_list(expected)


def test_t7_cannon_without_screen() -> None:
    t6 = spec_list(CASES[2][2])
    t6.remove("Bi4(x)")
    expected = sorted(t6 + ["Rc5", "Rc6", "Bi6", "Bi5"])
    got = moves_from(base("rC@Rc2 bR@Bi4"), "Rc2")
    assert got == expected and len(got) == 30


def test_counts_of_spec_cases() -> None:
    counts = [35, 36, 27, 12, 8, 8, 10, 8, 9, 6, 5, 4]
    assert [len(spec_list(c[2])) for c in CASES] == counts


# -- the other movement rules of §4, derived by hand from the spec ------------


def test_general_one_orthogonal_step_inside_fortress() -> None:
    assert moves_from(base(), "Rf1") == ["Re1", "Rf2", "Rg1"]
    # from d2 only e2/e3 stay in the fortress (d1, d3, c1, c2 are outside)
    state = pos("rK@Rd2 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4")
    assert moves_from(state, "Rd2") == ["Re2", "Re3"]


def test_guard_one_diagonal_step_inside_fortress() -> None:
    assert moves_from(base(), "Rf4") == ["Re2", "Rg2"]
    assert moves_from(base("rA@Re1"), "Re1") == ["Rd2", "Rf3", "Rg1"]


def test_pawn_at_home_steps_forward() -> None:
    assert moves_from(base("rP@Rc5"), "Rc5") == ["Rb5", "Rc6", "Rd6"]
    # a front point: N and NW cross to the partner, NE stays home
    assert moves_from(base("rP@Re8"), "Re8") == ["Bg8", "Rf9"]
    # the apex: N offers both neighbours' apexes
    assert moves_from(base("rP@Rf9"), "Rf9") == ["Bf9", "Gf9"]


def test_pawn_across_the_river() -> None:
    # Blue lattice g8 = (1,15): S g7, SE h7, SW f8, W e8; E would leave the lattice
    assert moves_from(base("rP@Bg8"), "Bg8") == ["Be8", "Bf8", "Bg7", "Bh7"]
    # Blue a1: only SE (b1) and E (c2) exist; no promotion, no way back
    assert moves_from(base("rP@Ba1"), "Ba1") == ["Bb1", "Bc2"]


def test_pawn_captures_the_way_it_moves() -> None:
    assert moves_from(base("rP@Rc5 bP@Rc6 gP@Rd6"), "Rc5") == ["Rb5", "Rc6(x)", "Rd6(x)"]


def test_knight_cannot_capture_own_piece() -> None:
    assert "Rc4" not in moves_from(base("rH@Rf6 rP@Rc4"), "Rf6")


def test_generals_are_never_captured() -> None:
    # a Red Rook on Blue's f-file below the Guard: Bf1 holds the Blue General
    state = base("rR@Bf2")
    dests = moves_from(state, "Bf2")
    assert "Bf1" not in dests and "Bf1(x)" not in dests
    assert "Bf3" in dests


def test_bishop_stays_home() -> None:
    for p in range(207):
        from games.trimac import geometry as g

        for _, q in g.BISHOP[p]:
            assert g.LATTICE_OF[q] == g.LATTICE_OF[p]


def test_cannon_capture_legal_if_any_of_two_lines_allows_it() -> None:
    # §4: Bi4 lies on Rc4's N line (Rc5 Rc6 Bi6 Bi5) and NW line (Rb4 Ra4 Bk4 Bj4).
    # Two screens on N, one on NW: the capture is legal through NW ...
    assert "Bi4(x)" in moves_from(base("rC@Rc4 rP@Rc5 rP@Rc6 rP@Rb4 bR@Bi4"), "Rc4")
    # ... one on N, two on NW: legal through N ...
    assert "Bi4(x)" in moves_from(base("rC@Rc4 rP@Rc5 rP@Rb4 rP@Ra4 bR@Bi4"), "Rc4")
    # ... two on N and none on NW: not capturable, but Bi4 screens Bf4 on NW.
    got = moves_from(base("rC@Rc4 rP@Rc5 rP@Rc6 bR@Bi4"), "Rc4")
    assert "Bi4(x)" not in got and "Bf4(x)" in got
