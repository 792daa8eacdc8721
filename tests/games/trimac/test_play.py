"""Rules of play (spec §5): check, facing, mate, victor, inheritance, pass,
two-player phase, draws, resignation, and every refusal with its reason."""

from __future__ import annotations

import json

import pytest

from games import IllegalMove, OptionError
from games.trimac import GAME
from tests.games.playout import assert_refused
from tests.games.trimac.common import BASE, base, moves_from, pos

RED, BLUE, GREEN = 0, 1, 2


def start():
    return GAME.start(GAME.parse_options([]), 3)


def refused(state, seat: int, move: str) -> str:
    """The whole reason ``move`` is refused with (case and all)."""
    with pytest.raises(IllegalMove) as exc:
        GAME.play(state, seat, move)
    return str(exc.value)


def pieces(state) -> set[str]:
    return {t for t in GAME.position(state).split() if "@" in t}


# -- turns -----------------------------------------------------------------------
def test_turn_order_red_blue_green() -> None:
    s = start()
    assert GAME.to_move(s) == RED
    s = GAME.play(s, RED, "Ra1-Ra2")
    assert GAME.to_move(s) == BLUE
    s = GAME.play(s, BLUE, "Ba1-Ba2")
    assert GAME.to_move(s) == GREEN
    s = GAME.play(s, GREEN, "Ga1-Ga2")
    assert GAME.to_move(s) == RED
    assert GAME.seat_names(s) == ["Red", "Blue", "Green"]


def test_play_returns_new_state() -> None:
    s = start()
    before = GAME.dump(s)
    GAME.play(s, RED, "Ra1-Ra2")
    assert GAME.dump(s) == before


# -- facing (§2.7, D8) --------------------------------------------------------------
FACING_F = "rK@Rf1 bK@Bf1 gK@Gf1 gA@Gf4"  # Red and Blue f-files open: they face


def test_facing_is_check_for_both_and_must_be_resolved() -> None:
    s = pos(FACING_F)
    text = GAME.render(s)
    assert "Red is in check (from Blue)" in text
    assert "Blue is in check (from Red)" in text
    # f2 stays on the f-file: only e1 and g1 get out of the facing
    assert GAME.legal_moves(s) == ["Rf1-Re1", "Rf1-Rg1"]
    assert refused(s, RED, "Rf1-Rf2") == (
        "Rf1-Rf2 would leave your General facing the Blue General on an open north-south line"
    )


def test_facing_along_the_bent_line() -> None:
    # Red e-file runs into Blue g-file (Re8-Bg8): Re1 faces Bg1
    s = pos("rK@Re1 bK@Bg1 gK@Gf1 gA@Gf4")
    assert "Red is in check (from Blue)" in GAME.render(s)
    assert moves_from(s, "Re1") == ["Rf1", "Rf2"]


def test_move_that_opens_own_facing_is_illegal() -> None:
    s = pos("rK@Rf1 rA@Rf4 bK@Bf1 gK@Gf1 gA@Gf4")
    assert refused(s, RED, "Rf4-Re2") == (
        "Rf4-Re2 would leave your General facing the Blue General on an open north-south line"
    )
    assert moves_from(s, "Rf4") == []


def test_may_open_facing_between_two_other_generals() -> None:
    # the Red Pawn on Bf8 is all that separates Blue's and Green's Generals
    s = pos("rK@Rf1 rA@Rf4 bK@Bf1 gK@Gf1 rP@Bf8")
    assert moves_from(s, "Bf8") == ["Bd7", "Be7", "Bf7", "Bg7", "Bh7"]
    s2 = GAME.play(s, RED, "Bf8-Be7")
    assert s2.history[0] == (RED, "Bf8-Be7+")
    assert "Blue is in check (from Green)" in GAME.render(s2)
    assert "Green is in check (from Blue)" in GAME.render(s2)


