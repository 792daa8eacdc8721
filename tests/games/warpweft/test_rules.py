"""Each rule of spec section 3, one test or more each.

Expected move lists come from the spec (its N=2 geometry reminder in
section 4 and the tables of section 3), not from the engine.
"""

from __future__ import annotations

import json

import pytest

from games import IllegalMove, OptionError, load_game
from games.warpweft import GAME
from tests.games.playout import assert_refused, assert_roundtrip, perft

# Spec section 4, "N=2 geometry reminder" (board order: row 1 first).
WARP2 = ["C1", "G1", "A3", "E3", "C5", "G5", "A7", "E7"]
WEFT2 = ["A1", "E1", "C3", "G3", "A5", "E5", "C7", "G7"]
PATCH2 = ["B2", "D2", "F2", "B4", "D4", "F4", "B6", "D6", "F6"]


def new(*options: str):
    return GAME.start(GAME.parse_options(list(options)), 2)


def play(state, *moves: str):
    for move in moves:
        state = GAME.play(state, GAME.to_move(state), move)
    return state


def from_dump(**fields):
    """A position built from a dump (the game has no position string)."""
    data = {
        "size": 2,
        "primary": "thread",
        "compact": False,
        "claimed": {},
        "states": {"Warp": "threads", "Weft": "threads"},
        "swapped": False,
        "plies": 0,
        "history": [],
        "winner": None,
        "reason": "",
    }
    data.update(fields)
    return GAME.load(data)


# -- identity -------------------------------------------------------------------


def test_names_and_aliases() -> None:
    # The command word is stored with every board and listed to players in lower case.
    assert GAME.name == "warpandweft"
    assert load_game("WarpAndWeft") is GAME
    assert load_game("warpweft") is GAME
    assert load_game("WARPWEFT") is GAME
    assert GAME.title == "Warp and Weft" and GAME.players == 2
    assert GAME.has_position is False


def test_seat_zero_is_warp_and_moves_first() -> None:
    state = new()
    assert GAME.seat_names(state) == ["Warp", "Weft"]
    assert GAME.to_move(state) == 0 and GAME.outcome(state) is None


# -- 3.1 options ------------------------------------------------------------------


def test_default_options() -> None:
    assert GAME.parse_options([]) == {"size": 4, "primary": "thread", "compact": False}


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        (["-size=2"], {"size": 2, "primary": "thread", "compact": False}),
        (["-size=6", "-compact"], {"size": 6, "primary": "thread", "compact": True}),
        (["-SIZE=5"], {"size": 5, "primary": "thread", "compact": False}),
        (["-thread"], {"size": 4, "primary": "thread", "compact": False}),
        (["-threads"], {"size": 4, "primary": "thread", "compact": False}),
        (["-patch"], {"size": 4, "primary": "patch", "compact": False}),
        (["-patches", "-size=3"], {"size": 3, "primary": "patch", "compact": False}),
        (["-patch", "-patches"], {"size": 4, "primary": "patch", "compact": False}),
        (["-Compact"], {"size": 4, "primary": "thread", "compact": True}),
    ],
)
def test_good_options(tokens: list[str], expected: dict) -> None:
    assert GAME.parse_options(tokens) == expected


@pytest.mark.parametrize(
    ("tokens", "fragment"),
    [
        (["-size=7"], "2 to 6"),
        (["-size=1"], "2 to 6"),
        (["-size=0"], "2 to 6"),
        (["-size=four"], "number from 2 to 6"),
        (["-size"], "number from 2 to 6"),
        (["-size=-3"], "number from 2 to 6"),
        (["-threads", "-patches"], "not both"),
        (["-patch", "-thread"], "not both"),
        (["-compact=yes"], "takes no value"),
        (["-patches=1"], "takes no value"),
        (["-swap"], "valid options"),
        (["-position=abc"], "valid options"),
        (["size=4"], "not an option"),
    ],
)
def test_bad_options(tokens: list[str], fragment: str) -> None:
    with pytest.raises(OptionError) as err:
        GAME.parse_options(tokens)
    assert fragment.lower() in str(err.value).lower()


