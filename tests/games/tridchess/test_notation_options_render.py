"""Notation, the position string, options and the ASCII board (spec §1.5-§1.7, §8)."""

from __future__ import annotations

import pytest

from games import OptionError
from games.tridchess import GAME
from tests.games.playout import assert_refused
from tests.games.tridchess.helpers import ST, play, pos

SPEC_START = (
    "WQ:QL1,WK:KL1,BQ:QL6,BK:KL6 Rz0QL1,Qa0QL1,Pz1QL1,Pa1QL1,Kd0KL1,Re0KL1,Pd1KL1,"
    "Pe1KL1,Na1W,Bb1W,Bc1W,Nd1W,Pa2W,Pb2W,Pc2W,Pd2W,rz9QL6,qa9QL6,pz8QL6,pa8QL6,kd9KL6,"
    "re9KL6,pd8KL6,pe8KL6,na8B,bb8B,bc8B,nd8B,pa7B,pb7B,pc7B,pd7B w KQkq - 0 1"
)

# Spec §8, the grid part of the start diagram.
SPEC_GRID = """\
      L6      B       L4      N       L2      W       L0
    zabcde  zabcde  zabcde  zabcde  zabcde  zabcde  zabcde
 9  rq  kr                                                  9
 8  pp  pp   nbbn                                           8
 7           pppp                                           7
 6           .:.:            .:.:                           6
 5           :.:.            :.:.                           5
 4                           .:.:            .:.:           4
 3                           :.:.            :.:.           3
 2                                           PPPP           2
 1                                  PP  PP   NBBN           1
 0                                  RQ  KR                  0
    zabcde  zabcde  zabcde  zabcde  zabcde  zabcde  zabcde"""


def start():
    return GAME.start(GAME.parse_options([]), 2)


# -- position string ---------------------------------------------------------------


def test_start_position_string_is_the_spec_one() -> None:
    assert GAME.position(start()) == SPEC_START


def test_position_option_round_trip_and_split_tokens() -> None:
    opts = GAME.parse_options([f"-position={SPEC_START}"])
    assert GAME.position(GAME.start(opts, 2)) == SPEC_START
    # a mailer that split the string on spaces, or underscores for spaces
    parts = SPEC_START.split()
    opts = GAME.parse_options([f"-position={parts[0]}", *parts[1:], "-compact"])
    assert opts["compact"] is True and opts["position"] == SPEC_START
    opts = GAME.parse_options([f"-position={SPEC_START.replace(' ', '_')}"])
    assert opts["position"] == SPEC_START


def test_position_accepts_any_letter_case_in_squares() -> None:
    s = pos("wq:ql1,wk:kl1,bq:ql6,bk:kl6 KB1w,kC8b w - - 0 10")
    assert GAME.position(s) == f"{ST} Kb1W,kc8B w - - 0 10"


