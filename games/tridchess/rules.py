"""Positions, move generation, legality and making moves (spec §2-§5).

Pieces are small ints: ``type | colour | FRESH``.  A move is a tuple
``(kind, a, b, promo)``: for piece moves ``a``/``b`` are cells, for
attack-board moves they are pin indices.  Legality is decided by playing the
move on a copy of the board (with the geometry of the new pin placement, so
attack-board moves that open or close lines are judged correctly) and asking
whether the mover's king is attacked; moves of pieces that are neither the
king nor pinned skip that test when the king is not in check.
"""

from __future__ import annotations

import hashlib

from games.tridchess.geometry import (
    BISHOP_DIRS,
    DIR_INDEX,
    PIN_ADJ,
    PIN_CELLS,
    PIN_LAYER,
    PIN_SIDE,
    PIN_Y0,
    QUEEN_DIRS,
    ROOK_DIRS,
    SIDE_FILES,
    XYZ,
    Geometry,
    cell,
    geometry,
    pin_mask,
)

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
BLACK = 8
FRESH = 16  # a pawn that has never moved (nor been carried): may double-step
PIECE_LETTERS = " PNBRQK"
PIECE_NAMES = ["", "pawn", "knight", "bishop", "rook", "queen", "king"]
PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)

NORMAL, EN_PASSANT, CASTLE_K, CASTLE_Q, BOARD_MOVE = 0, 1, 2, 3, 4
Move = tuple[int, int, int, int]

AB_NAMES = ("WQ", "WK", "BQ", "BK")
START_PINS = (0, 12, 10, 22)  # QL1, KL1, QL6, KL6

# Castling (spec §4.4): home cells and the rights bits they guard.
CASTLE_BITS = {"K": 1, "Q": 2, "k": 4, "q": 8}
HOME_KING = (cell(4, 0, 2), cell(4, 9, 6))
HOME_ROOK_K = (cell(5, 0, 2), cell(5, 9, 6))
HOME_ROOK_Q = (cell(0, 0, 2), cell(0, 9, 6))
_HOME_CLEAR = {
    HOME_KING[0]: 1 | 2,
    HOME_ROOK_K[0]: 1,
    HOME_ROOK_Q[0]: 2,
    HOME_KING[1]: 4 | 8,
    HOME_ROOK_K[1]: 4,
    HOME_ROOK_Q[1]: 8,
}


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def promotes(pawn: int, y: int) -> bool:
    """A pawn standing on rank y has reached its last rank (spec P7)."""
    return y <= 1 if pawn & BLACK else y >= 8


class State:
    """One position plus what the rules need of the past.

    ``history`` holds the repetition keys of the positions since the last
    capture or promotion (only those can repeat), the current one last.
    ``dead`` marks a draw by a capture that left the two kings alone.
    The ``_legal`` and ``_check`` slots cache derived values; the public
    fields are never changed after construction.
    """

    __slots__ = (
        "pins",
        "board",
        "turn",
        "castling",
        "ep",
        "halfmove",
        "fullmove",
        "history",
        "last",
        "dead",
        "_legal",
        "_check",
        "_texts",
    )

    def __init__(
        self,
        pins: tuple[int, int, int, int],
        board: dict[int, int],
        turn: int,
        castling: int,
        ep: int,
        halfmove: int,
        fullmove: int,
        history: tuple[str, ...] = (),
        last: str | None = None,
        dead: bool = False,
    ) -> None:
        self.pins = pins
        self.board = board
        self.turn = turn
        self.castling = castling
        self.ep = ep
        self.halfmove = halfmove
        self.fullmove = fullmove
        self.last = last
        self.dead = dead
        self._legal: list[Move] | None = None
        self._check: bool | None = None
        self._texts: dict[str, Move] | None = None
        self.history = history or (repetition_key(self),)

    @property
    def geo(self) -> Geometry:
        return geometry(pin_mask(self.pins))

    def king(self, black: int) -> int:
        k = KING | (BLACK if black else 0)
        for c, p in self.board.items():
            if p == k:
                return c
        raise ValueError("no king")

    def in_check(self) -> bool:
        if self._check is None:
            self._check = attacked(self.board, self.geo, self.king(self.turn), not self.turn)
        return self._check

    def legal(self) -> list[Move]:
        if self._legal is None:
            self._legal = legal_moves(self)
        return self._legal


