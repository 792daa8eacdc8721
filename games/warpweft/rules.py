"""The rules of Warp and Weft: state, legal placements, switching, swap, end.

Sides are 0 = Warp (Vert, V, connects top and bottom) and 1 = Weft (Horz,
H, connects left and right).  Seats are users in challenge order; seat 0
plays Warp until a swap, after which seat 0 plays Weft (spec 3.6).  Board
state, Threading/Patching states and the result all belong to the *sides*.

A :class:`State` is immutable; :func:`apply` returns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from games.contract import IllegalMove
from games.warpweft.geometry import KIND_NAMES, PATCH, WARP, WEFT, Geometry, geometry
from games.warpweft.notation import PATCHING, THREADING, Move, parse_move

SIDE_NAMES = ("Warp", "Weft")
SIDE_MARKS = ("V", "H")
EDGE_NAMES = (("top", "bottom"), ("left", "right"))
#: Region owner when nobody has claimed it.
FREE = -1


@dataclass(frozen=True)
class State:
    """Everything that decides how the game goes on.

    ``owners[r]`` is the side owning region ``r`` (or FREE); ``states[s]``
    is THREADING or PATCHING for side ``s``; ``plies`` counts board moves
    (placements and switches, not the swap), so the side to move is
    ``plies % 2``; ``history`` is every accepted move text, the swap
    included.  ``winner`` is the winning side once the game is over.
    """

    size: int
    patch_primary: bool
    compact: bool
    owners: tuple[int, ...]
    states: tuple[str, str]
    swapped: bool = False
    plies: int = 0
    history: tuple[str, ...] = ()
    winner: int | None = None
    reason: str = ""

    @property
    def geo(self) -> Geometry:
        return geometry(self.size)

    @property
    def side_to_move(self) -> int | None:
        return None if self.winner is not None else self.plies % 2

    def seat_of(self, side: int) -> int:
        """The seat playing ``side`` (swaps exchange them)."""
        return side ^ int(self.swapped)

    def side_of(self, seat: int) -> int:
        return seat ^ int(self.swapped)


def start(size: int, patch_primary: bool, compact: bool = False) -> State:
    geo = geometry(size)
    first = PATCHING if patch_primary else THREADING
    return State(
        size=size,
        patch_primary=patch_primary,
        compact=compact,
        owners=(FREE,) * geo.count,
        states=(first, first),
    )


# -- legal placements ------------------------------------------------------


def placements(state: State, side: int, mode: str) -> list[int]:
    """Regions ``side`` may claim when in state ``mode`` (spec 3.3 table)."""
    geo, owners = state.geo, state.owners
    if mode == THREADING:
        free = [r for r in geo.of_kind[side] if owners[r] == FREE]
        if not state.patch_primary:
            return free
        return [r for r in free if any(owners[p] == side for p in geo.patches_of[r])]
    free = [r for r in geo.of_kind[PATCH] if owners[r] == FREE]
    if state.patch_primary:
        return free
    return [r for r in free if any(owners[t] == side for t in geo.threads_of[r])]


def has_placement(state: State, side: int, mode: str) -> bool:
    """Whether :func:`placements` is non-empty, without building the list."""
    geo, owners = state.geo, state.owners
    if mode == THREADING:
        for r in geo.of_kind[side]:
            if owners[r] == FREE and (
                not state.patch_primary or any(owners[p] == side for p in geo.patches_of[r])
            ):
                return True
        return False
    for r in geo.of_kind[PATCH]:
        if owners[r] == FREE and (
            state.patch_primary or any(owners[t] == side for t in geo.threads_of[r])
        ):
            return True
    return False


def other_mode(mode: str) -> str:
    return PATCHING if mode == THREADING else THREADING


def mode_word(mode: str) -> str:
    """``Threading`` / ``Patching``, as the help calls the states."""
    return "Threading" if mode == THREADING else "Patching"


def can_swap(state: State) -> bool:
    return state.winner is None and not state.swapped and state.plies == 1


def legal_moves(state: State) -> list[str]:
    """Placements in board order, then the switch, then ``swap``."""
    side = state.side_to_move
    if side is None:
        return []
    mode = state.states[side]
    moves = [state.geo.names[r] for r in placements(state, side, mode)]
    if has_placement(state, side, other_mode(mode)):
        moves.append(other_mode(mode))
    if can_swap(state):
        moves.append("swap")
    return moves


# -- connection ---------------------------------------------------------------


def connected(state: State, side: int, region: int) -> bool:
    """Whether ``side``'s group through ``region`` joins its two edges."""
    geo, owners = state.geo, state.owners
    first, second = geo.edges[side]
    seen = {region}
    todo = [region]
    hit_first = hit_second = False
    while todo:
        r = todo.pop()
        hit_first = hit_first or r in first
        hit_second = hit_second or r in second
        if hit_first and hit_second:
            return True
        for n in geo.neighbours[r]:
            if n not in seen and owners[n] == side:
                seen.add(n)
                todo.append(n)
    return False


