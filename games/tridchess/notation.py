"""Square and move notation, and the position string (spec §1.5-§1.7).

Everything a player types is read here; everything the server prints is
written here, so the canonical forms live in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.contract import clip_input
from games.tridchess.geometry import (
    FILES,
    MAIN_BOARDS,
    PIN_BY_NAME,
    PIN_CELLS,
    PIN_NAME,
    PIN_OF_CELL,
    SQ_BY_NAME,
    SQ_NAME,
    XYZ,
    pin_mask,
)
from games.tridchess.rules import (
    AB_NAMES,
    BLACK,
    BOARD_MOVE,
    CASTLE_BITS,
    CASTLE_K,
    CASTLE_Q,
    EN_PASSANT,
    FRESH,
    HOME_KING,
    HOME_ROOK_K,
    HOME_ROOK_Q,
    KING,
    PAWN,
    PIECE_LETTERS,
    ROOK,
    Move,
    State,
    attacked,
    promotes,
)

#: The attack boards' start placement; ``ST`` in a position string stands for it.
START_BOARDS = "WQ:QL1,WK:KL1,BQ:QL6,BK:KL6"
START_POSITION = (
    f"{START_BOARDS} "
    "Rz0QL1,Qa0QL1,Pz1QL1,Pa1QL1,Kd0KL1,Re0KL1,Pd1KL1,Pe1KL1,"
    "Na1W,Bb1W,Bc1W,Nd1W,Pa2W,Pb2W,Pc2W,Pd2W,"
    "rz9QL6,qa9QL6,pz8QL6,pa8QL6,kd9KL6,re9KL6,pd8KL6,pe8KL6,"
    "na8B,bb8B,bc8B,nd8B,pa7B,pb7B,pc7B,pd7B w KQkq - 0 1"
)


class NotationError(ValueError):
    """Text that is not a well-formed square, move or position."""


# -- squares ---------------------------------------------------------------------

_SQ_RE = r"[zabcde][0-9]+(?:W|N|B|[QK]L[0-9]+I?)"
_PIN_RE = r"[QK]L[0-9]+I?"
_SQ_PARTS = re.compile(r"^([zabcde])([0-9]+)(W|N|B|[QK]L[0-9]+I?)$", re.I)


def pin_canonical(text: str) -> str:
    return text[:2].upper() + text[2:].lower()


def parse_pin(text: str) -> int:
    p = PIN_BY_NAME.get(text.lower())
    if p is None:
        raise NotationError(
            f"{clip_input(pin_canonical(text))} is not a pin position: they are QL1..QL6 and "
            "KL1..KL6, each also hanging below as QL1i..KL6i"
        )
    return p


def square_canonical(text: str) -> str:
    m = _SQ_PARTS.match(text)
    if not m:
        return text
    f, r, lv = m.groups()
    lv = lv.upper() if len(lv) == 1 else pin_canonical(lv)
    return f"{f.lower()}{r}{lv}"


def parse_square(text: str) -> int:
    """The cell a square name denotes (whether or not it exists right now)."""
    c = SQ_BY_NAME.get(text.lower())
    if c is not None:
        return c
    name = square_canonical(text)
    m = _SQ_PARTS.match(text)
    if not m:
        raise NotationError(f"{clip_input(text)} is not a square; squares look like b2W, c5N or z0QL1")
    lv = m.group(3)
    if len(lv) == 1:
        layer_y0 = MAIN_BOARDS[lv.upper()][1]
        raise NotationError(
            f"{clip_input(name)} is not a square: board {lv.upper()} has files a-d and ranks "
            f"{layer_y0}-{layer_y0 + 3}"
        )
    p = parse_pin(lv)
    cover = ", ".join(SQ_NAME[c][:2] for c in PIN_CELLS[p])
    raise NotationError(f"{clip_input(name)} is not a square: an attack board on {PIN_NAME[p]} covers {cover}")


def exists_now(st: State, c: int) -> None:
    """Raise unless the cell is there in this position (its attack board may be away)."""
    p = PIN_OF_CELL.get(c)
    if p is not None and not pin_mask(st.pins) >> p & 1:
        raise NotationError(
            f"{SQ_NAME[c]} does not exist now: no attack board stands on {PIN_NAME[p]}"
        )


# -- writing moves ---------------------------------------------------------------


def move_text(st: State, mv: Move) -> str:
    kind, a, b, promo = mv
    suffix = f"={PIECE_LETTERS[promo]}" if promo else ""
    if kind == BOARD_MOVE:
        return f"{PIN_NAME[a]}-{PIN_NAME[b]}{suffix}"
    if kind == CASTLE_K:
        return "O-O"
    if kind == CASTLE_Q:
        return "O-O-O"
    if kind == EN_PASSANT:
        return f"{SQ_NAME[a]}x{SQ_NAME[b]} e.p."
    p = st.board[a] & 7
    letter = "" if p == PAWN else PIECE_LETTERS[p]
    sep = "x" if b in st.board else "-"
    return f"{letter}{SQ_NAME[a]}{sep}{SQ_NAME[b]}{suffix}"


# -- reading moves ---------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """A move as typed, before it is checked against the position."""

    kind: str  # "castle", "board", "piece", "short", "shortboard"
    letter: str = ""  # piece letter as typed (upper case), "" for none
    frm: str = ""
    to: str = ""
    promo: str = ""  # promotion letter (upper case) or ""
    side: str = ""  # "K" / "Q" for castling


_CASTLE = re.compile(r"^[O0]-[O0](-[O0])?$", re.I)
_LONG_AB = re.compile(rf"^({_PIN_RE})\s*[-x]\s*({_PIN_RE})\s*(?:=?\s*([QRBN]))?$", re.I)
_LONG = re.compile(rf"^([KQRBNP])?({_SQ_RE})\s*[-x:]\s*({_SQ_RE})\s*(?:=?\s*([QRBN]))?$", re.I)
_SHORT = re.compile(rf"^([KQRBNP])?({_SQ_RE})\s*(?:=\s*([QRBN]))?$", re.I)
_SHORT_PROMO = re.compile(rf"^({_SQ_RE})\s*=?\s*([QRBN])$", re.I)
_SHORT_AB = re.compile(rf"^({_PIN_RE})\s*(?:=?\s*([QRBN]))?$", re.I)
_TRAIL = re.compile(r"(\s*(e\.?\s*p\.?|[+#!?]))+$", re.I)

SYNTAX_HELP = (
    "moves look like Nd1W-c3W, b2W-b4W, c7Bxd6N, b7B-b8B=Q, O-O, O-O-O or "
    "QL1-QL3i (an attack board move)"
)


def parse_move(text: str) -> Parsed:
    raw = text.strip()
    t = _TRAIL.sub("", raw).strip()
    if not t:
        raise NotationError(f"cannot read {clip_input(raw)!r}: {SYNTAX_HELP}")
    if _CASTLE.match(t):
        return Parsed("castle", side="Q" if t.count("-") == 2 else "K")
    m = _LONG_AB.match(t)
    if m:
        return Parsed("board", frm=m.group(1), to=m.group(2), promo=(m.group(3) or "").upper())
    m = _LONG.match(t)
    if m:
        return Parsed(
            "piece",
            letter=(m.group(1) or "").upper(),
            frm=m.group(2),
            to=m.group(3),
            promo=(m.group(4) or "").upper(),
        )
    m = _SHORT_AB.match(t)
    if m:
        return Parsed("shortboard", to=m.group(1), promo=(m.group(2) or "").upper())
    m = _SHORT.match(t)
    if m:
        return Parsed(
            "short",
            letter=(m.group(1) or "").upper(),
            to=m.group(2),
            promo=(m.group(3) or "").upper(),
        )
    m = _SHORT_PROMO.match(t)
    if m:
        return Parsed("short", to=m.group(1), promo=m.group(2).upper())
    raise NotationError(f"cannot read {clip_input(raw)!r}: {SYNTAX_HELP}")


# -- the position string ---------------------------------------------------------

_GROUP_MAIN = {"W": 1, "N": 3, "B": 5}


def _piece_text(p: int, c: int) -> str:
    letter = PIECE_LETTERS[p & 7]
    if p & BLACK:
        letter = letter.lower()
    star = "*" if p & 7 == PAWN and not p & FRESH else ""
    return f"{letter}{SQ_NAME[c]}{star}"


def position_text(st: State) -> str:
    boards = ",".join(f"{AB_NAMES[i]}:{PIN_NAME[p]}" for i, p in enumerate(st.pins))
    pieces = []
    for colour in (0, BLACK):
        order_pins = st.pins if colour == 0 else st.pins[2:] + st.pins[:2]
        group_of: dict[int, int] = {}
        for gi, p in enumerate(order_pins):
            for c in PIN_CELLS[p]:
                group_of[c] = gi
        mains = (1, 3, 5) if colour == 0 else (5, 3, 1)
        own = [(c, p) for c, p in st.board.items() if p & BLACK == colour]

        def key(
            item: tuple[int, int],
            colour: int = colour,
            group_of: dict[int, int] = group_of,
            mains: tuple[int, ...] = mains,
        ) -> tuple[int, int, int]:
            x, y, h = XYZ[item[0]]
            g = group_of.get(item[0])
            g = 4 + mains.index(h) if g is None else g
            return (g, y if colour == 0 else -y, x)

        pieces.extend(_piece_text(p, c) for c, p in sorted(own, key=key))
    castle = "".join(ch for ch, bit in CASTLE_BITS.items() if st.castling & bit) or "-"
    ep = SQ_NAME[st.ep] if st.ep >= 0 else "-"
    side = "b" if st.turn else "w"
    return f"{boards} {','.join(pieces)} {side} {castle} {ep} {st.halfmove} {st.fullmove}"


_PIECE_RE = re.compile(r"^([KQRBNPkqrbnp])([zabcde][0-9]+(?:W|N|B|[QK]L[0-9]+I?))(\*?)$", re.I)


def parse_position(text: str) -> State:
    """A State from a §1.7 position string; NotationError says what is wrong."""
    fields = text.replace("_", " ").split()
    if len(fields) == 5:
        fields += ["0", "1"]
    if len(fields) != 7:
        raise NotationError(
            "a position has 7 fields: boards pieces side castling en-passant halfmove "
            f"fullmove (got {len(fields)})"
        )
    bfield, pfield, side, cfield, epfield, hfield, ffield = fields
    if bfield.upper() == "ST":  # the spec's test cases write ST for the start boards
        bfield = START_BOARDS
    pins: dict[str, int] = {}
    for item in bfield.split(","):
        name, _, pin = item.partition(":")
        name = name.upper()
        if name not in AB_NAMES or not pin:
            raise NotationError(f"boards field: {clip_input(item)!r} should look like WQ:QL1")
        if name in pins:
            raise NotationError(f"boards field: {clip_input(name)} is placed twice")
        pins[name] = parse_pin(pin)
    if len(pins) != 4:
        raise NotationError("boards field: all four attack boards WQ, WK, BQ, BK must be placed")
    pin_tuple = tuple(pins[n] for n in AB_NAMES)
    if len(set(pin_tuple)) != 4:
        raise NotationError("boards field: two attack boards stand on the same pin")
    if side not in ("w", "b"):
        raise NotationError(f"side to move must be w or b, not {clip_input(side)!r}")
    turn = 1 if side == "b" else 0
    st = State(pin_tuple, {}, turn, 0, -1, 0, 1, ("",))  # type: ignore[arg-type]
    board: dict[int, int] = {}
    for item in pfield.split(","):
        m = _PIECE_RE.match(item)
        if not m:
            raise NotationError(f"pieces field: {clip_input(item)!r} should look like Pb2W or rz9QL6*")
        letter, sq, star = m.groups()
        c = parse_square(sq)
        exists_now(st, c)
        kind = PIECE_LETTERS.index(letter.upper())
        if star and kind != PAWN:
            raise NotationError(f"pieces field: {clip_input(item)}: only a pawn carries the moved mark *")
        if c in board:
            raise NotationError(f"pieces field: two pieces on {SQ_NAME[c]}")
        p = kind | (BLACK if letter.islower() else 0)
        if kind == PAWN:
            if promotes(p, XYZ[c][1]):
                raise NotationError(
                    f"pieces field: a pawn on {SQ_NAME[c]} would already have promoted"
                )
            if not star:
                p |= FRESH
        board[c] = p
    for colour, name in ((0, "white"), (BLACK, "black")):
        if sum(1 for p in board.values() if p == KING | colour) != 1:
            raise NotationError(f"pieces field: there must be exactly one {name} king")
    castling = 0
    if cfield != "-":
        for ch in cfield:
            if ch not in CASTLE_BITS or cfield.count(ch) > 1:
                raise NotationError(f"castling field must be a subset of KQkq or -, not {clip_input(cfield)!r}")
            black = int(ch.islower())
            colour = BLACK if black else 0
            rook = HOME_ROOK_K[black] if ch.upper() == "K" else HOME_ROOK_Q[black]
            # like python-chess, a right whose king or rook is not at home is dropped
            if board.get(HOME_KING[black]) == KING | colour and board.get(rook) == ROOK | colour:
                castling |= CASTLE_BITS[ch]
    ep = -1
    if epfield != "-":
        ep = parse_square(epfield)
        exists_now(st, ep)
        x, y, h = XYZ[ep]
        # the pawn that passed over ep belongs to the side that just moved
        victim = ep + (-6 if turn == 0 else 6)
        want = PAWN | (BLACK if turn == 0 else 0)
        if ep in board or board.get(victim, 0) & 15 != want:
            raise NotationError(
                f"en-passant square {SQ_NAME[ep]} must be empty with the pawn that just "
                "double-stepped right behind it"
            )
    try:
        halfmove, fullmove = int(hfield), int(ffield)
    except ValueError:
        raise NotationError("halfmove and fullmove must be numbers") from None
    if halfmove < 0 or fullmove < 1:
        raise NotationError("halfmove must be >= 0 and fullmove >= 1")
    st = State(pin_tuple, board, turn, castling, ep, halfmove, fullmove)  # type: ignore[arg-type]
    other = st.king(1 - turn)
    if attacked(board, st.geo, other, turn):
        raise NotationError("the side that is not to move is in check")
    return st


def file_letter(x: int) -> str:
    return FILES[x]
