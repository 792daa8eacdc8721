"""Cross-check against a slow, independent reading of the spec.

The reference below rebuilds everything from the position string on every
call: the existing cells from the pin table of §1.3, levels per column
(§4.1), the move vectors (§4.2), pawns (§4.3), castling (§4.4), attack-board
moves from the §3.2 table, and legality by trying every move and looking for
any enemy capture of the king.  No caches, no pin shortcut.  On positions
from random games its move list must equal the plugin's exactly.
"""

from __future__ import annotations

import random
from itertools import permutations, product

import pytest

from games.tridchess import GAME
from tests.games.tridchess.helpers import ST
from tests.games.tridchess.test_attackboards import ADJACENCY_TABLE

FILES = "zabcde"
MAINS = {"W": (1, 1), "N": (3, 3), "B": (5, 5)}
PIN_Y0 = {1: 0, 2: 4, 3: 2, 4: 6, 5: 4, 6: 8}
PIN_UP = {1: 2, 2: 2, 3: 4, 4: 4, 5: 6, 6: 6}
DIRS = [d for d in product((-1, 0, 1), repeat=3) if d != (0, 0, 0)]
ROOK = [d for d in DIRS if d[0] == 0 or d[1] == 0]
BISHOP = [d for d in DIRS if d[0] != 0 and d[1] != 0]
KNIGHT = {
    (a * s, b * t, c * u)
    for a, b, c in permutations((2, 1, 0))
    for s, t, u in product((1, -1), repeat=3)
}


def pin_cells(name: str) -> set[tuple[int, int, int]]:
    files = (0, 1) if name[0] == "Q" else (4, 5)
    n = int(name[2])
    layer = PIN_UP[n] - (2 if name.endswith("i") else 0)
    return {(x, y, layer) for x in files for y in (PIN_Y0[n], PIN_Y0[n] + 1)}


def all_cells(pins: dict[str, str]) -> set[tuple[int, int, int]]:
    cells = {
        (x, y, layer)
        for layer, y0 in MAINS.values()
        for x in range(1, 5)
        for y in range(y0, y0 + 4)
    }
    for pin in pins.values():
        cells |= pin_cells(pin)
    return cells


def name_of(c, pins) -> str:
    x, y, h = c
    if h % 2:
        level = {1: "W", 3: "N", 5: "B"}[h]
    else:
        level = next(p for p in pins.values() if c in pin_cells(p))
    return f"{FILES[x]}{y}{level}"


def cell_of(sq: str) -> tuple[int, int, int]:
    x, y, level = FILES.index(sq[0]), int(sq[1]), sq[2:]
    h = MAINS[level][0] if level in MAINS else next(iter(pin_cells(level)))[2]
    return (x, y, h)


class Pos:
    def __init__(self, text: str) -> None:
        boards, pieces, side, castle, ep, _half, full = text.split()
        self.pins = dict(item.split(":") for item in boards.split(","))
        self.board = {}
        for item in pieces.split(","):
            moved = item.endswith("*")
            item = item.rstrip("*")
            colour = "b" if item[0].islower() else "w"
            self.board[cell_of(item[1:])] = (colour, item[0].upper(), moved)
        self.side = side
        self.castle = castle
        self.ep = None if ep == "-" else cell_of(ep)
        self.full = int(full)


def level(cells, x, y, h, dz):
    col = sorted(k for k in range(7) if (x, y, k) in cells)
    if dz == 0:
        return h if h in col else None
    seq = [k for k in col if k > h] if dz > 0 else [k for k in col if k < h][::-1]
    return seq[abs(dz) - 1] if len(seq) >= abs(dz) else None


def step(cells, c, d):
    x, y, h = c
    k = level(cells, x + d[0], y + d[1], h, d[2])
    return None if k is None else (x + d[0], y + d[1], k)