def test_only_two_players() -> None:
    with pytest.raises(OptionError):
        GAME.start(GAME.parse_options([]), 3)


# -- 3.2 / 3.3 states and legal placements ---------------------------------------------


def test_thread_primary_start_offers_every_warp_thread_only() -> None:
    state = new("-size=2")
    assert GAME.dump(state)["states"] == {"Warp": "threads", "Weft": "threads"}
    # no switch: with no thread there is no patch to reach
    assert GAME.legal_moves(state) == WARP2


def test_thread_primary_second_player_threads_and_swap() -> None:
    state = play(new("-size=2"), "C1")
    assert GAME.legal_moves(state) == [*WEFT2, "swap"]


def test_thread_primary_patching_needs_own_thread() -> None:
    state = play(new("-size=2"), "C1", "A1", "patches")
    # Weft Threading: 7 Weft threads, and Patching is possible (A1 touches B2)
    assert GAME.legal_moves(state) == [t for t in WEFT2 if t != "A1"] + ["patches"]
    state = play(state, "E1")
    # Warp Patching: the patches touching C1 are B2 and D2
    assert GAME.legal_moves(state) == ["B2", "D2", "threads"]
    assert_refused(GAME, state, 0, "F6", "F6 touches none of your threads")
    assert_refused(GAME, state, 0, "E3", "E3 is a thread", "Patching", "threads")


def test_patch_primary_start_offers_every_patch() -> None:
    state = new("-size=2", "-patches")
    assert GAME.dump(state)["states"] == {"Warp": "patches", "Weft": "patches"}
    assert GAME.legal_moves(state) == PATCH2
    assert_refused(GAME, state, 0, "threads", "cannot switch to Threading", "patches")
    assert_refused(GAME, state, 0, "C1", "C1 is a thread", "Patching")


def test_patch_primary_threads_must_touch_own_patch() -> None:
    state = play(new("-size=2", "-patches"), "B2")
    assert GAME.legal_moves(state) == [p for p in PATCH2 if p != "B2"] + ["swap"]
    state = play(state, "D4", "threads")
    # Weft Patching: any free patch, far from everything too; and Threading
    # is possible (D4 touches Weft threads C3 and E5)
    assert GAME.legal_moves(state) == [p for p in PATCH2 if p not in ("B2", "D4")] + ["threads"]
    state = play(state, "threads")
    # Warp Threading: the Warp threads touching B2 are C1 and A3
    assert GAME.legal_moves(state) == ["C1", "A3", "patches"]
    assert_refused(GAME, state, 0, "G5", "G5 touches none of your patches")
    assert_refused(GAME, state, 0, "F6", "F6 is a patch", "Threading", "patches")
    state = play(state, "A3")
    # Weft Threading: the Weft threads touching D4 are C3 and E5
    assert GAME.legal_moves(state) == ["C3", "E5", "patches"]


def test_never_a_thread_of_the_other_direction() -> None:
    state = new("-size=2")
    for name in WEFT2:
        assert_refused(GAME, state, 0, name, f"{name} is a Weft thread", "you place Warp threads")
    state = play(state, "C1")
    for name in WARP2[1:]:
        assert_refused(GAME, state, 1, name, f"{name} is a Warp thread", "you place Weft threads")


def test_claimed_regions_are_refused_whoever_owns_them() -> None:
    state = play(new("-size=2"), "C1", "A1", "patches", "patches", "B2")
    assert_refused(GAME, state, 1, "B2", "B2 is already claimed by Warp")
    state = play(state, "threads")
    assert_refused(GAME, state, 0, "B2", "B2 is already claimed by you")
    state = play(state, "D2", "C3")
    assert_refused(GAME, state, 0, "C1", "already claimed by you")


