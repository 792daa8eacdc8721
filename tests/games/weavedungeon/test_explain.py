"""Why a move is refused, word for word, one case for each reason explain.py gives.

A refusal is the only help a player gets by mail, so each reason must name
the rule and the squares that forbid the move.  The squares, segments,
step-downs and pinwheel directions in the expected texts come from the spec
(weave_dungeon.md 1.4 segments, 1.6 step-downs, 1.7 pinwheel, 3.1-3.7 the
pieces); the derivation is in the comment next to each case.  Every position
is White to move unless it says ``side="b"``.
"""

from __future__ import annotations

import pytest

from games.weavedungeon import GAME
from tests.games.playout import assert_refused
from tests.games.weavedungeon.helpers import state

START = (
    "Pa1 Sb1 Tc1 Cd1 Ke1 Cf1 Tg1 Sh1 Pi1 Da2 Db2 Dc2 Dd2 De2 Df2 Dg2 Dh2 Di2",
    "Pa9 Sb9 Tc9 Cd9 Ke9 Cf9 Tg9 Sh9 Pi9 Da8 Db8 Dc8 Dd8 De8 Df8 Dg8 Dh8 Di8",
)

CASES = [
    # -- what the text names is not the mover's piece --------------------------------
    (START, "-", "w", "Dd4-d5", "there is no piece on d4"),
    (START, "-", "w", "Da8-a7", "the Diamond on a8 is Black's; you play White"),
    (START, "-", "w", "Ta2-a3", "there is no Triangle on a2: it holds your Diamond"),
    (START, "-", "w", "Cd1-d1", "a move must go to another square"),
    # -- rescues (3.6): only a Diamond, only arriving on the far row, only from the pool
    (
        START,
        "-",
        "w",
        "Cd1-d3=T",
        "only a Diamond can rescue a piece, on the move that reaches the far row",
    ),
    (START, "-", "w", "Da2-a3=T", "a Diamond rescues only on arriving at the far row (rank 9)"),
    (START, "-", "b", "Da8-a7=t", "a Diamond rescues only on arriving at the far row (rank 1)"),
    # b9 -> a9 is a sideways step-capture by a Diamond that already stands on rank 9.
    (
        ("Ki1 Db9", "Ke5 Ca9"),
        "T",
        "w",
        "Db9xa9=T",
        "the Diamond on b9 already stands on the far row: "
        "it can rescue only on the move that arrives there",
    ),
    (("Ki1 Db8", "Ke5"), "-", "w", "Db8-b9=T", "you have no captured Triangle to rescue"),
    # -- the Star is never captured (3.7): a1 -> a2 is a Diamond's plain forward move
    (
        ("Ke1 Da1", "Ka2"),
        "-",
        "w",
        "Da1xa2",
        "the Star can never be captured (Da1-a2 lands on Black's Star)",
    ),
    # -- Diamond captures (3.6): never by the two-square moves, never by a slide -------
    # d2 is a cell: d2 -> d4 is the one-cell move, which never captures.
    (
        ("Ki1 Dd2", "Ka9 Cd4"),
        "-",
        "w",
        "Dd2xd4",
        "a Diamond's two-square move never captures (Dd2-d4)",
    ),
    # c2 c3 c4 is one segment [c2 c3 c4]: the two-space slide never captures.
    (
        ("Ki1 Dc2", "Ka9 Cc4"),
        "-",
        "w",
        "Dc2xc4",
        "a Diamond's two-square move never captures (Dc2-c4)",
    ),
    # a4 and a5 are in the segment [a4 a5 a6]: a continuous pair, a slide.
    (
        ("Ki1 Da4", "Ka9 Ca5"),
        "-",
        "w",
        "Da4xa5",
        "a Diamond captures only when stepping: Da4-a5 is a slide along the segment [a4 a5 a6]",
    ),
    (("Ki1 Da4", "Ka9"), "-", "w", "Da4-b4", "a Diamond moves sideways only to capture (Da4-b4)"),
    # -- blocked: the Pentagon rides file a (a1 has file a on top), passing under the
    # troughs a3 and a7; a2, a4 and a5 stand on its way to a9 (3.0 StrandRide).
    (
        ("Ki1 Pa1 Da2 Da4 Da5", "Ke9"),
        "-",
        "w",
        "Pa1-a9",
        "Pa1-a9 is blocked: the Pentagon cannot pass a2, a4 and a5",
    ),
    # -- the Star's safety (3.7).  The Square on a4 rides file a down under the trough a3
    # (rank 3 on top) onto a2, a1: the Diamond on a2 is all that shields the Star.
    (
        ("Ka1 Da2", "Ki9 Sa4"),
        "-",
        "w",
        "Da2-a3",
        "Da2-a3 would put your own Star in check (Square on a4)",
    ),
    # The Circle on a3 jumps a2 onto a1 (3.2): the Star is in check already.
    (
        ("Ka1 Di2", "Ki9 Ca3"),
        "-",
        "w",
        "Di2-i3",
        "your Star on a1 is in check and Di2-i3 does not end it (Circle on a3)",
    ),
    # -- pieces that can never get there ---------------------------------------------
    (("Ki1 Pa1", "Ke9"), "-", "w", "Pa1-b2", "the Pentagon can never enter the Dungeon"),
    (("Kd4", "Ki9"), "-", "w", "Kd4-d5", "the Star can never leave the Dungeon once imprisoned"),
    (("Kd4", "Ki9"), "-", "w", "Kd4-d8", "in the Dungeon the Star moves only to an adjacent cell"),
    (("Ki1 Da4", "Ka9"), "-", "w", "Da4-a3", "a Diamond never moves backwards"),
    (("Ki1", "Ka9 Da6"), "-", "b", "Da6-a7", "a Diamond never moves backwards"),
    # a2 is in [a1 a2] and a4 in [a4 a5 a6] (1.4).
    (
        START,
        "-",
        "w",
        "Da2-a4",
        "a2 and a4 are in different segments, so the Diamond cannot slide two spaces",
    ),
    # Two squares aside is no Diamond move at all (not "backwards": the rank is the same).
    (
        ("Ki1 Da4", "Ka9"),
        "-",
        "w",
        "Da4-c4",
        "a Diamond moves one space (or one cell) forward, or captures one space aside",
    ),
    (
        START,
        "-",
        "w",
        "Cd1-d4",
        "the Circle moves one or two squares straight along a rank or file",
    ),
    (
        ("Ki1 Td4", "Ka9"),
        "-",
        "w",
        "Td4-d6",
        "from the Dungeon a Triangle moves only in a straight line along a diagonal",
    ),
    (
        ("Ki1 Sd4", "Ka9"),
        "-",
        "w",
        "Sd4-f6",
        "from the Dungeon a Square moves only in a straight line along a rank or file",
    ),
    # c3 is a bridge (cells b2 b4 d2 d4 diagonally next to it); c4 a slope (b4, d4 beside it).
    (
        ("Kc3", "Ki9"),
        "-",
        "w",
        "Kc3-d6",
        "the Star enters the Dungeon only into a cell next to it (diagonally from a bridge)",
    ),
    (
        ("Kc4", "Ki9"),
        "-",
        "w",
        "Kc4-b2",
        "the Star enters the Dungeon only into a cell next to it (straight from a slope)",
    ),
    (("Ki1 Tb3", "Ka9"), "-", "w", "Tb3-b4", "a Triangle on a slope has no access to the Dungeon"),
    # c1's diagonals reach b2 and d2, f4, h6, not d4.
    (
        ("Ki1 Tc1", "Ka9"),
        "-",
        "w",
        "Tc1-d4",
        "a Triangle enters the Dungeon from a bridge along a diagonal only",
    ),
    (("Ki1 Sc3", "Ka9"), "-", "w", "Sc3-d4", "a Square on a bridge has no access to the Dungeon"),
    # b3 is a slope of rank 3: its entry rays run along file b (b2, b4 b6 b8), not to d4.
    (
        ("Ki1 Sb3", "Ka9"),
        "-",
        "w",
        "Sb3-d4",
        "a Square enters the Dungeon from a slope straight across its strand only",
    ),
    # e3 has rank 3 on top and file e underneath (1.2); b3 is a slope of rank 3 only.
    (("Ki1 Se3", "Ka9"), "-", "w", "Se3-d5", "the Square on e3 can only ride rank 3 or file e"),
    (("Ki1 Sb3", "Ka9"), "-", "w", "Sb3-c5", "the Square on b3 can only ride rank 3"),
    # -- segment steppers (1.6).  a1 is the bridge of [a1 a2] and steps down onto b1 only;
    # from c3 (steps onto b3 and d3) there is no way back to a1 either.
    (
        ("Ka1", "Ki9"),
        "-",
        "w",
        "Ka1-c3",
        "the Star on a1 steps down from the bridge a1 of its segment [a1 a2] onto b1; "
        "it cannot reach c3 and it cannot ride a strand",
    ),
    # e1 steps down onto d1 and f1 ([b1 c1 d1], [f1 g1 h1]); c3 steps onto b3 and d3.
    (
        ("Ke1", "Ka9"),
        "-",
        "w",
        "Ke1-c3",
        "the Star on e1 steps down from the bridge e1 of its segment [e1 e2] onto d1 and f1; "
        "it cannot reach c3 and it cannot ride a strand",
    ),
    # c1 -> c2 [c2 c3 c4] -> b3 [a3 b3] or d3 [d3 e3 f3]; e5 is on neither rank 1 nor file c.
    (
        ("Ki1 Pc1", "Ka9"),
        "-",
        "w",
        "Pc1-e5",
        "the Pentagon on c1 steps down (twice at most) from the bridge c1 of its segment "
        "[b1 c1 d1] onto c2; it cannot reach e5",
    ),
    (
        ("Ki1 Tc1", "Ka9"),
        "-",
        "w",
        "Tc1-e5",
        "the Triangle on c1 steps down (twice at most) from the bridge c1 of its segment "
        "[b1 c1 d1] onto c2; it cannot reach e5 and it cannot ride a strand",
    ),
]


