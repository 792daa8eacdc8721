"""A deliberately plain second reading of the Interweave spec (3-5), for cross-checks.

Written from /work/shared/rules/interweave.md without importing anything of
``games.interweave``: pieces walk (file, rank) coordinates straight from the
spec's wording (3.1-3.5), turns follow 4 (compulsory capture, same-piece
chains, promotion mid-chain), and a game follows 5 (king capture, threefold
repetition loses for the repeater, no legal turn loses, the 100-turn draw)
and 3.5.4 / 1.1 for the en-passant field, reserves and counters.  It keeps
the whole repetition history (the engine may forget what can never recur).

Squares are ``(file, rank)`` with a1 = (0, 0); a board is a dict square ->
letter, upper case White (K S L R P), lower case Black.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ORTH = [(0, 1), (0, -1), (1, 0), (-1, 0)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KN = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


def name(p):
    return "abcdefgh"[p[0]] + str(p[1] + 1)


def on(p):
    return 0 <= p[0] < 8 and 0 <= p[1] < 8


def add(p, d, k=1):
    return (p[0] + k * d[0], p[1] + k * d[1])


def _parse(position: str):
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


@dataclass
class Turn:
    """What one complete legal turn does."""

    board: dict
    captured: list  # letters of every captured piece
    king: bool  # a King was captured
    origin: tuple
    first_landing: tuple
    steps: int
    pawn: bool  # the turn was made by a Pawn (its first step)
    promoted: list  # promotion letters used


@dataclass
class Game:
    board: dict
    white: bool
    ep: tuple | None  # (passed square M, victim square V)
    reserves: dict  # True/False -> list of letters "S" "L" "R" (the side's own captured pieces)
    halfmove: int
    fullmove: int
    fifty: bool = True
    history: dict = field(default_factory=dict)
    result: tuple | None = None  # (winner "White"/"Black"/None, kind)
    turns: dict = field(default_factory=dict)  # text -> Turn

    def key(self) -> str:
        return " ".join(position_string(self).split()[:4])


def parse(position: str, fifty: bool = True) -> Game:
    board, white, ep, _ = _parse(position)
    res = position.split()[3]
    reserves = {True: [], False: []}
    for c in res.replace("-", ""):
        reserves[c.isupper()].append(c.upper())
    fields = position.split()
    game = Game(board, white, ep, reserves, int(fields[4]), int(fields[5]), fifty)
    game.history[game.key()] = 1
    game.turns = legal_turns(game)
    if not game.turns:
        game.result = ("Black" if white else "White", "stalemate")
    elif fifty and game.halfmove >= 100:
        game.result = (None, "fifty-move")
    return game


def position_string(game: Game) -> str:
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            c = game.board.get((f, r))
            if c is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + c
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    res = "".join(sorted(game.reserves[True], key="SLR".index))
    res += "".join(sorted(game.reserves[False], key="SLR".index)).lower()
    ep = f"{name(game.ep[0])}:{name(game.ep[1])}" if game.ep else "-"
    side = "w" if game.white else "b"
    return f"{'/'.join(rows)} {side} {ep} {res or '-'} {game.halfmove} {game.fullmove}"


def legal_turns(game: Game) -> dict:
    """Every complete legal turn (section 4), text -> what it does."""
    board, white, ep = game.board, game.white, game.ep
    reserve = game.reserves[white]
    kinds = [c for c in "SLR" if c in reserve]
    first = [
        (p, st)
        for p in list(board)
        if board[p].isupper() == white
        for st in steps(board, p, white, ep, kinds)
    ]
    if any(st[1] for _, st in first):
        first = [(p, st) for p, st in first if st[1]]
    out: dict = {}

    def chain(board, p, st, prefix, res, captured, promoted, n, origin, landing):
        board = dict(board)
        res, captured, promoted = list(res), list(captured), list(promoted)
        king = False
        for v in st[1]:
            king |= board[v].upper() == "K"
            captured.append(board.pop(v))
        piece = board.pop(p)
        if st[2]:
            res.remove(st[2])
            promoted.append(st[2])
            piece = st[2] if white else st[2].lower()
        board[st[0]] = piece
        prefix += text(p, st, n == 0)
        landing = landing or st[0]
        conts = []
        if st[1] and not king:
            kinds = [c for c in "SLR" if c in res]
            conts = [s for s in steps(board, st[0], white, None, kinds) if s[1]]
        if not conts:
            pawn = game.board[origin].upper() == "P"
            out[prefix] = Turn(board, captured, king, origin, landing, n + 1, pawn, promoted)
        for nxt in conts:
            chain(board, st[0], nxt, prefix, res, captured, promoted, n + 1, origin, landing)

    for p, st in first:
        chain(board, p, st, "", reserve, [], [], 0, p, None)
    return out


def play(game: Game, move: str) -> Game:
    """The game after a listed turn; section 5 decides the result."""
    turn = game.turns[move]
    me = game.white
    reserves = {True: list(game.reserves[True]), False: list(game.reserves[False])}
    for letter in turn.promoted:
        reserves[me].remove(letter)
    for c in turn.captured:
        if c.upper() in "SLR":
            reserves[c.isupper()].append(c.upper())  # back to its owner's reserve
    ep = None
    o, q = turn.origin, turn.first_landing
    if turn.steps == 1 and turn.pawn and abs(q[0] - o[0]) == 2:
        ep = (((o[0] + q[0]) // 2, (o[1] + q[1]) // 2), q)
    new = Game(
        turn.board,
        not me,
        ep,
        reserves,
        0 if (turn.captured or turn.pawn) else game.halfmove + 1,
        game.fullmove + (0 if me else 1),
        game.fifty,
        dict(game.history),
    )
    key = new.key()
    new.history[key] = new.history.get(key, 0) + 1
    colour = {True: "White", False: "Black"}
    if turn.king:
        new.result = (colour[me], "king-capture")
        return new
    if new.history[key] >= 3:
        new.result = (colour[not me], "repetition")
        return new
    new.turns = legal_turns(new)
    if not new.turns:
        new.result = (colour[me], "stalemate")
    elif new.fifty and new.halfmove >= 100:
        new.result = (None, "fifty-move")
    return new


def legal_moves(game: Game) -> list[str]:
    return [] if game.result else list(game.turns)
