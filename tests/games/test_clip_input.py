"""games.contract.clip_input: what every game uses to quote a player's input."""

from games.contract import INPUT_QUOTE_LIMIT, clip_input


def test_short_input_is_quoted_whole():
    assert clip_input("Rc4xBf4") == "Rc4xBf4"


def test_input_at_the_limit_is_not_cut():
    assert clip_input("a" * INPUT_QUOTE_LIMIT) == "a" * INPUT_QUOTE_LIMIT


def test_long_input_is_cut_to_the_limit_with_a_mark():
    assert clip_input("a" * 300) == "a" * (INPUT_QUOTE_LIMIT - 3) + "..."
    assert clip_input("abcdefgh", limit=6) == "abc..."


def test_whitespace_is_folded_onto_one_line():
    assert clip_input("  e2\n\t e4 ") == "e2 e4"
