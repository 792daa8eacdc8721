"""An independent Tri-D Chess referee, written from the spec alone.

Nothing here comes from ``games.tridchess``. Cells are ``(x, y, layer)``
tuples rebuilt from the pin table of §1.3; "one level up/down" is found by
listing the column's existing cells (§4.1); attack-board adjacency is
computed by §3.2's rule (the test pins it against §3.2's table); pieces,
pawns and castling follow §4; legality plays every candidate move and asks
whether any enemy piece could capture the king (§4.5, §5). The referee
keeps its own game record -- castling rights (from which pieces have ever
moved), en passant, the move counters, the repetition history -- so that
bookkeeping bugs cannot hide behind a position string the engine wrote.

Where the spec is silent the referee follows the project's DECISIONs,
marked DECISION below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from itertools import permutations, product

FILES = "zabcde"
MAINS = {"W": (1, 1), "N": (3, 3), "B": (5, 5)}  # level -> (layer, lowest rank)
PIN_Y0 = {1: 0, 2: 4, 3: 2, 4: 6, 5: 4, 6: 8}  # §1.3: rank pair covered
PIN_UP = {1: 2, 2: 2, 3: 4, 4: 4, 5: 6, 6: 6}  # §1.3: layer of the upright pin
ALL_PINS = [f"{s}L{n}{i}" for s in "QK" for n in range(1, 7) for i in ("", "i")]
START_PINS = {"WQ": "QL1", "WK": "KL1", "BQ": "QL6", "BK": "KL6"}
ST = "WQ:QL1,WK:KL1,BQ:QL6,BK:KL6"
DIRS = [d for d in product((-1, 0, 1), repeat=3) if d != (0, 0, 0)]
ROOK = [d for d in DIRS if d[0] == 0 or d[1] == 0]  # B, D, E of §4.2: 14
BISHOP = [d for d in DIRS if d[0] != 0 and d[1] != 0]  # C and F: 12
KNIGHT = sorted({(a * s, b * t, c * u) for a, b, c in permutations((2, 1, 0))
                 for s, t, u in product((1, -1), repeat=3)})

Cell = tuple[int, int, int]
Piece = tuple[str, str, bool]  # colour "w"/"b", kind letter, has moved


def pin_layer(pin: str) -> int:
    return PIN_UP[int(pin[2])] - (2 if pin.endswith("i") else 0)


def pin_cells(pin: str) -> set[Cell]:
    files = (0, 1) if pin[0] == "Q" else (4, 5)
    y0 = PIN_Y0[int(pin[2])]
    return {(x, y, pin_layer(pin)) for x in files for y in (y0, y0 + 1)}


def adjacent(pin: str) -> list[tuple[str, str]]:
    """§3.2's rule: nearest same-side pin of the layer up and down the ranks,
    the sideways twin, and the flip to the other pin of the same corner."""
    side, y0, layer = pin[0], PIN_Y0[int(pin[2])], pin_layer(pin)
    same = [p for p in ALL_PINS if p[0] == side and p != pin and pin_layer(p) == layer]
    above = [p for p in same if PIN_Y0[int(p[2])] > y0]
    below = [p for p in same if PIN_Y0[int(p[2])] < y0]
    out = []
    if above:
        out.append((min(above, key=lambda p: PIN_Y0[int(p[2])]), "rank"))
    if below:
        out.append((max(below, key=lambda p: PIN_Y0[int(p[2])]), "rank"))
    out.append(({"Q": "K", "K": "Q"}[side] + pin[1:], "side"))
    out.append((pin[:-1] if pin.endswith("i") else pin + "i", "flip"))
    return out


class Cells(frozenset):
    """The existing cells of one pin placement; steps on it are cached (the
    geometry is a pure function of the placement, so caching changes nothing
    but speed)."""

    def __new__(cls, pins: tuple[str, ...]):
        cells = {(x, y, layer) for layer, y0 in MAINS.values() for x in range(1, 5)
                 for y in range(y0, y0 + 4)}
        for pin in pins:
            cells |= pin_cells(pin)
        self = super().__new__(cls, cells)
        self.steps = {}
        return self


@cache
def _cells(pins: tuple[str, ...]) -> Cells:
    return Cells(pins)


def cells_of(pins: dict[str, str]) -> Cells:
    return _cells(tuple(sorted(pins.values())))


def name_of(c: Cell, pins: dict[str, str]) -> str:
    x, y, h = c
    if h % 2:
        level = {1: "W", 3: "N", 5: "B"}[h]
    else:
        level = next(p for p in pins.values() if c in pin_cells(p))
    return f"{FILES[x]}{y}{level}"


def cell_of(sq: str) -> Cell:
    x, y, level = FILES.index(sq[0]), int(sq[1]), sq[2:]
    return (x, y, MAINS[level][0] if level in MAINS else pin_layer(level))


def step(cells: Cells, c: Cell, d: tuple[int, int, int]) -> Cell | None:
    """§4.1: S, U/U2 or D/D2 of the column (x+dx, y+dy)."""
    key = (c, d)
    if key not in cells.steps:
        cells.steps[key] = _step(cells, c, d)
    return cells.steps[key]


def _step(cells: Cells, c: Cell, d: tuple[int, int, int]) -> Cell | None:
    x, y, h = c[0] + d[0], c[1] + d[1], c[2]
    column = sorted(k for k in range(7) if (x, y, k) in cells)
    if d[2] == 0:
        return (x, y, h) if h in column else None
    seq = [k for k in column if k > h] if d[2] > 0 else [k for k in column if k < h][::-1]
    return (x, y, seq[abs(d[2]) - 1]) if len(seq) >= abs(d[2]) else None


def promotes(colour: str, y: int) -> bool:
    """P7 (DECISION): White on y >= 8, Black on y <= 1, however it got there."""
    return y >= 8 if colour == "w" else y <= 1


def captures(cells: Cells, board: dict[Cell, Piece], c: Cell) -> list[Cell]:
    """Cells the piece on c attacks (could capture on), §4.2-§4.3."""
    colour, kind, _moved = board[c]
    out = []
    if kind in "RBQ":
        for d in {"R": ROOK, "B": BISHOP, "Q": DIRS}[kind]:
            cur = step(cells, c, d)
            while cur is not None:
                out.append(cur)
                if cur in board:
                    break
                cur = step(cells, cur, d)
    elif kind in "KN":
        out = [t for d in (DIRS if kind == "K" else KNIGHT) if (t := step(cells, c, d))]
    else:  # P5: diagonal forward, and the diagonal stair-step toward the enemy
        f = 1 if colour == "w" else -1
        out = [t for dx in (-1, 1) for dz in (0, f) if (t := step(cells, c, (dx, f, dz)))]
    return out


def attacked(cells: Cells, board: dict[Cell, Piece], t: Cell, by: str) -> bool:
    return any(col == by and t in captures(cells, board, c) for c, (col, _k, _m) in board.items())


def king_of(board: dict[Cell, Piece], colour: str) -> Cell:
    return next(c for c, (col, kind, _m) in board.items() if (col, kind) == (colour, "K"))


# -- positions (§1.7) ---------------------------------------------------------------
HOME = {  # castling homes (§1.4, §4.4): king, K-side rook, Q-side rook
    "w": ((4, 0, 2), (5, 0, 2), (0, 0, 2)),
    "b": ((4, 9, 6), (5, 9, 6), (0, 9, 6)),
}


@dataclass
class Pos:
    pins: dict[str, str]
    board: dict[Cell, Piece]
    side: str
    castle: frozenset[str]
    ep: Cell | None
    half: int
    full: int

    @classmethod
    def parse(cls, text: str) -> Pos:
        boards, pieces, side, castle, ep, half, full = text.split()
        if boards.upper() == "ST":
            boards = ST
        pins = dict(item.split(":") for item in boards.split(","))
        board: dict[Cell, Piece] = {}
        for item in pieces.split(","):
            moved = item.endswith("*")
            item = item.rstrip("*")
            colour = "b" if item[0].islower() else "w"
            board[cell_of(item[1:])] = (colour, item[0].upper(), moved)
        rights = set()
        for r in "" if castle == "-" else castle:
            colour = "w" if r.isupper() else "b"
            king, rook_k, rook_q = HOME[colour]
            rook = rook_k if r.upper() == "K" else rook_q
            # DECISION (the engine's, after python-chess): a right whose king
            # or rook is not at home is dropped when the position is read.
            if board.get(king, ())[:2] == (colour, "K") and board.get(rook, ())[:2] == (colour, "R"):
                rights.add(r)
        return cls(pins, board, side, frozenset(rights), None if ep == "-" else cell_of(ep),
                   int(half), int(full))

    def fields(self) -> tuple:
        """Everything a position string says, in a comparable form."""
        pieces = frozenset(
            (name_of(c, self.pins), colour, kind, moved if kind == "P" else False)
            for c, (colour, kind, moved) in self.board.items()
        )
        ep = None if self.ep is None else name_of(self.ep, self.pins)
        return (tuple(sorted(self.pins.items())), pieces, self.side, self.castle, ep,
                self.half, self.full)


# -- moves ------------------------------------------------------------------------------
def _after(pos: Pos, board: dict[Cell, Piece], pins: dict[str, str] | None, reset: bool,
           ep: Cell | None) -> Pos:
    """The next position: castling rights kept only while the king and that
    rook have never moved (a captured rook is gone: its home holds another
    piece or nothing); counters per §4.5."""
    rights = set(pos.castle)
    for r in pos.castle:
        colour = "w" if r.isupper() else "b"
        king, rook_k, rook_q = HOME[colour]
        rook = rook_k if r.upper() == "K" else rook_q
        if board.get(king) != (colour, "K", False) or board.get(rook) != (colour, "R", False):
            rights.discard(r)
    return Pos(
        pins=pins or pos.pins,
        board=board,
        side="b" if pos.side == "w" else "w",
        castle=frozenset(rights),
        ep=ep,
        half=0 if reset else pos.half + 1,
        full=pos.full + (pos.side == "b"),
    )


def candidates(pos: Pos) -> list[tuple[str, Pos]]:
    """Every pseudo-legal move of the side to move, with the position after it."""
    me = pos.side
    them = "b" if me == "w" else "w"
    f = 1 if me == "w" else -1
    cells = cells_of(pos.pins)
    board = pos.board
    out: list[tuple[str, Pos]] = []

    def moved_piece(c: Cell, t: Cell, kind: str | None = None) -> dict[Cell, Piece]:
        nb = dict(board)
        colour, k, _m = nb.pop(c)
        nb[t] = (colour, kind or k, True)
        return nb

    for c, (colour, kind, moved) in list(board.items()):
        if colour != me:
            continue
        src = name_of(c, pos.pins)
        if kind != "P":
            for t in captures(cells, board, c):
                if t in board and board[t][0] == me:
                    continue
                sep = "x" if t in board else "-"
                out.append((f"{kind}{src}{sep}{name_of(t, pos.pins)}",
                            _after(pos, moved_piece(c, t), None, t in board, None)))
            continue
        dests: list[tuple[Cell, str, Cell | None]] = []  # (to, separator, ep square made)
        fwd = step(cells, c, (0, f, 0))  # P1
        if fwd is not None and fwd not in board:
            dests.append((fwd, "-", None))
            dbl = step(cells, fwd, (0, f, 0))  # P2: same layer, never moved
            if not moved and dbl is not None and dbl not in board:
                dests.append((dbl, "-", fwd))
        for d in ((0, 0, f), (0, f, f)):  # P3, P4
            t = step(cells, c, d)
            if t is not None and t not in board:
                dests.append((t, "-", None))
        for t in captures(cells, board, c):  # P5, P6
            if t in board and board[t][0] == them:
                dests.append((t, "x", None))
            elif t not in board and t == pos.ep:
                nb = moved_piece(c, t)
                del nb[(t[0], t[1] - f, t[2])]
                out.append((f"{src}x{name_of(t, pos.pins)} e.p.", _after(pos, nb, None, True, None)))
        for t, sep, ep in dests:
            text = f"{src}{sep}{name_of(t, pos.pins)}"
            if promotes(me, t[1]):
                for promo in "QRBN":
                    out.append((f"{text}={promo}", _after(pos, moved_piece(c, t, promo), None, True, None)))
            else:
                out.append((text, _after(pos, moved_piece(c, t), None, True, ep)))
    # castling (§4.4)
    king, rook_k, rook_q = HOME[me]
    if pos.full > 1 and board.get(king, ())[:2] == (me, "K") and not attacked(cells, board, king, them):
        for right, rook, dest, label in (("K", rook_k, rook_k, "O-O"),
                                         ("Q", rook_q, (1, king[1], king[2]), "O-O-O")):
            if (right if me == "w" else right.lower()) not in pos.castle:
                continue
            between = [(x, king[1], king[2]) for x in range(min(rook[0], 4) + 1, max(rook[0], 4))]
            if any(b in board for b in between) or dest not in cells:
                continue
            if dest != rook and dest in board:
                continue
            if attacked(cells, board, dest, them):
                continue
            nb = dict(board)
            r_piece, k_piece = nb.pop(rook), nb.pop(king)
            nb[dest] = (me, "K", True)
            nb[king] = (me, "R", True)
            assert k_piece[1] == "K" and r_piece[1] == "R"
            out.append((label, _after(pos, nb, None, False, None)))
    # attack boards (§3)
    taken = set(pos.pins.values())
    for ab in ("WQ", "WK") if me == "w" else ("BQ", "BK"):
        frm = pos.pins[ab]
        occ = [c for c in pin_cells(frm) if c in board]
        if len(occ) > 1 or (occ and board[occ[0]][1] != "P"):  # A1
            continue
        for to, how in adjacent(frm):
            if to in taken or (how == "flip" and occ):  # A4, A2
                continue
            pins = dict(pos.pins)
            pins[ab] = to
            if not occ:
                out.append((f"{frm}-{to}", _after(pos, dict(board), pins, False, None)))
                continue
            c = occ[0]
            nb = dict(board)
            colour, _kind, _moved = nb.pop(c)
            fx = min(x for x, _, _ in pin_cells(to)) - min(x for x, _, _ in pin_cells(frm))
            fy = PIN_Y0[int(to[2])] - PIN_Y0[int(frm[2])]
            t = (c[0] + fx, c[1] + fy, pin_layer(to))  # A5: no rotation
            if promotes(colour, t[1]):  # A8
                if colour != me:
                    continue
                for promo in "QRBN":
                    nb2 = dict(nb)
                    nb2[t] = (me, promo, True)
                    out.append((f"{frm}-{to}={promo}", _after(pos, nb2, pins, True, None)))
            else:
                nb[t] = (colour, "P", True)  # A6: a carried pawn has moved
                out.append((f"{frm}-{to}", _after(pos, nb, pins, True, None)))
    return out


def legal(pos: Pos) -> dict[str, Pos]:
    me, them = pos.side, ("b" if pos.side == "w" else "w")
    return {
        text: after
        for text, after in candidates(pos)
        if not attacked(cells_of(after.pins), after.board, king_of(after.board, me), them)
    }


def in_check(pos: Pos) -> bool:
    them = "b" if pos.side == "w" else "w"
    return attacked(cells_of(pos.pins), pos.board, king_of(pos.board, pos.side), them)


# -- the game -------------------------------------------------------------------------
def repetition_key(pos: Pos, moves: dict[str, Pos]) -> tuple:
    """§4.5: pieces, pins, side, castling, en passant, double-step rights.

    DECISION (issue 18): the en-passant square counts only when an en-passant
    capture is *legal* (FIDE 9.2), not merely possible for a pawn."""
    ep = pos.ep if any(m.endswith("e.p.") for m in moves) else None
    pieces = frozenset((c, colour, kind, kind == "P" and not moved)
                       for c, (colour, kind, moved) in pos.board.items())
    return (tuple(sorted(pos.pins.items())), pieces, pos.side, pos.castle, ep)


@dataclass
class Game:
    pos: Pos
    moves: dict[str, Pos] = field(default_factory=dict)
    keys: list[tuple] = field(default_factory=list)
    result: tuple[tuple[int, ...], tuple[int, ...], str] | None = None

    @classmethod
    def from_position(cls, text: str) -> Game:
        g = cls(Pos.parse(text))
        g.settle(captured=False)
        return g

    def settle(self, captured: bool) -> None:
        """The legal moves and the outcome of the current position (§4.5)."""
        self.moves = legal(self.pos)
        self.keys.append(repetition_key(self.pos, self.moves))
        side = 0 if self.pos.side == "w" else 1
        if captured and len(self.pos.board) == 2:
            self.result = ((), (), "dead")
        elif self.keys.count(self.keys[-1]) >= 3:
            self.result = ((), (), "repetition")
        elif not self.moves:
            self.result = ((1 - side,), (side,), "checkmate") if in_check(self.pos) \
                else ((), (), "stalemate")
        elif self.pos.half >= 100:  # "unless that 100th ply mates": mate is tested first
            self.result = ((), (), "100 plies")
        if self.result is not None:
            self.moves = {}

    def play(self, text: str) -> None:
        before = len(self.pos.board)
        self.pos = self.moves[text]
        self.settle(captured=len(self.pos.board) < before)