TWO = f"{ST} Kb1W,kc8B"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (f"{ST} Kb1W w - - 0 10", "pieces field: there must be exactly one black king"),
        (f"{ST} Kb1W,Kb2W,kc8B w - - 0 10", "pieces field: there must be exactly one white king"),
        ("WQ:QL1,WK:QL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10",
         "boards field: two attack boards stand on the same pin"),
        ("WQ:QL1,WK:KL1,BQ:QL6 Kb1W,kc8B w - - 0 10",
         "boards field: all four attack boards WQ, WK, BQ, BK must be placed"),
        ("XQ:QL1,WK:KL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10",
         "boards field: 'XQ:QL1' should look like WQ:QL1"),
        ("WQ:QL1,WQ:KL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10", "boards field: WQ is placed twice"),
        ("WQ:QL9,WK:KL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10",
         "QL9 is not a pin position: they are QL1..QL6 and KL1..KL6, each also hanging below "
         "as QL1i..KL6i"),
        (f"{TWO},Pz3QL3i* w - - 0 10", "z3QL3i does not exist now: no attack board stands on QL3i"),
        (f"{TWO},Pb8B* w - - 0 10", "pieces field: a pawn on b8B would already have promoted"),
        (f"{TWO},Nb2W* w - - 0 10", "pieces field: Nb2W*: only a pawn carries the moved mark *"),
        (f"{TWO},Xb2W w - - 0 10", "pieces field: 'Xb2W' should look like Pb2W or rz9QL6*"),
        (f"{TWO},Pb2W,Pb2W w - - 0 10", "pieces field: two pieces on b2W"),
        (f"{TWO},pb1W w - - 0 10", "pieces field: two pieces on b1W"),
        (f"{TWO} w KK - 0 10", "castling field must be a subset of KQkq or -, not 'KK'"),
        (f"{TWO} w X - 0 10", "castling field must be a subset of KQkq or -, not 'X'"),
        (f"{TWO} x - - 0 10", "side to move must be w or b, not 'x'"),
        (f"{TWO} w - c6B 0 10", "en-passant square c6B must be empty with the pawn that just "
         "double-stepped right behind it"),
        (f"{TWO} w - - x 10", "halfmove and fullmove must be numbers"),
        (f"{TWO} w - - -1 10", "halfmove must be >= 0 and fullmove >= 1"),
        (f"{TWO} w - - 0 0", "halfmove must be >= 0 and fullmove >= 1"),
        (f"{TWO},Rc6B w - - 0 10", "the side that is not to move is in check"),
        (f"{ST} Kb1W", "a position has 7 fields: boards pieces side castling en-passant halfmove "
         "fullmove (got 2)"),
        (f"{ST} Kb1W,kc9B w - - 0 10", "c9B is not a square: board B has files a-d and ranks 5-8"),
        (f"{TWO} w - z5N 0 10", "z5N is not a square: board N has files a-d and ranks 3-6"),
        (f"{TWO} w - z6QL4 0 10", "z6QL4 does not exist now: no attack board stands on QL4"),
        (f"{TWO} w - xx 0 10", "xx is not a square; squares look like b2W, c5N or z0QL1"),
    ],
)
def test_bad_position_strings(text: str, reason: str) -> None:
    """Each refusal's whole reason (case included), after the option's name."""
    with pytest.raises(OptionError) as exc:
        GAME.parse_options([f"-position={text}"])
    assert str(exc.value) == f"-position: {reason}"


def test_position_lists_each_side_from_its_own_board_outward() -> None:
    """Written pieces: White's W, N, B (then up the ranks), Black's B, N, W."""
    s = pos(f"{ST} Pc6B*,Qb4N,Kb1W,nb3W,pb5N*,kc8B w - - 0 10")
    assert GAME.position(s) == f"{ST} Kb1W,Qb4N,Pc6B*,kc8B,pb5N*,nb3W w - - 0 10"


def test_castling_rights_without_king_and_rook_at_home_are_dropped() -> None:
    s = pos(f"{ST} Kb1W,Rz0QL1,kd9KL6,re9KL6 w KQkq - 0 10")
    assert GAME.position(s).split()[3] == "k"  # only Black's king side is possible


def test_options() -> None:
    assert GAME.parse_options([]) == {"compact": False, "position": None}
    assert GAME.parse_options(["-compact"])["compact"] is True
    with pytest.raises(OptionError, match="-compact"):
        GAME.parse_options(["-colour=red"])
    with pytest.raises(OptionError, match="no value"):
        GAME.parse_options(["-compact=yes"])
    with pytest.raises(OptionError):
        GAME.parse_options(["compact"])


# -- move input ------------------------------------------------------------------------


def test_input_forms() -> None:
    s = start()
    same = GAME.position(play(s, "Nd1W-c3W"))
    for text in ("nd1w-c3w", "Nd1W-c3W+", "Nd1Wxc3W", "Nc3W", " Nd1W - c3W ", "d1W-c3W"):
        assert GAME.position(play(s, text)) == same, text
    assert GAME.position(play(s, "c3N")) == GAME.position(play(s, "c2W-c3N"))
    assert GAME.position(play(s, "Pc2W-c3N")) == GAME.position(play(s, "c2W-c3N"))
    b = pos(f"{ST} pc7B,Nd6N,Kb1W,ka8B b - - 0 10")
    assert GAME.position(play(b, "c7B-d6N")) == GAME.position(play(b, "c7Bxd6N"))