# -- check and legality (§5.2) -------------------------------------------------------
def test_cannot_leave_own_general_in_check() -> None:
    # Blue Rook on Red's f-file above the Guard pins it
    s = base("bR@Rf6")
    assert moves_from(s, "Rf4") == []
    assert refused(s, RED, "Rf4-Re2") == "Rf4-Re2 would leave your General in check (from Blue)"


def test_a_move_into_check_from_both_opponents_names_both() -> None:
    s = pos("rK@Rf3 rC@Rf5 bK@Bg2 bH@Bj3 bR@Bg8 bR@Bh2 bF@Bc1 gK@Gg3 gR@Bc2 gR@Gc4 to=R")
    assert refused(s, RED, "Rf3-Re3") == (
        "Rf3-Re3 would leave your General in check (from Blue and Green)"
    )


def test_states_compare_equal_whatever_they_have_cached() -> None:
    """The cached legal-move lists are not part of a state's value."""
    a, b = start(), start()
    a.legal()
    assert a == b and "_legal" not in repr(a)


def test_must_answer_check() -> None:
    # the Blue Rook on Rf3 gives check; the General steps aside (f2 stays on the file)
    s = pos("rK@Rf1 rE@Rd1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bR@Rf3")
    assert "Red is in check (from Blue)" in GAME.render(s)
    assert sorted(GAME.legal_moves(s)) == ["Rf1-Re1", "Rf1-Rg1"]


def test_cannon_check_needs_a_screen() -> None:
    s = pos("rK@Rf1 rA@Rf4 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bC@Rf6")
    assert "Red is in check (from Blue)" in GAME.render(s)  # Guard is the screen
    s = pos("rK@Rf1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bC@Rf6 rP@Rb2")
    assert "Red is in check" not in GAME.render(s)
    # ... but up the f-file, over the apex, Green's Guard screens Green's General
    assert "Green is in check (from Blue)" in GAME.render(s)


# -- checkmate, victor, inheritance (§5.3, §5.5) ----------------------------------------
MATE_BLUE = (
    "rK@Rf1 rA@Rf4 gK@Gf1 gA@Gf4 rR@Be5 rR@Bg5 rR@Bi3 "
    "bK@Bf1 bA@Bf4 bE@Bd1 bH@Bb1 bP@Bc5 bP@Rc5 to=R"
)


def test_checkmate_defeats_and_victor_inherits() -> None:
    s = pos(MATE_BLUE)
    s = GAME.play(s, RED, "Bi3-Bf3")
    assert s.history[0] == (RED, "Bi3-Bf3+")
    assert s.history[1][0] == BLUE and "checkmated" in s.history[1][1]
    assert s.status[BLUE] == RED
    assert GAME.outcome(s) is None
    assert GAME.to_move(s) == GREEN  # the next survivor after Blue
    got = pieces(s)
    # General -> Red Banner, Guard and Bishop removed, the rest change colour
    assert "rF@Bf1" in got and "rH@Bb1" in got and "rP@Bc5" in got and "rP@Rc5" in got
    assert not any(t.startswith("b") for t in got)
    assert "bA@Bf4" not in got and "rA@Bf4" not in got
    assert "Blue  : defeated by Red" in GAME.render(s)
    assert "Turn order:" in GAME.render(s) and "Red > Green" in GAME.render(s)


def test_two_player_phase_alternates_and_converted_pawns_turn() -> None:
    s = GAME.play(pos(MATE_BLUE), RED, "Bi3-Bf3")
    s = GAME.play(s, GREEN, "Gf1-Ge1")
    assert GAME.to_move(s) == RED
    # the former Blue Pawn standing in Red's home now moves N/NE/NW (D11) ...
    assert moves_from(s, "Rc5") == ["Rb5", "Rc6", "Rd6"]
    # ... and the one at home in Blue's lattice is abroad for Red: S/SE/SW/E/W
    assert moves_from(s, "Bc5") == ["Ba4", "Bb4", "Bc4", "Bd5", "Be6"]
    s = GAME.play(s, RED, "Rc5-Rc6")
    assert GAME.to_move(s) == GREEN
    assert_refused(GAME, s, BLUE, "Bf3-Bf2", "out of the game")


