"""Turning typed moves into legal moves, or into a reason a player understands.

The fast path is a dictionary lookup in the position's legal moves; only a
refused move pays for the diagnosis, which re-asks the rules step by step
(does the square exist now, whose piece is it, can the piece go there at
all, is the way blocked, would the king be in check).
"""

from __future__ import annotations

from games.contract import IllegalMove
from games.tridchess.geometry import (
    PIN_ADJ,
    PIN_NAME,
    QUEEN_DIRS,
    SQ_NAME,
    XYZ,
    pin_mask,
)
from games.tridchess.notation import (
    NotationError,
    Parsed,
    exists_now,
    move_text,
    parse_move,
    parse_pin,
    parse_square,
)
from games.tridchess.rules import (
    AB_NAMES,
    BISHOP,
    BISHOP_DIRS,
    BLACK,
    BOARD_MOVE,
    CASTLE_K,
    CASTLE_Q,
    EN_PASSANT,
    FRESH,
    HOME_KING,
    HOME_ROOK_K,
    HOME_ROOK_Q,
    KING,
    KNIGHT,
    NORMAL,
    PAWN,
    PIECE_LETTERS,
    PIECE_NAMES,
    QUEEN,
    ROOK,
    ROOK_DIRS,
    Move,
    State,
    attacked,
    board_occupants,
    carried_cell,
    piece_moves,
    promotes,
)

_COUNT = {2: "two", 3: "three", 4: "four"}


def _colour(p: int) -> str:
    return "Black" if p & BLACK else "White"


def legal_texts(st: State) -> dict[str, Move]:
    """Canonical text -> move for every legal move (cached on the state)."""
    if st._texts is None:
        st._texts = {move_text(st, mv): mv for mv in st.legal()}
    return st._texts


def resolve(st: State, text: str) -> Move:
    """The legal move ``text`` stands for, or IllegalMove saying why not."""
    texts = legal_texts(st)
    mv = texts.get(text.strip())
    if mv is not None:
        return mv
    try:
        parsed = parse_move(text)
        if parsed.kind == "castle":
            return _castle(st, parsed)
        if parsed.kind == "board":
            return _board(st, parsed)
        if parsed.kind == "piece":
            return _piece(st, parsed)
        return _short(st, parsed)
    except NotationError as exc:
        raise IllegalMove(str(exc)) from None


def _legal_or_why(st: State, mv: Move, label: str) -> Move:
    if mv in st.legal():
        return mv
    if st.in_check():
        raise IllegalMove(f"{label}: your king is in check and this move does not answer it")
    if mv[0] == NORMAL and st.board[mv[1]] & 7 == KING:
        raise IllegalMove(f"{label} would put your king in check")
    raise IllegalMove(f"{label} would leave your king in check")


# -- castling ---------------------------------------------------------------------


def _castle(st: State, parsed: Parsed) -> Move:
    black = st.turn
    own = BLACK if black else 0
    label = "O-O" if parsed.side == "K" else "O-O-O"
    bit = (4 if black else 1) if parsed.side == "K" else (8 if black else 2)
    rook = HOME_ROOK_K[black] if parsed.side == "K" else HOME_ROOK_Q[black]
    kc = HOME_KING[black]
    if st.fullmove <= 1:
        raise IllegalMove(f"{label}: castling is not allowed on a player's first move")
    if not st.castling & bit or st.board.get(kc) != KING | own or st.board.get(rook) != ROOK | own:
        raise IllegalMove(f"{label}: your king or that rook has already moved")
    x, y, h = XYZ[kc]
    dest = rook if parsed.side == "K" else kc - 3
    for c in (kc - 3, kc - 2, kc - 1) if parsed.side == "Q" else ():
        if c in st.board:
            raise IllegalMove(f"{label}: {SQ_NAME.get(c, '?')} between king and rook is not empty")
    if st.in_check():
        raise IllegalMove(f"{label}: you cannot castle out of check")
    if attacked(st.board, st.geo, dest, not black):
        raise IllegalMove(f"{label}: the king would land on an attacked square")
    kind = CASTLE_K if parsed.side == "K" else CASTLE_Q
    return _legal_or_why(st, (kind, kc, dest, 0), label)


# -- attack boards ------------------------------------------------------------------


