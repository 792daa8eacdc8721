"""Move notation (3.9), the position string (3.10) and the challenge options."""

from __future__ import annotations

import json

import pytest

from games import OptionError, load_game
from games.weavedungeon import GAME
from tests.games.playout import assert_refused, assert_roundtrip
from tests.games.weavedungeon.helpers import play_all, state

START = "pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1"


def start():
    return GAME.start(GAME.parse_options([]), 2)


def test_names_and_aliases():
    for word in ("weavedungeon", "weave", "weaveanddungeon", "WEAVE"):
        assert load_game(word) is GAME
    assert GAME.title == "Weave & Dungeon" and GAME.players == 2 and GAME.has_position


@pytest.mark.parametrize(
    "text", ["Da2-a3", "a2-a3", "DA2-A3", "da2xa3", "Diamond a2-a3", "Da2a3", " da2 - a3 ", "a2:a3"]
)
def test_move_spellings(text):
    want = GAME.position(GAME.play(start(), 0, "Da2-a3"))
    assert GAME.position(GAME.play(start(), 0, text)) == want


def test_full_piece_names():
    st = play_all(start(), "Dc2-c4 Dc8-c6")
    assert GAME.position(GAME.play(st, 0, "Triangle c1-c3")) == GAME.position(
        GAME.play(st, 0, "Tc1-c3")
    )
    st = state("Kd1", "Ki9")
    assert GAME.position(GAME.play(st, 0, "star d1-d2")) == GAME.position(
        GAME.play(st, 0, "Kd1-d2")
    )


def test_canonical_output_marks_captures_with_x():
    st = play_all(start(), "Da2-a3 Da8-a7")
    moves = GAME.legal_moves(st)
    assert "Pa1xa9" in moves and "Pa1-a8" in moves
    assert len(set(moves)) == len(moves)
    # "x" or "-" either way on input.
    assert GAME.position(GAME.play(st, 0, "Pa1-a9")) == GAME.position(GAME.play(st, 0, "Pa1xa9"))


def test_position_strings_through_a_game():
    st = start()
    assert GAME.position(st) == START
    st = GAME.play(st, 0, "Da2-a3")
    assert GAME.position(st) == "pstckctsp/ddddddddd/9/9/9/9/D8/1DDDDDDDD/PSTCKCTSP b - 1"
    st = GAME.play(st, 1, "Da8-a7")
    assert GAME.position(st) == "pstckctsp/1dddddddd/d8/9/9/9/D8/1DDDDDDDD/PSTCKCTSP w - 2"


def test_pool_is_written_in_order_white_first():
    st = GAME.start(GAME.parse_options(["-position=k8/9/9/9/9/9/9/9/8K b PcSt 7"]), 2)
    assert GAME.position(st) == "k8/9/9/9/9/9/9/9/8K b SPct 7"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("garbage", "placement"),
        ("9/9/9 w - 1", "9 ranks"),
        ("k8/9/9/9/9/9/9/9/7K w - 1", "exactly 9 squares"),
        ("k8/9/9/9/9/9/9/9/8KK w - 1", "exactly 9 squares"),
        ("k8/9/9/9/9/9/9/9/8X w - 1", "not a piece letter"),
        ("k8/9/9/9/9/9/9/9/9 w - 1", "exactly one Star"),
        ("k7k/9/9/9/9/9/9/9/8K w - 1", "exactly one Star"),
        ("k8/9/9/9/9/9/9/1P7/8K w - 1", "never enter the Dungeon"),
        ("k8/9/9/9/9/9/9/9/8K x - 1", "'w' or 'b'"),
        ("k8/9/9/9/9/9/9/9/8K w D 1", "rescue pool"),
        ("k8/9/9/9/9/9/9/9/8K w K 1", "rescue pool"),
        ("k8/9/9/9/9/9/9/9/8K w - 0", "move number"),
        ("k8/9/9/9/9/9/9/9/8K w - x", "move number"),
        ("k8/C8/9/9/9/9/9/9/8K w - 1", "in check"),
    ],
)
def test_bad_position_strings(text, fragment):
    with pytest.raises(OptionError) as exc:
        GAME.parse_options([f"-position={text}"])
    assert fragment.lower() in str(exc.value).lower()