THIRD_PARTY = "rK@Rf1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bR@Re5 bR@Rg5 bR@Rf6 gP@Rf3 to=G"


def test_mate_uncovered_by_third_player_goes_to_checker() -> None:
    # Green's Pawn steps off Red's f-file and uncovers Blue's Rook: Green moved
    # last, but Blue gives the check, so Blue defeats Red and inherits.
    s = pos(THIRD_PARTY)
    s = GAME.play(s, GREEN, "Rf3-Rd2")
    assert s.history[0] == (GREEN, "Rf3-Rd2+")
    assert s.status[RED] == BLUE
    assert "bF@Rf1" in pieces(s) and "bP@Rd2" not in pieces(s) and "gP@Rd2" in pieces(s)
    assert GAME.to_move(s) == BLUE


DOUBLE = "rK@Rf1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bR@Rf6 gR@Re5 gR@Rg5 gP@Rg1 to=R"


def test_both_check_victor_is_most_recent_default_last() -> None:
    s = pos(DOUBLE)  # last defaults to Green (the survivor before Red)
    assert s.status[RED] == GREEN
    assert "gF@Rf1" in pieces(s) and "gR@Rf6" not in pieces(s) and "bR@Rf6" in pieces(s)
    assert GAME.to_move(s) == BLUE


def test_both_check_victor_is_most_recent_explicit_last() -> None:
    s = pos(DOUBLE + " last=B")
    assert s.status[RED] == BLUE
    assert "bF@Rf1" in pieces(s)


def test_win_by_defeating_both() -> None:
    s = pos("rK@Rf1 rA@Rf4 gK@Gf1 rR@Ge5 rR@Gg5 rR@Gi3 alive=RG to=R")
    s = GAME.play(s, RED, "Gi3-Gf3")
    out = GAME.outcome(s)
    assert out is not None and out.winners == (RED,) and set(out.losers) == {BLUE, GREEN}
    assert GAME.to_move(s) is None
    assert_refused(GAME, s, GREEN, "Gf1-Ge1", "game is over")
    assert "Red wins" in GAME.render(s)


def test_a_finished_game_keeps_its_result_through_dump_and_load() -> None:
    """The server stores a finished game as JSON: winner and losers must survive it."""
    s = pos("rK@Rf1 rA@Rf4 gK@Gf1 rR@Ge5 rR@Gg5 rR@Gi3 alive=RG to=R")
    s = GAME.play(s, RED, "Gi3-Gf3")  # Green mated: Red has defeated both
    again = GAME.load(json.loads(json.dumps(GAME.dump(s))))
    out = GAME.outcome(again)
    assert out is not None and out.winners == (RED,) and set(out.losers) == {BLUE, GREEN}
    assert out.reason == GAME.outcome(s).reason
    assert GAME.to_move(again) is None


# -- pass (§5.4) -----------------------------------------------------------------------
BOXED_BLUE = "rK@Rf1 rA@Rf4 gK@Gf1 gA@Gf4 bK@Bf1 rR@Be5 rR@Bg5 rR@Bk4"


def test_no_legal_move_passes_automatically() -> None:
    s = pos(BOXED_BLUE)
    s = GAME.play(s, RED, "Bk4-Bk2")
    assert s.history == ((RED, "Bk4-Bk2"), (BLUE, "pass"))
    assert GAME.to_move(s) == GREEN
    assert s.status[BLUE] == -1  # not defeated
    assert "Blue passes (no legal move)" in GAME.render(s)
    assert "move 3" in GAME.render(s).splitlines()[0]


def test_voluntary_pass_refused() -> None:
    assert_refused(GAME, start(), RED, "pass", "cannot pass")


