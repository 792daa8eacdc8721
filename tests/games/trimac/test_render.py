"""Rendering (§6.2, §6.3, T25), help and option parsing."""

from __future__ import annotations

import json

import pytest

from games import OptionError
from games.trimac import GAME, start_position
from tests.games.trimac.common import BASE, pos, spec_block


def start():
    return GAME.start(GAME.parse_options([]), 3)


def test_t25_initial_board_exactly_as_spec() -> None:
    expected = spec_block("Initial position (exact expected output):")
    text = GAME.render(start())
    assert text == expected
    assert max(len(line) for line in text.splitlines()) == 77


def test_t25_key_exactly_as_spec_and_in_help() -> None:
    key = spec_block("### 6.3 Coordinate key")
    assert key in GAME.help()


def test_help_width_and_content() -> None:
    text = GAME.help()
    assert max(len(line) for line in text.splitlines()) <= 79
    for word in (
        "General",
        "Guard",
        "Bishop",
        "Knight",
        "Rook",
        "Cannon",
        "Pawn",
        "Banner",
        "-position",
        "-compact",
        "Rc4xBf4",
        "resign",
    ):
        assert word in text


def test_compact_render_is_narrower() -> None:
    text = GAME.render(start(), compact=True)
    assert "Turn order" not in text and "Red   :" not in text
    assert max(len(line) for line in text.splitlines()) <= 79
    assert text.splitlines()[0] == "TriMac 3 Friends - game 1 - move 1 - Red to move"


def test_header_counts_turns_and_shows_last_move() -> None:
    s = GAME.play(start(), 0, "Ra1-Ra2")
    lines = GAME.render(s).splitlines()
    assert lines[0] == "TriMac 3 Friends - game 1 - move 2 - Blue to move"
    assert "Last: Red Ra1-Ra2" in lines
    assert "rR" in lines[2 + 14 + 17 - 5]  # Ra2 = local (-5,7): row 10+14, col -15+26


def test_game_option_sets_header_number() -> None:
    s = GAME.start(GAME.parse_options(["-game=42"]), 3)
    assert GAME.render(s).startswith("TriMac 3 Friends - game 42 - move 1")
    data = json.loads(json.dumps(GAME.dump(s)))
    assert GAME.render(GAME.load(data)).startswith("TriMac 3 Friends - game 42 - move 1")
    del data["game"]  # a state stored without the number: the default board, 1
    assert GAME.render(GAME.load(data)).startswith("TriMac 3 Friends - game 1 - move 1")


def test_piece_list_wraps_between_groups() -> None:
    s = pos(BASE + " rP@Ba1 rP@Ga1 rP@Ra3")
    text = GAME.render(s)
    assert "Red   : K Rf1; A Rf4; P Ra3 Ba1 Ga1" in text  # lattice R, B, G order


def test_check_is_shown() -> None:
    s = pos(BASE + " bR@Rf3")
    assert "Red is in check (from Blue)." in GAME.render(s)


@pytest.mark.parametrize(
    "tokens",
    [[], ["-compact"], ["-COMPACT"], [f"-position={BASE}"], ["-game=3", "-compact"]],
)
def test_good_options(tokens: list[str]) -> None:
    opts = GAME.parse_options(tokens)
    GAME.start(opts, 3)


