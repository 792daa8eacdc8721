"""A slow, literal second implementation of Weave & Dungeon, from the spec alone.

Written from /work/shared/rules/weave_dungeon.md without importing anything
of ``games.weavedungeon``: the geometry is rebuilt here from the spec's own
wording (1.1 square kinds by parity, 1.2 "the vertical strand is on top iff
f + r = 2 (mod 4)", 1.4 segments as maximal runs of a strand's own squares,
1.6 step-downs onto the strand passing under a bridge), and test_reference.py
pins every table it derives against the tables printed in the spec.  Moves
follow the algorithms of 3.0-3.7 square by square (walks, rays, Diamond
cases), outcomes 3.8 (checkmate, stalemate and threefold repetition lose;
Triumph / Ovation / Victory), positions 3.10.

Squares are ``(file, rank)`` pairs, both 1..9 (a1 = (1, 1)).  A board is a
dict square -> letter, upper case White, lower case Black, as in 3.10.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FILES = "abcdefghi"
Sq = tuple[int, int]
Strand = tuple[str, int]  # ("file", 3) = the vertical strand on file c; ("rank", 5)

ALL = [(f, r) for r in range(1, 10) for f in range(1, 10)]
ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
THRONE = {True: (5, 1), False: (5, 9)}  # keyed by "is White"
POOL_ORDER = "CTSP"


def name(sq: Sq) -> str:
    return f"{FILES[sq[0] - 1]}{sq[1]}"


def square(text: str) -> Sq:
    return (FILES.index(text[0]) + 1, int(text[1]))


def on_board(sq: Sq) -> bool:
    return 1 <= sq[0] <= 9 and 1 <= sq[1] <= 9


def plus(sq: Sq, df: int, dr: int, k: int = 1) -> Sq:
    return (sq[0] + k * df, sq[1] + k * dr)


# -- geometry (spec 1.1-1.6) ---------------------------------------------------


def kind(sq: Sq) -> str:
    """1.1: cell = both even, bridge = both odd, slope = one odd."""
    f, r = sq
    if f % 2 == 0 and r % 2 == 0:
        return "cell"
    if f % 2 == 1 and r % 2 == 1:
        return "bridge"
    return "slope"


def top(sq: Sq) -> Strand:
    """The strand a Weave square belongs to (a bridge: the one on top), 1.2."""
    f, r = sq
    if kind(sq) == "slope":
        return ("file", f) if f % 2 == 1 else ("rank", r)
    return ("file", f) if (f + r) % 4 == 2 else ("rank", r)


def under(b: Sq) -> Strand:
    """The strand passing beneath bridge ``b``."""
    return ("rank", b[1]) if top(b)[0] == "file" else ("file", b[0])


def line(strand: Strand) -> list[Sq]:
    """Every square of the strand's file or rank, from 1 to 9."""
    axis, n = strand
    return [(n, i) for i in range(1, 10)] if axis == "file" else [(i, n) for i in range(1, 10)]


def owned(sq: Sq, strand: Strand) -> bool:
    return kind(sq) != "cell" and top(sq) == strand


def _segments() -> dict[Sq, tuple[Sq, ...]]:
    """1.4: maximal runs of a strand's own squares along its line."""
    out: dict[Sq, tuple[Sq, ...]] = {}
    strands = [("file", n) for n in (1, 3, 5, 7, 9)] + [("rank", n) for n in (1, 3, 5, 7, 9)]
    for strand in strands:
        run: list[Sq] = []
        for sq in line(strand) + [None]:  # type: ignore[list-item]
            if sq is not None and owned(sq, strand):
                run.append(sq)
            elif run:
                for q in run:
                    out[q] = tuple(run)
                run = []
    return out


SEGMENT = _segments()


def seg_bridge(seg: tuple[Sq, ...]) -> Sq:
    (b,) = [q for q in seg if kind(q) == "bridge"]
    return b


def normal_slopes(b: Sq) -> list[Sq]:
    """B's on-board orthogonal neighbours along under(B)."""
    steps = ((0, 1), (0, -1)) if under(b)[0] == "file" else ((1, 0), (-1, 0))
    return [q for q in (plus(b, *d) for d in steps) if on_board(q)]


def walk_away(seg: tuple[Sq, ...], start: Sq) -> list[Sq]:
    """The segment's squares from ``start`` (one end) to the other end."""
    return list(seg) if seg[0] == start else list(reversed(seg))


def pinwheel(cell: Sq) -> str:
    """How segment stepping goes round a cell (1.7), read off the step-downs."""
    turns = set()
    for df, dr in DIAG:
        b = plus(cell, df, dr)
        if not on_board(b):
            continue
        for s2 in normal_slopes(b):
            if max(abs(s2[0] - cell[0]), abs(s2[1] - cell[1])) == 1:
                bx, by = b[0] - cell[0], b[1] - cell[1]
                sx, sy = s2[0] - cell[0], s2[1] - cell[1]
                turns.add("CCW" if bx * sy - by * sx > 0 else "cw")
    assert len(turns) == 1, (cell, turns)
    return turns.pop()