def repetition_key(st: State) -> str:
    """Digest of what makes positions 'the same' for threefold repetition (§4.5).

    DECISION (the spec is silent; issue 18): the en-passant square counts
    only when the side to move has a *legal* en-passant capture, as FIDE
    9.2 has it -- a pawn that could take but is pinned, or whose capture
    would leave its king in check, does not make the position different.
    """
    ep = -1
    if st.ep >= 0 and any(mv[0] == EN_PASSANT for mv in st.legal()):
        ep = st.ep
    text = f"{st.pins}{sorted(st.board.items())}{st.turn}{st.castling}{ep}"
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


# -- attacks ------------------------------------------------------------------


def attacked(board: dict[int, int], geo: Geometry, t: int, by_black: bool | int) -> bool:
    """Could a piece of that colour capture on cell ``t`` (spec §4.5)?"""
    col = BLACK if by_black else 0
    tx, ty, th = XYZ[t]
    for s, p in board.items():
        if p & BLACK != col:
            continue
        k = p & 7
        if k == PAWN:
            if t in geo.pawn(s, bool(by_black))[4]:
                return True
        elif k == KNIGHT:
            if t in geo.knight(s):
                return True
        elif k == KING:
            if t in geo.king(s):
                return True
        else:
            sx, sy, sh = XYZ[s]
            ddx, ddy = tx - sx, ty - sy
            if ddx and ddy:
                if k == ROOK or (ddx != ddy and ddx != -ddy):
                    continue
            elif k == BISHOP:
                continue
            ray = geo.ray(s, DIR_INDEX[(_sign(ddx), _sign(ddy), _sign(th - sh))])
            n = abs(ddx) or abs(ddy)
            if n:
                if len(ray) >= n and ray[n - 1] == t:
                    for i in range(n - 1):
                        if ray[i] in board:
                            break
                    else:
                        return True
            else:
                for c in ray:
                    if c == t:
                        return True
                    if c in board:
                        break
    return False


def _pinned(board: dict[int, int], geo: Geometry, k: int, black: int) -> set[int]:
    """Own pieces that alone stand between an enemy slider and the king."""
    enemy = 0 if black else BLACK
    tx, ty, th = XYZ[k]
    out: set[int] = set()
    for s, p in board.items():
        if p & BLACK != enemy:
            continue
        kind = p & 7
        if kind < BISHOP or kind == KING:
            continue
        sx, sy, sh = XYZ[s]
        ddx, ddy = tx - sx, ty - sy
        if ddx and ddy:
            if kind == ROOK or (ddx != ddy and ddx != -ddy):
                continue
        elif kind == BISHOP:
            continue
        ray = geo.ray(s, DIR_INDEX[(_sign(ddx), _sign(ddy), _sign(th - sh))])
        blocker = -1
        for c in ray:
            if c == k:
                if blocker >= 0:
                    out.add(blocker)
                break
            q = board.get(c)
            if q is not None:
                if blocker >= 0 or q & BLACK == enemy:
                    break
                blocker = c
    return out


# -- pseudo-legal generation ----------------------------------------------------