# -- draws (§5.6) ------------------------------------------------------------------------
def test_threefold_repetition() -> None:
    s = start()
    cycle = [
        (RED, "Ra1-Ra2"),
        (BLUE, "Ba1-Ba2"),
        (GREEN, "Ga1-Ga2"),
        (RED, "Ra2-Ra1"),
        (BLUE, "Ba2-Ba1"),
        (GREEN, "Ga2-Ga1"),
    ]
    for seat, mv in cycle * 2:
        assert GAME.outcome(s) is None
        s = GAME.play(s, seat, mv)
    out = GAME.outcome(s)
    assert out is not None and out.is_draw and "repetition" in out.reason


def test_quiet_turn_limit() -> None:
    import random

    rng = random.Random(3)
    s = start()
    for turn in range(300):
        assert GAME.outcome(s) is None, turn
        quiet = [m for m in GAME.legal_moves(s) if "x" not in m]
        s = GAME.play(s, GAME.to_move(s), rng.choice(quiet))
        assert s.history[-1][1] != "pass"
    out = GAME.outcome(s)
    assert out is not None and out.is_draw and "300" in out.reason


def test_repetition_counts_a_position_its_player_must_pass_in() -> None:
    """Issue 18: Red, boxed in, passes; the third time the same board comes
    round with Red to move the game is drawn at once -- before a third pass
    (the position with Red to move has occurred three times, §5.6)."""
    s = pos(_boxed("R") + " bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4")
    cycle = ["Bf1-Be1", "Gf1-Ge1", "Be1-Bf1", "Ge1-Gf1"]
    for mv in cycle * 2:
        assert GAME.outcome(s) is None
        s = GAME.play(s, GAME.to_move(s), mv)
    out = GAME.outcome(s)
    assert out is not None and out.reason == "draw by threefold repetition"
    assert s.history[-1] == (GREEN, "Ge1-Gf1")
    assert [t for _, t in s.history].count("pass") == 4


def test_a_draw_after_a_defeat_lists_the_defeated_army_as_loser() -> None:
    """DECISION (issue 18): the survivors share a draw; an army already
    defeated lost (as with the server's draw by agreement)."""
    s = pos("rK@Rf1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bR@Rf6 bR@Re5 bR@Rg5 to=R")
    assert s.history == ((RED, "checkmated by Blue"),)
    for mv in ["Bf1-Be1", "Gf1-Gf2", "Be1-Bf1", "Gf2-Gf1"] * 2:
        assert GAME.outcome(s) is None
        s = GAME.play(s, GAME.to_move(s), mv)
    out = GAME.outcome(s)
    assert out is not None and out.reason == "draw by threefold repetition"
    assert out.winners == () and out.losers == (RED,)


def _with_quiet(state, quiet: int):
    data = GAME.dump(state)
    data["quiet"] = quiet
    return GAME.load(data)


def test_the_300th_quiet_turn_draws_before_the_next_turn_resolves() -> None:
    """§5.6: after 300 turns without capture or defeat the game is drawn, even
    when the 300th move leaves the next player mated: no defeat follows."""
    s = GAME.play(_with_quiet(pos(MATE_BLUE), 299), RED, "Bi3-Bf3")
    out = GAME.outcome(s)
    assert out is not None and out.reason == "draw: 300 turns without a capture or a defeat"
    assert out.losers == () and s.history == ((RED, "Bi3-Bf3+"),)
    s = GAME.play(_with_quiet(pos(MATE_BLUE), 298), RED, "Bi3-Bf3")
    assert GAME.outcome(s) is None and s.history[1] == (BLUE, "checkmated by Red")


def test_a_capture_on_the_300th_turn_is_not_a_draw() -> None:
    s = GAME.play(_with_quiet(base("rR@Bf3"), 299), RED, "Bf3xBf4")
    assert GAME.outcome(s) is None and s.quiet == 0