@pytest.mark.parametrize("pieces, pool, side, move, reason", CASES)
def test_refusal_reason_word_for_word(
    pieces: tuple[str, str], pool: str, side: str, move: str, reason: str
) -> None:
    """The reason is exactly the rule and squares that forbid the move."""
    st = state(*pieces, side=side, pool=pool)
    assert assert_refused(GAME, st, 0 if side == "w" else 1, move) == reason


@pytest.mark.parametrize(
    "square, move, cell, way",
    [
        # Around d4 only counterclockwise (T7); d3 -> c3 goes clockwise round d4 (and
        # counterclockwise round d2, which is clockwise): d4 is named.
        ("d3", "Kd3-c3", "d4", "counterclockwise"),
        # h3 -> g3 is flanked by h4 (counterclockwise, T8) and h2 (clockwise, 1.7):
        # the reason names the counterclockwise one, as S1 does.
        ("h3", "Kh3-g3", "h4", "counterclockwise"),
    ],
)
def test_wrong_way_round_a_cell_names_the_counterclockwise_cell(
    square: str, move: str, cell: str, way: str
) -> None:
    """A step the pinwheel forbids is explained by the cell it goes the wrong way round."""
    text = assert_refused(GAME, state(f"K{square}", "Ka9"), 0, move)
    assert text == f"{cell} can only be circled {way}: {move} steps down from the wrong side"
