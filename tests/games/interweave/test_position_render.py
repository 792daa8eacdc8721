"""Position string (§1.1), options, dump/load and the rendered boards."""

from __future__ import annotations

import json

import pytest

from games import OptionError
from games.interweave import GAME
from tests.games.interweave.helpers import fen, play_all, state
from tests.games.playout import assert_roundtrip

START = "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1"


def test_position_option_round_trip_and_forms() -> None:
    st = GAME.start(GAME.parse_options([f"-position={START}"]), 2)
    assert GAME.position(st) == START
    alt = GAME.start(GAME.parse_options([f"-position={START.replace(' ', '_')}"]), 2)
    assert GAME.position(alt) == START
    split = GAME.parse_options(["-compact", "-position=" + START.split()[0], *START.split()[1:]])
    assert split["position"] == START and split["compact"]
    split = GAME.parse_options(["-position=" + START.split()[0], *START.split()[1:], "-fifty=off"])
    assert split["position"] == START and not split["fifty"]
    short = GAME.start(GAME.parse_options(["-position=" + " ".join(START.split()[:4])]), 2)
    assert GAME.position(short) == START


def test_reserves_parse_in_any_order_and_print_canonically() -> None:
    st = state("Ka1 Kb1", "Kg8 Kh8", reserves="rLlSRs")
    assert GAME.position(st).split()[3] == "SLRslr"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1", "8 ranks"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRQ w - - 0 1", "not a piece letter"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLR w - - 0 1", "7 squares"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS x - - 0 1", "w or b"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - K 0 1", "cannot be in a reserve"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - x 1", "numbers"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - -1 1", ">= 0"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w -", "6 fields"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0", "6 fields"),
        ("srlssrls/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1", "Kings"),
        ("srlkklPs/pppppppp/8/8/8/8/PPPPPPP1/SRLKKLRS w - - 0 1", "first or last rank"),
        ("srlkklrs/ppppppp1/8/8/8/8/PPPPPPPP/SRLKKLRp w - - 0 1", "first or last rank"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS b c3:d4 - 0 1", "double step"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w c3 - 0 1", "passed:victim"),
    ],
)
def test_bad_positions_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(OptionError, match="(?i)" + fragment.replace("(", r"\(")):
        GAME.parse_options([f"-position={text}"])


_ROWS = "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            _ROWS + " w -",
            "a position has 6 fields: placement, side (w/b), en passant (- or c3:d4), "
            "reserves (- or e.g. SLr), halfmove and fullmove counters, e.g. " + START,
        ),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1",
         "the placement needs 8 ranks separated by '/', not 7"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRQ w - - 0 1",
         "'Q' is not a piece letter (K S L R P for White, k s l r p for Black)"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLR w - - 0 1",
         "rank 1 of the placement has 7 squares, not 8"),
        (_ROWS + " x - - 0 1", "the side to move must be w or b, not 'x'"),
        (_ROWS + " w - K 0 1",
         "'K' cannot be in a reserve: only S, L, R (White) and s, l, r (Black)"),
        (_ROWS + " w - - x 1", "the halfmove and fullmove counters must be numbers"),
        (_ROWS + " w - - -1 1",
         "the halfmove counter must be >= 0 and the fullmove number >= 1"),
        (_ROWS + " w - - 0 0",
         "the halfmove counter must be >= 0 and the fullmove number >= 1"),
        # §1: each side has two Kings, eight Pawns, sixteen pieces
        ("srlssrls/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1",
         "Black must have one or two Kings, not 0"),
        ("srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLSSLRS w - - 0 1",
         "White must have one or two Kings, not 0"),
        ("kkk5/8/8/8/8/8/8/K7 w - - 0 1", "Black must have one or two Kings, not 3"),
        ("k7/8/8/8/8/P7/PPPPPPPP/K7 w - - 0 1", "White has more than 8 Pawns"),
        ("k7/pppppppp/p7/8/8/8/8/K7 w - - 0 1", "Black has more than 8 Pawns"),
        ("k7/8/8/8/8/SLR5/PPPPPPPP/SRLKKLRS w - - 0 1", "White has more than 16 pieces"),
        ("srlkklPs/pppppppp/8/8/8/8/PPPPPPP1/SRLKKLRS w - - 0 1",
         "a Pawn cannot stand on g8 (first or last rank)"),
        (_ROWS + " w c3 - 0 1",
         "the en-passant field must be - or passed:victim (e.g. c3:d4), not 'c3'"),
        (_ROWS + " b c3:d4 - 0 1",
         "en passant c3:d4: d4 must hold a Pawn of the side not to move that has just "
         "passed c3 by a double step"),
    ],
)
def test_bad_positions_word_for_word(text: str, reason: str) -> None:
    """The whole reason a refused -position gets, after the option's name."""
    with pytest.raises(OptionError) as info:
        GAME.parse_options([f"-position={text}"])
    assert str(info.value) == f"-position: {reason}"