def targets(cells, board, c, with_quiet_pawn: bool):
    """Cells the piece on c may go to (captures included); pawns: quiet part optional."""
    colour, kind, moved = board[c]
    out = []
    if kind in "RBQ":
        dirs = {"R": ROOK, "B": BISHOP, "Q": DIRS}[kind]
        for d in dirs:
            cur = step(cells, c, d)
            while cur is not None:
                out.append(cur)
                if cur in board:
                    break
                cur = step(cells, cur, d)
    elif kind in "KN":
        for d in DIRS if kind == "K" else KNIGHT:
            t = step(cells, c, d)
            if t is not None:
                out.append(t)
    else:
        f = 1 if colour == "w" else -1
        caps = [step(cells, c, (dx, f, dz)) for dx in (-1, 1) for dz in (0, f)]
        out += [t for t in caps if t is not None]
        if with_quiet_pawn:
            return out, [
                t
                for t in (
                    step(cells, c, (0, f, 0)),
                    step(cells, c, (0, 0, f)),
                    step(cells, c, (0, f, f)),
                )
                if t is not None
            ]
    return out


def attacked(cells, board, t, by: str) -> bool:
    for c, (colour, _kind, _m) in board.items():
        if colour == by:
            ts = targets(cells, board, c, False)
            if t in ts:
                return True
    return False


def king_of(board, colour):
    return next(c for c, (col, kind, _m) in board.items() if col == colour and kind == "K")


def promotes(colour, y) -> bool:
    return y >= 8 if colour == "w" else y <= 1


def reference_moves(text: str) -> list[str]:
    p = Pos(text)
    me, them = p.side, ("b" if p.side == "w" else "w")
    cells = all_cells(p.pins)
    board = p.board
    cands = []  # (text, new_board, new_pins)

    def add(mv_text, nb, pins=None):
        cands.append((mv_text, nb, pins or p.pins))

    for c, (colour, kind, moved) in list(board.items()):
        if colour != me:
            continue
        letter = "" if kind == "P" else kind
        if kind != "P":
            for t in targets(cells, board, c, False):
                if t in board and board[t][0] == me:
                    continue
                nb = dict(board)
                del nb[c]
                sep = "x" if t in board else "-"
                nb[t] = (colour, kind, True)
                add(f"{letter}{name_of(c, p.pins)}{sep}{name_of(t, p.pins)}", nb)
            continue
        caps, quiet = targets(cells, board, c, True)
        dests = [(t, "-") for t in quiet if t not in board]
        fwd = step(cells, c, (0, 1 if me == "w" else -1, 0))
        if not moved and fwd is not None and fwd not in board:
            dbl = step(cells, fwd, (0, 1 if me == "w" else -1, 0))
            if dbl is not None and dbl not in board:
                dests.append((dbl, "-"))
        for t in caps:
            if t in board and board[t][0] == them:
                dests.append((t, "x"))
            elif t not in board and t == p.ep:
                nb = dict(board)
                del nb[c]
                nb[t] = (me, "P", True)
                del nb[(t[0], t[1] - (1 if me == "w" else -1), t[2])]
                add(f"{name_of(c, p.pins)}x{name_of(t, p.pins)} e.p.", nb)
        for t, sep in dests:
            base = f"{name_of(c, p.pins)}{sep}{name_of(t, p.pins)}"
            for promo in "QRBN" if promotes(me, t[1]) else "":
                nb = dict(board)
                del nb[c]
                nb[t] = (me, promo, True)
                add(f"{base}={promo}", nb)
            if not promotes(me, t[1]):
                nb = dict(board)
                del nb[c]
                nb[t] = (me, "P", True)
                add(base, nb)
    # castling (§4.4)
    y, h = (0, 2) if me == "w" else (9, 6)
    k_home, rk, rq = (4, y, h), (5, y, h), (0, y, h)
    king = king_of(board, me)
    if p.full > 1 and king == k_home and not attacked(cells, board, king, them):
        for right, rook, dest, label in (("K", rk, rk, "O-O"), ("Q", rq, (1, y, h), "O-O-O")):
            r = right if me == "w" else right.lower()
            if r not in p.castle or board.get(rook) != (me, "R", board.get(rook, (0, 0, 0))[2]):
                continue
            between = [(x, y, h) for x in range(min(rook[0], 4) + 1, max(rook[0], 4))]
            if any(b in board for b in between) or dest not in cells:
                continue
            if dest != rook and dest in board:
                continue
            if attacked(cells, board, dest, them):
                continue
            nb = dict(board)
            rook_piece = nb.pop(rook)
            king_piece = nb.pop(king)
            nb[dest] = king_piece
            nb[king if label == "O-O" else king] = rook_piece
            add(label, nb)
    # attack boards (§3)
    mine = ("WQ", "WK") if me == "w" else ("BQ", "BK")
    taken = set(p.pins.values())
    for ab in mine:
        frm = p.pins[ab]
        occ = [c for c in pin_cells(frm) if c in board]
        if len(occ) > 1 or (occ and board[occ[0]][1] != "P"):
            continue
        q = "Q" + frm[1:]
        ranks, side, flip = ADJACENCY_TABLE[q]
        options = [(r, "rank") for r in ranks] + [(side, "side"), (flip, "flip")]
        for to, how in options:
            if frm[0] == "K":
                to = {"Q": "K", "K": "Q"}[to[0]] + to[1:]
            if to in taken or (how == "flip" and occ):
                continue
            pins = dict(p.pins)
            pins[ab] = to
            nb = dict(board)
            promo_list = [""]
            if occ:
                c = occ[0]
                piece = nb.pop(c)
                f0 = min(x for x, _y, _h in pin_cells(frm))
                f1 = min(x for x, _y, _h in pin_cells(to))
                y0 = min(yy for _x, yy, _h in pin_cells(frm))
                y1 = min(yy for _x, yy, _h in pin_cells(to))
                t = (c[0] + f1 - f0, c[1] + y1 - y0, next(iter(pin_cells(to)))[2])
                if promotes(piece[0], t[1]):
                    if piece[0] != me:
                        continue
                    promo_list = ["=Q", "=R", "=B", "=N"]
                nb[t] = (piece[0], "P", True)
                for pr in promo_list:
                    nb2 = dict(nb)
                    if pr:
                        nb2[t] = (me, pr[1], True)
                    add(f"{frm}-{to}{pr}", nb2, pins)
            else:
                add(f"{frm}-{to}", nb, pins)
    legal = []
    for mv_text, nb, pins in cands:
        c2 = all_cells(pins)
        if not attacked(c2, nb, king_of(nb, me), them):
            legal.append(mv_text)
    return sorted(legal)


