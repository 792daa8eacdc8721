"""Rendering against the seed's board and the spec's drawings (section 2)."""

from __future__ import annotations

import pytest

from games.warpweft import GAME
from games.warpweft.geometry import SIZES
from tests.games.warpweft.spec_data import (
    DATA,
    SEED_NAME,
    SHARED,
    SPEC_NAME,
    seed_board,
    spec_boards,
    spec_case,
    spec_table,
)

SIZE_TABLE = {int(row[0]): row for row in spec_table("| N | columns")}
BOARDS = spec_boards()


def board_part(text: str) -> list[str]:
    """The drawing from header to footer (the status lines follow it)."""
    lines = text.split("\n")
    end = lines.index(lines[0], 1)
    return lines[: end + 1]


def new(*options: str):
    return GAME.start(GAME.parse_options(list(options)), 2)


def play(state, *moves: str):
    for move in moves:
        state = GAME.play(state, GAME.to_move(state), move)
    return state


def test_empty_default_board_is_the_seed_board() -> None:
    seed = seed_board()
    assert len(seed) == 39
    assert board_part(GAME.render(new())) == seed


def test_explicit_size4_thread_primary_is_the_seed_board_too() -> None:
    assert board_part(GAME.render(new("-size=4", "-threads"))) == seed_board()
    assert board_part(GAME.render(new("-patches"))) == seed_board()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("compact", [False, True])
def test_width_and_height_per_size(n: int, compact: bool) -> None:
    _, _, _, _, _, _, std_width, compact_width, height = SIZE_TABLE[n]
    lines = board_part(GAME.render(new(f"-size={n}"), compact=compact))
    assert len(lines) == int(height) == 8 * n + 7
    width = max(len(line) for line in lines)
    assert width == int(compact_width if compact else std_width)
    assert all(line == line.rstrip() or line == " " for line in lines)


@pytest.mark.parametrize("n", SIZES)
def test_every_compact_board_fits_in_79_columns(n: int) -> None:
    state = play(new(f"-size={n}", "-compact"), "C1")
    text = GAME.render(state)  # -compact is a board property too
    assert max(len(line) for line in text.splitlines()) <= 79
    assert text == GAME.render(state, compact=True)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_standard_boards_up_to_size4_fit_in_79_columns(n: int) -> None:
    text = GAME.render(new(f"-size={n}"))
    assert max(len(line) for line in text.splitlines()) <= 79


def test_help_explains_why_size5_and_6_are_wider() -> None:
    help_text = GAME.help()
    assert max(len(line) for line in help_text.splitlines()) <= 79
    assert "91" in help_text and "107" in help_text
    assert "80-column" in help_text and "-compact" in help_text


@pytest.mark.parametrize(
    ("key", "n", "compact"),
    [
        ("N=5 standard", 5, False),
        ("N=5 compact", 5, True),
        ("N=6 standard", 6, False),
        ("N=6 compact", 6, True),
    ],
)
def test_empty_large_boards_match_spec(key: str, n: int, compact: bool) -> None:
    (expected,) = [v for k, v in BOARDS.items() if k.startswith(key)]
    assert board_part(GAME.render(new(f"-size={n}"), compact=compact)) == expected


#: the accepted moves of spec case T1, read from the spec
T1_MOVES = [step.move for step in spec_case("T1")[1] if step.accepted]


def test_t1_final_position_standard_and_compact_match_spec() -> None:
    std = BOARDS["Example: final position of test T1 (N=2), standard and compact:"]
    (compact,) = [v for k, v in BOARDS.items() if k.endswith("#2") or k == ""]
    state = play(new("-size=2"), *T1_MOVES)
    assert board_part(GAME.render(state)) == std
    assert board_part(GAME.render(state, compact=True)) == compact


def test_size4_example_with_claims_matches_spec() -> None:
    (expected,) = [v for k, v in BOARDS.items() if k.startswith("Example (N=4, standard)")]
    # Warp holds thread I7 and patch H8, Weft holds thread G7 and patch H6.
    state = play(new(), "I7", "G7", "patches", "patches", "H8", "H6")
    assert board_part(GAME.render(state)) == expected


def test_status_lines_say_whose_move_and_each_state() -> None:
    state = play(new("-size=2"), "C1", "A1", "patches")
    status = GAME.render(state).split("\n")[23:]
    text = "\n".join(status)
    assert "Warp (V" in text and "Weft (H" in text
    warp_line = next(line for line in status if line.startswith("Warp"))
    weft_line = next(line for line in status if line.startswith("Weft"))
    assert "Patching" in warp_line and "player 1" in warp_line
    assert "Threading" in weft_line and "player 2" in weft_line
    assert "to move" in weft_line and "to move" not in warp_line
    assert "Thread-Primary" in text
    assert "Weft (player 2) to move" in text


def test_status_after_swap_and_at_the_end() -> None:
    state = play(new("-size=2"), "C1", "swap")
    text = GAME.render(state)
    assert "Warp (V, top-bottom): player 2" in text
    assert "Weft (H, left-right): player 1" in text
    assert "Weft (player 1) to move" in text and "swapped" in text
    final = play(new("-size=2", "-patches"), "B2", "D4", "threads", "threads")
    assert "Patch-Primary" in GAME.render(final)
    over = play(new("-size=2"), *T1_MOVES)
    text = GAME.render(over)
    assert "Game over: Warp (player 1) wins" in text and "to move" not in text


def test_claimed_regions_are_filled_with_owner_letter() -> None:
    state = play(new("-size=2"), "C1", "A1", "patches", "patches", "B2")
    lines = board_part(GAME.render(state, compact=True))
    # compact: columns 2 apart from column 6; A1 is row 1, C1 spans rows 0..2
    row1 = next(line for line in lines if line.startswith(" 1 "))
    row2 = next(line for line in lines if line.startswith(" 2 "))
    assert row1[3:10] == "|HHHHH|"  # A1: @1 A1 B1 joined
    assert row1[10] == "V"  # C1 interior
    assert row2[8] == "V" and row2[10] == "V"  # patch B2 and thread C1


def test_vendored_copies_match_the_shared_originals() -> None:
    """data/ holds verbatim copies of the seed and spec for checkouts
    without the shared folder; where the folder exists they must agree."""
    for shared, copy in (
        (SHARED / "seeds" / SEED_NAME, DATA / f"seed_{SEED_NAME}"),
        (SHARED / "rules" / SPEC_NAME, DATA / "warpweft_spec.md"),
    ):
        assert copy.exists()
        if shared.exists():
            assert copy.read_bytes() == shared.read_bytes()


def test_status_lines_word_for_word() -> None:
    """The lines under the board (spec 2.3 DECISION: side, letter, user, state, and the
    primary), worked by hand: after C1 A1 patches, Warp is Patching and Weft (seat 2)
    Threading with move 4 to play; after B2 and a swap in Patch-Primary the users have
    changed sides and Weft, now seat 1, plays move 2."""
    state = play(new("-size=2"), "C1", "A1", "patches")
    assert GAME.render(state).splitlines()[-4:] == [
        "Warp (V, top-bottom): player 1, Patching",
        "Weft (H, left-right): player 2, Threading   <- to move",
        "Thread-Primary, size 2.",
        "Move 4: Weft (player 2) to move.",
    ]
    state = play(new("-size=2", "-patches"), "B2", "swap")
    assert GAME.render(state).splitlines()[-4:] == [
        "Warp (V, top-bottom): player 2, Patching",
        "Weft (H, left-right): player 1, Patching   <- to move",
        "Patch-Primary, size 2, sides swapped.",
        "Move 2: Weft (player 1) to move.",
    ]