def test_options():
    assert GAME.parse_options([]) == {"compact": False, "position": None}
    assert GAME.parse_options(["-compact"])["compact"] is True
    opts = GAME.parse_options([f"-position={START}", "-COMPACT"])
    assert opts["position"] == START and opts["compact"]
    for bad in (["-nonsense"], ["-compact=yes"], ["-position"], ["-position="], ["compact"]):
        with pytest.raises(OptionError) as exc:
            GAME.parse_options(bad)
        if bad[0].startswith("-n"):
            assert "-compact" in str(exc.value) and "-position" in str(exc.value)


def test_position_split_into_tokens_by_a_mailer():
    want = "k8/9/9/9/9/9/9/9/8K b T 3"
    tokens = ["-compact", "-position=k8/9/9/9/9/9/9/9/8K", "b", "T", "3"]
    assert GAME.parse_options(tokens) == {"compact": True, "position": want}
    tokens = ["-position=k8/9/9/9/9/9/9/9/8K", "w", "-", "1", "-compact"]
    assert GAME.parse_options(tokens)["position"] == "k8/9/9/9/9/9/9/9/8K w - 1"
    assert GAME.parse_options(["-position=k8/9/9/9/9/9/9/9/8K_b_T_3"])["position"] == want
    assert (
        GAME.parse_options(['-position="k8/9/9/9/9/9/9/9/8K', "b", "T", '3"'])["position"] == want
    )


def test_start_from_a_position_counts_the_star_as_unmoved_only_on_its_throne():
    st = state("Ke1", "Kd8")
    assert GAME.dump(st)["star_moved"] == [False, True]


def test_dump_and_load():
    st = play_all(start(), "Db2-b4 Db8-b6 Dc2-c4 Dc8-c6 Sb1-b2 Sb9-b8")
    assert_roundtrip(GAME, st)
    data = json.loads(json.dumps(GAME.dump(st)))
    again = GAME.load(data)
    assert GAME.position(again) == GAME.position(st)
    after = GAME.play(again, 0, "Tc1-e3")
    # Worked by hand from spec T3: the Square left b1, the Triangle c1 for e3.
    assert GAME.position(after) == "p1tckctsp/ds1dddddd/9/1dd6/9/1DD6/4T4/DS1DDDDDD/P2CKCTSP b - 4"
    assert_refused(GAME, again, 0, "Pa1-c2", "c1")


def test_help_fits_in_79_columns():
    text = GAME.help()
    assert max(len(line) for line in text.splitlines()) <= 79
    for word in (
        "Star",
        "Circle",
        "Triangle",
        "Square",
        "Pentagon",
        "Diamond",
        "-compact",
        "-position",
        "Triumph",
        "Ovation",
        "Victory",
        "Db8-b9=T",
    ):
        assert word in text


@pytest.mark.parametrize(
    "move", ["Da2" + "-" * 300 + "a3", "Q" * 300 + "a2-a3", "Da2-a3=" + "Q" * 300]
)
def test_a_long_move_is_quoted_cut(move):
    text = assert_refused(GAME, GAME.start(GAME.parse_options([]), 2), 0, move)
    assert len(text) < 200 and "..." in text


@pytest.mark.parametrize(
    "option",
    [
        "-" + "q" * 300,
        "-position=" + "p" * 300 + "/9/9/9/9/9/9/9/9 w - 1",
        "-position=4k4/9/9/9/9/9/9/9/4K4 " + "w" * 300 + " - 1",
        "-position=4k4/9/9/9/9/9/9/9/4K4 w - " + "x" * 300,
    ],
)
def test_a_long_option_is_quoted_cut(option):
    with pytest.raises(OptionError) as err:
        GAME.parse_options([option])
    assert len(str(err.value)) < 200 and "..." in str(err.value)


