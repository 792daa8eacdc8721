"""The engine agrees with reference.py, an independent reading of the spec.

First the reference's own geometry is pinned against the tables printed in
the spec (copied here verbatim, so the tests need nothing outside the
repository) and against spec test cases; then engine and reference play the
same random games side by side, comparing the full list of legal moves
(captures and rescues included), the position string after every move and
the outcome (winner, reason, grade) whenever a game ends.

PBMSERV_REFERENCE_PLIES scales the random part (default 1500 plies in all).
"""

from __future__ import annotations

import os
import random

from games import OptionError
from games.weavedungeon import GAME
from tests.games.weavedungeon import reference as ref

PLIES = int(os.environ.get("PBMSERV_REFERENCE_PLIES", "1500"))

# -- spec 1.3, 1.4, 1.6, 1.7 verbatim ---------------------------------------------

SPEC_MAP = """\
9  V  -  H  -  V  -  H  -  V
8  |  ## |  ## |  ## |  ## |
7  H  -  V  -  H  -  V  -  H
6  |  ## |  ## |  ## |  ## |
5  V  -  H  -  V  -  H  -  V
4  |  ## |  ## |  ## |  ## |
3  H  -  V  -  H  -  V  -  H
2  |  ## |  ## |  ## |  ## |
1  V  -  H  -  V  -  H  -  V
"""

SPEC_SEGMENTS = """\
| file a | [**a1** a2] · [a4 **a5** a6] · [a8 **a9**] |
| file c | [c2 **c3** c4] · [c6 **c7** c8] |
| file e | [**e1** e2] · [e4 **e5** e6] · [e8 **e9**] |
| file g | [g2 **g3** g4] · [g6 **g7** g8] |
| file i | [**i1** i2] · [i4 **i5** i6] · [i8 **i9**] |
| rank 1 | [b1 **c1** d1] · [f1 **g1** h1] |
| rank 3 | [**a3** b3] · [d3 **e3** f3] · [h3 **i3**] |
| rank 5 | [b5 **c5** d5] · [f5 **g5** h5] |
| rank 7 | [**a7** b7] · [d7 **e7** f7] · [h7 **i7**] |
| rank 9 | [b9 **c9** d9] · [f9 **g9** h9] |
"""

SPEC_STEP_DOWNS = """\
| a1 | a1 a2 | b1 → [b1 c1 d1] |
| c1 | b1 c1 d1 | c2 → [c2 c3 c4] |
| e1 | e1 e2 | d1 → [b1 c1 d1]; f1 → [f1 g1 h1] |
| g1 | f1 g1 h1 | g2 → [g2 g3 g4] |
| i1 | i1 i2 | h1 → [f1 g1 h1] |
| a3 | a3 b3 | a2 → [a1 a2]; a4 → [a4 a5 a6] |
| c3 | c2 c3 c4 | b3 → [a3 b3]; d3 → [d3 e3 f3] |
| e3 | d3 e3 f3 | e2 → [e1 e2]; e4 → [e4 e5 e6] |
| g3 | g2 g3 g4 | f3 → [d3 e3 f3]; h3 → [h3 i3] |
| i3 | h3 i3 | i2 → [i1 i2]; i4 → [i4 i5 i6] |
| a5 | a4 a5 a6 | b5 → [b5 c5 d5] |
| c5 | b5 c5 d5 | c4 → [c2 c3 c4]; c6 → [c6 c7 c8] |
| e5 | e4 e5 e6 | d5 → [b5 c5 d5]; f5 → [f5 g5 h5] |
| g5 | f5 g5 h5 | g4 → [g2 g3 g4]; g6 → [g6 g7 g8] |
| i5 | i4 i5 i6 | h5 → [f5 g5 h5] |
| a7 | a7 b7 | a6 → [a4 a5 a6]; a8 → [a8 a9] |
| c7 | c6 c7 c8 | b7 → [a7 b7]; d7 → [d7 e7 f7] |
| e7 | d7 e7 f7 | e6 → [e4 e5 e6]; e8 → [e8 e9] |
| g7 | g6 g7 g8 | f7 → [d7 e7 f7]; h7 → [h7 i7] |
| i7 | h7 i7 | i6 → [i4 i5 i6]; i8 → [i8 i9] |
| a9 | a8 a9 | b9 → [b9 c9 d9] |
| c9 | b9 c9 d9 | c8 → [c6 c7 c8] |
| e9 | e8 e9 | d9 → [b9 c9 d9]; f9 → [f9 g9 h9] |
| g9 | f9 g9 h9 | g8 → [g6 g7 g8] |
| i9 | i8 i9 | h9 → [f9 g9 h9] |
"""