def _board(st: State, parsed: Parsed) -> Move:
    frm, to = parse_pin(parsed.frm), parse_pin(parsed.to)
    label = f"{PIN_NAME[frm]}-{PIN_NAME[to]}"
    if frm not in st.pins:
        raise IllegalMove(f"{label}: no attack board stands on {PIN_NAME[frm]}")
    ab = st.pins.index(frm)
    if ab // 2 != st.turn:
        owner = "Black" if ab >= 2 else "White"
        raise IllegalMove(
            f"{label}: {AB_NAMES[ab]} on {PIN_NAME[frm]} is {owner}'s attack board; "
            "only its owner may move it"
        )
    occ = board_occupants(st, frm)
    if len(occ) > 1:
        raise IllegalMove(f"{PIN_NAME[frm]} cannot move: it carries {_COUNT[len(occ)]} pieces")
    if occ and st.board[occ[0]] & 7 != PAWN:
        name = PIECE_NAMES[st.board[occ[0]] & 7]
        raise IllegalMove(
            f"{PIN_NAME[frm]} cannot move: it carries a {name} (a board moves only when "
            "empty or carrying one pawn)"
        )
    adj = dict(PIN_ADJ[frm])
    if to not in adj:
        near = ", ".join(PIN_NAME[q] for q, _how in PIN_ADJ[frm])
        raise IllegalMove(
            f"{label}: {PIN_NAME[to]} is not next to {PIN_NAME[frm]}; a board moves one pin "
            f"at a time, from {PIN_NAME[frm]} to {near}"
        )
    if pin_mask(st.pins) >> to & 1:
        raise IllegalMove(f"{label}: {PIN_NAME[to]} is taken by {AB_NAMES[st.pins.index(to)]}")
    if adj[to] == "flip" and occ:
        raise IllegalMove(f"{label}: only an empty board can change level")
    promo = 0
    if occ:
        pawn = st.board[occ[0]]
        if promotes(pawn, XYZ[carried_cell(occ[0], frm, to)][1]):
            if pawn & BLACK != (BLACK if st.turn else 0):
                raise IllegalMove(
                    f"{label} would carry {_colour(pawn)}'s pawn to its last rank; "
                    "you may not carry an enemy pawn there"
                )
            promo = PIECE_LETTERS.index(parsed.promo) if parsed.promo else QUEEN
    if parsed.promo and not promo:
        raise IllegalMove(f"{label}: no pawn is promoted by this move, so drop ={parsed.promo}")
    return _legal_or_why(st, (BOARD_MOVE, frm, to, promo), label)


# -- piece moves -------------------------------------------------------------------


def _square(st: State, text: str) -> int:
    c = parse_square(text)
    exists_now(st, c)
    return c


def _piece(st: State, parsed: Parsed) -> Move:
    a, b = _square(st, parsed.frm), _square(st, parsed.to)
    label = f"{SQ_NAME[a]}-{SQ_NAME[b]}"
    p = st.board.get(a)
    if p is None:
        raise IllegalMove(f"{label}: there is no piece on {SQ_NAME[a]}")
    own = BLACK if st.turn else 0
    if p & BLACK != own:
        raise IllegalMove(
            f"{label}: {SQ_NAME[a]} holds a {_colour(p)} {PIECE_NAMES[p & 7]}; "
            f"you play {'Black' if st.turn else 'White'}"
        )
    kind = p & 7
    if parsed.letter and PIECE_LETTERS.index(parsed.letter) != kind:
        raise IllegalMove(
            f"{label}: {SQ_NAME[a]} holds a {PIECE_NAMES[kind]}, "
            f"not a {PIECE_NAMES[PIECE_LETTERS.index(parsed.letter)]}"
        )
    if kind != PAWN:
        label = PIECE_LETTERS[kind] + label
    if a == b:
        raise IllegalMove(f"{label}: a move must change square")
    q = st.board.get(b)
    if q is not None and q & BLACK == own:
        raise IllegalMove(f"{label}: {SQ_NAME[b]} holds your own {PIECE_NAMES[q & 7]}")
    cands: list[Move] = []
    piece_moves(st, st.geo, a, cands)
    cands = [mv for mv in cands if mv[2] == b]
    if not cands:
        raise IllegalMove(_why_not(st, a, b, label))
    if kind != PAWN or not cands[0][3]:
        if parsed.promo:
            raise IllegalMove(f"{label}: only a pawn reaching its last rank promotes")
        return _legal_or_why(st, cands[0], label)
    if not parsed.promo:
        raise IllegalMove(
            f"{label}: a pawn reaching its last rank must promote: add =Q, =R, =B or =N"
        )
    if parsed.promo == "K":
        raise IllegalMove(f"{label}: a pawn cannot promote to a king")
    return _legal_or_why(st, (NORMAL, a, b, PIECE_LETTERS.index(parsed.promo)), label)


