"""The whole reason a player reads for a refused move, word for word.

A refusal is the only help a player gets by mail, so each reason must name
the rule of the spec that the move breaks, in the game's terms (squares such
as b2W, pins such as QL4, the boards' names WQ..BK).  The other tests check a
word or two of these reasons; here one representative illegal move of every
kind of refusal is checked in full, and each expected text was written from
the spec section it cites (not copied from the engine's output).
"""

from __future__ import annotations

import pytest

from games.contract import IllegalMove, OptionError
from games.tridchess import GAME, State
from tests.games.tridchess.helpers import ST, play, pos

START = "start"
#: Castling is possible for White (move 5, king and both rooks at home).
CASTLE = f"{ST} Rz0QL1,Kd0KL1,Re0KL1,kd9KL6 w KQ - 0 5"
#: TC-06: BQ on QL4 is Black's; WQ and WK each hold a rook.
TC06 = "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,Rz0QL1,Re0KL1,kc8B w - - 0 10"
#: TC-07: Black's board BQ on QL4 carries a white pawn.
TC07 = "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B,Pa6QL4* b - - 0 10"
#: A white rook and queen on the neutral board.
SLIDERS = f"{ST} Ra4N,Qc4N,Kb1W,kc8B w - - 0 10"
#: A white pawn that has already moved, on b2W.
MOVED_PAWN = f"{ST} Pb2W*,Kd1W,kc8B w - - 0 10"
#: A white pawn one step from its last rank (§4.3 P7).
PROMOTING = f"{ST} Pa7B*,Kb1W,kd9KL6 w - - 0 10"


def _state(text: str) -> State:
    return GAME.start(GAME.parse_options([]), 2) if text == START else pos(text)


def _reason(state: State, move: str) -> str:
    with pytest.raises(IllegalMove) as exc:
        GAME.play(state, GAME.to_move(state), move)
    return str(exc.value)