def piece_moves(st: State, geo: Geometry, c: int, out: list[Move]) -> None:
    """Pseudo-legal moves of the piece on ``c`` (no castling)."""
    board = st.board
    p = board[c]
    own = p & BLACK
    kind = p & 7
    if kind == PAWN:
        black = bool(own)
        fwd, dbl, up, fup, caps = geo.pawn(c, black)
        quiet = []
        if fwd >= 0 and fwd not in board:
            quiet.append(fwd)
            if p & FRESH and dbl >= 0 and dbl not in board:
                quiet.append(dbl)
        if up >= 0 and up not in board:
            quiet.append(up)
        if fup >= 0 and fup not in board:
            quiet.append(fup)
        for t in caps:
            q = board.get(t)
            if q is None:
                if t == st.ep:
                    out.append((EN_PASSANT, c, t, 0))
            elif q & BLACK != own:
                quiet.append(t)
        for t in quiet:
            if promotes(p, XYZ[t][1]):
                for pr in PROMOTIONS:
                    out.append((NORMAL, c, t, pr))
            else:
                out.append((NORMAL, c, t, 0))
    elif kind in (KNIGHT, KING):
        for t in geo.knight(c) if kind == KNIGHT else geo.king(c):
            q = board.get(t)
            if q is None or q & BLACK != own:
                out.append((NORMAL, c, t, 0))
    else:
        dirs = ROOK_DIRS if kind == ROOK else BISHOP_DIRS if kind == BISHOP else QUEEN_DIRS
        for d in dirs:
            for t in geo.ray(c, d):
                q = board.get(t)
                if q is None:
                    out.append((NORMAL, c, t, 0))
                else:
                    if q & BLACK != own:
                        out.append((NORMAL, c, t, 0))
                    break


def castling_moves(st: State, geo: Geometry, out: list[Move]) -> None:
    """Castling candidates (spec §4.4); the attack conditions come later."""
    if st.fullmove <= 1:
        return
    black = st.turn
    own = BLACK if black else 0
    board = st.board
    kc = HOME_KING[black]
    if board.get(kc) != KING | own:
        return
    if st.castling & (4 if black else 1) and board.get(HOME_ROOK_K[black]) == ROOK | own:
        out.append((CASTLE_K, kc, HOME_ROOK_K[black], 0))
    if st.castling & (8 if black else 2) and board.get(HOME_ROOK_Q[black]) == ROOK | own:
        _x, y, h = XYZ[kc]
        dest = cell(1, y, h)
        between = [cell(x, y, h) for x in range(1, 4)]
        if dest in geo.exists and not any(b in board for b in between):
            out.append((CASTLE_Q, kc, dest, 0))


def board_occupants(st: State, pin: int) -> list[int]:
    return [c for c in PIN_CELLS[pin] if c in st.board]


def carried_cell(c: int, frm: int, to: int) -> int:
    """Where a piece on ``c`` lands when its board goes from pin ``frm`` to ``to`` (A5)."""
    x, y, _h = XYZ[c]
    nx = x + SIDE_FILES[PIN_SIDE[to]][0] - SIDE_FILES[PIN_SIDE[frm]][0]
    ny = y + PIN_Y0[to] - PIN_Y0[frm]
    return cell(nx, ny, PIN_LAYER[to])


def board_moves(st: State, out: list[Move]) -> None:
    """Pseudo-legal attack-board moves of the side to move (spec §3)."""
    mask = pin_mask(st.pins)
    board = st.board
    for ab in (2, 3) if st.turn else (0, 1):
        frm = st.pins[ab]
        occ = board_occupants(st, frm)
        if len(occ) > 1 or (occ and board[occ[0]] & 7 != PAWN):
            continue
        for to, how in PIN_ADJ[frm]:
            if mask >> to & 1 or (how == "flip" and occ):
                continue
            if occ:
                pawn = board[occ[0]]
                if promotes(pawn, XYZ[carried_cell(occ[0], frm, to)][1]):
                    if (pawn & BLACK) != (BLACK if st.turn else 0):
                        continue  # A8: may not carry an enemy pawn to its last rank
                    for pr in PROMOTIONS:
                        out.append((BOARD_MOVE, frm, to, pr))
                    continue
            out.append((BOARD_MOVE, frm, to, 0))


