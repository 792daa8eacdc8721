"""A slow, literal second implementation of spec 3.0-3.7, for cross-checking.

It walks the board square by square exactly as the spec's algorithms are
worded (SegmentStep, StrandRide, entry and exit rays, the Diamond's cases),
using only the basic geometry facts (kind, owner/under strand, segment),
which test_geometry.py checks against the spec's tables.  It shares no code
with the engine's precomputed templates.
"""

from __future__ import annotations

from games.weavedungeon import geometry as g

K, C, T, S, P, D = 1, 2, 3, 4, 5, 6


def _off(sq, df, dr):
    return g.offset(sq, df, dr)


def _normal_slopes(b):
    under = g.UNDER[b]
    steps = ((0, 1), (0, -1)) if under < 9 else ((1, 0), (-1, 0))
    return [q for q in (_off(b, df, dr) for df, dr in steps) if q is not None]


def _away(seg, frm):
    """The segment's squares ordered by distance from square ``frm``."""
    fx, fy = g.file_of(frm), g.rank_of(frm)
    return sorted(seg, key=lambda q: abs(g.file_of(q) - fx) + abs(g.rank_of(q) - fy))


def _bridge_of(seg):
    (b,) = [q for q in seg if g.KIND[q] == g.BRIDGE]
    return b


def pseudo(board, x):
    """Destinations of the piece on ``x`` (captures of anything enemy, Stars included)."""
    pc = board[x]
    me, t = pc >> 3, pc & 7
    out = set()

    def visit(q):  # True if a walk may go on past q
        v = board[q]
        if not v:
            out.add(q)
            return True
        if v >> 3 != me:
            out.add(q)
        return False

    def seg_step(second):
        s1 = g.SEGMENT[x]
        b1 = _bridge_of(s1)
        if x != b1 and board[b1]:
            return
        for s2 in _normal_slopes(b1):
            seg2 = g.SEGMENT[s2]
            for q in _away(seg2, b1):
                if not visit(q):
                    break
            b2 = _bridge_of(seg2)
            if second and not board[s2] and not board[b2]:
                for s3 in _normal_slopes(b2):
                    for q in _away(g.SEGMENT[s3], b2):
                        if not visit(q):
                            break

    def ride(strand):
        line = g.strand_line(strand)
        i = line.index(x)
        for d in (-1, 1):
            j = i + d
            while 0 <= j < 9:
                q = line[j]
                if g.OWNER.get(q) == strand and not visit(q):
                    break
                j += d

    def entry(df, dr):
        k = 1
        while (q := _off(x, df * k, dr * k)) is not None:
            if not visit(q):
                break
            k += 2

    def exit_(df, dr):
        k = 1
        while (w := _off(x, df * k, dr * k)) is not None:
            if not board[w] or board[w] >> 3 != me:
                out.add(w)
            n = _off(x, df * (k + 1), dr * (k + 1))
            if n is None or not visit(n):
                break
            k += 2

    ortho = ((1, 0), (-1, 0), (0, 1), (0, -1))
    diag = ((1, 1), (1, -1), (-1, 1), (-1, -1))
    cell = g.is_cell(x)
    if t == K:
        if cell:
            for df, dr in ortho + diag:
                q = _off(x, 2 * df, 2 * dr)
                if q is not None:
                    visit(q)
        else:
            seg_step(False)
            for df, dr in diag if g.KIND[x] == g.BRIDGE else ortho:
                q = _off(x, df, dr)
                if q is not None and g.is_cell(q):
                    visit(q)
    elif t == C:
        for df, dr in ortho:
            for k in (1, 2):
                q = _off(x, df * k, dr * k)
                if q is not None:
                    visit(q)
    elif t in (T, S) and cell:
        for df, dr in diag if t == T else ortho:
            exit_(df, dr)
    elif t == T:
        seg_step(True)
        if g.KIND[x] == g.BRIDGE:
            for df, dr in diag:
                entry(df, dr)
    elif t in (S, P):
        ride(g.OWNER[x])
        if g.KIND[x] == g.BRIDGE:
            ride(g.UNDER[x])
        if t == P:
            seg_step(True)
        elif g.KIND[x] == g.SLOPE:
            for df, dr in ((1, 0), (-1, 0)) if g.OWNER[x] < 9 else ((0, 1), (0, -1)):
                entry(df, dr)
    elif t == D:
        fwd = 1 if me == 0 else -1
        f1 = _off(x, 0, fwd)
        if f1 is not None:
            if not board[f1] or board[f1] >> 3 != me and g.is_step(x, f1):
                out.add(f1)
            f2 = _off(x, 0, 2 * fwd)
            same_segment = (
                f2 is not None
                and not g.is_cell(f1)
                and not g.is_cell(f2)
                and g.SEGMENT[x] == g.SEGMENT[f1] == g.SEGMENT[f2]
            )
            if f2 is not None and not board[f2] and (cell or (same_segment and not board[f1])):
                out.add(f2)
        for df in (-1, 1):
            q = _off(x, df, 0)
            if q is not None and board[q] and board[q] >> 3 != me and g.is_step(x, q):
                out.add(q)
    return out


def in_check(board, colour):
    star = board.index(K | (colour << 3))
    for x, pc in enumerate(board):
        if not pc or pc >> 3 == colour:
            continue
        if star in pseudo(board, x):
            diagonal = (
                abs(g.file_of(x) - g.file_of(star)) == 2
                and abs(g.rank_of(x) - g.rank_of(star)) == 2
            )
            if pc & 7 == K and g.is_cell(x) and g.is_cell(star) and diagonal:
                continue  # diagonal check rule
            return True
    return False


def legal_pairs(board, side):
    """{(from, to)} of legal moves: no landing on a Star, own Star safe after."""
    out = set()
    for x, pc in enumerate(board):
        if not pc or pc >> 3 != side:
            continue
        for q in pseudo(board, x):
            if board[q] and board[q] & 7 == K:
                continue
            after = list(board)
            after[q], after[x] = pc, 0
            if not in_check(after, side):
                out.add((x, q))
    return out