def _positions(start_text: str | None, plies: int, seed: int):
    rng = random.Random(seed)
    opts = GAME.parse_options([f"-position={start_text}"] if start_text else [])
    s = GAME.start(opts, 2)
    for _ in range(plies):
        yield s
        if GAME.to_move(s) is None:
            return
        s = GAME.play(s, s.turn, rng.choice(GAME.legal_moves(s)))


OPEN = f"{ST} Qb4N,Rc3W,Pa2W,Pd2W*,Kb1W,qc6N,rb6B,pa7B,pd7B*,kc8B w - - 0 10"
CASTLE = f"{ST} Rz0QL1,Kd0KL1,Re0KL1,Pz1QL1,Pd1KL1,rz9QL6,kd9KL6,re9KL6,pz8QL6,pe8KL6,Bb4N,nc6B w KQkq - 0 5"


EP = f"{ST} Pd5N*,Pb5B*,Pa2W,Pc2W,pc7B,pa7B,pb4N*,pd4W*,Kb1W,ka8B b - - 0 10"
PROMO = (
    "WQ:QL4,WK:KL1,BQ:QL3i,BK:KL6 Pa7QL4*,Pb7B*,Pc6N*,pz2QL3i*,pc2W*,Qd3N,Kb1W,kd8B,rc8B w - - 0 10"
)


@pytest.mark.parametrize(
    ("start", "seed", "plies"),
    [
        (None, 1, 70),
        (None, 2, 70),
        (OPEN, 3, 60),
        (OPEN, 4, 60),
        (CASTLE, 5, 40),
        (EP, 6, 40),
        (EP, 7, 40),
        (PROMO, 8, 40),
        (PROMO, 9, 40),
    ],
)
def test_plugin_matches_reference(start: str | None, seed: int, plies: int) -> None:
    for s in _positions(start, plies, seed):
        if GAME.to_move(s) is None:
            break
        text = GAME.position(s)
        assert sorted(GAME.legal_moves(s)) == reference_moves(text), text