def test_short_forms_ambiguous_and_board() -> None:
    s = pos(f"{ST} Pa3W*,Pc3W*,nb4W,Kd1W,kc8B w - - 0 10")
    assert_refused(GAME, s, 0, "b4W", "ambiguous", "a3Wxb4W", "c3Wxb4W")
    assert_refused(GAME, s, 0, "Nb4W", "no knight")
    s = pos(f"{ST} Kb1W,kc8B w - - 0 10")
    assert GAME.position(play(s, "QL3i")) == GAME.position(play(s, "QL1-QL3i"))
    assert_refused(GAME, s, 0, "QL5", "none of your attack boards")


def test_move_text_forms() -> None:
    s = play(start(), "b2W-b4W", "c7B-c5B", "b4W-b5N", "a7B-a6B")
    assert "b5Nxc6B" not in GAME.legal_moves(s)  # no e.p.: c5B was not just double-stepped
    assert all(" " not in m or m.endswith(" e.p.") for m in GAME.legal_moves(s))


# -- rendering --------------------------------------------------------------------------


def test_render_start_matches_spec_layout() -> None:
    text = GAME.render(start())
    assert SPEC_GRID in text
    assert "WQ=QL1 WK=KL1 BQ=QL6 BK=KL6" in text
    assert "Last move: -" in text and "Check: no" in text
    # the footer lines of the spec's example, character for character
    footer = (
        "Boards: WQ=QL1 WK=KL1 BQ=QL6 BK=KL6   (pin ni = hanging under board)\n"
        "Last move: -            Check: no\n"
    )
    assert footer in text
    assert "White to move" in text
    assert max(len(line) for line in text.splitlines()) <= 79


def test_render_compact_and_width() -> None:
    s = play(start(), "Nd1W-c3W")
    for compact in (False, True):
        text = GAME.render(s, compact=compact)
        assert max(len(line) for line in text.splitlines()) <= 79
        assert "Nd1W-c3W" in text
        assert "Black to move" in text
    assert len(GAME.render(s, compact=True).splitlines()) < len(GAME.render(s).splitlines())


def test_render_shows_moved_boards_check_and_mate() -> None:
    s = pos("WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 Rb3W,Kc1W,ka3N w - - 0 10")
    text = GAME.render(s)
    assert "WQ=QL3i" in text
    row3 = next(line for line in text.splitlines() if line.startswith(" 3 "))
    # layer N (4th grid, columns 28-33) has the king on a3N; L2 has QL3i's z3/a3
    assert row3[28:34] == " k.:. "
    assert row3[36:42] == ".:    "  # z3 light, a3 dark
    after = play(s, "QL3i-QL3")
    text = GAME.render(after)
    assert "Check: yes" in text and "Last move: QL3i-QL3+" in text
    mate = play(pos(f"{ST} Qb7B,Ra7B,Kb1W,kz9QL6 w - - 0 40"), "Qb7B-a8QL6")
    text = GAME.render(mate)
    assert "Qb7B-a8QL6#" in text and "White wins by checkmate" in text


@pytest.mark.parametrize(
    ("move", "quoted"),
    [
        ("Nd1W-" + "x" * 300, "cannot read 'Nd1W-xxxxxxxxxxxxxxxx...'"),
        ("a" + "9" * 300 + "W-a2W", "a99999999999999999999... is not a square"),
        ("QL" + "1" * 300 + "-QL2", "QL1111111111111111111... is not a pin position"),
    ],
)
def test_a_long_input_is_quoted_cut(move: str, quoted: str) -> None:
    """Issue 18: the reason quotes at most 24 characters of what was written."""
    text = assert_refused(GAME, pos(f"{ST} Kb1W,ka8B w - - 0 1"), 0, move, quoted)
    assert len(text) < 200  # the reason for a 300-character input was over 400


