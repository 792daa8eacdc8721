"""Where the templates and migrations are, installed or in a checkout.

They live at the top of the source tree (the project's layout) and are
copied into the ``server`` package of the wheel, so a plain ``pip install .``
carries them.  An editable install or a checkout finds them beside ``server``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template

#: The ``server`` package: the wheel puts templates/ and migrations/ inside it.
_HERE = Path(__file__).resolve().parent.parent


def _locate(name: str) -> Path:
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pbmserv is missing its {name}/ folder (looked in {_HERE})")


def migrations_dir() -> Path:
    return _locate("migrations")


def templates_dir() -> Path:
    return _locate("templates")


@cache
def _template(name: str) -> Template:
    return Template((templates_dir() / name).read_text(encoding="utf-8"))


def render_template(name: str, **values: object) -> str:
    """Fill ``templates/NAME`` (``$word`` placeholders); unknown words stay as they are."""
    return _template(name).safe_substitute({k: str(v) for k, v in values.items()})
