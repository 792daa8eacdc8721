"""A plain second implementation of Warp and Weft, from the spec alone.

Written from /work/shared/rules/warpweft.md without importing anything of
``games.warpweft``.  The board is rebuilt square by square from 1.1 (patch
= both coordinates odd; thread centre = both even, Warp iff x/2 + y/2 is
odd; a Warp thread covers the squares above and below its centre, a Weft
thread those left and right, stubs on the unlabelled rim included), regions
touch when two of their squares share an edge (1.3), and a side's edges are
the threads whose stubs stick out of that edge (1.4).  The rules are 3.2-3.6:
Threading / Patching, the placement table, switches that must offer a
placement, connection after a placement, "no valid play" before a turn, and
the swap.  test_reference.py pins the geometry against the spec's tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WARP, WEFT, PATCH = "Warp", "Weft", "patch"
MARK = {WARP: "V", WEFT: "H"}
Square = tuple[int, int]


def square_name(x: int, y: int) -> str:
    """``A1`` for (0, 0); the rim gets ``@`` left of A and row 0 below 1."""
    return f"{chr(ord('A') + x)}{y + 1}"


@dataclass
class Board:
    """The regions of size ``n``: each named by its centre (a patch by its square)."""

    n: int
    kind: dict[str, str] = field(default_factory=dict)  # region -> Warp / Weft / patch
    cells: dict[str, set[Square]] = field(default_factory=dict)
    touches: dict[str, set[str]] = field(default_factory=dict)
    edges: dict[str, tuple[set[str], set[str]]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)


def build(n: int) -> Board:
    board = Board(n)
    last = 4 * n - 2  # the last labelled x or y
    region_at: dict[Square, str] = {}
    for y in range(last + 1):
        for x in range(last + 1):
            if x % 2 == 1 and y % 2 == 1:
                name, kind, cells = square_name(x, y), PATCH, [(x, y)]
            elif x % 2 == 0 and y % 2 == 0:
                warp = (x // 2 + y // 2) % 2 == 1
                kind = WARP if warp else WEFT
                cells = (
                    [(x, y + d) for d in (-1, 0, 1)] if warp else [(x + d, y) for d in (-1, 0, 1)]
                )
                name = square_name(x, y)
            else:
                continue
            board.kind[name] = kind
            board.cells[name] = set(cells)
            board.order.append(name)
            for c in cells:
                assert c not in region_at, c
                region_at[c] = name
    for name in board.kind:
        board.touches[name] = set()
    for (x, y), name in region_at.items():
        for dx, dy in ((1, 0), (0, 1)):
            other = region_at.get((x + dx, y + dy))
            if other is not None and other != name:
                board.touches[name].add(other)
                board.touches[other].add(name)

    def sticking_out(kind: str, test) -> set[str]:
        return {
            r for r, k in board.kind.items() if k == kind and any(test(c) for c in board.cells[r])
        }

    board.edges[WARP] = (
        sticking_out(WARP, lambda c: c[1] == last + 1),
        sticking_out(WARP, lambda c: c[1] == -1),
    )
    board.edges[WEFT] = (
        sticking_out(WEFT, lambda c: c[0] == -1),
        sticking_out(WEFT, lambda c: c[0] == last + 1),
    )
    return board


THREADING, PATCHING = "threads", "patches"


@dataclass
class Game:
    """Players: seat 0 (user1) starts as Warp and moves first."""

    board: Board
    patch_primary: bool
    owner: dict[str, str] = field(default_factory=dict)  # region -> Warp / Weft
    state: dict[str, str] = field(default_factory=dict)  # side -> threads / patches
    plies: int = 0  # placements and switches; the swap is not one
    swapped: bool = False
    winner: str | None = None  # side
    reason: str = ""  # "connection" / "no valid play"

    @property
    def side_to_move(self) -> str | None:
        if self.winner:
            return None
        return WARP if self.plies % 2 == 0 else WEFT

    def seat(self, side: str) -> int:
        """Which user plays ``side``: the swap exchanges them."""
        return (0 if side == WARP else 1) ^ int(self.swapped)


def start(n: int, patch_primary: bool) -> Game:
    mode = PATCHING if patch_primary else THREADING
    return Game(build(n), patch_primary, state={WARP: mode, WEFT: mode})


def placements(game: Game, side: str, mode: str) -> list[str]:
    """3.3's table."""
    board, owner = game.board, game.owner
    out = []
    for r in board.order:
        if r in owner:
            continue
        # Thread-Primary: own-direction threads freely, patches next to an
        # own thread; Patch-Primary the other way round.
        touching = any(owner.get(q) == side for q in board.touches[r])
        if mode == THREADING and board.kind[r] == side and (not game.patch_primary or touching):
            out.append(r)
        if mode == PATCHING and board.kind[r] == PATCH and (game.patch_primary or touching):
            out.append(r)
    return out


def legal_moves(game: Game) -> list[str]:
    side = game.side_to_move
    if side is None:
        return []
    mode = game.state[side]
    other = PATCHING if mode == THREADING else THREADING
    moves = placements(game, side, mode)
    if placements(game, side, other):
        moves.append(other)
    if game.plies == 1 and not game.swapped:
        moves.append("swap")
    return moves


def connected(game: Game, side: str) -> bool:
    """1.4: some group of the side's regions holds a thread of each of its edges."""
    first, second = game.board.edges[side]
    mine = {r for r, o in game.owner.items() if o == side}
    for begin in first & mine:
        seen, todo = {begin}, [begin]
        while todo:
            r = todo.pop()
            if r in second:
                return True
            for s in game.board.touches[r]:
                if s in mine and s not in seen:
                    seen.add(s)
                    todo.append(s)
    return False


def play(game: Game, move: str) -> Game:
    """The game after a legal move (as listed by :func:`legal_moves`)."""
    new = Game(
        game.board,
        game.patch_primary,
        dict(game.owner),
        dict(game.state),
        game.plies,
        game.swapped,
    )
    side = game.side_to_move
    assert side is not None
    if move == "swap":
        new.swapped = True
    elif move in (THREADING, PATCHING):
        new.state[side] = move
        new.plies += 1
    else:
        new.owner[move] = side
        new.plies += 1
        if connected(new, side):
            new.winner, new.reason = side, "connection"
            return new
    nxt = new.side_to_move
    assert nxt is not None
    if not placements(new, nxt, THREADING) and not placements(new, nxt, PATCHING):
        # 3.5: the side to move has no valid play and loses.
        new.winner, new.reason = (WEFT if nxt == WARP else WARP), "no valid play"
    return new
