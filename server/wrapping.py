"""Prose for mail: every line of a reply fits in 78 columns.

Boards are drawn by the games (some are allowed to be wider); the sentences
around them are ours, and long ones (a headline naming three players, a
reply that explains what to send next) are wrapped here, keeping each
line's indentation.  Lines that fit are left exactly as they are.
"""

from __future__ import annotations

import textwrap

WIDTH = 78


def wrap(text: str, width: int = WIDTH) -> str:
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(line.strip(), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False, break_long_words=False)
    return "\n".join(out)
