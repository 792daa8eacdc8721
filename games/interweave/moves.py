"""Step generators (spec §3) and the turn procedure (spec §4).

A *step* is one movement of one piece: a move (``-``), a moving capture
(``x``) or a Remover's stationary capture (``*``).  A *turn* is one
non-capturing step, or a capture followed by the compulsory further
captures of the same piece.  Generators work on a plain 64-entry board and
never look at history, so the same code serves move listing, validation of
a mailed move, and the stalemate test at the end of every turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from games.interweave.board import (
    BLACK_PIECES,
    CUSTODIAN,
    DIAG_RAYS,
    DOUBLE_KNIGHT,
    EMPTY,
    KING_LEAPS,
    KING_STEPS,
    LAST_RANK,
    NAMES,
    ORTH_ADJ,
    ORTH_RAYS,
    PAWN_DIAG,
    PAWN_LEAP,
    PENULTIMATE_RANK,
    RESERVE_INDEX,
    RESERVE_TYPES,
    WHITE,
    WHITE_PIECES,
)
from games.interweave.position import Position, Reserve


class Step(NamedTuple):
    """One step. For a Remover capture ``dest == origin`` and ``star`` is set."""

    origin: int
    dest: int
    victims: tuple[int, ...]
    promo: str  # "" or one of S L R (upper case for both sides)
    star: bool

    @property
    def target(self) -> int:
        """The square named in notation: the victim for ``*``, else the landing."""
        return self.victims[0] if self.star else self.dest

    def text(self, first: bool) -> str:
        """Notation of this step; the first step of a turn carries the origin."""
        sep = "*" if self.star else ("x" if self.victims else "-")
        promo = f"={self.promo}" if self.promo else ""
        return (NAMES[self.origin] if first else "") + sep + NAMES[self.target] + promo


def piece_steps(
    board: tuple[str, ...] | list[str],
    s: int,
    ep: tuple[int, int] | None,
    reserve: Reserve,
    captures_only: bool,
) -> list[Step]:
    """Every step of the piece on ``s`` (spec §3), ignoring the compulsory rule.

    ``ep`` is the en-passant right when this is the first step of a turn
    (None mid-chain); ``reserve`` is the mover's reserve (promotion choices).
    """
    piece = board[s]
    white = piece in WHITE_PIECES
    enemy = BLACK_PIECES if white else WHITE_PIECES
    kind = piece.upper()
    out: list[Step] = []
    add = out.append
    if kind == "P":
        return _pawn_steps(board, s, 0 if white else 1, ep, reserve, captures_only)
    if kind == "K":
        if not captures_only:
            for q in KING_STEPS[s]:
                if board[q] == EMPTY:
                    add(Step(s, q, (), "", False))
        for m, q in KING_LEAPS[s]:
            if board[m] in enemy and board[q] == EMPTY:
                add(Step(s, q, (m,), "", False))
        return out
    # Smasher, Leaper and Remover all slide diagonally without capturing.
    if not captures_only:
        for ray in DIAG_RAYS[s]:
            for q in ray:
                if board[q] != EMPTY:
                    break
                add(Step(s, q, (), "", False))
    if kind == "R":
        for a in ORTH_ADJ[s]:
            if board[a] in enemy:
                add(Step(s, s, (a,), "", True))
    elif kind == "S":
        for ray in ORTH_RAYS[s]:
            n = len(ray)
            for i, q in enumerate(ray):  # distance i + 1
                if board[q] != EMPTY:
                    break
                if i % 2 == 1:  # even distance: a legal stop
                    if i + 1 < n and board[ray[i + 1]] in enemy:
                        add(Step(s, q, (ray[i + 1],), "", False))
                    elif not captures_only:
                        add(Step(s, q, (), "", False))
    else:  # Leaper
        for ray in ORTH_RAYS[s]:
            for i, q in enumerate(ray):
                if board[q] != EMPTY:
                    if i % 2 == 0 and board[q] in enemy:  # odd distance: can be leapt
                        for j in range(i + 1, len(ray)):
                            if board[ray[j]] != EMPTY:
                                break
                            if j % 2 == 1:
                                add(Step(s, ray[j], (q,), "", False))
                    break
                if i % 2 == 1 and not captures_only:
                    add(Step(s, q, (), "", False))
        for m, q in DOUBLE_KNIGHT[s]:
            if board[q] != EMPTY:
                continue
            if board[m] == EMPTY:
                if not captures_only:
                    add(Step(s, q, (), "", False))
            elif board[m] in enemy:
                add(Step(s, q, (m,), "", False))
    return out


def _pawn_steps(
    board: tuple[str, ...] | list[str],
    s: int,
    side: int,
    ep: tuple[int, int] | None,
    reserve: Reserve,
    captures_only: bool,
) -> list[Step]:
    """Pawn candidates (§3.5), each with its custodian captures, then promotion."""
    enemy = BLACK_PIECES if side == WHITE else WHITE_PIECES
    friend = WHITE_PIECES if side == WHITE else BLACK_PIECES
    cands: list[tuple[int, tuple[int, ...]]] = []
    for q1, q2 in PAWN_DIAG[side][s]:
        if board[q1] == EMPTY:
            cands.append((q1, ()))
            if q2 is not None and board[q2] == EMPTY:
                cands.append((q2, ()))
    leap = PAWN_LEAP[side][s]
    if leap is not None:
        m, q = leap
        if board[q] == EMPTY:
            if board[m] in enemy:
                cands.append((q, (m,)))
            elif ep is not None and m == ep[0]:
                cands.append((q, (ep[1],)))
    out: list[Step] = []
    last, pen = LAST_RANK[side], PENULTIMATE_RANK[side]
    for q, victims in cands:
        for a, b in CUSTODIAN[q]:
            # The Pawn's own origin is empty once it moves: never its own partner.
            if board[a] in enemy and b != s and board[b] in friend:
                victims = (*victims, a)
        if captures_only and not victims:
            continue
        rank = q >> 3
        if rank in (last, pen):
            if rank == pen:
                out.append(Step(s, q, victims, "", False))
            for t, n in zip(RESERVE_TYPES, reserve, strict=True):
                if n:
                    out.append(Step(s, q, victims, t, False))
        else:
            out.append(Step(s, q, victims, "", False))
    return out


def first_steps(pos: Position) -> tuple[list[Step], bool]:
    """Every possible first step of the side to move, after the compulsory rule.

    Returns (steps, capturing): when any step captures, only the capturing
    steps are returned and ``capturing`` is True.
    """
    board = pos.board
    mine = WHITE_PIECES if pos.side == WHITE else BLACK_PIECES
    reserve = pos.reserves[pos.side]
    steps: list[Step] = []
    for s in range(64):
        if board[s] in mine:
            steps.extend(piece_steps(board, s, pos.ep, reserve, False))
    captures = [st for st in steps if st.victims]
    return (captures, True) if captures else (steps, False)


def has_step(pos: Position) -> bool:
    """Whether the side to move has any legal turn (one first step suffices)."""
    board = pos.board
    mine = WHITE_PIECES if pos.side == WHITE else BLACK_PIECES
    reserve = pos.reserves[pos.side]
    return any(
        board[s] in mine and piece_steps(board, s, pos.ep, reserve, False) for s in range(64)
    )


class Work:
    """A mutable scratch copy of a position while a turn is being applied."""

    __slots__ = ("board", "reserves", "king_taken", "captured", "square")

    def __init__(self, pos: Position) -> None:
        self.board = list(pos.board)
        self.reserves = [list(pos.reserves[0]), list(pos.reserves[1])]
        self.king_taken: int | None = None  # square of a captured King
        self.captured: list[int] = []
        self.square = -1  # where the moving piece stands now

    def copy(self) -> Work:
        w = Work.__new__(Work)
        w.board = self.board[:]
        w.reserves = [self.reserves[0][:], self.reserves[1][:]]
        w.king_taken = self.king_taken
        w.captured = self.captured[:]
        w.square = self.square
        return w

    def apply(self, step: Step, side: int) -> None:
        """Play one step: victims go at once, captured S/L/R to their owner."""
        board = self.board
        for v in step.victims:
            kind = board[v].upper()
            board[v] = EMPTY
            self.captured.append(v)
            if kind == "K":
                self.king_taken = v
            elif kind in RESERVE_INDEX:
                self.reserves[1 - side][RESERVE_INDEX[kind]] += 1
        if not step.star:
            piece = board[step.origin]
            board[step.origin] = EMPTY
            if step.promo:
                self.reserves[side][RESERVE_INDEX[step.promo]] -= 1
                piece = step.promo if side == WHITE else step.promo.lower()
            board[step.dest] = piece
        self.square = step.dest

    def continuations(self, side: int) -> list[Step]:
        """Capture steps of the moving piece only, mid-chain (no en passant)."""
        if self.king_taken is not None:
            return []
        return piece_steps(self.board, self.square, None, tuple(self.reserves[side]), True)


def turns(pos: Position) -> Iterator[tuple[list[Step], Work]]:
    """Every complete legal turn: (its steps, the scratch state after it)."""
    steps, _ = first_steps(pos)
    side = pos.side
    for st in steps:
        work = Work(pos)
        work.apply(st, side)
        if st.victims:
            yield from _chains([st], work, side)
        else:
            yield [st], work


def _chains(done: list[Step], work: Work, side: int) -> Iterator[tuple[list[Step], Work]]:
    conts = work.continuations(side)
    if not conts:
        yield done, work
        return
    for st in conts:
        w = work.copy()
        w.apply(st, side)
        yield from _chains([*done, st], w, side)


def turn_text(steps: list[Step]) -> str:
    return "".join(st.text(i == 0) for i, st in enumerate(steps))


def legal_turn_texts(pos: Position) -> list[str]:
    """Canonical notation of every legal turn (perft counts these)."""
    out: list[str] = []
    steps, _ = first_steps(pos)
    side = pos.side
    for st in steps:
        head = st.text(True)
        if not st.victims:
            out.append(head)
            continue
        work = Work(pos)
        work.apply(st, side)
        _chain_texts(head, work, side, out)
    return out


def _chain_texts(prefix: str, work: Work, side: int, out: list[str]) -> None:
    conts = work.continuations(side)
    if not conts:
        out.append(prefix)
        return
    for st in conts:
        w = work.copy()
        w.apply(st, side)
        _chain_texts(prefix + st.text(False), w, side, out)
