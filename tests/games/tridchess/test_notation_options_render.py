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


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (f"{ST} Kb1W w - - 0 10", "exactly one black king"),
        ("WQ:QL1,WK:QL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10", "same pin"),
        ("WQ:QL1,WK:KL1,BQ:QL6 Kb1W,kc8B w - - 0 10", "all four"),
        ("WQ:QL9,WK:KL1,BQ:QL6,BK:KL6 Kb1W,kc8B w - - 0 10", "not a pin"),
        (f"{ST} Kb1W,kc8B,Pz3QL3i* w - - 0 10", "no attack board stands on QL3i"),
        (f"{ST} Kb1W,kc8B,Pb8B* w - - 0 10", "already have promoted"),
        (f"{ST} Kb1W,kc8B,Nb2W* w - - 0 10", "only a pawn"),
        (f"{ST} Kb1W,kc8B,Pb2W,Pb2W w - - 0 10", "two pieces on b2W"),
        (f"{ST} Kb1W,kc8B w KK - 0 10", "subset of KQkq"),
        (f"{ST} Kb1W,kc8B w X - 0 10", "subset of KQkq"),
        (f"{ST} Kb1W,kc8B x - - 0 10", "w or b"),
        (f"{ST} Kb1W,kc8B w - c6B 0 10", "en-passant"),
        (f"{ST} Kb1W,kc8B w - - x 10", "numbers"),
        (f"{ST} Kb1W,kc8B,Rc6B w - - 0 10", "not to move is in check"),
        (f"{ST} Kb1W", "7 fields"),
        (f"{ST} Kb1W,kc9B w - - 0 10", "not a square"),
    ],
)
def test_bad_position_strings(text: str, fragment: str) -> None:
    with pytest.raises(OptionError) as exc:
        GAME.parse_options([f"-position={text}"])
    assert fragment.lower() in str(exc.value).lower()


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