def winning_chain(state: State) -> list[int]:
    """The winner's shortest chain of regions from one of its edges to the other, in order
    (empty when nobody has won by connecting: no winner yet, or a win because the
    other side had no valid play)."""
    side = state.winner
    if side is None:
        return []
    geo, owners = state.geo, state.owners
    first, second = geo.edges[side]
    came: dict[int, int | None] = {r: None for r in first if owners[r] == side}
    todo = list(came)
    while todo:
        nxt = []
        for r in todo:
            if r in second:
                chain = [r]
                while (back := came[chain[-1]]) is not None:
                    chain.append(back)
                return chain[::-1]
            for n in geo.neighbours[r]:
                if n not in came and owners[n] == side:
                    came[n] = r
                    nxt.append(n)
        todo = nxt
    return []


# -- playing -----------------------------------------------------------------


def apply(state: State, seat: int, text: str) -> State:
    """The state after ``seat`` plays ``text``, or IllegalMove saying why."""
    geo = state.geo
    move = parse_move(geo, text)
    if state.winner is not None:
        raise IllegalMove("the game is over; no more moves can be made")
    if move.kind == "swap":
        return _swap(state, seat)
    side = state.side_to_move
    assert side is not None
    if seat != state.seat_of(side):
        raise IllegalMove(f"it is not your turn: {SIDE_NAMES[side]} is to move")
    mode = state.states[side]
    if move.kind == "switch":
        return _switch(state, side, mode, move)
    return _place(state, side, mode, move)


def _swap(state: State, seat: int) -> State:
    if state.swapped:
        raise IllegalMove("the sides have already been swapped; swap is allowed only once")
    if state.plies != 1:
        raise IllegalMove("swap is allowed only as the second move, right after move 1")
    if seat != state.seat_of(WEFT):
        raise IllegalMove("only the second player may swap")
    new = replace(state, swapped=True, history=(*state.history, "swap"))
    return _finish(new)


def _switch(state: State, side: int, mode: str, move: Move) -> State:
    if move.state == mode:
        raise IllegalMove(f"you are already {mode_word(mode)}")
    if not has_placement(state, side, move.state):
        raise IllegalMove(
            f"you cannot switch to {mode_word(move.state)}: {_nothing_to_claim(state, side, move.state)}"
        )
    states = list(state.states)
    states[side] = move.state
    new = replace(
        state,
        states=(states[0], states[1]),
        plies=state.plies + 1,
        history=(*state.history, move.state),
    )
    return _finish(new)


def _nothing_to_claim(state: State, side: int, mode: str) -> str:
    """Why ``mode`` offers ``side`` no placement (for the refusal)."""
    if mode == THREADING:
        if state.patch_primary:
            return f"no free {SIDE_NAMES[side]} thread touches one of your patches"
        return f"every {SIDE_NAMES[side]} thread is claimed"
    if state.patch_primary:
        return "every patch is claimed"
    return "no free patch touches one of your threads"


def _place(state: State, side: int, mode: str, move: Move) -> State:
    geo, owners = state.geo, state.owners
    r = move.region
    name = geo.names[r]
    kind = geo.kinds[r]
    if owners[r] != FREE:
        whose = "you" if owners[r] == side else SIDE_NAMES[owners[r]]
        raise IllegalMove(f"{name} is already claimed by {whose}")
    if kind != PATCH and kind != side:
        raise IllegalMove(f"{name} is a {KIND_NAMES[kind]}; you place {SIDE_NAMES[side]} threads")
    if kind == PATCH and mode == THREADING:
        raise IllegalMove(f"{name} is a patch and you are Threading; switch with 'patches' first")
    if kind != PATCH and mode == PATCHING:
        raise IllegalMove(f"{name} is a thread and you are Patching; switch with 'threads' first")
    if (
        kind == PATCH
        and not state.patch_primary
        and not any(owners[t] == side for t in geo.threads_of[r])
    ):
        raise IllegalMove(f"{name} touches none of your threads")
    if (
        kind != PATCH
        and state.patch_primary
        and not any(owners[p] == side for p in geo.patches_of[r])
    ):
        raise IllegalMove(f"{name} touches none of your patches")
    new_owners = list(owners)
    new_owners[r] = side
    new = replace(
        state,
        owners=tuple(new_owners),
        plies=state.plies + 1,
        history=(*state.history, name),
    )
    if connected(new, side, r):
        first, second = EDGE_NAMES[side]
        return replace(
            new, winner=side, reason=f"{SIDE_NAMES[side]} connected {first} and {second}"
        )
    return _finish(new)


def _finish(state: State) -> State:
    """End the game if the side now to move has no valid play (spec 3.5)."""
    side = state.side_to_move
    if side is None:
        return state
    if has_placement(state, side, THREADING) or has_placement(state, side, PATCHING):
        return state
    return replace(
        state,
        winner=1 - side,
        reason=f"{SIDE_NAMES[side]} has no valid play",
    )


__all__ = [
    "FREE",
    "SIDE_MARKS",
    "SIDE_NAMES",
    "WARP",
    "WEFT",
    "State",
    "apply",
    "legal_moves",
    "start",
]
