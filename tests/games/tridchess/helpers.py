"""Small helpers shared by the Tri-D chess tests."""

from __future__ import annotations

from games.tridchess import GAME, State

#: the start attack-board placement, as the spec's test cases write it ("ST")
ST = "WQ:QL1,WK:KL1,BQ:QL6,BK:KL6"


def pos(text: str) -> State:
    """A state from a spec §1.7 position string, through the public option path."""
    return GAME.start(GAME.parse_options([f"-position={text}"]), 2)


def legal(state: State) -> list[str]:
    return sorted(GAME.legal_moves(state))


def moves_from(state: State, square: str) -> list[str]:
    """Legal piece moves starting on ``square`` (piece letter ignored)."""
    out = []
    for mv in GAME.legal_moves(state):
        body = mv[1:] if mv[0] in "KQRBN" else mv
        if body.startswith(square) and body[len(square)] in "-x":
            out.append(mv)
    return sorted(out)


def board_moves(state: State, pin: str | None = None) -> list[str]:
    """Legal attack-board moves, optionally only those of the board on ``pin``."""
    out = [m for m in GAME.legal_moves(state) if m[:2] in ("QL", "KL")]
    if pin is not None:
        out = [m for m in out if m.split("-")[0] == pin]
    return sorted(out)


def play(state: State, *moves: str) -> State:
    for mv in moves:
        state = GAME.play(state, GAME.to_move(state), mv)
    return state