def pseudo_moves(st: State, geo: Geometry) -> list[Move]:
    out: list[Move] = []
    own = BLACK if st.turn else 0
    for c, p in st.board.items():
        if p & BLACK == own:
            piece_moves(st, geo, c, out)
    castling_moves(st, geo, out)
    board_moves(st, out)
    return out


# -- making moves ------------------------------------------------------------------


def make_board(st: State, mv: Move) -> tuple[dict[int, int], tuple[int, int, int, int], bool, bool]:
    """Board and pins after ``mv``, plus (capture, pawn moved or carried)."""
    kind, a, b, promo = mv
    board = dict(st.board)
    pins = st.pins
    own = BLACK if st.turn else 0
    capture = pawn = False
    if kind == NORMAL:
        p = board.pop(a)
        capture = b in board
        pawn = p & 7 == PAWN
        board[b] = (promo | own) if promo else p & 15
    elif kind == EN_PASSANT:
        p = board.pop(a)
        board[b] = p & 15
        x, y, h = XYZ[b]
        del board[cell(x, y + (1 if own else -1), h)]
        capture = pawn = True
    elif kind == CASTLE_K:
        king, rook = board[a], board[b]
        board[a], board[b] = rook, king
    elif kind == CASTLE_Q:
        x, y, h = XYZ[a]
        rook_from = cell(0, y, h)
        board[b] = board.pop(a)
        board[a] = board.pop(rook_from)
    else:
        ab = pins.index(a)
        pins = pins[:ab] + (b,) + pins[ab + 1 :]  # type: ignore[assignment]
        for c in PIN_CELLS[a]:
            if c in board:
                p = board.pop(c)
                board[carried_cell(c, a, b)] = (promo | own) if promo else p & 15
                pawn = True
    return board, pins, capture, pawn


def legal_moves(st: State) -> list[Move]:
    geo = st.geo
    board = st.board
    black = st.turn
    k = st.king(black)
    check = st.in_check()
    pinned = set() if check else _pinned(board, geo, k, black)
    out: list[Move] = []
    for mv in pseudo_moves(st, geo):
        kind, a, b, _promo = mv
        if kind == NORMAL and not check and a != k and a not in pinned:
            out.append(mv)
            continue
        if kind in (CASTLE_K, CASTLE_Q) and (check or attacked(board, geo, b, not black)):
            continue
        nb, npins, _c, _p = make_board(st, mv)
        g2 = geo if npins is st.pins else geometry(pin_mask(npins))
        nk = b if (a == k and kind != BOARD_MOVE) else k
        if not attacked(nb, g2, nk, not black):
            out.append(mv)
    return out


def play_move(st: State, mv: Move, text: str) -> State:
    """The position after the (legal) move ``mv``; ``text`` is its notation."""
    kind, a, b, _promo = mv
    board, pins, capture, pawn = make_board(st, mv)
    castling = st.castling
    if kind == BOARD_MOVE:
        pass  # boards holding kings or rooks cannot move
    else:
        castling &= ~(_HOME_CLEAR.get(a, 0) | _HOME_CLEAR.get(b, 0))
        if kind in (CASTLE_K, CASTLE_Q):
            castling &= ~(12 if st.turn else 3)
    ep = -1
    if kind == NORMAL and pawn:
        xa, ya, ha = XYZ[a]
        xb, yb, hb = XYZ[b]
        if abs(yb - ya) == 2 and xa == xb and ha == hb:
            ep = cell(xa, (ya + yb) // 2, ha)
    halfmove = 0 if (capture or pawn) else st.halfmove + 1
    fullmove = st.fullmove + (1 if st.turn else 0)
    new = State(pins, board, 1 - st.turn, castling, ep, halfmove, fullmove, ("",), text, False)
    irreversible = capture or bool(_promo)
    key = repetition_key(new)
    new.history = (key,) if irreversible else st.history + (key,)
    if capture and len(board) == 2:
        new.dead = True
    return new