def test_move_text_is_case_insensitive_and_recorded_canonically() -> None:
    state = play(new("-size=2"), " c1 ", "a1", "Patches", "PATCH", "d2", "b2", "Thread")
    assert GAME.dump(state)["history"] == ["C1", "A1", "patches", "patches", "D2", "B2", "threads"]
    assert GAME.dump(state)["claimed"] == {"C1": "V", "A1": "H", "D2": "V", "B2": "H"}


@pytest.mark.parametrize("text", ["", "C", "11", "C1x", "pass", "C-1", "1C", "CC1"])
def test_malformed_moves(text: str) -> None:
    assert_refused(GAME, new("-size=2"), 0, text, "not a Warp and Weft move")


@pytest.mark.parametrize(
    ("n", "text"), [(2, "H1"), (2, "A8"), (2, "A0"), (4, "P1"), (4, "A16"), (6, "X1")]
)
def test_off_board(n: int, text: str) -> None:
    assert_refused(GAME, new(f"-size={n}"), 0, text, f"{text} is off the board")


@pytest.mark.parametrize(
    ("arm", "centre"), [("C2", "C1"), ("L12", None), ("K12", "K13"), ("L11", "K11")]
)
def test_arm_squares_name_the_centre(arm: str, centre: str | None) -> None:
    state = new()
    if centre is None:  # L12 is a patch on the size-4 board, not an arm
        assert_refused(GAME, state, 0, arm, "patch", "Threading")
    else:
        assert_refused(GAME, state, 0, arm, f"{arm} is part of", f"thread {centre}", "centre")


# -- 3.4 switching ------------------------------------------------------------------------


def test_switch_takes_the_turn_and_changes_only_the_movers_state() -> None:
    state = play(new("-size=2"), "C1", "A1")
    after = play(state, "patches")
    assert GAME.to_move(after) == 1
    assert GAME.dump(after)["states"] == {"Warp": "patches", "Weft": "threads"}
    assert GAME.dump(after)["claimed"] == GAME.dump(state)["claimed"]


def test_switch_to_the_current_state_is_refused() -> None:
    state = new("-size=2")
    assert_refused(GAME, state, 0, "threads", "already Threading")
    assert_refused(GAME, state, 0, "thread", "already Threading")
    patching = new("-size=2", "-patch")
    assert_refused(GAME, patching, 0, "patches", "already Patching")


def test_switch_into_threading_with_every_thread_taken_is_refused() -> None:
    claimed = {name: "V" for name in WARP2} | {"A1": "H", "B2": "H"}
    state = from_dump(claimed=claimed, states={"Warp": "patches", "Weft": "threads"}, plies=10)
    assert GAME.legal_moves(state) == ["D2", "F2", "B4", "D4", "F4", "B6", "D6", "F6"]
    assert_refused(GAME, state, 0, "threads", "cannot switch to Threading", "every Warp thread")


# -- 3.5 end of game --------------------------------------------------------------------


def test_weft_connects_left_and_right() -> None:
    moves = ["A7", "A1", "E7", "C3", "C5", "E1", "G5", "G3"]
    moves += ["patches", "patches", "B6", "B2", "D6", "D2", "F6"]
    state = play(new("-size=2"), *moves)
    assert GAME.outcome(state) is None
    final = play(state, "F2")  # completes A1-B2-C3-D2-E1-F2-G3
    out = GAME.outcome(final)
    assert out is not None and out.winners == (1,) and out.losers == (0,)
    assert out.reason == "Weft connected left and right"
    assert GAME.to_move(final) is None and GAME.legal_moves(final) == []
    for move in ("A5", "threads", "swap"):
        assert_refused(GAME, final, 0, move, "game is over")


def test_a_chain_touching_one_edge_only_does_not_win() -> None:
    # Warp C1-D2-E3-D4-C5-D6 reaches the bottom but not the top (E7 free)
    state = play(
        new("-size=2"), "C1", "A1", "E3", "E1", "C5", "G3", "patches", "A5",
        "D2", "C7", "D4", "G7", "D6",
    )  # fmt: skip
    assert GAME.outcome(state) is None
    state = play(state, "E5", "threads", "C3")
    won = play(state, "E7")  # the thread completes it
    assert GAME.outcome(won).winners == (0,)