def test_a_long_position_field_is_quoted_cut() -> None:
    with pytest.raises(OptionError, match=r"'Kb1Wxxxxxxxxxxxxxxxxx\.\.\.' should look like"):
        GAME.parse_options([f"-position={ST} Kb1W{'x' * 300},ka8B w - - 0 1"])


def test_position_accepts_the_st_shorthand_of_the_spec() -> None:
    """§9 writes ST for the start boards; -position reads it (any case)."""
    for boards in ("ST", "st"):
        opts = GAME.parse_options([f"-position={boards} Kb1W,kc8B w - - 0 10"])
        assert opts["position"] == "WQ:QL1,WK:KL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10"


def test_compact_board_fits_78_columns_once_the_game_is_over() -> None:
    """Issue 18: the footer put Last, Check and the game-over reason on one
    87-column line; the reason now gets its own line when it does not fit."""
    s = pos("WQ:QL1,WK:KL1,BQ:QL6,BK:KL6 Kb1W,Nc1W,ka8B w - - 99 60")
    s = play(s, "Nc1W-b3W")
    text = GAME.render(s, compact=True)
    assert max(len(line) for line in text.splitlines()) <= 78
    assert text.splitlines()[-2:] == [
        "Last: Nc1W-b3W   Check: no",
        "Game over: draw: 100 plies without a capture or pawn move.",
    ]
    playing = GAME.render(pos(f"{ST} Kb1W,Nc1W,ka8B w - - 0 60"), compact=True)
    assert playing.splitlines()[-1] == "Last: -   Check: no   White to move."


def test_boards_hanging_on_the_lowest_pins_are_drawn_on_layer_0() -> None:
    """QL1i and KL2i stand on layer 0: their cells show in the L0 grid."""
    s = pos("WQ:QL1i,WK:KL2i,BQ:QL6,BK:KL6 Kb1W,Pz1QL1i*,kc8B w - - 0 10")
    rows = GAME.render(s, compact=True).splitlines()  # rank y is on row 12 - y
    l0 = 4 + 6 * (6 + 1)  # after six 6-column grids, each followed by a space
    assert [rows[12 - y][l0:] for y in (5, 4, 1, 0)] == [
        "    .:  5", "    :.  4", "P:      1", ":.      0",
    ]


def test_short_board_move_names_the_carried_pawns_promotion() -> None:
    """'QL6i=N' is QL4-QL6i=N: the short form keeps the promotion letter."""
    s = pos("WQ:QL4,WK:KL1,BQ:QL1i,BK:KL6 Pa7QL4*,Kb1W,kd8B w - - 0 10")
    assert GAME.position(play(s, "QL6i=N")).split()[1] == "Na9QL6i,Kb1W,kd8B"
    assert GAME.position(play(s, "QL6i")).split()[1] == "Qa9QL6i,Kb1W,kd8B"


def test_header_line_as_in_spec_section_8() -> None:
    """§8 line 1: game id, move number, side (and user) to move, ruleset."""
    s = start()
    players = ["alice", "bob"]
    first = GAME.render(s, board=17, players=players).splitlines()[0]
    assert first == "TRI-D CHESS game 17  move 1  White (alice) to move   [rules: loidl]"
    first = GAME.render(play(s, "a2W-a3W"), board=17, players=players).splitlines()[0]
    assert first == "TRI-D CHESS game 17  move 1  Black (bob) to move   [rules: loidl]"
    # a userid too long for a 79-column line: the side alone still says who moves
    first = GAME.render(s, board=17, players=["a" * 60, "bob"]).splitlines()[0]
    assert first == "TRI-D CHESS game 17  move 1  White to move   [rules: loidl]"
    mate = play(pos(f"{ST} Qb7B,Ra7B,Kb1W,kz9QL6 w - - 0 40"), "Qb7B-a8QL6")
    first = GAME.render(mate, board=17, players=players).splitlines()[0]
    assert first == "TRI-D CHESS game 17  move 40  game over   [rules: loidl]"
    # however long the line gets, a finished game says so
    big = 10**40
    first = GAME.render(mate, board=big, players=players).splitlines()[0]
    assert first == f"TRI-D CHESS game {big}  move 40  game over   [rules: loidl]"
