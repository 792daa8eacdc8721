"""Move generation, attack detection and the legality filter (spec §4, §5.2).

A board is a ``bytes``/``bytearray`` of 207 piece codes, 0 for an empty
point.  A code packs the owner and the kind, ``(owner + 1) * 8 + kind``, so
``code >> 3`` compares owners and ``code & 7`` is the kind without any object
look-ups: this is the hot path of every playout.
"""

from __future__ import annotations

from collections.abc import Iterator

from games.trimac.geometry import (
    BANNER,
    BANNER_FROM,
    BISHOP,
    GENERAL_STEPS,
    GUARD_STEPS,
    KNIGHT,
    KNIGHT_FROM,
    LINES,
    NAMES,
    NPOINTS,
    PAWN,
    PAWN_FROM,
    RAYS,
    SENSITIVE,
    THROUGH,
    N,
)

KINDS = "KAEHRCPF"
KIND_NAMES = ("General", "Guard", "Bishop", "Knight", "Rook", "Cannon", "Pawn", "Banner")
K, A, E, H, R, C, P, F = range(8)


def code(owner: int, kind: int) -> int:
    return (owner + 1) * 8 + kind


def owner_of(c: int) -> int:
    return (c >> 3) - 1


GENERAL_CODE = tuple(code(o, K) for o in range(3))


def general_point(board: bytes | bytearray, seat: int) -> int:
    """Where ``seat``'s General stands, -1 when the army is gone."""
    return board.find(GENERAL_CODE[seat])


def targets(board: bytes | bytearray, p: int) -> set[int]:
    """Pseudo-legal destinations of the piece on p (own check not tested).

    Never a point holding an own piece or any General (D9).
    """
    c = board[p]
    me = c >> 3
    kind = c & 7
    out: set[int] = set()

    def ok(q: int) -> None:
        t = board[q]
        if not t or (t >> 3 != me and t & 7 != K):
            out.add(q)

    if kind in (R, C):
        for _, ray in RAYS[p]:
            screen = False
            for q in ray:
                t = board[q]
                if not screen:
                    if not t:
                        out.add(q)
                    elif kind == R:
                        if t >> 3 != me and t & 7 != K:
                            out.add(q)
                        break
                    else:
                        screen = True
                elif t:
                    if t >> 3 != me and t & 7 != K:
                        out.add(q)
                    break
    elif kind == H:
        for leg, q in KNIGHT[p]:
            if not board[leg]:
                ok(q)
    elif kind == F:
        for l1, l2, q in BANNER[p]:
            if not board[l1] and not board[l2]:
                ok(q)
    elif kind == P:
        for q in PAWN[me - 1][p]:
            ok(q)
    elif kind == E:
        for eye, q in BISHOP[p]:
            if not board[eye]:
                ok(q)
    elif kind == A:
        for q in GUARD_STEPS[p]:
            ok(q)
    else:
        for q in GENERAL_STEPS[p]:
            ok(q)
    return out


def checkers(board: bytes | bytearray, seat: int, g: int, first: bool = False) -> set[int]:
    """The opponents giving check to the General of ``seat`` standing on g.

    Attack by any piece (ignoring the no-General-capture filter) or a facing
    General on the north line (D8).  Bishops, Guards and Generals can never
    reach another army's fortress, so only Rooks, Cannons, Knights, Banners,
    Pawns and facing matter.  ``first`` stops at the first checker found.
    """
    me = seat + 1
    found: set[int] = set()
    for d, ray in RAYS[g]:
        screen = False
        for q in ray:
            t = board[q]
            if not t:
                continue
            if not screen:
                if t >> 3 != me and (t & 7 == R or (t & 7 == K and d == N)):
                    found.add((t >> 3) - 1)
                    if first:
                        return found
                screen = True
            else:
                if t >> 3 != me and t & 7 == C:
                    found.add((t >> 3) - 1)
                    if first:
                        return found
                break
    for src, leg in KNIGHT_FROM[g]:
        t = board[src]
        if t & 7 == H and t >> 3 != me and t and not board[leg]:
            found.add((t >> 3) - 1)
            if first:
                return found
    for src, l1, l2 in BANNER_FROM[g]:
        t = board[src]
        if t & 7 == F and t >> 3 != me and not board[l1] and not board[l2]:
            found.add((t >> 3) - 1)
            if first:
                return found
    for o in range(3):
        if o != seat:
            pawn = code(o, P)
            for src in PAWN_FROM[o][g]:
                if board[src] == pawn:
                    found.add(o)
                    if first:
                        return found
                    break
    return found