# -- resignation (D15) ---------------------------------------------------------------------
def test_resign_removes_army_and_play_goes_on() -> None:
    s = GAME.resign(start(), RED)
    assert s.history == ((RED, "resign"),)
    assert not any(t.startswith("r") for t in pieces(s))
    assert GAME.outcome(s) is None
    assert GAME.to_move(s) == BLUE
    assert "Red   : resigned" in GAME.render(s)
    s = GAME.play(s, BLUE, "Ba1-Ba2")
    assert GAME.to_move(s) == GREEN
    s = GAME.play(s, GREEN, "Ga1-Ga2")
    assert GAME.to_move(s) == BLUE
    s = GAME.resign(s, GREEN)
    out = GAME.outcome(s)
    assert out is not None and out.winners == (BLUE,) and set(out.losers) == {RED, GREEN}


def test_resign_out_of_turn_keeps_player_to_move() -> None:
    s = GAME.resign(start(), GREEN)
    assert GAME.to_move(s) == RED
    s = GAME.play(s, RED, "Ra1-Ra2")
    assert GAME.to_move(s) == BLUE
    with pytest.raises(IllegalMove):
        GAME.resign(s, GREEN)


def test_resign_as_a_move_word() -> None:
    s = GAME.play(start(), RED, "resign")
    assert s.status[RED] == -2


# -- refusals --------------------------------------------------------------------------------
SYNTAX = (
    "is not a move: write <from>-<to> (or <from>x<to> for a capture) where a point is "
    "R, B or G (the lattice), a file a-k and a rank, like Rf1 or Bi6, e.g. Rf5-Rf6 or Rc4xBf4"
)
POINT = "a point is R, B or G (the lattice), a file a-k and a rank, like Rf1 or Bi6"
RULE = {
    "General": "a General moves one orthogonal step and stays in its fortress",
    "Guard": "a Guard moves one diagonal step and stays in its fortress",
    "Knight": "a Knight moves one orthogonal step then one diagonal step outward",
    "Bishop": "a Bishop moves two diagonal steps and stays in its own lattice",
    "Pawn": "a Pawn steps forward (N, NE, NW) at home and S, SE, SW, E or W across the river",
}


def _cannot(kind: str, a: str, b: str) -> str:
    return f"a {kind} cannot move from {a} to {b}: {RULE[kind]}"


@pytest.mark.parametrize(
    ("seat", "move", "reason"),
    [
        (RED, "hello", f"'hello' {SYNTAX}"),
        (RED, "Ra1-Ra5", "Ra5 is not a point: file a has ranks 1-4"),
        (RED, "Rk9-Rk1", "Rk9 is not a point: file k has ranks 1-4"),
        (RED, "Xa1-Ra2", f"Xa1 is not a point: {POINT}"),
        (BLUE, "Ba1-Ba2", "it is not your turn: Red is to move"),
        (3, "Ra1-Ra2", "there is no seat 3: TriMac has seats 0-2 (Red, Blue, Green)"),
        (RED, "pass", "you cannot pass: you have a legal move "
                      "(a pass is only made, automatically, when there is none)"),
        (RED, "Rd5-Rd6", "there is no piece on Rd5"),
        (RED, "Ba1-Ba2", "the Rook on Ba1 is Blue's, not yours"),
        (RED, "Ra1-Ra3", "Ra3 holds your own Pawn"),
        (RED, "Rf3-Rf4", "Rf4 holds your own Guard"),
        (RED, "Ra1xRa2", "there is nothing to capture on Ra2: write Ra1-Ra2"),
        (RED, "Rf1-Re2", _cannot("General", "Rf1", "Re2")),
        (RED, "Re1-Re2", _cannot("Guard", "Re1", "Re2")),
        (RED, "Rb1-Rb3", _cannot("Knight", "Rb1", "Rb3")),
        (RED, "Rf8-Rf9", _cannot("Knight", "Rf8", "Rf9")),
        (RED, "Rd1-Rd3", _cannot("Bishop", "Rd1", "Rd3")),
        (RED, "Ra3-Ra2", _cannot("Pawn", "Ra3", "Ra2")),
        (RED, "Rf5-Rf9", "the Rook on Rf5 is blocked: it cannot jump over pieces to reach Rf9"),
        (RED, "Rc1-Rc4", "the Cannon on Rc1 is blocked: it cannot jump over pieces to reach Rc4"),
    ],
)
def test_refusals(seat: int, move: str, reason: str) -> None:
    """Each refusal's whole reason, as players read it."""
    assert refused(start(), seat, move) == reason


