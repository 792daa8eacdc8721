"""Each game package's ``__all__``: a star import gives the names it promises.

The expected names are written here, not read from ``__all__``: a misspelt
entry makes the star import raise, a dropped one leaves a name missing.
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "interweave": {"GAME", "Interweave", "State", "legal_turn_texts"},
    "tridchess": {"GAME", "TriDChess", "State", "START_POSITION", "perft"},
    "trimac": {"GAME", "State", "TriMac"},
    "warpweft": {"GAME", "State", "WarpAndWeft"},
    "weavedungeon": {"GAME", "WeaveDungeon"},
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_star_import_gives_the_public_names(package: str) -> None:
    module = importlib.import_module(f"games.{package}")
    names: dict[str, object] = {}
    exec(f"from games.{package} import *", names)
    got = {n for n in names if n != "__builtins__"}
    assert got == PUBLIC[package]
    assert all(names[n] is getattr(module, n) for n in got)
    assert type(names["GAME"]).__name__ == ({"tridchess": "TriDChess", "trimac": "TriMac", "warpweft": "WarpAndWeft",
                                              "interweave": "Interweave", "weavedungeon": "WeaveDungeon"}[package])
