"""Cross-check against a second, deliberately plain reading of spec §3-§4.

The plugin works on precomputed square tables; this reference walks
(file, rank) coordinates straight from the spec's wording, with no shared
code.  Both must list the same turns in positions from random games, with
reserves and en-passant rights, so a slip in a table or an optimisation
shows up as a difference.
"""

from __future__ import annotations

import random

from games.interweave import GAME

ORTH = [(0, 1), (0, -1), (1, 0), (-1, 0)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KN = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


def name(p):
    return "abcdefgh"[p[0]] + str(p[1] + 1)


def on(p):
    return 0 <= p[0] < 8 and 0 <= p[1] < 8


def add(p, d, k=1):
    return (p[0] + k * d[0], p[1] + k * d[1])


def parse(position: str):
    fields = position.split()
    board = {}
    for i, row in enumerate(fields[0].split("/")):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                board[(f, 7 - i)] = c
                f += 1
    white = fields[1] == "w"
    ep = None
    if fields[2] != "-":
        m, v = fields[2].split(":")
        ep = (("abcdefgh".index(m[0]), int(m[1]) - 1), ("abcdefgh".index(v[0]), int(v[1]) - 1))
    res = fields[3] if fields[3] != "-" else ""
    reserve = [c for c in res if c.isupper() == white]
    return board, white, ep, sorted({c.upper() for c in reserve}, key="SLR".index)


def steps(board, p, white, ep, reserve_types):
    """(landing, victims, promo, star) for the piece on p."""
    kind = board[p].upper()

    def enemy(q):
        return q in board and board[q].isupper() != white

    def friend(q):
        return q in board and board[q].isupper() == white

    def empty(q):
        return on(q) and q not in board

    out = []
    if kind == "K":
        out += [(add(p, d), (), "", False) for d in DIAG if empty(add(p, d))]
        out += [
            (add(p, d, 2), (add(p, d),), "", False)
            for d in ORTH
            if enemy(add(p, d)) and empty(add(p, d, 2))
        ]
        return out
    if kind in "SLR":
        for d in DIAG:
            k = 1
            while empty(add(p, d, k)):
                out.append((add(p, d, k), (), "", False))
                k += 1
    if kind == "R":
        out += [(p, (add(p, d),), "", True) for d in ORTH if enemy(add(p, d))]
    if kind == "S":
        for d in ORTH:
            k = 1
            while empty(add(p, d, k)):
                if k % 2 == 0:
                    nxt = add(p, d, k + 1)
                    out.append((add(p, d, k), (nxt,) if enemy(nxt) else (), "", False))
                k += 1
    if kind == "L":
        for d in ORTH:
            k = 1
            while empty(add(p, d, k)):
                if k % 2 == 0:
                    out.append((add(p, d, k), (), "", False))
                k += 1
            t = add(p, d, k)
            if on(t) and enemy(t) and k % 2 == 1:
                j = k + 1
                while empty(add(p, d, j)):
                    if j % 2 == 0:
                        out.append((add(p, d, j), (t,), "", False))
                    j += 1
        for v in KN:
            m, q = add(p, v), add(p, v, 2)
            if empty(q) and not friend(m):
                out.append((q, (m,) if enemy(m) else (), "", False))
    if kind == "P":
        fwd = 1 if white else -1
        start, pen, last = (1, 6, 7) if white else (6, 1, 0)
        cands = []
        for dx in (-1, 1):
            q1, q2 = (p[0] + dx, p[1] + fwd), (p[0] + 2 * dx, p[1] + 2 * fwd)
            if empty(q1):
                cands.append((q1, []))
                if p[1] == start and empty(q2):
                    cands.append((q2, []))
        m, q = (p[0], p[1] + fwd), (p[0], p[1] + 2 * fwd)
        if empty(q) and enemy(m):
            cands.append((q, [m]))
        if ep is not None and empty(q) and m == ep[0]:
            cands.append((q, [ep[1]]))
        for q, vic in cands:
            for d in ORTH:
                a, b = add(q, d), add(q, d, 2)
                if enemy(a) and b != p and friend(b):
                    vic.append(a)
            if q[1] == last:
                out += [(q, tuple(vic), t, False) for t in reserve_types]
            else:
                out.append((q, tuple(vic), "", False))
                if q[1] == pen:
                    out += [(q, tuple(vic), t, False) for t in reserve_types]
    return out


def text(p, st, first):
    q, vic, promo, star = st
    sep = "*" if star else ("x" if vic else "-")
    target = vic[0] if star else q
    return (name(p) if first else "") + sep + name(target) + (f"={promo}" if promo else "")


def reference_turns(position: str) -> list[str]:
    board, white, ep, reserve = parse(position)
    reserve = [c for c in "SLR" if c in reserve]
    first = [
        (p, st)
        for p in list(board)
        if board[p].isupper() == white
        for st in steps(board, p, white, ep, reserve)
    ]
    if any(st[1] for _, st in first):
        first = [(p, st) for p, st in first if st[1]]
    out = []

    def chain(board, p, st, prefix, res, is_first):
        board = dict(board)
        res = list(res)
        king = False
        own = "SLR"
        for v in st[1]:
            king |= board[v].upper() == "K"
            del board[v]
        piece = board.pop(p)
        if st[2]:
            res.remove(st[2])
            piece = st[2] if white else st[2].lower()
        board[st[0]] = piece
        prefix += text(p, st, is_first)
        if not st[1]:
            out.append(prefix)
            return
        kinds = [c for c in own if c in res]
        conts = [s for s in steps(board, st[0], white, None, kinds) if s[1]] if not king else []
        if not conts:
            out.append(prefix)
        for nxt in conts:
            chain(board, st[0], nxt, prefix, res, False)

    counts = parse_reserve_counts(position, white)
    for p, st in first:
        chain(board, p, st, "", counts, True)
    return out


def parse_reserve_counts(position: str, white: bool) -> list[str]:
    res = position.split()[3]
    return [c.upper() for c in res if c != "-" and c.isupper() == white]


def test_plugin_and_reference_agree_on_random_positions() -> None:
    rng = random.Random(11)
    starts = [
        "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1",
        "srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - SLRslr 0 1",
        "1rlkklr1/pppppppp/8/8/8/8/PPPPPPPP/1RLKKLR1 w - SSss 0 1",
    ]
    compared = 0
    for game_no in range(60):
        st = GAME.start(GAME.parse_options([f"-position={starts[game_no % 3]}"]), 2)
        while (seat := GAME.to_move(st)) is not None:
            position = GAME.position(st)
            mine = sorted(GAME.legal_moves(st))
            assert mine == sorted(reference_turns(position)), position
            compared += 1
            st = GAME.play(st, seat, rng.choice(mine))
    assert compared > 700