SPEC_PINWHEEL = """\
rank 8:  b8 cw    d8 CCW   f8 cw    h8 CCW
rank 6:  b6 CCW   d6 cw    f6 CCW   h6 cw
rank 4:  b4 cw    d4 CCW   f4 cw    h4 CCW
rank 2:  b2 CCW   d2 cw    f2 CCW   h2 cw
"""


def names(squares) -> list[str]:
    return [ref.name(q) for q in squares]


def test_square_kinds_and_tops_match_the_spec_map():
    for row in SPEC_MAP.splitlines():
        rank, cells = int(row[0]), row[3:].replace("##", "#").split()
        for f, mark in enumerate(cells, 1):
            sq = (f, rank)
            expected = {"V": "bridge", "H": "bridge", "|": "slope", "-": "slope", "#": "cell"}
            assert ref.kind(sq) == expected[mark], ref.name(sq)
            if mark in "V|":
                assert ref.top(sq) == ("file", f)
            elif mark in "H-":
                assert ref.top(sq) == ("rank", rank)


def test_segments_match_the_spec_table():
    spec = []
    for row in SPEC_SEGMENTS.splitlines():
        for part in row.split("|")[2].split("·"):
            spec.append(part.strip(" []").replace("*", "").split())
    mine = {tuple(names(seg)) for seg in ref.SEGMENT.values()}
    assert len(spec) == 25 and mine == {tuple(s) for s in spec}
    for seg in spec:
        bridges = [q for q in seg if ref.kind(ref.square(q)) == "bridge"]
        bold = [q for row in SPEC_SEGMENTS.splitlines() for q in row.split("**")[1::2]]
        assert len(bridges) == 1 and bridges[0] in bold


def test_step_downs_match_the_spec_table():
    rows = [row.split("|")[1:4] for row in SPEC_STEP_DOWNS.splitlines()]
    assert len(rows) == 25
    for bridge, segment, steps in rows:
        b = ref.square(bridge.strip())
        assert names(ref.SEGMENT[b]) == segment.split()
        spec = {}
        for part in steps.split(";"):
            slope, seg = part.split("→")
            spec[slope.strip()] = seg.strip(" []").split()
        mine = {
            ref.name(s2): sorted(names(ref.walk_away(ref.SEGMENT[s2], s2)))
            for s2 in ref.normal_slopes(b)
        }
        assert mine == {k: sorted(v) for k, v in spec.items()}
        for s2 in ref.normal_slopes(b):  # the new segment starts next to the trough
            assert ref.walk_away(ref.SEGMENT[s2], s2)[0] == s2


def test_pinwheel_matches_the_spec_table_and_rule():
    for row in SPEC_PINWHEEL.splitlines():
        words = row.split(":")[1].split()
        for cell, turn in zip(words[::2], words[1::2], strict=True):
            sq = ref.square(cell)
            assert ref.pinwheel(sq) == turn, cell
            assert (turn == "CCW") == (sum(sq) % 4 == 0)


def test_a_segment_stepper_never_returns_to_its_segment():
    # 3.0: S1 != S2 != S3 and S3 != S1.
    for b1 in {ref.seg_bridge(s) for s in ref.SEGMENT.values()}:
        s1 = ref.SEGMENT[b1]
        for s2 in ref.normal_slopes(b1):
            seg2 = ref.SEGMENT[s2]
            assert seg2 != s1
            for s3 in ref.normal_slopes(ref.seg_bridge(seg2)):
                assert ref.SEGMENT[s3] not in (s1, seg2)


# -- the reference against spec test cases ------------------------------------------


def ref_game(white: str, black: str, side: str = "w") -> ref.Game:
    board = {}
    for text, up in ((white, True), (black, False)):
        for item in text.split():
            board[ref.square(item[1:])] = item[0] if up else item[0].lower()
    game = ref.Game(board, side == "w", {True: [], False: []}, 1, {True: True, False: True})
    return game