def test_no_valid_play_loses_thread_primary() -> None:
    """Warp owns all its threads; Weft claims the last free patch, so Warp
    starts a turn with no placement in either state and loses (spec 3.5)."""
    claimed = {name: "V" for name in WARP2} | {"A1": "H"}
    claimed |= {p: "H" for p in PATCH2 if p != "B2"}
    state = from_dump(claimed=claimed, states={"Warp": "threads", "Weft": "patches"}, plies=17)
    assert GAME.to_move(state) == 1
    assert GAME.legal_moves(state) == ["B2", "threads"]
    final = play(state, "B2")  # Weft is still not connected (only A1-B2)
    out = GAME.outcome(final)
    assert out is not None and out.winners == (1,) and out.losers == (0,)
    assert out.reason == "Warp has no valid play"
    # after a swap the same position is a win for seat 0, who plays Weft
    swapped = from_dump(
        claimed=claimed, states={"Warp": "threads", "Weft": "patches"}, plies=17, swapped=True
    )
    assert GAME.to_move(swapped) == 0
    assert GAME.outcome(play(swapped, "B2")).winners == (0,)


def test_no_valid_play_loses_patch_primary() -> None:
    """Every patch claimed and no Warp thread touching Warp's patch is free."""
    claimed = {"B2": "V", "A3": "V", "C1": "V"} | {p: "H" for p in PATCH2 if p not in ("B2", "F6")}
    state = from_dump(
        primary="patch", claimed=claimed, states={"Warp": "threads", "Weft": "patches"}, plies=11
    )
    assert GAME.to_move(state) == 1
    final = play(state, "F6")
    out = GAME.outcome(final)
    assert out is not None and out.winners == (1,) and out.reason == "Warp has no valid play"


def test_a_switch_can_leave_the_opponent_without_a_play() -> None:
    """The check runs after every move, switches included."""
    claimed = {name: "V" for name in WARP2} | {"A1": "H", "C3": "H"}
    claimed |= {p: "H" for p in PATCH2 if p not in ("B2", "D2")} | {"B2": "V", "D2": "V"}
    state = from_dump(claimed=claimed, states={"Warp": "patches", "Weft": "patches"}, plies=21)
    assert GAME.to_move(state) == 1
    assert GAME.legal_moves(state) == ["threads"]
    final = play(state, "threads")
    assert GAME.outcome(final).winners == (1,)


# -- 3.6 swap ----------------------------------------------------------------------------


def test_swap_offered_only_to_the_second_player_right_after_move_1() -> None:
    state = new("-size=2")
    assert "swap" not in GAME.legal_moves(state)
    assert_refused(GAME, state, 1, "swap", "right after move 1")
    state = play(state, "C1")
    assert GAME.legal_moves(state)[-1] == "swap"
    state = play(state, "A1")
    assert "swap" not in GAME.legal_moves(state)


def test_swap_exchanges_users_not_pieces_or_states() -> None:
    before = play(new("-size=2"), "C1")
    state = GAME.play(before, 1, "SWAP")
    dump = GAME.dump(state)
    assert dump["claimed"] == {"C1": "V"} and dump["plies"] == 1
    assert dump["history"] == ["C1", "swap"]
    assert GAME.seat_names(state) == ["Weft", "Warp"]
    assert GAME.to_move(state) == 0  # the original first player moves next, as Weft
    assert GAME.legal_moves(state) == WEFT2
    assert "Move 2:" in GAME.render(state)
    state = play(state, "A1")
    # bob, now Warp, owns C1: he may switch to Patching and reach B2/D2
    assert GAME.to_move(state) == 1
    assert GAME.legal_moves(state) == [t for t in WARP2 if t != "C1"] + ["patches"]