@pytest.mark.parametrize(
    ("position", "move", "reason"),
    [
        # §4.4: castling is not allowed on a player's first move, either side
        (START, "O-O", "O-O: castling is not allowed on a player's first move"),
        (START, "O-O-O", "O-O-O: castling is not allowed on a player's first move"),
        (
            f"{ST} Rz0QL1,Kd0KL1,Re0KL1,kd9KL6 w Q - 0 5",
            "O-O",
            "O-O: your king or that rook has already moved",
        ),
        (
            f"{ST} Rz0QL1,Qa0QL1,Kd0KL1,Re0KL1,kd9KL6 w KQ - 0 5",
            "O-O-O",
            "O-O-O: a0QL1 between king and rook is not empty",
        ),
        # rd1KL1 gives check along the d-file of WK's board
        (
            f"{ST} Rz0QL1,Kd0KL1,Re0KL1,rd1KL1,kd9KL6 w KQ - 0 5",
            "O-O-O",
            "O-O-O: you cannot castle out of check",
        ),
        # re1KL1 guards e0KL1, where the king lands in king-side castling
        (
            f"{ST} Rz0QL1,Kd0KL1,Re0KL1,re1KL1,kd9KL6 w KQ - 0 5",
            "O-O",
            "O-O: the king would land on an attacked square",
        ),
        # §4.2 pieces, from the start position
        (
            START,
            "Nd1W-d3W",
            "Nd1W-d3W: d3W is not a knight's leap from d1W: it leaps two squares along one "
            "of file, rank or level and one along another (levels are counted per column)",
        ),
        (START, "Bb1W-d3W", "Bb1W-d3W: the bishop's way is blocked on c2W"),
        (
            START,
            "Bb1W-b3W",
            "Bb1W-b3W: a bishop moves only diagonally (a diagonal step may also change one level)",
        ),
        # the wrong letter is refused before the piece is named in the label
        (START, "Nb1W-c2W", "b1W-c2W: b1W holds a bishop, not a knight"),
        (START, "Bb1W-c2W", "Bb1W-c2W: c2W holds your own pawn"),
        (START, "a3W-a4W", "a3W-a4W: there is no piece on a3W"),
        (START, "a7B-a6B", "a7B-a6B: a7B holds a Black pawn; you play White"),
        (START, "Nd1W-d1W", "Nd1W-d1W: a move must change square"),
        (
            SLIDERS,
            "Ra4N-b5N",
            "Ra4N-b5N: a rook never moves diagonally; it goes along a file or a rank, up or down",
        ),
        # a4N's lines toward a6: a5N-a6N on N, and the stair step a5B, after
        # which column a6 has no level above B: a6B is on none of them
        (
            SLIDERS,
            "Ra4N-a6B",
            "Ra4N-a6B: a6B is not on any of the rook's lines from a4N: a line keeps its level "
            "or changes one level at every step (levels are counted per column) and stops at "
            "a missing square",
        ),
        (
            SLIDERS,
            "Qc4N-a5N",
            "Qc4N-a5N: a5N is not on a line from c4N: a diagonal changes file and rank alike",
        ),
        (
            SLIDERS,
            "Kb1W-b3W",
            "Kb1W-b3W: b3W is not next to b1W: a king moves one square in any direction, "
            "one level up or down counting as a step",
        ),
        # §4.3 pawns
        (f"{ST} Pb3N*,Kb1W,kc8B w - - 0 10", "b3N-b3W", "b3N-b3W: a white pawn never moves down"),
        (f"{ST} pc6N*,Kb1W,ka8B b - - 0 10", "c6N-c5B", "c6N-c5B: a black pawn never moves up"),
        (f"{ST} pc7B,Nd6N,Kb1W,ka8B b - - 0 10", "c7B-c8B", "c7B-c8B: a pawn never moves backward"),
        (
            f"{ST} pc7B,Nd6N,Kb1W,ka8B b - - 0 10",
            "c7B-c5N",
            "c7B-c5N: a pawn's double step stays on its level",
        ),
        (
            MOVED_PAWN,
            "b2W-b4W",
            "b2W-b4W: this pawn has already moved, so it has no double step",
        ),
        (
            f"{ST} Pb2W,Nb3W,Kd1W,kc8B w - - 0 10",
            "b2W-b4W",
            "b2W-b4W: the double step needs both squares ahead on its level, empty",
        ),
        (
            f"{ST} Pb2W*,nb3W,Kd1W,kc8B w - - 0 10",
            "b2W-b3W",
            "b2W-b3W: a pawn captures only diagonally forward",
        ),
        (MOVED_PAWN, "b2W-c3W", "b2W-c3W: a pawn moves diagonally only to capture"),
        (
            MOVED_PAWN,
            "b2W-b5N",
            "b2W-b5N: a pawn cannot go there; it steps one rank forward, one level up, or both "
            "(levels are counted per column), and captures diagonally forward",
        ),
        (
            PROMOTING,
            "a7B-a8B",
            "a7B-a8B: a pawn reaching its last rank must promote: add =Q, =R, =B or =N",
        ),
        (MOVED_PAWN, "b2W-b3W=Q", "b2W-b3W: only a pawn reaching its last rank promotes"),
        # §1.6 short forms
        (
            f"{ST} Pa3W*,Pc3W*,nb4W,Kd1W,kc8B w - - 0 10",
            "Nb4W",
            "Nb4W: no knight of yours can move to b4W",
        ),
        (
            PROMOTING,
            "a8B",
            "a8B: a pawn reaching its last rank must promote: add =Q, =R, =B or =N",
        ),
        (MOVED_PAWN, "b3W=Q", "b3W: only a pawn reaching its last rank promotes"),
        (
            f"{ST} Kb1W,kc8B w - - 0 10",
            "QL5",
            "QL5: none of your attack boards can move to QL5 now",
        ),
        (f"{ST} Kb1W,kc8B w - - 0 10", "QL3i=Q", "QL3i: no pawn is promoted by this move"),
        # §3.1 attack boards
        (f"{ST} Kb1W,kc8B w - - 0 10", "QL3-QL5i", "QL3-QL5i: no attack board stands on QL3"),
        (
            TC06,
            "QL4-QL5i",
            "QL4-QL5i: BQ on QL4 is Black's attack board; only its owner may move it",
        ),
        (
            TC06,
            "QL1-QL3i",
            "QL1 cannot move: it carries a rook (a board moves only when empty or carrying "
            "one pawn)",
        ),
        (START, "QL1-QL3i", "QL1 cannot move: it carries four pieces"),
        (
            "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B,pz7QL4*,pa6QL4* b - - 0 10",
            "QL4-QL5i",
            "QL4 cannot move: it carries two pieces",
        ),
        # table §3.2: QL4 goes to QL5i, QL6i (along the ranks), KL4, QL4i
        (
            "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10",
            "QL4-QL3",
            "QL4-QL3: QL3 is not next to QL4; a board moves one pin at a time, from QL4 to "
            "QL5i, QL6i, KL4, QL4i",
        ),
        (
            "WQ:QL1,WK:KL4,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10",
            "QL4-KL4",
            "QL4-KL4: KL4 is taken by WK",
        ),
        (TC07, "QL4-QL4i", "QL4-QL4i: only an empty board can change level"),
        (
            TC07,
            "QL4-QL6i",
            "QL4-QL6i would carry White's pawn to its last rank; you may not carry an enemy "
            "pawn there",
        ),
        (
            "WQ:QL1,WK:KL1,BQ:QL4,BK:KL6 Kb1W,kc8B b - - 0 10",
            "QL4-QL5i=Q",
            "QL4-QL5i: no pawn is promoted by this move, so drop =Q",
        ),
        # §2 and §5: the mover's king must not be attacked afterwards
        (
            f"{ST} Kd6N,Rb5B,kb8B,rb7B w - - 0 10",
            "Kd6N-d7B",
            "Kd6N-d7B would put your king in check",
        ),
        (
            "WQ:QL3i,WK:KL1,BQ:QL6,BK:KL6 rb3W,Ka3N,kc8B w - - 0 10",
            "QL3i-QL3",
            "QL3i-QL3 would leave your king in check",
        ),
        # rb4W checks Kb1W along the b-file of W; WQ's board is nowhere near it
        (
            f"{ST} Kb1W,rb4W,kc8B w - - 0 10",
            "QL1-QL3i",
            "QL1-QL3i: your king is in check and this move does not answer it",
        ),
    ],
)
def test_reason_for_an_illegal_move(position: str, move: str, reason: str) -> None:
    assert _reason(_state(position), move) == reason