def test_an_option_in_capitals_after_a_split_position_is_an_option() -> None:
    """A mailer split the four-field position; -COMPACT after it is the next option."""
    fields = START.split()[:4]
    opts = GAME.parse_options([f"-position={fields[0]}", *fields[1:], "-COMPACT"])
    assert opts == {"compact": True, "position": " ".join(fields), "fifty": True}


def test_a_stray_word_after_a_whole_split_position_is_not_part_of_it() -> None:
    """Six fields make a whole position: a seventh token is refused as an option."""
    with pytest.raises(OptionError) as info:
        GAME.parse_options([f"-position={START.split()[0]}", *START.split()[1:], "x"])
    assert str(info.value) == "'x' is not an option; options look like -name or -name=value"


def test_option_names_may_be_shortened_on_the_server() -> None:
    from server.commands.play import game_options

    opts = game_options(GAME, ["-comp", "-fif=off"])
    assert opts == {"compact": True, "position": None, "fifty": False}


def test_the_stored_repetition_key_is_the_first_four_fields() -> None:
    """§1.1: placement, side, ep and reserves form the key the stored history counts."""
    st = GAME.start(GAME.parse_options([]), 2)
    assert GAME.dump(st)["history"] == {" ".join(START.split()[:4]): 1}


def test_en_passant_field_is_validated() -> None:
    good = fen("Pd4 Kh1 Kh2", "Pc4 Ka8 Kb8", side="b", ep="c3:d4")
    assert GAME.position(GAME.start(GAME.parse_options([f"-position={good}"]), 2)) == good
    for bad in (
        fen("Pd4 Kh1 Kh2", "Pc4 Ka8 Kb8", side="w", ep="c3:d4"),  # wrong side to move
        fen("Pd4 Pc3 Kh1 Kh2", "Pc4 Ka8 Kb8", side="b", ep="c3:d4"),  # passed square occupied
        fen("Pd4 Pb2 Kh1 Kh2", "Pc4 Ka8 Kb8", side="b", ep="c3:d4"),  # start square occupied
        fen("Ld4 Kh1 Kh2", "Pc4 Ka8 Kb8", side="b", ep="c3:d4"),  # not a Pawn
    ):
        with pytest.raises(OptionError, match="en passant"):
            GAME.parse_options([f"-position={bad}"])


def test_options() -> None:
    assert GAME.parse_options([]) == {"compact": False, "position": None, "fifty": True}
    opts = GAME.parse_options(["-compact", "-fifty=OFF", f"-position={START}"])
    assert opts == {"compact": True, "position": START, "fifty": False}
    assert GAME.parse_options(["-fifty=on"])["fifty"] is True
    for bad in ("-nope", "-compact=yes", "-fifty=maybe", "-fifty", "-position", "-position=", "x"):
        with pytest.raises(OptionError) as info:
            GAME.parse_options([bad])
        if bad != "x":
            assert "-compact" in str(info.value) and "-fifty" in str(info.value)


