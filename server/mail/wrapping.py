"""Prose for mail: every line of a reply fits in 78 columns.

Boards are drawn by the games (some are allowed to be wider); the sentences
around them are ours, and long ones (a headline naming three players, a
reply that explains what to send next) are wrapped here, keeping each
line's indentation.  Lines that fit are left exactly as they are.  One
module for the three ways replies need it, so they cannot drift apart.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

#: Reply lines fit in this many columns (RFC 5322 recommends 78).
WIDTH = 78


def _refill(text: str, width: int, wants: Callable[[str], bool]) -> str:
    """Each line over ``width`` that ``wants`` accepts, wrapped under its own indentation."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width or not wants(line):
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(line.strip(), width, initial_indent=lead, subsequent_indent=lead,
                             break_on_hyphens=False, break_long_words=False) or [line]
    return "\n".join(out)


def wrap(text: str, width: int = WIDTH) -> str:
    """Every over-long line wrapped: for text that is all ours (no board in it)."""
    return _refill(text, width, lambda line: True)


def _prose(line: str) -> bool:
    """A line of running text, not a board row or a table (those have runs of spaces or rules)."""
    return "  " not in line.strip() and not any(c in line for c in "|+\t")


def wrap_prose(text: str, width: int = WIDTH) -> str:
    """Every over-long line of running text wrapped; boards and tables left alone.

    The last guard before a mail goes out: whatever a command or a plugin
    wrote as one long sentence still reaches the player at 78 columns, while
    a board the spec allows to be wider is never broken.
    """
    return _refill(text, width, _prose)


def wrap_indented(text: str, indent: str = "", width: int = WIDTH) -> str:
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
