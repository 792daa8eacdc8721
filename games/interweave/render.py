"""ASCII boards for mail: the author's diagram style, where ``:`` marks dark squares.

Square colour matters in every Interweave decision (pieces stay on their
colour and capture only on the other one), so both boards show it: the
full board as ``|:S:|`` vs ``| S |`` cells, the compact one as ``:`` vs
``.`` for empty squares.
"""

from __future__ import annotations

import textwrap

from games.interweave.board import DARK, EMPTY, NAMES, SIDE_NAMES, WHITE
from games.interweave.position import Position
from games.interweave.rules import State

FILE_LINE = "     a   b   c   d   e   f   g   h"


def _reserve(pos: Position, side: int) -> str:
    letters = "".join(t * n for t, n in zip("SLR", pos.reserves[side], strict=True))
    if side != WHITE:
        letters = letters.lower()
    return " ".join(letters) if letters else "-"


def _status(state: State, moveno: int | None = None, over: bool = False) -> str:
    if state.result is not None:
        return textwrap.fill(f"Game over. {state.result.reason}.", width=79)
    if over:  # ended by the server (resignation, forfeit, agreed draw): nobody is to move
        return "Game over."
    pos = state.pos
    number = f"#{moveno}" if moveno is not None else str(pos.fullmove)
    return f"{SIDE_NAMES[pos.side]} to move (move {number})."


def _ep(pos: Position) -> str | None:
    if pos.ep is None:
        return None
    m, v = pos.ep
    return (
        f"En passant: the Pawn on {NAMES[v]} passed {NAMES[m]}; "
        f"{SIDE_NAMES[pos.side]} may leap over {NAMES[m]} to take it."
    )


def render_full(state: State, moveno: int | None = None, over: bool = False, black_below: bool = False) -> str:
    """The mailed board; ``black_below``: turned for the Black player (rank 1 at the top, h on the left)."""
    pos = state.pos
    black = ["Black: k s l r p", f"Black reserve: {_reserve(pos, 1)}"]
    white = [f"White reserve: {_reserve(pos, 0)}", "White: K S L R P"]
    key = ["", "K King     S Smasher", "L Leaper   R Remover", "P Pawn     :x: dark square"]
    # top to bottom beside the ranks: each side's lines on its own side, the key between
    legend = (white[::-1] + key + black[::-1]) if black_below else (black + key + white)
    ranks, files = (range(8), range(7, -1, -1)) if black_below else (range(7, -1, -1), range(8))
    file_line = "     " + "   ".join("abcdefgh"[f] for f in files)
    lines = [file_line]
    for line_no, r in enumerate(ranks):
        cells = []
        for f in files:
            s = r * 8 + f
            c = pos.board[s]
            shown = " " if c == EMPTY else c
            cells.append(f":{shown}:" if DARK[s] else f" {shown} ")
        row = f" {r + 1} |" + "|".join(cells) + f"| {r + 1}"
        extra = legend[line_no]
        lines.append(f"{row}   {extra}" if extra else row)
    lines.append(file_line)
    lines.append("")
    if state.last:
        lines.append(f"Last move: {state.last}")
    ep = _ep(pos)
    if ep:
        lines.append(ep)
    lines.append(f"Turns since a capture or Pawn move: {pos.halfmove}")
    lines.append(_status(state, moveno, over))
    return "\n".join(lines) + "\n"


def render_compact(state: State, moveno: int | None = None, over: bool = False, black_below: bool = False) -> str:
    pos = state.pos
    lines = []
    ranks, files = (range(8), range(7, -1, -1)) if black_below else (range(7, -1, -1), range(8))
    for r in ranks:
        row = "".join(
            (":" if DARK[r * 8 + f] else ".")
            if pos.board[r * 8 + f] == EMPTY
            else pos.board[r * 8 + f]
            for f in files
        )
        lines.append(f"{r + 1} {row}")
    lines.append("  " + "".join("abcdefgh"[f] for f in files))
    info = f"Reserves W:{_reserve(pos, 0).replace(' ', '')} B:{_reserve(pos, 1).replace(' ', '')}"
    if pos.ep is not None:
        info += f"  ep {NAMES[pos.ep[0]]}:{NAMES[pos.ep[1]]}"
    lines.append(info)
    if state.last:
        lines.append(f"Last move: {state.last}")
    lines.append(_status(state, moveno, over))
    return "\n".join(lines) + "\n"
