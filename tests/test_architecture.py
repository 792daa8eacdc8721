"""The architecture contract (pyproject's [tool.importlinter]) holds, and it can fail.

The layers of ``server`` point one way, nothing in ``server`` or ``games``
takes part in an import cycle, and ``games`` never imports ``server``.  The
second and third tests copy the source into a temporary folder, add one
back-import, and check that import-linter says the contract is broken: a
contract that cannot fail would prove nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                           "sys.exit(lint_imports_command())", "--config", str(root / "pyproject.toml"),
                           "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def copy_tree(tmp_path: Path) -> Path:
    for name in ("server", "games"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_contract_is_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 3 kept, 0 broken." in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # mail reaching up to the processes: the layers contract (and a cycle).
        ("server/mail/guards.py", "from server.processes import worker  # noqa: F401",
         "server.mail is not allowed to import server.processes"),
        # the lifecycle calling a command: boards may not import commands.
        ("server/boards/lifecycle.py", "from server.commands import play  # noqa: F401",
         "server.boards is not allowed to import server.commands"),
        # a rules plugin reaching into the server.
        ("games/trimac/notation.py", "import server.store.model  # noqa: F401",
         "games never imports server BROKEN"),
    ],
)
def test_a_back_import_breaks_the_contract(tmp_path: Path, module: str, line: str, broken: str) -> None:
    root = copy_tree(tmp_path)
    path = root / module
    path.write_text(path.read_text() + "\n" + line + "\n")
    done = lint_imports(root)
    assert done.returncode != 0
    assert broken in done.stdout


def test_a_cycle_between_siblings_breaks_the_contract(tmp_path: Path) -> None:
    """Two command modules importing each other: the layers say nothing, the cycle contract does."""
    root = copy_tree(tmp_path)
    path = root / "server/commands/resolve.py"
    path.write_text(path.read_text() + "\nfrom server.commands import preview  # noqa: F401,E402\n")
    done = lint_imports(root)
    assert done.returncode != 0
    assert "No cycles are allowed in server.commands" in done.stdout


def test_server_holds_folders_and_only_its_entry_points() -> None:
    """A newcomer finds one folder per role; directly in server/ only the package and the CLI entry."""
    top = sorted(p.name for p in (ROOT / "server").glob("*.py"))
    assert top == ["__init__.py", "cli.py"]
    folders = sorted(p.name for p in (ROOT / "server").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == ["accounts", "boards", "commands", "core", "mail", "pictures", "processes", "store", "web"]
