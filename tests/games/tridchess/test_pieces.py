"""Loidl's cube movement for the pieces (spec §4.1, §4.2).

Every expected list was worked out by hand from the spec: per column the
levels are the boards that exist there, a slider repeats its step until a
cell is missing or occupied, and only the occupied cell itself blocks.
With the start boards (QL1, KL1 at layer 2; QL6, KL6 at layer 6) the
columns a-d x 3-4 hold W and N, the columns a-d x 5-6 hold N and B.
"""

from __future__ import annotations

import pytest

from games.tridchess import GAME
from tests.games.playout import assert_refused
from tests.games.tridchess.helpers import ST, moves_from, pos

ROOK_B4N = [
    "a4N",  # along the rank, z4 does not exist
    "a4W",  # stair step down-left
    "b3N",
    "b3W",  # stair step down-back
    "b4W",  # straight down (vertical moves are allowed in the cube model)
    "b5B",  # stair step up-forward, layer 4 is skipped
    "b5N",
    "b6N",  # b7N does not exist: the line stops
    "c4N",
    "c4W",
    "d4N",  # e4 does not exist on N
]
BISHOP_B4N = ["a3N", "a3W", "a5B", "a5N", "c3N", "c3W", "c5B", "c5N", "d6N"]
KNIGHT_B4N = ["a6N", "b2W", "b6B", "c6N", "d3N", "d4W", "d5N"]
KING_B4N = [
    "a3N", "a3W", "a4N", "a4W", "a5B", "a5N", "b3N", "b3W", "b4W",
    "b5B", "b5N", "c3N", "c3W", "c4N", "c4W", "c5B", "c5N",
]  # fmt: skip


def _expect(
    letter: str, frm: str, targets: list[str], capture: set[str] = frozenset()
) -> list[str]:
    return sorted(f"{letter}{frm}{'x' if t in capture else '-'}{t}" for t in targets)


def test_rook_lines_levels_and_stair_steps() -> None:
    s = pos(f"{ST} Rb4N,Kd1W,ka8B w - - 0 10")
    assert moves_from(s, "b4N") == _expect("R", "b4N", ROOK_B4N)


def test_bishop_keeps_its_colour_and_uses_diagonal_stair_steps() -> None:
    s = pos(f"{ST} Bb4N,Kd1W,ka8B w - - 0 10")
    assert moves_from(s, "b4N") == _expect("B", "b4N", BISHOP_B4N)
    # colour depends on (file, rank) only: b4 is dark, every target is dark
    files = "zabcde"
    assert all((files.index(t[0]) + int(t[1])) % 2 == 0 for t in BISHOP_B4N)


def test_queen_is_rook_plus_bishop() -> None:
    s = pos(f"{ST} Qb4N,Kd1W,ka8B w - - 0 10")
    assert moves_from(s, "b4N") == _expect("Q", "b4N", ROOK_B4N + BISHOP_B4N)


def test_king_steps_all_26_directions_that_exist() -> None:
    s = pos(f"{ST} Kb4N,kd9KL6 w - - 0 10")
    assert moves_from(s, "b4N") == _expect("K", "b4N", KING_B4N)


def test_knight_3d_leap() -> None:
    s = pos(f"{ST} Nb4N,Kd1W,ka8B w - - 0 10")
    assert moves_from(s, "b4N") == _expect("N", "b4N", KNIGHT_B4N)


def test_knight_jumps_over_pieces() -> None:
    s = pos(f"{ST} Nb4N,Pc4N*,Pb5N*,Pc5N*,Pb4W*,Kd1W,ka8B w - - 0 10")
    assert moves_from(s, "b4N") == _expect("N", "b4N", KNIGHT_B4N)


def test_no_shadow_blocking_a_piece_blocks_only_its_cell() -> None:
    # a black knight on b5N stops the file line there, but b5B (stair step) stays open
    s = pos(f"{ST} Rb4N,nb5N,Kd1W,ka8B w - - 0 10")
    targets = [t for t in ROOK_B4N if t != "b6N"]
    assert moves_from(s, "b4N") == _expect("R", "b4N", targets, {"b5N"})


def test_attack_board_is_a_level_like_any_other() -> None:
    # WQ hangs under N on QL3i (layer 2): column a3 now has W, QL3i and N.
    s = pos("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 Ra3W,Kc1W,kc8B w - - 0 10")
    expected = [
        "a1W", "a2W", "a4W", "b3W", "c3W", "d3W",
        "a3QL3i", "a3N",  # straight up: the board first, then N
        "a2QL3i",  # stair step back-up lands on the attack board
        "z3QL3i",  # stair step sideways-up onto the overhanging file z
        "a4N", "a5B",  # stair steps forward-up: W -> N -> B
        "b3N",
    ]  # fmt: skip
    assert moves_from(s, "a3W") == _expect("R", "a3W", expected)


def test_refusals_for_piece_moves() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert_refused(GAME, s, 0, "Nd1W-d3W", "d3W is not a knight's leap from d1W")
    assert_refused(GAME, s, 0, "Bb1W-d3W", "blocked on c2W")
    assert_refused(GAME, s, 0, "Nb1W-c2W", "holds a bishop, not a knight")
    assert_refused(GAME, s, 0, "Bb1W-c2W", "holds your own pawn")
    assert_refused(GAME, s, 0, "a3W-a4W", "no piece on a3W")
    assert_refused(GAME, s, 0, "a7B-a6B", "Black pawn", "you play White")
    assert_refused(GAME, s, 0, "a9W-a8W", "not a square", "ranks 1-4")
    assert_refused(GAME, s, 0, "z3QL3i-z4QL3i", "does not exist now", "QL3i")
    assert_refused(GAME, s, 1, "a7B-a6B", "not your turn")
    assert_refused(GAME, s, 0, "hello", "cannot read")


def test_move_into_check_is_refused() -> None:
    # rb3N attacks b2W by the stair step down-back (column b2 has only W)
    s = pos(f"{ST} Kb1W,rb3N,kc8B w - - 0 10")
    # a1QL1 and a0QL1: steps up onto WQ (column a0 has only layer 2)
    expected = ["a0QL1", "a1QL1", "a1W", "a2W", "c1W", "c2W"]
    assert moves_from(s, "b1W") == _expect("K", "b1W", expected)
    assert_refused(GAME, s, 0, "Kb1W-b2W", "would put your king in check")


@pytest.mark.parametrize(
    ("move", "why"),
    [
        ("Rb2W-c3W", "a rook never moves diagonally"),
        ("Bc2W-c4W", "a bishop moves only diagonally"),
        ("Qd2W-b3W", "b3W is not on a line from d2W: a diagonal changes file and rank alike"),
        ("Rb2W-b6N", "b6N is not on any of the rook's lines from b2W: a line keeps its level"),
        ("Bc2W-a4N", "a4N is not on any of the bishop's lines from c2W"),
        ("Nc1W-a3N", "a3N is not a knight's leap from c1W: it leaps two squares"),
        ("Kb1W-b3W", "b3W is not next to b1W: a king moves one square in any direction"),
    ],
)
def test_a_move_off_the_pieces_pattern_says_why(move: str, why: str) -> None:
    """Issue 18: not the generic 'a rook cannot go from X to Y' but the rule."""
    s = pos(f"{ST} Kb1W,Nc1W,Rb2W,Bc2W,Qd2W,ka8B w - - 0 10")
    text = assert_refused(GAME, s, 0, move, why)
    assert "cannot go from" not in text and len(text) <= 200