@pytest.mark.parametrize(
    "move, reason",
    [
        ("Ke1xe2", "a Star must leave its segment: e1 and e2 are both in [e1 e2]"),
        ("Tc1xd1", "a Triangle must leave its segment: c1 and d1 are both in [b1 c1 d1]"),
        ("Ke1-d2", "d2 holds your own Diamond"),  # reachable: the own piece is the reason
    ],
)
def test_an_own_piece_is_the_reason_only_where_the_move_could_land(move, reason):
    st = GAME.start(GAME.parse_options([]), 2)
    assert assert_refused(GAME, st, 0, move) == reason


def test_a_text_that_is_no_move_is_told_the_syntax_word_for_word() -> None:
    """The refusal teaches the 3.9 notation: the player reads it to fix the move."""
    text = assert_refused(GAME, start(), 0, "hello")
    assert text == (
        "'hello' is not a move: write a move as piece letter, from, to, e.g. Tc1-e3 "
        "or Cd1xd3 (x for a capture, =T to rescue a Triangle)"
    )


@pytest.mark.parametrize(
    "text, reason",
    [
        # Too few fields: the reason shows the 3.10 shape and the start as an example.
        (
            "garbage",
            "a position is <placement> <side> <rescue-pool> <fullmove>, e.g. "
            "'pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1'",
        ),
        # The bad letter is on rank 1 (the last row of the placement) or rank 9 (the first).
        (
            "k8/9/9/9/9/9/9/9/8X w - 1",
            "'X' in rank 1 is not a piece letter (K C T S P D) or a digit",
        ),
        (
            "X8/9/9/9/9/9/9/9/k7K w - 1",
            "'X' in rank 9 is not a piece letter (K C T S P D) or a digit",
        ),
        ("k8/9/9/9/9/9/9/9/9 w - 1", "White must have exactly one Star, not 0"),
        ("9/9/9/9/9/9/9/9/8K w - 1", "Black must have exactly one Star, not 0"),
        # Black to move while the White Star on a1 stands attacked by the Circle on a3.
        ("8k/9/9/9/9/9/c8/8D/K8 b - 1", "White is not to move but its Star is in check"),
        ("k8/C8/9/9/9/9/9/9/8K w - 1", "Black is not to move but its Star is in check"),
    ],
)
def test_bad_position_reasons_word_for_word(text: str, reason: str) -> None:
    """Each 3.10 refusal names the side, rank or shape at fault exactly."""
    with pytest.raises(OptionError) as exc:
        GAME.parse_options([f"-position={text}"])
    assert str(exc.value) == f"bad -position: {reason}"


def test_option_and_player_count_refusals_word_for_word() -> None:
    """A refused challenge says what is wrong and lists the valid options."""
    with pytest.raises(OptionError) as exc:
        GAME.parse_options(["-compact=yes"])
    assert str(exc.value) == (
        "-compact takes no value; valid options: -compact, -position=<position string>"
    )
    with pytest.raises(OptionError) as exc:
        GAME.start(GAME.parse_options([]), 3)
    assert str(exc.value) == "Weave & Dungeon is a game for 2 players"


def test_load_of_a_bare_position_takes_the_flags_from_it_and_starts_the_history() -> None:
    """A record holding only the position string is read as 3.10 says.

    The Star flags follow the position (the White Star off its throne e1 has
    moved, the Black one on e9 has not) and the repetition history starts at
    that position, counted once under its key: placement, side and pool.
    """
    text = "4k4/9/9/9/9/9/9/9/3K5 b - 7"
    st = GAME.load({"position": text})
    assert GAME.dump(st) == {
        "position": text,
        "star_moved": [True, False],
        "history": {"4k4/9/9/9/9/9/9/9/3K5 b -": 1},
        "last_move": None,
    }
