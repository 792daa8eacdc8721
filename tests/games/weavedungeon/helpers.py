"""Test helpers: build positions the way the spec writes them ("W: Ki1 Tc3")."""

from __future__ import annotations

from typing import Any

from games.weavedungeon import GAME

FILES = "abcdefghi"


def fen(white: str, black: str, side: str = "w", pool: str = "-", fullmove: int = 1) -> str:
    """A 3.10 position string from spec-style lists such as ``"Ki1 Tc3"``."""
    grid = [["" for _ in range(9)] for _ in range(9)]
    for colour, text in ((0, white), (1, black)):
        for item in text.split():
            letter, file, rank = item[0], FILES.index(item[1]), int(item[2]) - 1
            assert not grid[rank][file], item
            grid[rank][file] = letter.upper() if colour == 0 else letter.lower()
    rows = []
    for rank in range(8, -1, -1):
        row, empty = "", 0
        for file in range(9):
            ch = grid[rank][file]
            if not ch:
                empty += 1
                continue
            row += (str(empty) if empty else "") + ch
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {side} {pool} {fullmove}"


def state(white: str, black: str, side: str = "w", pool: str = "-") -> Any:
    text = fen(white, black, side, pool)
    return GAME.start(GAME.parse_options([f"-position={text}"]), 2)


def dests(st: Any, square: str) -> set[str]:
    """Destinations of the piece on ``square``, a capture written ``d3x``."""
    out = set()
    for mv in GAME.legal_moves(st):
        body = mv[1:].split("=")[0]
        if body[:2] == square:
            out.add(body[3:5] + ("x" if body[2] == "x" else ""))
    return out


def play_all(st: Any, moves: str) -> Any:
    """Play a move list like ``"1. Da2-a3 Da8-a7 2. ..."`` (numbers ignored)."""
    for word in moves.split():
        if word[0].isdigit():
            continue
        st = GAME.play(st, GAME.to_move(st), word)
    return st


def placement_of(white: str, black: str) -> str:
    return fen(white, black).split()[0]


def squares(text: str) -> set[str]:
    """``"a1 b2x"`` -> ``{"a1", "b2x"}`` (spec lists are space separated)."""
    return set(text.split())


def words(text: str) -> list[str]:
    return text.split()