def same_segment(*squares: Sq) -> bool:
    """Whether all the squares are Weave squares of one segment."""
    inside = all(on_board(q) and kind(q) != "cell" for q in squares)
    return inside and len({SEGMENT[q] for q in squares}) == 1


def is_step(a: Sq, b: Sq) -> bool:
    """1.5: only a bridge-slope pair of one segment is a slide."""
    if kind(a) == "cell" or kind(b) == "cell":
        return True
    return SEGMENT[a] != SEGMENT[b]


# -- piece moves (spec 3.0-3.6) ------------------------------------------------


def white(letter: str) -> bool:
    return letter.isupper()


def destinations(board: dict[Sq, str], x: Sq) -> set[Sq]:
    """Every square the piece on ``x`` may move to or capture on (Stars included)."""
    me = white(board[x])
    t = board[x].upper()
    out: set[Sq] = set()

    def land(q: Sq) -> bool:
        """Offer q if it is empty or enemy; True if a walk goes on past it."""
        if q not in board:
            out.add(q)
            return True
        if white(board[q]) != me:
            out.add(q)
        return False

    def segment_step(second: bool) -> None:
        s1 = SEGMENT[x]
        b1 = seg_bridge(s1)
        if x != b1 and b1 in board:
            return
        for s2 in normal_slopes(b1):
            seg2 = SEGMENT[s2]
            for q in walk_away(seg2, s2):
                if not land(q):
                    break
            b2 = seg_bridge(seg2)
            if second and s2 not in board and b2 not in board:
                for s3 in normal_slopes(b2):
                    for q in walk_away(SEGMENT[s3], s3):
                        if not land(q):
                            break

    def strand_ride(strand: Strand) -> None:
        squares = line(strand)
        i = squares.index(x)
        for step in (-1, 1):
            j = i + step
            while 0 <= j < 9:
                q = squares[j]
                if owned(q, strand) and not land(q):
                    break
                j += step

    def entry_ray(df: int, dr: int) -> None:
        q = plus(x, df, dr)
        while on_board(q) and land(q):
            q = plus(q, df, dr, 2)

    def exit_ray(df: int, dr: int) -> None:
        k = 0
        while True:
            w = plus(x, df, dr, 2 * k + 1)
            if not on_board(w):
                return
            if w not in board or white(board[w]) != me:
                out.add(w)
            n = plus(x, df, dr, 2 * k + 2)
            if not on_board(n) or not land(n):
                return
            k += 1

    here = kind(x)
    if t == "K":
        if here == "cell":
            for df, dr in ORTHO + DIAG:
                q = plus(x, df, dr, 2)
                if on_board(q):
                    land(q)
        else:
            segment_step(False)
            for df, dr in DIAG if here == "bridge" else ORTHO:
                q = plus(x, df, dr)
                if on_board(q) and kind(q) == "cell":
                    land(q)
    elif t == "C":
        for df, dr in ORTHO:
            for k in (1, 2):
                q = plus(x, df, dr, k)
                if on_board(q):
                    land(q)
    elif t == "T":
        if here == "cell":
            for d in DIAG:
                exit_ray(*d)
        else:
            segment_step(True)
            if here == "bridge":
                for d in DIAG:
                    entry_ray(*d)
    elif t == "S":
        if here == "cell":
            for d in ORTHO:
                exit_ray(*d)
        else:
            strand_ride(top(x))
            if here == "bridge":
                strand_ride(under(x))
            else:
                across = ((1, 0), (-1, 0)) if top(x)[0] == "file" else ((0, 1), (0, -1))
                for d in across:
                    entry_ray(*d)
    elif t == "P":
        if here != "cell":
            strand_ride(top(x))
            if here == "bridge":
                strand_ride(under(x))
            segment_step(True)
    elif t == "D":
        fwd = 1 if me else -1
        f1, f2 = plus(x, 0, fwd), plus(x, 0, fwd, 2)
        if on_board(f1):
            # Onto F: a plain move, or a capture only by a step (1.5).
            if f1 not in board or (white(board[f1]) != me and is_step(x, f1)):
                out.add(f1)
            # One cell on from a cell, or two spaces within one segment.
            slide = f1 not in board and same_segment(x, f1, f2)
            if on_board(f2) and f2 not in board and (here == "cell" or slide):
                out.add(f2)
        for df in (-1, 1):
            q = plus(x, df, 0)
            if on_board(q) and q in board and white(board[q]) != me and is_step(x, q):
                out.add(q)
    return out


def star_of(board: dict[Sq, str], is_white: bool) -> Sq:
    (sq,) = [q for q, c in board.items() if c == ("K" if is_white else "k")]
    return sq


