"""The engine against the independent referee of reference.py.

First the referee is pinned against the spec's own tables (so a bug shared by
both cannot hide behind agreement); then both play the same games -- random
ones that reach defeats, passes, repetition and the 300-turn draw, and
targeted positions built around pins and discovered checks by every line
piece and every leg-blocked Knight and Banner -- and must agree on every
legal-move set, every check mark, every automatic pass and defeat (with its
victor and the converted army), and the outcome.

Bounded by default (a few seconds); PBMSERV_REFERENCE_GAMES raises the
number of random games and targeted positions for a long run.
"""

from __future__ import annotations

import json
import os
import random

import pytest

from games.trimac import GAME, start_position
from tests.games.trimac import reference as ref
from tests.games.trimac.common import BASE, spec_block
from tests.games.trimac.test_moves import T3

#: Random games (and a multiple of targeted positions) per test; raise for long runs.
GAMES = int(os.environ.get("PBMSERV_REFERENCE_GAMES", "0")) or None


def budget(default: int) -> int:
    return GAMES * max(1, default // 4) if GAMES else default


# -- the referee against the spec's tables ---------------------------------------
def test_reference_geometry_matches_t1() -> None:
    assert len(ref.LOCAL) == 69 and len(ref.POINTS) == 207
    lengths = [sum(1 for x, _ in ref.LOCAL if x == f) for f in range(-5, 6)]
    assert lengths == [4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4]
    assert len(ref.FORTRESS) == 12 and all(ref.in_lattice(x, y) for x, y in ref.FORTRESS)
    fronts = [(x, y) for x, y in ref.LOCAL if ref.is_front(x, y)]
    assert len(fronts) == 11
    joins = {
        frozenset((p, q))
        for p in ref.POINTS
        for d in ref.ORTHO
        for q, _ in ref.ortho_step(p, d)
        if q[0] != p[0]
    }
    assert len(joins) == 18


def test_reference_names_match_the_spec_key() -> None:
    """§2.1's key: every name sits at the (x, y) the drawing puts it."""
    block = spec_block("Key (local frame, same for every lattice; y on the left):")
    names = []
    for line in block.splitlines():
        y = int(line[2:4])
        for token in line[5:].split():
            x = ref.FILES.index(token[0]) - 5
            assert ref.in_lattice(x, y), token
            assert ref.name((0, x, y)) == "R" + token
            names.append(token)
    assert len(names) == len(set(names)) == 69


def test_reference_outward_diagonals_match_2_2() -> None:
    assert ref.OUTWARD == {
        "N": ("NNE", "NNW"),
        "NE": ("E", "NNE"),
        "SE": ("E", "SSE"),
        "S": ("SSE", "SSW"),
        "SW": ("SSW", "W"),
        "NW": ("NNW", "W"),
    }


T2 = [  # (from, direction, [(target, new direction)]) -- spec T2
    ("Ra4", "N", [("Bk4", "S")]),
    ("Ra4", "NW", [("Bk4", "SW")]),
    ("Ra4", "NE", [("Rb5", "NE")]),
    ("Re8", "N", [("Bg8", "S")]),
    ("Re8", "NW", [("Bg8", "SW")]),
    ("Re8", "NE", [("Rf9", "NE")]),
    ("Rf9", "N", [("Bf9", "S"), ("Gf9", "S")]),
    ("Rf9", "NE", [("Gf9", "SE")]),
    ("Rf9", "NW", [("Bf9", "SW")]),
    ("Rg8", "N", [("Ge8", "S")]),
    ("Rg8", "NE", [("Ge8", "SE")]),
    ("Rg8", "NW", [("Rf9", "NW")]),
    ("Rk4", "N", [("Ga4", "S")]),
    ("Rk4", "NE", [("Ga4", "SE")]),
    ("Rk4", "SE", []),
    ("Bc6", "N", [("Gi6", "S")]),
    ("Bc6", "NW", [("Gi6", "SW")]),
    ("Gd7", "N", [("Rh7", "S")]),
    ("Gd7", "NW", [("Rh7", "SW")]),
]


@pytest.mark.parametrize(("start", "d", "want"), T2)
def test_reference_crossings_match_t2(start, d, want) -> None:
    got = sorted((ref.name(q), nd) for q, nd in ref.ortho_step(ref.point(start), d))
    assert got == sorted(want)


def test_reference_diagonals_and_lines_match_t2() -> None:
    assert ref.diag_step(ref.point("Rg8"), "E") is None
    assert ref.name(ref.diag_step(ref.point("Rg8"), "W")) == "Re8"
    assert ref.name(ref.diag_step(ref.point("Rf7"), "NNE")) == "Rg8"
    assert ref.diag_step(ref.point("Rg8"), "NNE") is None
    longest = max(len(line) for p in ref.POINTS for d in ref.ORTHO for line in ref.lines(p, d))
    assert longest == 17
    assert [len(line) for line in ref.lines(ref.point("Rc1"), "NE")] == [17]
    for p in ref.POINTS:
        for d in ref.ORTHO:
            for line in ref.lines(p, d):
                crossings = sum(1 for a, b in zip([p, *line], line, strict=False) if a[0] != b[0])
                assert crossings <= 1


def _ref_moves_from(game: ref.Game, square: str) -> list[str]:
    return sorted(
        m[4:] + ("(x)" if m[3] == "x" else "") for m in game.legal() if m[:3] == square
    )


# Spec §8 move lists, T4-T13 (position additions to BASE, piece, destinations).
CASES = [
    ("rR@Rc4", "Rc4", "Bf4(x) Bg4 Bh4 Bi1 Bi2 Bi3 Bi4 Bi5 Bi6 Bj4 Bk4 Gd7 Ge7 Gf7 Gg6 Gh5 Gi4 "
     "Gj3 Gk2 Ra2 Ra4 Rb3 Rb4 Rc1 Rc2 Rc3 Rc5 Rc6 Rd4 Rd5 Re4 Re6 Rf7 Rg7 Rh7"),
    ("rR@Rf9", "Rf9", "Ba4 Bb5 Bc6 Bd7 Be8 Bf4(x) Bf5 Bf6 Bf7 Bf8 Bf9 Gf4(x) Gf5 Gf6 Gf7 Gf8 "
     "Gf9 Gg8 Gh7 Gi6 Gj5 Gk4 Ra4 Rb5 Rc6 Rd7 Re8 Rf5 Rf6 Rf7 Rf8 Rg8 Rh7 Ri6 Rj5 Rk4"),
    ("rC@Rc2 rP@Rc5 bR@Bi4 bH@Bi2", "Rc2", "Bi4(x) Gb5 Gc5 Gd5 Ge5 Gf5 Gg4 Gh3 Gi2 Gj1 Ra2 Rb1 "
     "Rb2 Rc1 Rc3 Rc4 Rd2 Rd3 Re2 Re4 Rf2 Rf5 Rg1 Rg5 Rh5 Ri5 Rj5"),
    ("rC@Rc2 bR@Bi4", "Rc2", "Gb5 Gc5 Gd5 Ge5 Gf5 Gg4 Gh3 Gi2 Gj1 Ra2 Rb1 Rb2 Rc1 Rc3 Rc4 Rd2 "
     "Rd3 Re2 Re4 Rf2 Rf5 Rg1 Rg5 Rh5 Ri5 Rj5 Rc5 Rc6 Bi6 Bi5"),
    ("rH@Rf6", "Rf6", "Rc4 Rc5 Rd3 Rd7 Re3 Re8 Rg3 Rg8 Rh3 Rh7 Ri4 Ri5"),
    ("rH@Rf6 rP@Rf7 bP@Rg6", "Rf6", "Rc4 Rc5 Rd3 Rd7 Re3 Rg3 Rh3 Ri4"),
    ("rH@Re8", "Re8", "Be8 Bf7 Bh6 Rc5 Rd5 Rf6 Rg6 Rh7"),
    ("rF@Rf5", "Rf5", "Rb2 Rb4 Rc1 Rc6 Re8 Rg8 Ri1 Ri6 Rj2 Rj4"),
    ("rF@Rf5 gP@Rf7", "Rf5", "Rb2 Rb4 Rc1 Rc6 Ri1 Ri6 Rj2 Rj4"),
    ("rF@Re7", "Re7", "Bf7 Bf8 Bg6 Bh6 Ra4 Rb3 Rd3 Rh4 Ri5"),
    ("rE@Rf5", "Rf5", "Rb3 Rd1 Rd7 Rh1 Rh7 Rj3"),
    ("rE@Rf5 rP@Re6", "Rf5", "Rb3 Rd1 Rh1 Rh7 Rj3"),
    ("rE@Rf7", "Rf7", "Rb5 Rd3 Rh3 Rj5"),
]


@pytest.mark.parametrize(("extra", "square", "want"), CASES)
def test_reference_moves_match_t4_to_t13(extra, square, want) -> None:
    game = ref.Game.from_position(f"{BASE} {extra}")
    assert _ref_moves_from(game, square) == sorted(want.split())


def test_reference_initial_position_matches_t3() -> None:
    game = ref.Game.from_position(start_position())
    legal = game.legal()
    assert len(legal) == 72 and not any("x" in m for m in legal)
    for square, dests in T3.items():
        assert _ref_moves_from(game, square) == sorted(dests.split()), square
    second = 0
    for mv in legal:  # perft 2 of the spec: 5 184
        child = ref.Game.from_position(start_position())
        child.play(mv)
        second += len(child.legal())
    assert second == 5184


# -- engine vs referee ---------------------------------------------------------------
def category(reason: str) -> str:
    """The engine's wording of an ending, reduced to the referee's kinds."""
    if " wins" in reason:
        return "win"
    if "repetition" in reason:
        return "repetition"
    if "300 turns" in reason:
        return "quiet"
    if "passed in succession" in reason:
        return "passes"
    raise AssertionError(f"unknown ending {reason!r}")


def engine_events(state) -> list[tuple]:
    out: list[tuple] = []
    for seat, text in state.history:
        if text == "pass":
            out.append(("pass", seat))
        elif text.startswith("checkmated by "):
            out.append(("defeat", seat, ref.SEATS.index(text.split()[-1])))
        elif text == "resign":
            out.append(("resign", seat))
        else:
            out.append(("move", seat, text))
    return out


def assert_same(state, game: ref.Game) -> None:
    """Board, turn, legal moves, events and outcome all agree."""
    position = GAME.position(state)
    assert {t for t in position.split() if "@" in t} == ref.position_tokens(game.board), position
    assert engine_events(state) == game.events, position
    out = GAME.outcome(state)
    if game.result is None:
        assert out is None, (out, position)
        assert GAME.to_move(state) == game.to, position
        assert sorted(GAME.legal_moves(state)) == game.legal(), position
        return
    assert out is not None, (game.result, position)
    assert (out.winners, out.losers, category(out.reason)) == game.result, (out, position)
    assert GAME.to_move(state) is None and GAME.legal_moves(state) == []


def fresh(position: str):
    return GAME.start(GAME.parse_options([f"-position={position}"]), 3), ref.Game.from_position(position)


def copy_game(game: ref.Game) -> ref.Game:
    new = ref.Game(board=dict(game.board), to=game.to)
    new.__dict__.update({k: (v.copy() if hasattr(v, "copy") else v) for k, v in game.__dict__.items()})
    return new


def play_both(state, game: ref.Game, move: str):
    state = GAME.play(state, GAME.to_move(state), move)
    game.play(move)
    assert_same(state, game)
    return state


def every_move_agrees(state, game: ref.Game) -> int:
    """Play each legal move in both: same mark, passes, defeats, next legal set."""
    moves = game.legal()
    for mv in moves:
        play_both(state, copy_game(game), mv)
    return len(moves)


def random_game(position: str, rng: random.Random, plies: int, capture_bias: float = 0.6,
                every_move: int = 0) -> ref.Game:
    state, game = fresh(position)
    assert_same(state, game)
    for ply in range(plies):
        if game.result is not None:
            break
        legal = game.legal()
        if every_move and ply % every_move == 0:
            every_move_agrees(state, game)
        caps = [m for m in legal if "x" in m]
        mv = rng.choice(caps) if caps and rng.random() < capture_bias else rng.choice(legal)
        state = play_both(state, game, mv)
    json.dumps(GAME.dump(state))
    return game


#: Lighter armies, so that defeats and the two-player phase come quickly.
SKIRMISH = " ".join(
    f"{c}{k}@{lat}{sq}"
    for c, lat in zip("rbg", "RBG", strict=True)
    for k, sqs in {"K": "f1", "A": "e1 g1", "R": "a1 k1", "H": "b1 j1", "C": "f3", "F": "f6",
                   "P": "c5 e7 g7 i5"}.items()
    for sq in sqs.split()
)


def test_random_games_from_the_start_agree() -> None:
    rng = random.Random(18)
    for _ in range(budget(2)):
        random_game(start_position(), rng, 60, every_move=25)


def test_skirmish_games_to_the_end_agree() -> None:
    """Defeats with inheritance, the two-player phase and the endings."""
    rng = random.Random(7)
    endings = []
    for _ in range(budget(8)):
        game = random_game(SKIRMISH, rng, 500, capture_bias=0.8)
        endings.append(game.result and game.result[2])
        defeats = [e for e in game.events if e[0] == "defeat"]
        assert len(defeats) <= 2
    if GAMES is None:
        assert {"win", "repetition", "quiet"} <= set(endings), endings


SPARSE_KINDS = "RCHFP"


def random_position(rng: random.Random, extra: int, kinds: str = SPARSE_KINDS) -> str:
    """Three Generals in their fortresses and ``extra`` random pieces."""
    board: dict = {}
    fortress = sorted(ref.FORTRESS)
    for seat in range(3):
        x, y = rng.choice(fortress)
        board[(seat, x, y)] = (seat, "K")
    free = [p for p in ref.POINTS if p not in board]
    for p in rng.sample(free, extra):
        owner, kind = rng.randrange(3), rng.choice(kinds)
        if kind == "A" and (p[0] != owner or (p[1], p[2]) not in ref.FORTRESS):
            kind = "P"
        if kind == "E" and p[0] != owner:
            kind = "P"
        board[p] = (owner, kind)
    tokens = [f"{ref.COLOURS[o]}{k}@{ref.name(p)}" for p, (o, k) in board.items()]
    return " ".join(tokens) + f" to={ref.LATS[rng.randrange(3)]}"


def aimed_position(rng: random.Random) -> str:
    """A piece aimed at a General, with blockers on its path.

    For a random General: an enemy Rook or Cannon on one of the General's
    lines, or a Knight or Banner (or Pawn) that would attack it, and one or
    two pieces of any colour on the line or on the legs. Moving a blocker is
    then a pin (own piece) or a discovered check (another army's piece).
    """
    fortress = sorted(ref.FORTRESS)
    board: dict = {}
    for seat in range(3):
        x, y = rng.choice(fortress)
        board[(seat, x, y)] = (seat, "K")
    victim = rng.randrange(3)
    g = next(p for p, pc in board.items() if pc == (victim, "K"))
    attacker = rng.choice([o for o in range(3) if o != victim])
    kind = rng.choice("RCHFHF")
    if kind in "RC":
        d = rng.choice(list(ref.ORTHO))
        options = [line for line in ref.lines(g, d) if len(line) >= 3]
        if not options:
            return random_position(rng, 8)
        line = rng.choice(options)
        k = rng.randrange(2, len(line))
        source, path = line[k], line[:k]
    else:
        sources = [p for p in ref.POINTS if g in ref.unblocked(p, attacker, kind) and p not in board]
        if not sources:
            return random_position(rng, 8)
        source = rng.choice(sources)
        path = [q for q in legs(source, kind, g)]
    if source in board:
        return random_position(rng, 8)
    board[source] = (attacker, kind)
    blockers = [q for q in path if q not in board]
    for q in rng.sample(blockers, min(len(blockers), 1 + (kind == "C"))):
        owner = rng.randrange(3)
        board[q] = (owner, rng.choice("RCHFP"))
    free = [p for p in ref.POINTS if p not in board]
    for p in rng.sample(free, rng.randrange(0, 6)):
        board[p] = (rng.randrange(3), rng.choice("RCHFP"))
    tokens = [f"{ref.COLOURS[o]}{k}@{ref.name(p)}" for p, (o, k) in board.items()]
    return " ".join(tokens) + f" to={ref.LATS[rng.randrange(3)]}"


def legs(source: ref.Point, kind: str, g: ref.Point) -> list[ref.Point]:
    """The orthogonal points a Knight or Banner on ``source`` passes to reach g."""
    out = []
    for d in ref.ORTHO:
        for q1, d1 in ref.ortho_step(source, d):
            if kind == "H":
                if any(ref.diag_step(q1, od) == g for od in ref.OUTWARD[d1]):
                    out.append(q1)
            elif kind == "F":
                for q2, d2 in ref.ortho_step(q1, d1):
                    if any(ref.diag_step(q2, od) == g for od in ref.OUTWARD[d2]):
                        out += [q1, q2]
    return out


def test_aimed_positions_pins_and_discovered_checks_agree() -> None:
    """Every legal move of positions built around a pin or a discovered check."""
    rng = random.Random(31)
    compared = 0
    for _ in range(budget(120)):
        position = aimed_position(rng)
        state, game = fresh(position)
        assert_same(state, game)
        if game.result is None:
            compared += every_move_agrees(state, game)
    assert compared > 500


def test_sparse_random_positions_agree() -> None:
    rng = random.Random(5)
    for _ in range(budget(60)):
        position = random_position(rng, rng.randrange(4, 16), kinds="RCHFPPRAE")
        state, game = fresh(position)
        assert_same(state, game)
        if game.result is None:
            every_move_agrees(state, game)


def test_small_armies_reach_repetition_and_pass_draws() -> None:
    """Few pieces: random play repeats positions; lone Generals must pass."""
    rng = random.Random(3)
    endings = []
    for _ in range(budget(12)):
        position = random_position(rng, rng.randrange(0, 4), kinds="RHP")
        endings.append(random_game(position, rng, 400, capture_bias=0.3).result)
    kinds = [e[2] for e in endings if e]
    if GAMES is None:
        assert "repetition" in kinds, kinds