def test_refusals_after_the_game_and_for_an_army_that_is_out() -> None:
    s = GAME.play(pos(MATE_BLUE), RED, "Bi3-Bf3")
    for call, reason in (
        (lambda: GAME.play(s, BLUE, "Bf1-Be1"), "Blue is out of the game"),
        (lambda: GAME.resign(s, BLUE), "Blue is already out of the game"),
        (lambda: GAME.play(s, GREEN, "Gf4-Gf3"), _cannot("Guard", "Gf4", "Gf3")),
    ):
        with pytest.raises(IllegalMove) as exc:
            call()
        assert str(exc.value) == reason
    won = GAME.play(pos("rK@Rf1 rA@Rf4 gK@Gf1 rR@Ge5 rR@Gg5 rR@Gi3 alive=RG to=R"), RED, "Gi3-Gf3")
    over = "the game is over (Red wins: Blue resigned, Green was defeated by Red)"
    for call in (lambda: GAME.play(won, GREEN, "Gf1-Ge1"), lambda: GAME.resign(won, RED)):
        with pytest.raises(IllegalMove) as exc:
            call()
        assert str(exc.value) == over


def test_refuse_capturing_a_general() -> None:
    assert refused(base("rR@Bf2"), RED, "Bf2xBf1") == (
        "Bf1 holds the Blue General: Generals are never captured, they are checkmated"
    )


def test_refuse_cannon_capture_without_screen() -> None:
    assert refused(base("rC@Rc2 bR@Bi4"), RED, "Rc2xBi4") == (
        "a Cannon captures only by jumping exactly one piece (on the line from Rc2 to Bi4)"
    )


def test_notation_is_case_insensitive_and_accepts_check_mark() -> None:
    s = GAME.play(start(), RED, "ra1-RA2")
    assert s.history[0] == (RED, "Ra1-Ra2")
    s = GAME.play(base("rR@Bf3"), RED, "bf3xBF4+")
    assert s.history[0][1] == "Bf3xBf4+"
    assert "Bf3xBf4" in GAME.legal_moves(base("rR@Bf3"))


def test_capture_written_with_dash_is_accepted() -> None:
    s = GAME.play(base("rR@Bf3"), RED, "Bf3-Bf4")
    assert s.history[0][1].startswith("Bf3xBf4")


def test_base_fixture_is_quiet() -> None:
    s = base()
    assert GAME.to_move(s) == RED and "check" not in GAME.render(s)
    assert pieces(s) == set(BASE.split())


def _boxed(army: str) -> str:
    """An army whose every fortress point is filled: no piece can move."""
    c, lat = army.lower(), army.upper()
    guards = ["e1", "g1", "f2", "e2", "g2", "f3", "d2", "h2", "e3", "g3", "f4"]
    return f"{c}K@{lat}f1 " + " ".join(f"{c}A@{lat}{sq}" for sq in guards)


def test_pass_at_the_start_of_a_turn() -> None:
    s = pos(_boxed("R") + " bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4")
    assert s.history == ((RED, "pass"),)
    assert GAME.to_move(s) == BLUE
    assert GAME.outcome(s) is None


def test_a_pass_counts_as_the_most_recent_turn() -> None:
    s = GAME.play(pos(BOXED_BLUE), RED, "Bk4-Bk2")
    assert GAME.position(s).endswith("to=G alive=RBG last=B")


def test_draw_when_every_survivor_passes() -> None:
    s = pos(" ".join(_boxed(a) for a in "RBG"))
    assert s.history == ((RED, "pass"), (BLUE, "pass"), (GREEN, "pass"))
    out = GAME.outcome(s)
    assert out is not None and out.is_draw and "passed" in out.reason
    assert GAME.to_move(s) is None and GAME.legal_moves(s) == []


