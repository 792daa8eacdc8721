"""How much one command, one reply and one mail may cost.

One 1 KB mail of 50 x ``all show sock0`` (a sock puppet in 1,500 boards) took
80 s of worker time, 1.66 GB of memory and composed a 260 MB reply.  Every
listing is therefore paged (``... page N`` continues it), every composed
body is cut at MAX_REPLY_CHARS, and the results a mail accumulates stop
growing once its reply is full.
"""

from __future__ import annotations

from games.digits import is_digits
from server.core.errors import CommandError

#: Boards drawn in one ``show`` / ``all show`` reply.
BOARDS_PER_REPLY = 10
#: Rows of one table (``list``, ``games``) in one reply.
ROWS_PER_REPLY = 100
#: Characters of one reply's text: about 100 KB, far beyond any honest answer.
MAX_REPLY_CHARS = 100_000
CUT_NOTE = "\n[... the rest is cut: a reply holds at most {limit} characters.]\n"


def page_arg(args: list[str], usage: str) -> tuple[list[str], int]:
    """Strip a trailing ``page N`` from ``args``: (the other args, N >= 1)."""
    if len(args) >= 2 and args[-2].lower() == "page":
        word = args[-1]
        if not is_digits(word) or not 1 <= int(word) <= 100_000:
            raise CommandError(f"page {word}: give a page number from 1 (usage: {usage})")
        return args[:-2], int(word)
    return args, 1


def page_slice(total: int, page: int, size: int) -> slice:
    return slice((page - 1) * size, page * size)


def more_note(total: int, page: int, size: int, command: str) -> str:
    """The continuation line, or "" when this page is the last."""
    shown_to = min(total, page * size)
    if shown_to >= total:
        return ""
    return (f"... and {total - shown_to} more (this reply shows {(page - 1) * size + 1}-{shown_to} of {total}): "
            f"ask for '{command} page {page + 1}'.")


def cut(text: str, limit: int = MAX_REPLY_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying so."""
    if len(text) <= limit:
        return text
    return text[:limit] + CUT_NOTE.format(limit=limit)


def fit_result(text: str, used: int) -> str:
    """A result's text for a combined reply that already holds ``used`` characters."""
    room = MAX_REPLY_CHARS - used
    if room <= 200:
        return "(not shown: this reply is full; send the command on its own)"
    return cut(text, room)