def in_check(board: dict[Sq, str], is_white: bool) -> bool:
    """3.7, with the diagonal check rule between two Dungeon Stars."""
    star = star_of(board, is_white)
    for x, c in board.items():
        if white(c) == is_white or star not in destinations(board, x):
            continue
        if (
            c.upper() == "K"
            and kind(x) == "cell"
            and kind(star) == "cell"
            and abs(x[0] - star[0]) == 2
            and abs(x[1] - star[1]) == 2
        ):
            continue
        return True
    return False


# -- positions and games (3.8, 3.10) -----------------------------------------------


@dataclass
class Game:
    """Everything 3.8 needs: placement, side, pools, move number, Star flags, history."""

    board: dict[Sq, str]
    white_to_move: bool
    pools: dict[bool, list[str]]  # own captured pieces, by "is White"
    fullmove: int
    moved: dict[bool, bool]
    history: dict[str, int] = field(default_factory=dict)
    over: tuple[str, str, str] | None = None  # (winner "White"/"Black", kind, grade)
    legal: list[str] | None = None  # computed once, by ending()

    def key(self) -> str:
        return " ".join(position_string(self).split()[:3])


def parse(text: str) -> Game:
    placement, side, pool, fullmove = text.split()
    board: dict[Sq, str] = {}
    for i, row in enumerate(placement.split("/")):
        f = 1
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[(f, 9 - i)] = ch
                f += 1
    pools: dict[bool, list[str]] = {True: [], False: []}
    for ch in pool.replace("-", ""):
        pools[ch.isupper()].append(ch.upper())
    moved = {w: board.get(THRONE[w]) != ("K" if w else "k") for w in (True, False)}
    game = Game(board, side == "w", pools, int(fullmove), moved)
    game.history[game.key()] = 1
    game.over = ending(game, None)
    return game


def position_string(game: Game) -> str:
    rows = []
    for r in range(9, 0, -1):
        row, empty = "", 0
        for f in range(1, 10):
            c = game.board.get((f, r))
            if c is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + c
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    pool = "".join(sorted(game.pools[True], key=POOL_ORDER.index))
    pool += "".join(sorted(game.pools[False], key=POOL_ORDER.index)).lower()
    return f"{'/'.join(rows)} {'w' if game.white_to_move else 'b'} {pool or '-'} {game.fullmove}"


def _after(board: dict[Sq, str], x: Sq, q: Sq, rescue: str) -> dict[Sq, str]:
    new = dict(board)
    piece = new.pop(x)
    new[q] = (rescue if white(piece) else rescue.lower()) if rescue else piece
    return new


def legal_moves(game: Game) -> list[str]:
    """3.9 canonical strings of every legal move (none once the game is over)."""
    if game.over:
        return []
    if game.legal is not None:
        return game.legal
    me = game.white_to_move
    board = game.board
    far = 9 if me else 1
    out = []
    for x, c in list(board.items()):
        if white(c) != me:
            continue
        for q in destinations(board, x):
            if q in board and board[q].upper() == "K":
                continue  # a Star is never captured
            if in_check(_after(board, x, q, ""), me):
                continue
            text = f"{c.upper()}{name(x)}{'x' if q in board else '-'}{name(q)}"
            out.append(text)
            if c.upper() == "D" and q[1] == far and x[1] != far:
                out += [f"{text}={t}" for t in sorted(set(game.pools[me]))]
    return out


def play(game: Game, move: str) -> Game:
    """The game after a canonical move string (assumed legal)."""
    me = game.white_to_move
    x, q = square(move[1:3]), square(move[4:6])
    rescue = move[7] if "=" in move else ""
    pools = {True: list(game.pools[True]), False: list(game.pools[False])}
    taken = game.board.get(q)
    if taken and taken.upper() in POOL_ORDER:
        pools[not me].append(taken.upper())
    if rescue:
        pools[me].remove(rescue)
    moved = dict(game.moved)
    if game.board[x].upper() == "K":
        moved[me] = True
    new = Game(
        _after(game.board, x, q, rescue),
        not me,
        pools,
        game.fullmove + (0 if me else 1),
        moved,
        dict(game.history),
    )
    key = new.key()
    new.history[key] = new.history.get(key, 0) + 1
    new.over = ending(new, me)
    return new


def grade(game: Game, winner: bool) -> str:
    star = star_of(game.board, winner)
    if star == THRONE[winner] and not game.moved[winner]:
        return "Triumph"
    return "Ovation" if kind(star) != "cell" else "Victory"


def ending(game: Game, mover: bool | None) -> tuple[str, str, str] | None:
    """(winner, "repetition"/"checkmate"/"stalemate", grade) or None."""
    colour = {True: "White", False: "Black"}
    if mover is not None and game.history[game.key()] >= 3:
        return (colour[not mover], "repetition", grade(game, not mover))
    side = game.white_to_move
    game.over = None
    game.legal = legal_moves(game)
    if game.legal:
        return None
    how = "checkmate" if in_check(game.board, side) else "stalemate"
    return (colour[not side], how, grade(game, not side))