def spaced(text: str) -> set[str]:
    """A spec list such as ``"a1 b2 d3x"`` as a set."""
    return set(text.split())


def ref_dests(game: ref.Game, frm: str) -> set[str]:
    return {m[4:6] + ("x" if m[3] == "x" else "") for m in ref.legal_moves(game) if m[1:3] == frm}


def test_reference_passes_spec_cases():
    start = ref.parse("pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1")
    assert len(ref.legal_moves(start)) == 17  # T1
    assert sum(len(ref.legal_moves(ref.play(start, m))) for m in ref.legal_moves(start)) == 289
    t6 = ref_game("Ki1 Tc3", "Ka9 Td3")
    assert ref_dests(t6, "c3") == spaced("a1 a2 a3 a4 a5 a6 b2 b3 b4 d2 d3x d4 f6 h8")
    t6.white_to_move = False
    assert "c3x" not in ref_dests(t6, "d3")
    assert ref_dests(ref_game("Ka9 Cb3 Tc3", "Ki1"), "b3") == spaced("a3 b1 b2 b4 b5 d3")
    t12 = ref_game("Ka9 Tc1", "Ki9")
    assert ref_dests(t12, "c1") == spaced("a3 b2 b3 c2 c3 c4 d2 d3 e3 f3 f4 h6")
    assert ref_dests(ref_game("Ka9 Tb3 Da3", "Ki1"), "b3") == set()  # T13
    for star, moves in {  # T7
        "e3": "d2 d4 e1 e2 e4 e5 e6 f2 f4",
        "e4": "b5 c5 d4 d5 f4 f5 g5 h5",
        "c3": "a3 b2 b3 b4 d2 d3 d4 e3 f3",
        "d3": "d2 d4 e1 e2 e4 e5 e6",
    }.items():
        assert ref_dests(ref_game(f"K{star}", "Ki9"), star) == set(moves.split())


# -- side by side ---------------------------------------------------------------------


def engine_outcome(st) -> tuple[str, str, str] | None:
    out = GAME.outcome(st)
    if out is None:
        return None
    winner = ("White", "Black")[out.winners[0]]
    kinds = [k for k in ("checkmate", "stalemate", "repetition") if k in out.reason]
    assert len(kinds) == 1, out.reason
    return (winner, kinds[0], out.grade)


def new_stats() -> dict[str, int]:
    """What the random games met: endings, grades, rescue offers, throne returns."""
    kinds = ["checkmate", "stalemate", "repetition", "Triumph", "Ovation", "Victory"]
    return dict.fromkeys([*kinds, "rescues", "returned to the throne"], 0)


def finishing_move(st, moves: list[str]) -> str | None:
    """A move that wins on the spot, if the engine knows one (finds mates fast)."""
    seat = GAME.to_move(st)
    for move in moves:
        out = GAME.outcome(GAME.play(st, seat, move))
        if out is not None and out.winners == (seat,):
            return move
    return None


def side_by_side(
    text: str, rng: random.Random, max_plies: int, stats: dict, route: tuple[str, ...] = ()
) -> int:
    """Play one random game on both; returns the plies played.

    White plays ``route`` first (each move while it is legal), and after it
    keeps its Star still when it has another move; after the route a
    side with a winning move plays it, and otherwise often takes back its
    last move when it can, so games reach their endings, repetition included.
    """
    last: dict[bool, str] = {}
    st = GAME.start(GAME.parse_options([f"-position={text}"]), 2)
    game = ref.parse(text)
    plies = 0
    stay = bool(route)
    route = list(route)
    while True:
        position = GAME.position(st)
        assert position == ref.position_string(game), text
        moves = GAME.legal_moves(st)
        assert sorted(moves) == sorted(ref.legal_moves(game)), position
        assert engine_outcome(st) == game.over, position
        if game.over or plies >= max_plies:
            break
        stats["rescues"] += sum("=" in m for m in moves)
        move = rng.choice(moves)
        if route and game.white_to_move:
            step = route.pop(0)
            move = step if step in moves else move
        elif not route:
            if stay and game.white_to_move:
                move = rng.choice([m for m in moves if m[0] != "K"] or moves)
            back = last.get(game.white_to_move, "")
            back = next((m for m in moves if back and m[1:] == back[4:6] + "-" + back[1:3]), "")
            if back and rng.random() < 0.5:
                move = back
            move = finishing_move(st, moves) or move
        last[game.white_to_move] = move
        st, game = GAME.play(st, GAME.to_move(st), move), ref.play(game, move)
        plies += 1
    if game.over:
        stats[game.over[1]] += 1
        stats[game.over[2]] += 1
        winner = game.over[0] == "White"
        if game.moved[winner] and ref.star_of(game.board, winner) == ref.THRONE[winner]:
            stats["returned to the throne"] += 1
    return plies