def _why_not(st: State, a: int, b: int, label: str) -> str:
    p = st.board[a]
    kind = p & 7
    geo = st.geo
    x, y, h = XYZ[a]
    bx, by, bh = XYZ[b]
    if kind == PAWN:
        black = bool(p & BLACK)
        f = -1 if black else 1
        if (by - y) * f < 0:
            return f"{label}: a pawn never moves backward"
        if (bh - h) * f < 0:
            return f"{label}: a {'black' if black else 'white'} pawn never moves {'up' if black else 'down'}"
        if bx == x and by - y == 2 * f:
            if bh != h:
                return f"{label}: a pawn's double step stays on its level"
            if not p & FRESH:
                return f"{label}: this pawn has already moved, so it has no double step"
            return f"{label}: the double step needs both squares ahead on its level, empty"
        if bx != x and b not in st.board:
            behind = st.board.get(b - 6 * f, 0)
            if behind & 7 == PAWN and behind & BLACK != p & BLACK:
                return (
                    f"{label}: en passant is possible only on the move right after "
                    "that pawn's double step"
                )
            return f"{label}: a pawn moves diagonally only to capture"
        if bx == x and b in st.board:
            return f"{label}: a pawn captures only diagonally forward"
        return (
            f"{label}: a pawn cannot go there; it steps one rank forward, one level "
            f"{'down' if black else 'up'}, or both (levels are counted per column), and "
            "captures diagonally forward"
        )
    name = PIECE_NAMES[kind]
    if kind in (ROOK, BISHOP, QUEEN):
        dirs = ROOK_DIRS if kind == ROOK else BISHOP_DIRS if kind == BISHOP else QUEEN_DIRS
        for d in dirs:
            ray = geo.ray(a, d)
            if b in ray:
                blocker = next(c for c in ray if c in st.board)
                return f"{label}: the {name}'s way is blocked on {SQ_NAME[blocker]}"
    return f"{label}: {_off_pattern(kind, a, b)}"


_LINE = (
    "a line keeps its level or changes one level at every step (levels are counted "
    "per column) and stops at a missing square"
)


def _off_pattern(kind: int, a: int, b: int) -> str:
    """Why ``b`` is not among the piece's destinations, in the game's terms."""
    x, y, _h = XYZ[a]
    bx, by, _bh = XYZ[b]
    diagonal, straight = bx != x and by != y, bx == x or by == y
    there = f"{SQ_NAME[b]} is not"
    if kind == ROOK and diagonal:
        return "a rook never moves diagonally; it goes along a file or a rank, up or down"
    if kind == BISHOP and straight:
        return "a bishop moves only diagonally (a diagonal step may also change one level)"
    if kind in (ROOK, BISHOP, QUEEN):
        if diagonal and abs(bx - x) != abs(by - y):
            return f"{there} on a line from {SQ_NAME[a]}: a diagonal changes file and rank alike"
        return f"{there} on any of the {PIECE_NAMES[kind]}'s lines from {SQ_NAME[a]}: {_LINE}"
    if kind == KNIGHT:
        return (
            f"{there} a knight's leap from {SQ_NAME[a]}: it leaps two squares along one of "
            "file, rank or level and one along another (levels are counted per column)"
        )
    return (
        f"{there} next to {SQ_NAME[a]}: a king moves one square in any direction, one level "
        "up or down counting as a step"
    )


# -- short forms ----------------------------------------------------------------------


def _short(st: State, parsed: Parsed) -> Move:
    texts = legal_texts(st)
    if parsed.kind == "shortboard":
        to = parse_pin(parsed.to)
        cands = [mv for mv in texts.values() if mv[0] == BOARD_MOVE and mv[2] == to]
        label = PIN_NAME[to]
        if not cands:
            raise IllegalMove(f"{label}: none of your attack boards can move to {label} now")
        promo = PIECE_LETTERS.index(parsed.promo) if parsed.promo else QUEEN
        if cands[0][3]:
            cands = [mv for mv in cands if mv[3] == promo]
        elif parsed.promo:
            raise IllegalMove(f"{label}: no pawn is promoted by this move")
    else:
        b = _square(st, parsed.to)
        label = (parsed.letter or "") + SQ_NAME[b]
        kind = PIECE_LETTERS.index(parsed.letter) if parsed.letter else PAWN
        cands = [
            mv
            for mv in texts.values()
            if mv[0] in (NORMAL, EN_PASSANT) and mv[2] == b and st.board[mv[1]] & 7 == kind
        ]
        if not cands:
            raise IllegalMove(f"{label}: no {PIECE_NAMES[kind]} of yours can move to {SQ_NAME[b]}")
        if any(mv[3] for mv in cands):
            if not parsed.promo:
                raise IllegalMove(
                    f"{label}: a pawn reaching its last rank must promote: add =Q, =R, =B or =N"
                )
            cands = [mv for mv in cands if mv[3] == PIECE_LETTERS.index(parsed.promo)]
        elif parsed.promo:
            raise IllegalMove(f"{label}: only a pawn reaching its last rank promotes")
    if len(cands) > 1:
        options = " or ".join(move_text(st, mv) for mv in cands)
        raise IllegalMove(f"{label} is ambiguous: it could be {options}; write the move in full")
    return cands[0]
