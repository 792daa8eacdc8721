"""Shared fixtures for the TriMac tests: positions from the spec's strings."""

from __future__ import annotations

from pathlib import Path

from games.trimac import GAME
from games.trimac.state import State

#: A verbatim copy of the shared rules spec (rules/trimac.md), kept in the
#: checkout so the tests never read a file outside it.
SPEC = Path(__file__).parent / "data" / "trimac_spec.md"
#: Spec §8 fixture: the central Guards keep the f-files closed.
BASE = "rK@Rf1 rA@Rf4 bK@Bf1 bA@Bf4 gK@Gf1 gA@Gf4"


def pos(text: str) -> State:
    """A game started from a position string (through the -position option)."""
    return GAME.start(GAME.parse_options([f"-position={text}"]), 3)


def base(extra: str = "") -> State:
    return pos(f"{BASE} {extra}")


def moves_from(state: State, square: str) -> list[str]:
    """Destinations of the piece on ``square``, captures marked '(x)', sorted."""
    out = []
    for mv in GAME.legal_moves(state):
        if mv[:3].lower() == square.lower():
            out.append(mv[4:] + ("(x)" if mv[3] == "x" else ""))
    return sorted(out)


def spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def spec_block(after: str) -> str:
    """The first fenced code block after the heading/line ``after`` in the spec."""
    text = spec_text()
    i = text.index(after)
    a = text.index("```\n", i) + 4
    b = text.index("```", a)
    return text[a:b]
