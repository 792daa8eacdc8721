"""Random playouts (every size, both primaries), replays and game invariants."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.warpweft import GAME, rules
from games.warpweft.geometry import PATCH, SIZES, geometry
from tests.games.playout import assert_replays, assert_roundtrip, random_playout


def test_random_playout_default() -> None:
    counts = random_playout(GAME)
    assert counts["finished"] >= 1


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("primary", ["-threads", "-patches"])
def test_random_playout_every_size_and_primary(n: int, primary: str) -> None:
    options = GAME.parse_options([f"-size={n}", primary])
    counts = random_playout(GAME, options, plies=1500, seed=n)
    assert counts["finished"] >= 1


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


def _would_connect_with_all_threads(state, side: int) -> bool:
    """``side`` connected if it also owned every free thread of its direction."""
    geo = state.geo
    owners = list(state.owners)
    for t in geo.of_kind[side]:
        if owners[t] == rules.FREE:
            owners[t] = side
    filled = replace(state, owners=tuple(owners))
    return any(rules.connected(filled, side, t) for t in geo.edges[side][0])


def _joined(geo, owners, side: int) -> bool:
    """Plain flood fill from ``side``'s first edge over its own regions."""
    seen = {t for t in geo.edges[side][0] if owners[t] == side}
    todo = list(seen)
    while todo:
        r = todo.pop()
        for nb in geo.neighbours[r]:
            if owners[nb] == side and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return bool(seen & geo.edges[side][1])


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
        geo = geometry(n)
        for _ in range(count):
            state = GAME.start(options, 2)
            while (seat := GAME.to_move(state)) is not None:
                state = GAME.play(state, seat, rng.choice(GAME.legal_moves(state)))
            out = GAME.outcome(state)
            winner_side = state.side_of(out.winners[0])
            loser_side = 1 - winner_side
            if "connected" in out.reason:
                assert _joined(geo, state.owners, winner_side)
                assert not _joined(geo, state.owners, loser_side)
                continue
            assert all(state.owners[p] != rules.FREE for p in geo.of_kind[PATCH])
            if primary == "-threads":
                assert all(state.owners[t] == loser_side for t in geo.of_kind[loser_side])
            else:
                assert not rules.placements(state, loser_side, "threads")
            assert _would_connect_with_all_threads(state, winner_side)
            assert not _would_connect_with_all_threads(state, loser_side)