def random_position(rng: random.Random) -> str:
    """A sparse position: both Stars (often on their thrones) and a few pieces."""
    board: dict[tuple[int, int], str] = {}
    free = list(ref.ALL)
    rng.shuffle(free)
    for star, throne in (("K", (5, 1)), ("k", (5, 9))):
        sq = throne if rng.random() < 0.5 and throne not in board else free.pop()
        free = [q for q in free if q != sq]
        board[sq] = star
    for _ in range(rng.randint(2, 9)):
        letter = rng.choice("CTSPDDD")
        sq = free.pop()
        if letter == "P" and ref.kind(sq) == "cell":
            continue
        if letter == "D" and rng.random() < 0.6:  # Diamonds near the far row rescue
            letter = "d" if sq[1] < 5 else "D"
        else:
            letter = letter if rng.random() < 0.5 else letter.lower()
        board[sq] = letter
    pool = "".join(rng.sample("CTSPctsp", rng.randint(0, 4)))
    pool = "".join(sorted(pool, key=lambda c: (c.islower(), "CTSP".index(c.upper()))))
    game = ref.Game(board, rng.random() < 0.5, {True: [], False: []}, 1, {})
    placement = ref.position_string(game).split()[0]
    return f"{placement} {'w' if game.white_to_move else 'b'} {pool or '-'} {rng.randint(1, 40)}"


def test_engine_matches_reference_in_random_games_from_the_start():
    rng = random.Random(5)
    stats = new_stats()
    starts = [
        "pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1",
        "1stckctsp/d1ddddddd/1d1p5/9/2T6/9/D8/1DDDDDDDD/PSTCKC1SP w Tp 12",
    ]
    plies = 0
    while plies < PLIES // 10:
        plies += side_by_side(starts[plies % 2], rng, 100, stats)
    assert plies >= PLIES // 10


def test_engine_matches_reference_in_random_sparse_positions():
    """Sparse positions reach every ending quickly: mates, stalemates, repetitions."""
    rng = random.Random(18)
    stats = new_stats()
    plies = positions = 0
    while plies < PLIES // 2:
        text = random_position(rng)
        refused = ref.in_check(ref.parse(text).board, text.split()[1] == "b")
        try:
            GAME.parse_options([f"-position={text}"])
        except OptionError:
            assert refused, text
            continue
        assert not refused, text
        positions += 1
        plies += side_by_side(text, rng, 80, stats)
    print(positions, "positions", plies, "plies", stats)
    if PLIES == 1500:  # the default run meets every ending and grade
        assert all(n for k, n in stats.items() if k != "returned to the throne"), stats


def test_a_star_back_on_its_throne_wins_an_ovation():
    """The throne flag: e1-f1-g3-d3-e1, then play on: a win is never a Triumph."""
    rng = random.Random(21)
    stats = new_stats()
    route = ("Ke1-f1", "Kf1-g3", "Kg3-d3", "Kd3-e1")
    plies = 0
    while plies < PLIES // 3:
        text = random_position(rng)
        if not text.startswith("4k4/") and "/4K4 " not in text or " w " not in text:
            continue
        board = ref.parse(text).board
        if board.get((5, 1)) != "K" or any(ref.square(m[4:6]) in board for m in route[:-1]):
            continue
        white = sum(c.isupper() for c in board.values())
        if ref.in_check(board, False) or white < len(board) - white + 3:
            continue
        plies += side_by_side(text, rng, 60, stats, route)
    print(stats)
    if PLIES == 1500:
        assert stats["returned to the throne"] and stats["Ovation"], stats