def test_quiet_counter_resets_on_capture() -> None:
    s = GAME.play(start(), RED, "Ra1-Ra2")
    assert s.quiet == 1
    s = GAME.play(base("rR@Bf3"), RED, "Bf3xBf4")
    assert s.quiet == 0


@pytest.mark.parametrize("text", ["Ra1Ra2", "Ra1 - Ra2", "RA1:ra2", "Ra1-Ra2+"])
def test_common_notation_deviations(text: str) -> None:
    assert GAME.play(start(), RED, text).history[0] == (RED, "Ra1-Ra2")


NET = "rK@Rf1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 bR@Re5 bR@Rg5 bR@Rf6 gH@Rd4 to=G"


def test_mate_is_decided_only_at_the_victims_turn() -> None:
    s = pos(NET)  # Red is in check with no escape, but it is Green's turn
    assert s.status[RED] == -1 and GAME.to_move(s) == GREEN
    # Green's Knight (leg Re4) lands on Rf3 and blocks: Red is rescued
    rescued = GAME.play(s, GREEN, "Rd4-Rf3")
    assert GAME.to_move(rescued) == RED
    assert GAME.legal_moves(rescued) == ["Rf1-Rf2"]
    # any other Green move leaves the net: Blue, the checker, defeats Red
    mated = GAME.play(s, GREEN, "Rd4-Ra3")
    assert mated.status[RED] == BLUE and GAME.to_move(mated) == BLUE


# -- audit additions: cases written from the spec's text ----------------------------------
def test_facing_only_along_north_south_lines() -> None:
    # §2.7: Rd2's NE line bends at Rk4 into Green and reaches Gh2 with nothing
    # between, yet only N/S lines count: no facing ...
    s = pos("rK@Rd2 bK@Bf1 bA@Bf4 gK@Gh2")
    assert "in check" not in GAME.render(s)
    # ... while a Rook there does give check along that line,
    s = pos("rK@Rd2 bK@Bf1 bA@Bf4 gK@Gf1 gR@Gh2")
    assert "Red is in check (from Green)." in GAME.render(s)
    # and Red's d-file runs into Blue's h-file: Rd2 faces Bh2.
    s = pos("rK@Rd2 bK@Bh2 gK@Gf1 gA@Gf4")
    assert "Red is in check (from Blue)." in GAME.render(s)
    assert "Blue is in check (from Red)." in GAME.render(s)


def test_spec_example_blue_uncovers_green_rook() -> None:
    # §5.3: Blue moves the piece blocking a Green Rook aimed at Red's General;
    # Red then has no legal move: Green defeats Red and inherits.
    s = pos("rK@Rf1 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4 gR@Re5 gR@Rg5 gR@Rf6 bP@Rf3 to=B")
    s = GAME.play(s, BLUE, "Rf3-Rd2")
    assert s.history[-1] == (BLUE, "Rf3-Rd2+")  # Red is in check, whoever gives it
    assert GAME.to_move(s) == GREEN and s.status[RED] == -1  # decided at Red's turn
    s = GAME.play(s, GREEN, "Gf1-Ge1")
    assert s.history[-1] == (RED, "checkmated by Green")
    assert s.status[RED] == GREEN and GAME.to_move(s) == BLUE
    assert "gF@Rf1" in pieces(s) and "bP@Rd2" in pieces(s)


def test_mate_by_facing_alone_goes_to_the_facing_generals_owner() -> None:
    # Red's General faces Blue's up the f-file (Rf2 stays on it); e1 and g1 are
    # held by Green Knights that the Blue Rooks on e5/g5 protect.  Green moved
    # last (default last=G) but only Blue gives check: Blue is the victor.
    s = pos("rK@Rf1 bK@Bf1 gK@Gf1 gA@Gf4 gH@Re1 gH@Rg1 bR@Re5 bR@Rg5")
    assert s.history == ((RED, "checkmated by Blue"),)
    assert "bF@Rf1" in pieces(s) and GAME.to_move(s) == BLUE
    assert "Blue is in check" not in GAME.render(s)  # the Banner now stands between


