"""Board geometry of Interweave, computed once as lookup tables.

Squares are numbered 0..63 with ``a1 = 0``, ``b1 = 1`` ... ``h8 = 63``
(``square = rank * 8 + file``).  Every generator in :mod:`moves` only reads
these tables, so the per-move cost is a few tuple walks and no arithmetic
on coordinates (the python-chess approach, minus the bitboards).

Pieces are single characters: ``K S L R P`` for White, ``k s l r p`` for
Black, ``.`` for an empty square.  ``R`` is the Remover, not a Rook.
"""

from __future__ import annotations

FILES = "abcdefgh"
EMPTY = "."

WHITE, BLACK = 0, 1
SIDE_NAMES = ("White", "Black")

PIECE_NAMES = {"K": "King", "S": "Smasher", "L": "Leaper", "R": "Remover", "P": "Pawn"}
#: Piece types that go to a reserve when captured, in the spec's order.
RESERVE_TYPES = "SLR"
RESERVE_INDEX = {"S": 0, "L": 1, "R": 2}

WHITE_PIECES = frozenset("KSLRP")
BLACK_PIECES = frozenset("kslrp")
#: SIDE_PIECES[side] is the set of that side's piece characters.
SIDE_PIECES = (WHITE_PIECES, BLACK_PIECES)

SQUARES = range(64)
NAMES = tuple(f"{FILES[s % 8]}{s // 8 + 1}" for s in SQUARES)
SQUARE_OF = {name: s for s, name in enumerate(NAMES)}

#: a1 is dark: a square is dark iff file index + rank index is even.
DARK = tuple((s % 8 + s // 8) % 2 == 0 for s in SQUARES)

ORTH = ((0, 1), (0, -1), (1, 0), (-1, 0))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def _at(s: int, df: int, dr: int) -> int | None:
    """The square ``(df, dr)`` away from ``s``, or None off the board."""
    f, r = s % 8 + df, s // 8 + dr
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None


def _ray(s: int, df: int, dr: int) -> tuple[int, ...]:
    out = []
    q = _at(s, df, dr)
    while q is not None:
        out.append(q)
        q = _at(q, df, dr)
    return tuple(out)


def side_of(piece: str) -> int:
    """WHITE or BLACK for a piece character (not for EMPTY)."""
    return WHITE if piece.isupper() else BLACK


#: The squares along each orthogonal / diagonal direction, nearest first.
ORTH_RAYS = tuple(tuple(r for r in (_ray(s, *d) for d in ORTH) if r) for s in SQUARES)
DIAG_RAYS = tuple(tuple(r for r in (_ray(s, *d) for d in DIAG) if r) for s in SQUARES)

#: King non-capturing steps (diagonal neighbours).
KING_STEPS = tuple(tuple(q for d in DIAG if (q := _at(s, *d)) is not None) for s in SQUARES)


def _pairs(s: int, vectors: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """(s+v, s+2v) for each vector where both squares are on the board."""
    out = []
    for df, dr in vectors:
        m, q = _at(s, df, dr), _at(s, 2 * df, 2 * dr)
        if m is not None and q is not None:
            out.append((m, q))
    return tuple(out)


#: King short orthogonal leaps: (jumped square, landing square).
KING_LEAPS = tuple(_pairs(s, ORTH) for s in SQUARES)
#: Leaper double-knight moves: (midpoint, destination).
DOUBLE_KNIGHT = tuple(_pairs(s, KNIGHT) for s in SQUARES)
#: Custodian pattern around a landing square: (enemy square, partner square).
CUSTODIAN = KING_LEAPS
#: Orthogonal neighbours (the Remover's targets).
ORTH_ADJ = tuple(tuple(q for d in ORTH if (q := _at(s, *d)) is not None) for s in SQUARES)

FORWARD = (1, -1)  # rank direction per side
START_RANK = (1, 6)
PENULTIMATE_RANK = (6, 1)
LAST_RANK = (7, 0)


def _pawn_diag(side: int, s: int) -> tuple[tuple[int, int | None], ...]:
    """Diagonal forward steps: (one step, double step or None)."""
    out = []
    fwd = FORWARD[side]
    for df in (-1, 1):
        q1 = _at(s, df, fwd)
        if q1 is None:
            continue
        q2 = _at(s, 2 * df, 2 * fwd) if s // 8 == START_RANK[side] else None
        out.append((q1, q2))
    return tuple(out)


def _pawn_leap(side: int, s: int) -> tuple[int, int] | None:
    """Straight-forward short leap: (jumped square, landing square)."""
    fwd = FORWARD[side]
    m, q = _at(s, 0, fwd), _at(s, 0, 2 * fwd)
    return (m, q) if m is not None and q is not None else None


PAWN_DIAG = tuple(tuple(_pawn_diag(side, s) for s in SQUARES) for side in (WHITE, BLACK))
PAWN_LEAP = tuple(tuple(_pawn_leap(side, s) for s in SQUARES) for side in (WHITE, BLACK))


def between(a: int, b: int) -> tuple[int, ...] | None:
    """Squares strictly between a and b on a rank, file or diagonal, else None."""
    df, dr = b % 8 - a % 8, b // 8 - a // 8
    if (df, dr) == (0, 0) or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return None
    n = max(abs(df), abs(dr))
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return tuple(a + k * (sr * 8 + sf) for k in range(1, n))
