"""Game plugins that fail to import (issue 26, item 20).

A server whose plugins all fail answered every player that their game does
not exist; one broken plugin made its game "unknown".  Now ``serve`` refuses
to start with no game, and a broken game is "temporarily unavailable".

The broken plugin is a real entry point: a ``*.dist-info`` with an
``entry_points.txt`` on sys.path, naming a module that raises on import,
found by the same importlib.metadata discovery the installed games use.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import games
from tests.mailtools import free_port
from tests.server.conftest import Running, start_server

ROOT = Path(__file__).resolve().parents[3]


def broken_distribution(where: Path, name: str) -> None:
    info = where / f"{name}_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pbmserv.games]\n{name} = {name}_rules:GAME\n")
    (where / f"{name}_rules.py").write_text('raise ImportError("libfoo.so.3: cannot open shared object file")\n')


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    broken_distribution(tmp_path, "gobang")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(games, "_discovered", None)
    monkeypatch.setattr(games, "_broken", {})
    yield
    monkeypatch.setattr(games, "_discovered", None)


def test_a_broken_game_is_temporarily_unavailable_never_unknown(broken: None, sqlite_url: str, sink) -> None:  # type: ignore[no-untyped-def]
    assert "gobang" in games.unavailable() and "libfoo" in games.unavailable()["gobang"]
    running = Running(start_server(sqlite_url, sink), sink)
    try:
        running.mail("alice@example.org", "signup alice apple1")
        for subject in ("gobang challenge alice bob", "help gobang", "GOBANG help"):
            (reply,) = running.mail("alice@example.org", subject)
            text = " ".join(reply.text.split())
            assert "The game gobang is temporarily unavailable on this server" in text, text
            assert "Unknown" not in text and "No help on" not in text and "libfoo" not in text
        # the other games still play
        (reply,) = running.mail("alice@example.org", "warpandweft help")
        assert "Warp and Weft" in reply.text
    finally:
        running.server.stop()


def test_serve_refuses_to_start_with_no_game(tmp_path: Path) -> None:
    """Every plugin fails to import: serve exits 78 and says why, instead of answering "unknown"."""
    shadow = tmp_path / "games"
    shutil.copytree(ROOT / "games", shadow, ignore=shutil.ignore_patterns("__pycache__"))
    # The installed game plugins (their entry points), not every package under games/ (the
    # computer opponent's engine is one too, and is no plugin).
    plugins = {ep.value.split(":")[0].split(".")[1] for ep in entry_points(group="pbmserv.games")}
    assert plugins
    for name in plugins:
        (shadow / name / "__init__.py").write_text('raise ImportError("numpy is missing")\n')
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    proc = subprocess.run([sys.executable, "-m", "server.cli", "--database-url", f"sqlite:///{tmp_path / 'x.db'}",
                           "--listen", f"127.0.0.1:{free_port()}", "--relay", "127.0.0.1:1", "serve"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 78, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("pbmserv: no game plugin could be loaded") and "numpy is missing" in last
    assert "listening" not in proc.stderr