def test_swap_winner_is_reported_by_seat() -> None:
    state = play(new("-size=2"), "C1", "swap", "A1", "E3", "E1", "C5", "G3", "E7", "A5")
    state = play(state, "patches", "C7", "D2", "G7", "D4", "E5", "D6")
    out = GAME.outcome(state)
    assert out.winners == (1,) and out.losers == (0,)  # bob, now Warp, connected


# -- turns, immutability, storage ----------------------------------------------------


def test_not_your_turn() -> None:
    state = new("-size=2")
    assert_refused(GAME, state, 1, "A1", "not your turn", "Warp is to move")
    assert_refused(GAME, state, 1, "threads", "not your turn")


def test_play_returns_a_new_state_and_keeps_the_old() -> None:
    state = new("-size=2")
    before = json.dumps(GAME.dump(state), sort_keys=True)
    after = GAME.play(state, 0, "C1")
    assert after is not state
    assert json.dumps(GAME.dump(state), sort_keys=True) == before
    with pytest.raises(IllegalMove):
        GAME.play(state, 0, "A1")
    assert json.dumps(GAME.dump(state), sort_keys=True) == before


@pytest.mark.parametrize("options", [[], ["-size=2", "-patch"], ["-size=6", "-compact"]])
def test_dump_load_roundtrip(options: list[str]) -> None:
    state = new(*options)
    assert_roundtrip(GAME, state)
    moves = GAME.legal_moves(state)[:1]
    state = play(state, moves[0], "swap")
    assert_roundtrip(GAME, state)
    again = GAME.load(json.loads(json.dumps(GAME.dump(state))))
    assert GAME.render(again) == GAME.render(state)


# -- perft (counts derived from the rules by hand) --------------------------------------
#
# Thread-Primary, 2N^2 threads per side: Warp has 2N^2 first moves; Weft
# then 2N^2 threads + swap; after two threads Warp has 2N^2 - 1 threads + the
# switch to Patching; after a swap, Weft (no pieces) has 2N^2 threads.
# Depth 3 = T*T*T + T*1*T with T = 2N^2.
# Patch-Primary, P = (2N-1)^2 patches: depth 1 = P, depth 2 = P*P (P-1 patches
# + swap); depth 3 = P*(P-1)*((P-2) + 1 switch) + P*1*(P-1).


@pytest.mark.parametrize("n", [2, 3, 4])
def test_perft_thread_primary(n: int) -> None:
    t = 2 * n * n
    state = new(f"-size={n}")
    assert perft(GAME, state, 1) == t
    assert perft(GAME, state, 2) == t * (t + 1)
    assert perft(GAME, state, 3) == t**3 + t * t


@pytest.mark.parametrize("n", [2, 3, 4])
def test_perft_patch_primary(n: int) -> None:
    p = (2 * n - 1) ** 2
    state = new(f"-size={n}", "-patches")
    assert perft(GAME, state, 1) == p
    assert perft(GAME, state, 2) == p * p
    assert perft(GAME, state, 3) == p * (p - 1) * (p - 1) + p * (p - 1)


@pytest.mark.parametrize(
    "bad",
    [
        {"claimed": {"A1": "V"}},  # a Weft thread cannot be Warp's
        {"claimed": {"C2": "V"}},  # an arm square is not a region name
        {"claimed": {"B2": "X"}},
        {"states": {"Warp": "threads", "Weft": "sleeping"}},
        {"plies": -1},
        {"size": 9},
    ],
)
def test_load_refuses_inconsistent_records(bad: dict) -> None:
    with pytest.raises(ValueError, match="not a valid Warp and Weft game record"):
        from_dump(**bad)


@pytest.mark.parametrize("move", ["C" + "1" * 300, "x" * 300, "threads" * 40])
def test_a_long_move_is_quoted_cut(move: str) -> None:
    text = assert_refused(GAME, GAME.start(GAME.parse_options([]), 2), 0, move)
    assert len(text) < 200 and "..." in text