def facing(board: bytes | bytearray, seat: int, g: int) -> int | None:
    """The opponent whose General faces ``seat``'s General on g, if any (2.7)."""
    for d, ray in RAYS[g]:
        if d != N:
            continue
        for q in ray:
            t = board[q]
            if t:
                if t & 7 == K and t >> 3 != seat + 1:
                    return (t >> 3) - 1
                break
    return None


def in_check(board: bytes | bytearray, seat: int) -> bool:
    g = general_point(board, seat)
    return g >= 0 and bool(checkers(board, seat, g, first=True))


def _ray_attacks(board: bytes | bytearray, me: int, d: int, ray: tuple[int, ...]) -> bool:
    """Does an enemy Rook, Cannon or (north line) General hit along this ray?"""
    screen = False
    for q in ray:
        t = board[q]
        if not t:
            continue
        if not screen:
            if t >> 3 != me and (t & 7 == R or (t & 7 == K and d == N)):
                return True
            screen = True
        else:
            return t >> 3 != me and t & 7 == C
    return False


def _uncovers(board: bytes | bytearray, me: int, through: dict, p: int, q: int) -> bool:
    """After a non-General move p->q (General on g not in check before):
    does it open a check?  Only lines through p or q and legs on p matter."""
    hit = through.get(p)
    if hit is not None:
        rays, knights, banners = hit
        for d, ray in rays:
            if _ray_attacks(board, me, d, ray):
                return True
        for src in knights:
            t = board[src]
            if t & 7 == H and t and t >> 3 != me:
                return True
        for src, l1, l2 in banners:
            t = board[src]
            if t & 7 == F and t >> 3 != me and not board[l1] and not board[l2]:
                return True
    hit = through.get(q)
    if hit is not None:
        for d, ray in hit[0]:
            if _ray_attacks(board, me, d, ray):
                return True
    return False


def _legal_from(board: bytes, seat: int, g: int, checked: bool) -> Iterator[tuple[int, int]]:
    """Legal (from, to) pairs of ``seat`` in board order."""
    me = seat + 1
    sensitive = SENSITIVE[g]
    lines = LINES[g]
    through = THROUGH[g]
    work = bytearray(board)
    for p in range(NPOINTS):
        c = board[p]
        if not c or c >> 3 != me:
            continue
        king = c & 7 == K
        for q in sorted(targets(board, p)):
            if not checked and not king and p not in sensitive and q not in lines:
                yield p, q
                continue
            captured = work[q]
            work[q] = c
            work[p] = 0
            if king:
                bad = bool(checkers(work, seat, q, first=True))
            elif checked:
                bad = bool(checkers(work, seat, g, first=True))
            else:
                bad = _uncovers(work, me, through, p, q)
            work[p] = c
            work[q] = captured
            if not bad:
                yield p, q


def legal_pairs(board: bytes, seat: int) -> list[tuple[int, int]]:
    g = general_point(board, seat)
    if g < 0:
        return []
    return list(_legal_from(board, seat, g, bool(checkers(board, seat, g, first=True))))


def has_legal_move(board: bytes, seat: int) -> bool:
    g = general_point(board, seat)
    if g < 0:
        return False
    checked = bool(checkers(board, seat, g, first=True))
    return next(_legal_from(board, seat, g, checked), None) is not None


def move_text(board: bytes | bytearray, p: int, q: int) -> str:
    """Canonical move: ``Rf5-Rf6``, ``x`` for a capture, no check mark."""
    return f"{NAMES[p]}{'x' if board[q] else '-'}{NAMES[q]}"
