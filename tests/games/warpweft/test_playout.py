"""Random playouts (every size, both primaries), replays and game invariants."""

from __future__ import annotations

import random

import pytest

from games.warpweft import GAME
from tests.games.playout import PLAYOUT_PLIES, assert_replays, assert_roundtrip, random_playout
from tests.games.warpweft import reference as ref

SIZES = (2, 3, 4, 5, 6)  # spec 3.1


def tally(endings: list[str]) -> dict[str, int]:
    """How many games ended each way: "Warp connected" -> 3, ..."""
    out: dict[str, int] = {}
    for reason in endings:
        key = reason.split()[0] + (" connected" if "connected" in reason else " no play")
        out[key] = out.get(key, 0) + 1
    return out


def test_random_playout_default() -> None:
    counts = random_playout(GAME)
    assert counts["plies"] == PLAYOUT_PLIES
    if PLAYOUT_PLIES == 3000:  # seed 1's games end these ways
        assert (counts["games"], counts["finished"]) == (26, 25)
        assert tally(counts["endings"]) == {
            "Warp connected": 10,
            "Weft connected": 12,
            "Warp no play": 3,
        }


#: (size, primary) -> games started, and how the finished ones ended, in 1500 plies.
ENDINGS = {
    (2, "-threads"): (
        53,
        {"Warp connected": 26, "Weft connected": 16, "Warp no play": 5, "Weft no play": 5},
    ),
    (2, "-patches"): (
        66,
        {"Warp connected": 16, "Weft connected": 18, "Warp no play": 12, "Weft no play": 19},
    ),
    (3, "-threads"): (
        24,
        {"Warp connected": 10, "Weft connected": 8, "Warp no play": 3, "Weft no play": 2},
    ),
    (3, "-patches"): (
        27,
        {"Warp connected": 9, "Weft connected": 6, "Warp no play": 5, "Weft no play": 6},
    ),
    (4, "-threads"): (14, {"Warp connected": 7, "Weft connected": 3, "Warp no play": 3}),
    (4, "-patches"): (
        16,
        {"Warp connected": 3, "Weft connected": 5, "Warp no play": 3, "Weft no play": 4},
    ),
    (5, "-threads"): (9, {"Warp connected": 5, "Weft connected": 3}),
    (5, "-patches"): (
        10,
        {"Warp connected": 1, "Weft connected": 1, "Warp no play": 5, "Weft no play": 2},
    ),
    (6, "-threads"): (6, {"Warp connected": 3, "Weft connected": 1, "Warp no play": 1}),
    (6, "-patches"): (
        7,
        {"Warp connected": 2, "Weft connected": 1, "Warp no play": 2, "Weft no play": 1},
    ),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("primary", ["-threads", "-patches"])
def test_random_playout_every_size_and_primary(n: int, primary: str) -> None:
    options = GAME.parse_options([f"-size={n}", primary])
    counts = random_playout(GAME, options, plies=1500, seed=n)
    games, endings = ENDINGS[(n, primary)]
    assert (counts["plies"], counts["games"], counts["finished"]) == (1500, games, games - 1)
    assert tally(counts["endings"]) == endings


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("primary", ["-threads", "-patches"])
def test_random_games_end_with_a_connection_or_no_play(n: int, primary: str) -> None:
    """Every random game ends; the winner really is connected, or the loser
    really has no placement in either state (checked through the board)."""
    rng = random.Random(100 + n)
    options = GAME.parse_options([f"-size={n}", primary])
    for _ in range(6):
        state = GAME.start(options, 2)
        moves = []
        while GAME.to_move(state) is not None:
            seat = GAME.to_move(state)
            move = rng.choice(GAME.legal_moves(state))
            moves.append((seat, move))
            state = GAME.play(state, seat, move)
        out = GAME.outcome(state)
        assert out is not None and len(out.winners) == 1 and len(out.losers) == 1
        assert set(out.winners) | set(out.losers) == {0, 1}
        assert_replays(GAME, options, moves, state)
        assert_roundtrip(GAME, state)
        claimed = GAME.dump(state)["claimed"]
        if "connected" in out.reason:
            assert moves[-1][0] == out.winners[0]  # the last placement won
            assert moves[-1][1] in claimed
        else:
            assert out.reason.endswith("has no valid play")
            assert moves[-1][0] == out.winners[0]


def test_switching_back_and_forth_is_allowed_and_wastes_tempo() -> None:
    state = GAME.start(GAME.parse_options(["-size=2"]), 2)
    for move in ["C1", "A1", "patches", "patches", "threads", "threads", "patches"]:
        state = GAME.play(state, GAME.to_move(state), move)
    assert GAME.outcome(state) is None
    assert GAME.dump(state)["claimed"] == {"C1": "V", "A1": "H"}
    assert GAME.dump(state)["plies"] == 7


#: random games per size for each primary: 2840 games in all
GAMES_PER_SIZE = {2: 1000, 3: 200, 4: 100, 5: 70, 6: 50}


BOARDS: dict[int, ref.Board] = {}


def _as_reference(state, n: int, patch_primary: bool) -> ref.Game:
    """The engine's final board, read through its dump, as a reference game."""
    if n not in BOARDS:
        BOARDS[n] = ref.build(n)
    board = BOARDS[n]
    side_of_mark = {mark: side for side, mark in ref.MARK.items()}
    dump = GAME.dump(state)
    owner = {r: side_of_mark[m] for r, m in dump["claimed"].items()}
    return ref.Game(board, patch_primary, owner, dict(dump["states"]))


def _would_connect_with_all_threads(game: ref.Game, side: str) -> ref.Game:
    """``side`` connected if it also owned every free thread of its direction."""
    owner = dict(game.owner)
    for r, kind in game.board.kind.items():
        if kind == side:
            owner.setdefault(r, side)
    filled = ref.Game(game.board, game.patch_primary, owner, dict(game.state))
    return ref.connected(filled, side)


@pytest.mark.parametrize("primary", ["-threads", "-patches"])
def test_thousands_of_random_games(primary: str) -> None:
    """Spec 3.5: a "no valid play" loss only comes when every patch is
    claimed, and the loser owns every thread of theirs (Thread-Primary) or
    none is left next to their patches (Patch-Primary).  By duality the
    winner then holds a patch path their threads would complete, so the rule
    never hands the game to the side that would otherwise lose."""
    rng = random.Random(7)
    for n, count in GAMES_PER_SIZE.items():
        options = GAME.parse_options([f"-size={n}", primary])
        for _ in range(count):
            state = GAME.start(options, 2)
            while (seat := GAME.to_move(state)) is not None:
                state = GAME.play(state, seat, rng.choice(GAME.legal_moves(state)))
            out = GAME.outcome(state)
            game = _as_reference(state, n, primary == "-patches")
            winner = GAME.seat_names(state)[out.winners[0]]
            loser = ref.WEFT if winner == ref.WARP else ref.WARP
            if "connected" in out.reason:
                assert ref.connected(game, winner)
                assert not ref.connected(game, loser)
                continue
            kinds = game.board.kind
            assert all(r in game.owner for r, k in kinds.items() if k == ref.PATCH)
            if primary == "-threads":
                assert all(game.owner.get(r) == loser for r, k in kinds.items() if k == loser)
            else:
                assert not ref.placements(game, loser, ref.THREADING)
            assert _would_connect_with_all_threads(game, winner)
            assert not _would_connect_with_all_threads(game, loser)