@pytest.mark.parametrize("option", ["-" + "q" * 300, "-size=" + "9" * 300, "-compact=" + "y" * 300])
def test_a_long_option_is_quoted_cut(option: str) -> None:
    with pytest.raises(OptionError) as err:
        GAME.parse_options([option])
    assert len(str(err.value)) < 200 and "..." in str(err.value)


def test_switch_refusals_name_the_states_as_the_help_does() -> None:
    # Exact texts: the state names are words of the help ("Threading", "Patching").
    st = GAME.start(GAME.parse_options(["-size=2"]), 2)
    assert assert_refused(GAME, st, 0, "threads") == "you are already Threading"
    assert assert_refused(GAME, st, 0, "patches") == (
        "you cannot switch to Patching: no free patch touches one of your threads"
    )
    for seat, move in enumerate(["C1", "A1"]):
        st = GAME.play(st, seat, move)
    st = GAME.play(GAME.play(st, 0, "patches"), 1, "C3")
    assert assert_refused(GAME, st, 0, "patches") == "you are already Patching"


def test_swap_refusals_word_for_word() -> None:
    st = GAME.play(GAME.start(GAME.parse_options(["-size=2"]), 2), 0, "C1")
    assert assert_refused(GAME, st, 0, "swap") == "only the second player may swap"
    swapped = GAME.play(st, 1, "swap")
    assert assert_refused(GAME, swapped, 0, "swap") == (
        "the sides have already been swapped; swap is allowed only once"
    )
    later = GAME.play(st, 1, "A1")
    assert assert_refused(GAME, later, 0, "swap") == (
        "swap is allowed only as the second move, right after move 1"
    )


def test_patch_primary_switch_back_refused_once_every_patch_is_claimed() -> None:
    st = GAME.start(GAME.parse_options(["-size=2", "-patches"]), 2)
    for move in ["B2", "D2", "F2", "B4", "D4", "F4", "B6", "D6", "F6", "threads", "threads"]:
        st = GAME.play(st, GAME.to_move(st), move)
    assert assert_refused(GAME, st, 1, "patches") == (
        "you cannot switch to Patching: every patch is claimed"
    )


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        # Spec 1.2, N=2 reminder: A1 is a Weft thread with cells @1 A1 B1; C1 a Warp
        # thread with cells C0 C1 C2.
        ("B1", "B1 is part of Weft thread A1; name threads by their centre square"),
        ("C2", "C2 is part of Warp thread C1; name threads by their centre square"),
        ("H1", "H1 is off the board: columns run A-G and rows 1-7"),
    ],
)
def test_square_refusals_word_for_word(move: str, reason: str) -> None:
    """An arm or off-board square is refused with the thread or the board's bounds."""
    assert assert_refused(GAME, new("-size=2"), 0, move) == reason


def test_patch_primary_threading_needs_an_own_patch_word_for_word() -> None:
    """Patch-Primary (3.3): a thread must touch one of the claimer's patches, so
    before Warp owns a patch, Threading has nothing to offer and the switch is refused."""
    st = new("-size=2", "-patches")
    assert assert_refused(GAME, st, 0, "threads") == (
        "you cannot switch to Threading: no free Warp thread touches one of your patches"
    )


def test_load_names_the_region_that_cannot_be_the_sides() -> None:
    """A record giving Warp a Weft thread (A1, spec 4) is refused, naming both."""
    with pytest.raises(ValueError) as exc:
        from_dump(claimed={"A1": "V"})
    assert str(exc.value) == "not a valid Warp and Weft game record: A1 cannot belong to Warp"


def test_start_without_options_takes_the_spec_defaults() -> None:
    """Spec 3.1: size 4 and Thread-Primary (the default) when no option says otherwise,
    even if the options carry no keys at all."""
    data = GAME.dump(GAME.start({}, 2))
    assert (data["size"], data["primary"], data["compact"]) == (4, "thread", False)
    assert data["states"] == {"Warp": "threads", "Weft": "threads"}