def test_dump_load_keeps_history_counters_and_result() -> None:
    st = state("Ka1 Kc1", "Ka8 Kc8", halfmove=10, fullmove=7)
    cycle = ["a1-b2", "a8-b7", "b2-a1", "b7-a8"]
    st = play_all(st, *cycle, *cycle[:3])
    again = GAME.load(json.loads(json.dumps(GAME.dump(st))))
    assert_roundtrip(GAME, st)
    assert GAME.position(again) == GAME.position(st)
    end = GAME.play(again, 1, "b7-a8")  # the third occurrence survives storage
    assert GAME.outcome(end).losers == (1,)
    stored = GAME.load(json.loads(json.dumps(GAME.dump(end))))
    assert GAME.outcome(stored) == GAME.outcome(end) and GAME.to_move(stored) is None


def test_dump_load_after_a_king_capture() -> None:
    st = GAME.play(state("Re4 Ka1 Kb1", "Ke5 Pf4 Kh8"), 0, "e4*f4*e5")
    again = GAME.load(json.loads(json.dumps(GAME.dump(st))))
    assert GAME.outcome(again).winners == (0,)


def _check_width(text: str) -> None:
    assert max(len(line) for line in text.splitlines()) <= 79


def test_render_full_board() -> None:
    st = GAME.start(GAME.parse_options([]), 2)
    text = GAME.render(st)
    _check_width(text)
    # The author's diagram: ':' marks dark squares, a1 is dark.
    assert "1 |:S:| R |:L:| K |:K:| L |:R:| S |" in text
    assert "8 | s |:r:| l |:k:| k |:l:| r |:s:|" in text
    assert "6 |   |: :|   |: :|   |: :|   |: :|" in text
    assert "a   b   c   d   e   f   g   h" in text
    assert "White to move" in text
    assert "White reserve: -" in text and "Black reserve: -" in text
    assert "En passant" not in text


def test_render_shows_reserves_en_passant_turn_and_result() -> None:
    st = GAME.play(state("Pd6 Pa7 Sc5 Kh1 Kh2", "Sb7 Sc6 Kg8 Kh8"), 0, "d6xc7")
    text = GAME.render(st)
    assert "Black reserve: s s" in text and "Black to move" in text
    st = GAME.play(state("Pb2 Kh1 Kh2", "Pc4 Ka8 Kb8"), 0, "b2-d4")
    text = GAME.render(st)
    assert "En passant" in text and "d4" in text and "c3" in text
    compact = GAME.render(st, compact=True)
    assert "ep c3:d4" in compact
    st = GAME.play(state("Re4 Ka1 Kb1", "Ke5 Pf4 Kh8"), 0, "e4*f4*e5")
    for text in (GAME.render(st), GAME.render(st, compact=True)):
        _check_width(text)
        assert "Game over" in text and "White captured" in text


def test_render_compact() -> None:
    st = GAME.start(GAME.parse_options([]), 2)
    text = GAME.render(st, compact=True)
    _check_width(text)
    lines = text.splitlines()
    assert lines[0] == "8 srlkklrs" and lines[7] == "1 SRLKKLRS"
    assert lines[2] == "6 .:.:.:.:"  # a6 light, b6 dark
    assert "White to move" in text
    assert len(text.splitlines()) < len(GAME.render(st).splitlines())


def test_long_chain_fits_in_79_columns() -> None:
    st = GAME.play(state("La1 Kh5 Kh6", "Pa2 Pb3 Pc2 Kd8 Ke8"), 0, "a1xa5xc1xc7")
    for compact in (False, True):
        _check_width(GAME.render(st, compact=compact))


def test_help_fits_and_names_the_notation() -> None:
    text = GAME.help()
    _check_width(text)
    for word in ("a1xa3xc3xc1", "e4*e5*f4", "-position", "-compact", "-fifty", "stalemate"):
        assert word in text
