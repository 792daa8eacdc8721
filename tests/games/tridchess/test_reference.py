"""The engine against the independent referee of reference.py.

The referee is pinned against the spec's own tables first (§3.2 adjacency,
TC-09's start moves and perft); then both play the same games and must agree
after every ply on the whole position string (pins, pieces, pawns' moved
marks, side, castling rights, en-passant square, both counters), on the
legal-move set (attack-board moves and promotions included) and on the
outcome (checkmate, stalemate, repetition, the 100-ply rule, the dead draw).

Games: random ones from the start and from open positions; targeted ones
built around a pin or a discovered check by every slider along every one of
its directions (all 12 bishop diagonals), castling-right bookkeeping after
every king and rook move of both sides, en passant, promotions by move and
by carry, and small endgames that reach mate, stalemate and repetition.

Bounded by default; PBMSERV_REFERENCE_GAMES raises the number of random
games and targeted positions for a long run.
"""

from __future__ import annotations

import os
import random

import pytest

from games.tridchess import GAME
from tests.games.tridchess import reference as ref
from tests.games.tridchess.helpers import ST
from tests.games.tridchess.test_attackboards import ADJACENCY_TABLE

GAMES = int(os.environ.get("PBMSERV_REFERENCE_GAMES", "0")) or None


def budget(default: int) -> int:
    return GAMES * max(1, default // 4) if GAMES else default


# -- the referee against the spec's tables --------------------------------------------
@pytest.mark.parametrize("pin", sorted(ADJACENCY_TABLE))
def test_reference_adjacency_matches_3_2(pin: str) -> None:
    """The queen's-side table of §3.2, and its mirror on the king's side."""
    ranks, side, flip = ADJACENCY_TABLE[pin]
    for mine, other in (("QL", "KL"), ("KL", "QL")):
        got = ref.adjacent(mine + pin[2:])
        assert {q for q, how in got if how == "rank"} == {mine + r[2:] for r in ranks}
        assert [q for q, how in got if how == "side"] == [other + side[2:]]
        assert [q for q, how in got if how == "flip"] == [mine + flip[2:]]


TC09 = ("Na1W-a3N Na1W-b3W Nd1W-c3W Nd1W-d3N a2W-a3W a2W-a4W a2W-a3N b2W-b3W b2W-b4W "
        "b2W-b3N c2W-c3W c2W-c4W c2W-c3N d2W-d3W d2W-d4W d2W-d3N")


def test_reference_start_matches_tc09_and_perft() -> None:
    game = ref.Game.from_position(GAME.position(GAME.start(GAME.parse_options([]), 2)))
    assert sorted(game.moves) == sorted(TC09.split())
    second = sum(len(ref.legal(after)) for after in game.moves.values())
    assert second == 256


@pytest.mark.parametrize(
    ("position", "square", "want"),
    [  # spec TC-10, TC-11, TC-12
        (f"{ST} Pb3N*,Kb1W,kc8B w - - 0 10", "b3N", ["b3N-b4N"]),
        (f"{ST} Pb4N*,Kb1W,kc8B w - - 0 10", "b4N", ["b4N-b5B", "b4N-b5N"]),
        (f"{ST} pc7B,Nd6N,Kb1W,ka8B b - - 0 10", "c7B",
         ["c7B-c5B", "c7B-c6B", "c7B-c6N", "c7Bxd6N"]),
    ],
)
def test_reference_pawns_match_tc10_to_tc12(position: str, square: str, want: list[str]) -> None:
    game = ref.Game.from_position(position)
    assert sorted(m for m in game.moves if m.startswith(square)) == want


# -- engine vs referee ----------------------------------------------------------------------
def category(reason: str) -> str:
    for word, kind in (("checkmate", "checkmate"), ("stalemate", "stalemate"),
                       ("repetition", "repetition"), ("100 plies", "100 plies"),
                       ("two kings", "dead")):
        if word in reason:
            return kind
    raise AssertionError(f"unknown ending {reason!r}")


def assert_same(state, game: ref.Game) -> None:
    position = GAME.position(state)
    assert ref.Pos.parse(position).fields() == game.pos.fields(), position
    out = GAME.outcome(state)
    if game.result is None:
        assert out is None, (out, position)
        assert GAME.to_move(state) == (0 if game.pos.side == "w" else 1)
        assert sorted(GAME.legal_moves(state)) == sorted(game.moves), position
        return
    assert out is not None, (game.result, position)
    assert (out.winners, out.losers, category(out.reason)) == game.result, (out, position)
    assert GAME.legal_moves(state) == [] and GAME.to_move(state) is None


def fresh(position: str):
    state = GAME.start(GAME.parse_options([f"-position={position}"]), 2)
    game = ref.Game.from_position(position)
    assert_same(state, game)
    return state, game


def play_both(state, game: ref.Game, move: str):
    state = GAME.play(state, GAME.to_move(state), move)
    game.play(move)
    assert_same(state, game)
    return state


def branch(game: ref.Game) -> ref.Game:
    return ref.Game(game.pos, dict(game.moves), list(game.keys), game.result)


def every_move_agrees(state, game: ref.Game, only=None) -> int:
    """Play each legal move (or those ``only`` picks) in both: same position
    string, moves and outcome afterwards."""
    moves = [m for m in sorted(game.moves) if only is None or only(m)]
    for mv in moves:
        play_both(state, branch(game), mv)
    return len(moves)


def random_game(position: str, rng: random.Random, plies: int, prefer=None,
                every_move: int = 0) -> ref.Game:
    state, game = fresh(position)
    for ply in range(plies):
        if game.result is not None:
            break
        if every_move and ply % every_move == 0:
            every_move_agrees(state, game)
        moves = sorted(game.moves)
        liked = [m for m in moves if prefer and prefer(m)]
        mv = rng.choice(liked) if liked and rng.random() < 0.7 else rng.choice(moves)
        state = play_both(state, game, mv)
    return game


START = ref.ST + (
    " Rz0QL1,Qa0QL1,Pz1QL1,Pa1QL1,Kd0KL1,Re0KL1,Pd1KL1,Pe1KL1,Na1W,Bb1W,Bc1W,Nd1W,Pa2W,"
    "Pb2W,Pc2W,Pd2W,rz9QL6,qa9QL6,pz8QL6,pa8QL6,kd9KL6,re9KL6,pd8KL6,pe8KL6,na8B,bb8B,"
    "bc8B,nd8B,pa7B,pb7B,pc7B,pd7B w KQkq - 0 1"
)
OPEN = f"{ST} Qb4N,Rc3W,Pa2W,Pd2W*,Kb1W,qc6N,rb6B,pa7B,pd7B*,kc8B w - - 0 10"
CASTLE = (f"{ST} Rz0QL1,Kd0KL1,Re0KL1,Pz1QL1,Pd1KL1,rz9QL6,kd9KL6,re9KL6,pz8QL6,pe8KL6,"
          "Bb4N,nc6B w KQkq - 0 5")
EP = f"{ST} Pd5N*,Pb5B*,Pa2W,Pc2W,pc7B,pa7B,pb4N*,pd4W*,Kb1W,ka8B b - - 0 10"
PROMO = ("WQ:QL4,WK:KL1,BQ:QL3i,BK:KL6 Pa7QL4*,Pb7B*,Pc6N*,pz2QL3i*,pc2W*,Qd3N,Kb1W,kd8B,"
         "rc8B w - - 0 10")


def test_the_start_and_open_games_agree() -> None:
    rng = random.Random(18)
    for position, plies in ((START, 40), (OPEN, 60)) * budget(1):
        random_game(position, rng, plies, every_move=15)


def test_castling_rights_after_every_king_and_rook_move_of_both_sides() -> None:
    """Kings and rooks of both sides move (and rooks are taken on their home
    squares); the castling field must follow in both, whoever moved."""
    rng = random.Random(4)
    kings_and_rooks = lambda m: m[0] in "KR" or m.startswith("O-")  # noqa: E731
    for side in "wb":
        position = CASTLE.replace(" w KQkq", f" {side} KQkq")
        state, game = fresh(position)
        every_move_agrees(state, game)
        for _ in range(budget(3)):
            random_game(position, rng, 12, prefer=kings_and_rooks, every_move=3)


def test_a_black_king_move_keeps_whites_castling_rights() -> None:
    state, game = fresh(CASTLE.replace(" w KQkq", " b KQkq"))
    for mv in ("Kd9KL6-c8B", "Kd9KL6-d8B"):
        if mv in game.moves:
            after = GAME.play(state, 1, mv)
            assert GAME.position(after).split()[3] == "KQ"
    assert "Kd9KL6-c8B" in game.moves or "Kd9KL6-d8B" in game.moves


def test_en_passant_and_promotion_games_agree() -> None:
    rng = random.Random(6)
    for position in (EP, PROMO) * budget(2):
        random_game(position, rng, 30, prefer=lambda m: "e.p." in m or "=" in m, every_move=4)


def kings(rng: random.Random, taken: set) -> list[tuple[str, ref.Cell]]:
    cells = sorted(ref.cells_of(ref.START_PINS))
    out = []
    for colour in "wb":
        c = rng.choice([c for c in cells if c not in taken])
        taken.add(c)
        out.append((colour, c))
    return out


def to_text(pins: dict[str, str], pieces: dict[ref.Cell, tuple[str, str]], side: str) -> str:
    items = []
    for c, (colour, kind) in pieces.items():
        letter = kind if colour == "w" else kind.lower()
        items.append(f"{letter}{ref.name_of(c, pins)}" + ("*" if kind == "P" else ""))
    boards = ",".join(f"{k}:{v}" for k, v in pins.items())
    return f"{boards} {','.join(items)} {side} - - 0 10"


def aimed(rng: random.Random, kind: str, d: tuple[int, int, int]) -> str | None:
    """A slider of ``kind`` aimed along ``d`` at a king, one piece between.

    The piece between belongs to the king's side (a pin) or to the slider's
    side (a discovered check); the side to move is drawn at random, so both
    the pinned side and the discovering side get to move.
    """
    king_colour = rng.choice("wb")
    slider_colour = "b" if king_colour == "w" else "w"
    for _attempt in range(200):
        pins = dict(ref.START_PINS)
        for _ in range(rng.randrange(0, 6)):  # wander the boards for variety
            ab = rng.choice(sorted(pins))
            options = [p for p, _ in ref.adjacent(pins[ab]) if p not in pins.values()]
            if options:
                pins[ab] = rng.choice(options)
        cells = ref.cells_of(pins)
        k = rng.choice(sorted(cells))
        line, cur = [], ref.step(cells, k, d)
        while cur is not None:
            line.append(cur)
            cur = ref.step(cells, cur, d)
        if len(line) < 2:
            continue
        j = rng.randrange(1, len(line))
        i = rng.randrange(0, j)
        pieces = {k: (king_colour, "K"), line[j]: (slider_colour, kind)}
        pieces[line[i]] = (rng.choice((king_colour, slider_colour)), rng.choice("PNBRQ"))
        free = [c for c in sorted(cells) if c not in pieces]
        other = rng.choice(free)
        pieces[other] = (slider_colour, "K")
        for c in rng.sample([c for c in free if c != other], rng.randrange(0, 4)):
            pieces[c] = (rng.choice("wb"), rng.choice("PNBRQ"))
        if any(kd == "P" and ref.promotes(col, c[1]) for c, (col, kd) in pieces.items()):
            continue
        side = rng.choice("wb")
        text = to_text(pins, pieces, side)
        try:
            GAME.parse_options([f"-position={text}"])
        except ValueError:
            continue  # e.g. the side not to move is in check
        return text, {ref.name_of(c, pins) for c in (line[i], line[j], k)}
    return None


SLIDER_LINES = [(kind, d) for kind, dirs in (("B", ref.BISHOP), ("R", ref.ROOK), ("Q", ref.DIRS))
                for d in dirs]


def test_pins_and_discovered_checks_by_every_slider_along_every_direction() -> None:
    """The legal moves of each position (a pinned piece keeps only the moves
    along the pin), then every move of the king, the piece between and the
    slider, played in both (a discovered check must show in the reply's
    legal moves and outcome)."""
    rng = random.Random(12)
    compared = 0
    for kind, d in SLIDER_LINES:
        made = 0
        for _ in range(budget(2 if kind == "B" else 1) * 4):
            found = aimed(rng, kind, d)
            if found is None:
                continue
            text, squares = found
            state, game = fresh(text)
            if game.result is None:
                compared += every_move_agrees(
                    state, game, only=lambda m, sq=squares: m.lstrip("KQRBN")[:4].rstrip("-x") in sq
                )
            made += 1
            if made >= budget(2 if kind == "B" else 1):
                break
        assert made, (kind, d)  # every direction got at least one position
    assert compared > 200, compared


def small_endgame(rng: random.Random, kinds: str = "") -> str:
    """Two kings on the start boards' cells, plus ``kinds`` for White (or
    one to three random pieces of either colour)."""
    pins = dict(ref.START_PINS)
    cells = sorted(ref.cells_of(pins))
    while True:
        pieces: dict = {}
        for colour, c in kings(rng, set()):
            pieces[c] = (colour, "K")
        extra = [("w", k) for k in kinds] or [
            (rng.choice("wb"), rng.choice("QRBNP")) for _ in range(rng.randrange(1, 4))
        ]
        for c, piece in zip(rng.sample([c for c in cells if c not in pieces], len(extra)), extra,
                            strict=True):
            pieces[c] = piece
        if any(kd == "P" and ref.promotes(col, c[1]) for c, (col, kd) in pieces.items()):
            continue
        text = to_text(pins, pieces, rng.choice("wb"))
        try:
            GAME.parse_options([f"-position={text}"])
        except ValueError:
            continue
        return text


def _mates(game: ref.Game, move: str) -> bool:
    after = game.moves[move]
    return ref.in_check(after) and not ref.legal(after)


def endgame(rng: random.Random, position: str, plies: int, style: str) -> ref.Game:
    """Play a small endgame in both: 'capture' takes when it can (the dead
    draw), 'shuffle' undoes its own last move (repetition), 'hunt' mates
    when it can (checkmate)."""
    state, game = fresh(position)
    last: dict[str, str] = {}
    for _ in range(plies):
        if game.result is not None:
            break
        moves = sorted(game.moves)
        side = game.pos.side
        pick = None
        if style == "capture":
            pick = next((m for m in moves if "x" in m), None)
        elif style == "shuffle" and side in last:
            body = last[side].lstrip("KQRBN")
            back = [m for m in moves if m.lstrip("KQRBN") == body[5:] + "-" + body[:4]
                    or m == "-".join(reversed(last[side].split("-")))]
            pick = back[0] if back else None
        elif style == "hunt" and side == "w":
            pick = next((m for m in moves if _mates(game, m)), None)
        mv = pick if pick is not None and rng.random() < 0.9 else rng.choice(moves)
        last[side] = mv
        state = play_both(state, game, mv)
    return game


def test_small_endgames_reach_every_ending() -> None:
    rng = random.Random(9)
    endings = []
    for n in range(budget(9)):
        style = ("capture", "shuffle", "hunt")[n % 3]
        position = small_endgame(rng, "QR" if style == "hunt" else "")
        game = endgame(rng, position, 60, style)
        endings.append(game.result[2] if game.result else None)
    if GAMES is None:
        assert {"checkmate", "repetition", "dead"} <= set(endings), endings


MATE = f"{ST} Qa8QL6,Ra7B,Kb1W,kz9QL6 b - - 0 20"
STALEMATE = "WQ:KL5,WK:KL6i,BQ:QL6,BK:KL6 Qa7B,Bb8B,Kb1W,kz9QL6 b - - 0 30"


@pytest.mark.parametrize("position", [MATE, STALEMATE])
def test_the_spec_endings_agree(position: str) -> None:
    fresh(position)


def test_the_100_ply_rule_and_mate_on_the_100th_ply() -> None:
    rng = random.Random(2)
    for _ in range(budget(6)):
        text = small_endgame(rng).replace(" 0 10", " 96 10")
        random_game(text, rng, 10)
    # the 100th ply mates: checkmate, not a draw (§4.5)
    mate = f"{ST} Qb7B,Ra7B,Kb1W,kz9QL6 w - - 99 40"
    state, game = fresh(mate)
    state = play_both(state, game, "Qb7B-a8QL6")
    assert game.result == ((0,), (1,), "checkmate")


@pytest.mark.parametrize("rook", ["rd6N", "rb6N"])
def test_repetition_with_an_en_passant_square_agrees(rook: str) -> None:
    """The en-passant square after c7B-c5B, usable (rb6N) or not because the
    capturing pawn is pinned (rd6N): both count repetitions the same way."""
    state, game = fresh(f"{ST} Kd3N,Pd5N*,Nb1W,{rook},pc7B,ka8B b - - 0 10")
    state = play_both(state, game, "c7B-c5B")
    cycle = ["Nb1W-c3W", "Ka8B-b8B", "Nc3W-b1W", "Kb8B-a8B"]
    for mv in cycle * 3:
        if game.result is not None:
            break
        state = play_both(state, game, mv)
    assert game.result == ((), (), "repetition")