def test_both_check_and_a_pass_counts_as_the_most_recent_turn() -> None:
    # Blue moves, Green (boxed in) passes, then Red is mated by both: the victor
    # is Green, whose pass is the most recent turn, not Blue who last moved.
    s = pos(_boxed("G") + " rK@Rf1 gP@Re1 gP@Rg1 bK@Bf1 bA@Bf4 bR@Rf6 bP@Ba1 to=B")
    s = GAME.play(s, BLUE, "Ba1-Ba2")
    assert s.history == (
        (BLUE, "Ba1-Ba2+"),
        (GREEN, "pass"),
        (RED, "checkmated by Green"),
    )
    assert s.status[RED] == GREEN and "gF@Rf1" in pieces(s)


@pytest.mark.parametrize(
    ("move", "quoted"),
    [
        ("R" + "a" * 300, "'Raaaaaaaaaaaaaaaaaaaa...' is not a move"),
        ("Rf" + "9" * 300 + "-Rf2", "Rf9999999999999999999... is not a point"),
        ("resign me " * 40, "'resign me resign me r...' is not a move"),
    ],
)
def test_a_long_input_is_quoted_cut(move: str, quoted: str) -> None:
    """Issue 18: the reason quotes at most 24 characters of what was written."""
    text = assert_refused(GAME, start(), RED, move, quoted)
    assert len(text) < 200  # the reason for a 300-character input was over 400


def test_a_long_position_token_is_quoted_cut() -> None:
    with pytest.raises(Exception, match=r"^Rf1xxxxxxxxxxxxxxxxxx\.\.\. is not a point"):
        GAME.parse_options(["-position=rK@Rf1" + "x" * 300])


# -- the position string (§6.1) ------------------------------------------------------------
POSITION_HELP = (
    "a position is tokens like rK@Rf1 (colour r/b/g, piece K A E H R C P F, '@', point) "
    "then optional to=R|B|G, alive=RBG, last=R|B|G"
)
GENERALS = "rK@Rf1 bK@Bf1 gK@Gf1"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (f"{GENERALS} alive=RR", "alive=RR must list distinct letters of R, B, G"),
        (f"{GENERALS} alive=RX", "alive=RX must list distinct letters of R, B, G"),
        ("rK@Rf1 alive=R", "alive= must name at least two armies"),
        (f"{GENERALS} to=X", f"to=X must be one of R, B, G; {POSITION_HELP}"),
        (f"{GENERALS} last=Q", f"last=Q must be one of R, B, G; {POSITION_HELP}"),
        (f"{GENERALS} foo", f"'foo' is not a position token; {POSITION_HELP}"),
        ("xK@Rf1 bK@Bf1 gK@Gf1", f"'xK@Rf1' is not a position token; {POSITION_HELP}"),
        ("rZ@Rf1 bK@Bf1 gK@Gf1", f"'rZ@Rf1' is not a position token; {POSITION_HELP}"),
        ("rK@Rz1 bK@Bf1 gK@Gf1", f"Rz1 is not a point: {POINT}"),
        (f"rK@Rf1 {GENERALS}", "two pieces on Rf1"),
        (f"{GENERALS} rA@Rf9", "Red Guard on Rf9: a Guard must stand in its own fortress"),
        (f"{GENERALS} rE@Bf7", "Red Bishop on Bf7: a Bishop must stand in its own lattice"),
        ("rK@Rf1 bK@Bf1", "Green is alive and needs exactly one General (rK@Rf1 style)"),
        (f"{GENERALS} alive=RB", "Green is not alive but has pieces on the board"),
        ("rK@Rf1 bK@Bf1 alive=RB to=G", "to=G: that army is not alive"),
        ("rK@Rf1 bK@Bf1 alive=RB last=R to=R", "last=R must be another surviving army than to="),
    ],
)
def test_bad_position_strings(text: str, reason: str) -> None:
    with pytest.raises(OptionError) as exc:
        GAME.parse_options([f"-position={text}"])
    assert str(exc.value) == reason