def test_an_ambiguous_short_form_names_every_move_it_could_be() -> None:
    """§1.6: a short form that fits two legal moves is refused, naming both."""
    s = pos(f"{ST} Pa3W*,Pc3W*,nb4W,Kd1W,kc8B w - - 0 10")
    assert _reason(s, "b4W") in (
        "b4W is ambiguous: it could be a3Wxb4W or c3Wxb4W; write the move in full",
        "b4W is ambiguous: it could be c3Wxb4W or a3Wxb4W; write the move in full",
    )


def test_en_passant_too_late_says_when_it_was_possible() -> None:
    """§4.3 P6: the right lasts only for the move right after the double step."""
    s = pos(f"{ST} Pd5N*,pc7B,Kb1W,ka8B b - - 0 10")
    s = play(s, "c7B-c5B", "Kb1W-b2W", "ka8B-a7B")
    assert _reason(s, "d5Nxc6B") == (
        "d5N-c6B: en passant is possible only on the move right after that pawn's double step"
    )


def test_castling_written_with_zeros_or_lower_case_is_castling() -> None:
    """§1.6: 0-0 / 0-0-0 (and any case) mean O-O / O-O-O for White as for Black."""
    s = pos(CASTLE)
    for text in ("0-0", "o-o"):
        pieces = GAME.position(play(s, text)).split()[1].split(",")
        assert {"Ke0KL1", "Rd0KL1"} <= set(pieces), text
    for text in ("0-0-0", "o-o-o"):
        pieces = GAME.position(play(s, text)).split()[1].split(",")
        assert {"Ka0QL1", "Rd0KL1", "Re0KL1"} <= set(pieces), text


def test_short_form_promotion_names_the_piece() -> None:
    """§1.6 short form with =X: the pawn on a7B becomes the piece named."""
    s = pos(PROMOTING)
    for letter in "QRBN":
        pieces = GAME.position(play(s, f"a8B={letter}")).split()[1].split(",")
        assert f"{letter}a8B" in pieces and "Pa7B*" not in pieces


def test_not_your_turn_names_the_side_to_move() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    with pytest.raises(IllegalMove) as exc:
        GAME.play(s, 1, "a7B-a6B")
    assert str(exc.value) == "it is not your turn: White is to move"
    s = play(s, "a2W-a3W")
    with pytest.raises(IllegalMove) as exc:
        GAME.play(s, 0, "b2W-b3W")
    assert str(exc.value) == "it is not your turn: Black is to move"


def test_a_move_that_is_not_text() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    with pytest.raises(IllegalMove) as exc:
        GAME.play(s, 0, None)  # type: ignore[arg-type]
    assert str(exc.value) == "a move must be text such as Nd1W-c3W"


def test_only_two_players() -> None:
    for players in (1, 3):
        with pytest.raises(OptionError) as exc:
            GAME.start(GAME.parse_options([]), players)
        assert str(exc.value) == "Tri-Dimensional Chess is for 2 players"


def test_position_split_by_a_mailer_after_the_option_name() -> None:
    """A mailed -position may arrive as -position (or -position=) then its fields."""
    fields = ["ST", "Kb1W,kc8B", "w", "-", "-", "0", "10"]
    expected = f"{ST} Kb1W,kc8B w - - 0 10"
    assert GAME.parse_options(["-position", *fields])["position"] == expected
    assert GAME.parse_options(["-position=", *fields])["position"] == expected
    assert GAME.parse_options(["-position=ST", *fields[1:], "-compact"]) == {
        "compact": True,
        "position": expected,
    }
