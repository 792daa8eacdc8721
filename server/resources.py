"""Where the templates and migrations are, installed or in a checkout.

They live at the top of the source tree (the project's layout) and are
copied into the ``server`` package of the wheel, so a plain ``pip install .``
carries them.  An editable install or a checkout finds them beside ``server``.
"""

from __future__ import annotations

import textwrap
from functools import cache
from pathlib import Path
from string import Template

_HERE = Path(__file__).resolve().parent


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


#: Reply lines fit in this many columns (RFC 5322 recommends 78).
WIDTH = 78


def wrap(text: str, indent: str = "", width: int = WIDTH) -> str:
    """Prose wrapped to ``width`` columns, each line after ``indent``.

    Lines that start with white space are pre-formatted (a quoted command, a
    table, a board) and kept as they are; so are words longer than a line.
    """
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or line[0].isspace():
            out.append((indent + line).rstrip())
            continue
        out.extend(textwrap.wrap(line, width=width, initial_indent=indent, subsequent_indent=indent,
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)


def _prose(line: str) -> bool:
    """A line of running text, not a board row or a table (those have runs of spaces or rules)."""
    return "  " not in line.strip() and not any(c in line for c in "|+\t")


def wrap_prose(text: str, width: int = WIDTH) -> str:
    """Every over-long line of running text wrapped to ``width``; boards and tables left alone.

    The last guard before a mail goes out: whatever a command or a plugin
    wrote as one long sentence still reaches the player at 78 columns, while
    a board the spec allows to be wider is never broken.
    """
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width or not _prose(line):
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip())]
        out.extend(textwrap.wrap(line, width=width, initial_indent="", subsequent_indent=lead,
                                 break_long_words=False, break_on_hyphens=False) or [line])
    return "\n".join(out)