@pytest.mark.parametrize(
    ("tokens", "fragment"),
    [
        (["-size=3"], "Unknown option -size"),
        (["compact"], "not an option"),
        (["-compact=yes"], "takes no value"),
        (["-position="], "needs a value"),
        (["-position"], "needs a value"),
        (["-position=rK@Rf1 bK@Bf1"], "Green is alive"),
        (["-position=rK@Rz1 bK@Bf1 gK@Gf1"], "not a point"),
        (["-position=rK@Ra5 bK@Bf1 gK@Gf1"], "file a has ranks 1-4"),
        (["-position=rK@Rf1 rR@Rf1 bK@Bf1 gK@Gf1"], "two pieces"),
        (["-position=rK@Ra1 bK@Bf1 gK@Gf1"], "fortress"),
        (["-position=rK@Bf2 bK@Bf1 gK@Gf1"], "fortress"),
        (["-position=rK@Rf1 rA@Rf5 bK@Bf1 gK@Gf1"], "fortress"),
        (["-position=rK@Rf1 rE@Bd1 bK@Bf1 gK@Gf1"], "own lattice"),
        (["-position=rK@Rf1 bK@Bf1 gK@Gf1 to=X"], "to=X"),
        (["-position=rK@Rf1 bK@Bf1 gK@Gf1 last=R"], "last="),
        (["-position=rK@Rf1 bK@Bf1 alive=RB to=G"], "not alive"),
        (["-position=rK@Rf1 alive=R"], "at least two"),
        (["-position=rK@Rf1 bK@Bf1 gK@Gf1 alive=RB"], "Green is not alive"),
        (["-position=rQ@Rf1 bK@Bf1 gK@Gf1"], "not a position token"),
        (["-game=0"], "positive"),
    ],
)
def test_bad_options(tokens: list[str], fragment: str) -> None:
    with pytest.raises(OptionError) as err:
        GAME.parse_options(tokens)
    assert fragment.lower() in str(err.value).lower()
    if "Unknown" in fragment:
        assert "-compact" in str(err.value) and "-position" in str(err.value)


def test_position_string_round_trip_and_spec_example() -> None:
    example = "rK@Rf1 rA@Rf4 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 to=R alive=RBG last=G"
    assert GAME.position(pos(example)) == example
    assert GAME.position(start()) == start_position()
    s = GAME.play(start(), 0, "Ra1-Ra2")
    assert GAME.position(s).endswith("to=B alive=RBG last=R")
    assert GAME.position(pos(GAME.position(s))) == GAME.position(s)


def test_defeated_army_line_and_title() -> None:
    assert GAME.title == "TriMac 3 Friends" and GAME.players == 3
    assert GAME.name == "trimac" and "trimac3friends" in GAME.aliases
    s = pos("rK@Rf1 rA@Rf4 gK@Gf1 gA@Gf4 rR@Be5 rR@Bg5 rR@Bf3 bK@Bf1 to=B")
    assert "Blue  : defeated by Red" in GAME.render(s)


def test_piece_list_group_longer_than_a_line_keeps_the_indent() -> None:
    squares = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "b5", "c1", "c2", "c3"]
    squares += ["c4", "c5", "c6", "d3", "d4", "d5", "d6", "d7", "e5", "e6", "e7", "e8"]
    s = pos(BASE + " rR@Ra1 rH@Rb1 " + " ".join(f"rP@B{sq}" for sq in squares))
    lines = GAME.render(s).splitlines()
    i = lines.index("Red   : K Rf1; A Rf4; H Rb1; R Ra1;")
    assert lines[i + 1] == "        P " + " ".join(f"B{sq}" for sq in squares[:17])
    assert lines[i + 2] == "        " + " ".join(f"B{sq}" for sq in squares[17:])
    assert lines[i + 3].startswith("Blue  : K Bf1")
    assert max(len(line) for line in lines) <= 77


def test_options_default_and_shortened_names() -> None:
    """The stored options of a plain challenge, and names shortened as the server allows."""
    from server.commands.play import game_options

    assert GAME.parse_options([]) == {"compact": False, "position": None, "game": 1}
    assert game_options(GAME, ["-comp"]) == {"compact": True, "position": None, "game": 1}
    opts = game_options(GAME, [f"-pos={BASE}", "-gam=4"])
    assert opts == {"compact": False, "position": BASE, "game": 4}
    assert GAME.parse_options(["-game=1"])["game"] == 1  # the first board number


def test_only_three_players() -> None:
    for players in (2, 4):
        with pytest.raises(OptionError) as err:
            GAME.start(GAME.parse_options([]), players)
        assert str(err.value) == "TriMac 3 Friends is played by exactly 3 players"
