"""Build spec-style test positions as position strings (spec §1.1).

The spec lists test positions as ``W: Ke5 Kh1. B: Re6 Ld5``; :func:`fen`
turns such lists into the position string the plugin must accept, so every
test starts from ``-position=`` exactly as a player would.
"""

from __future__ import annotations

from typing import Any

from games.interweave import GAME


def fen(
    white: str,
    black: str,
    side: str = "w",
    ep: str = "-",
    reserves: str = "-",
    halfmove: int = 0,
    fullmove: int = 1,
) -> str:
    board = [["."] * 8 for _ in range(8)]
    for pieces, upper in ((white, True), (black, False)):
        for item in pieces.split():
            letter, f, r = item[0], "abcdefgh".index(item[1]), int(item[2]) - 1
            assert board[r][f] == ".", item
            board[r][f] = letter.upper() if upper else letter.lower()
    rows = []
    for r in range(7, -1, -1):
        row, gap = "", 0
        for c in board[r]:
            if c == ".":
                gap += 1
            else:
                row += (str(gap) if gap else "") + c
                gap = 0
        rows.append(row + (str(gap) if gap else ""))
    return f"{'/'.join(rows)} {side} {ep} {reserves} {halfmove} {fullmove}"


def state(white: str, black: str, **kw: Any) -> Any:
    """A game started from the position, through the ``-position`` option."""
    opts = GAME.parse_options([f"-position={fen(white, black, **kw)}"])
    return GAME.start(opts, 2)


def plain(turn: str) -> str:
    """A spec turn with its readability ``{captured}`` lists removed."""
    out, depth = "", 0
    for c in turn:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif not depth:
            out += c
    return out


def play_all(st: Any, *moves: str) -> Any:
    for mv in moves:
        st = GAME.play(st, GAME.to_move(st), mv)
    return st


def words(text: str) -> list[str]:
    """A sorted list of the space-separated turns in ``text`` (spec lists)."""
    return sorted(text.split())
