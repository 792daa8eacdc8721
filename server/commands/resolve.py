"""Which command (or option) a typed word means: one resolver for every word.

pbmserv players typed abbreviations for decades (``chall``, ``prev``,
``sub``, ``stand``), and a mistyped word deserves a hint rather than a bare
"unknown".  The parser (``describe``/``dispatch``), challenge options and
``help commands`` all ask this module, so what the help shows is exactly
what the parser accepts.  The rules, in order:

1. an exact command word or alias (``qmove`` is ``queue``);
2. a prefix of a command's name at least as long as that command's
   ``abbrev`` (the original's minimum: ``chall``, ``prev``, ``sub``, ...),
   if exactly one command has it;
3. a prefix several commands share is refused with the candidates listed;
4. anything else is unknown, with "did you mean X?" when a known word is
   close (difflib's ratio).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

#: How alike an unknown word must be to a known one to be suggested.
CLOSE = 0.75


class Named(Protocol):
    name: str
    abbrev: int


C = TypeVar("C", bound=Named)


@dataclass(frozen=True)
class Resolution(Generic[C]):
    """The command a word names, or why it names none (``problem``)."""

    command: C | None
    problem: str = ""
    suggestion: str = ""


def unique(table: Mapping[str, C]) -> list[C]:
    """Each command of a word table once (aliases share the instance)."""
    seen: dict[int, C] = {}
    for cmd in table.values():
        seen.setdefault(id(cmd), cmd)
    return sorted(seen.values(), key=lambda c: c.name)


def prefix_matches(word: str, table: Mapping[str, C]) -> list[C]:
    return [c for c in unique(table) if c.name.startswith(word) and len(word) >= c.abbrev]


def suggest(word: str, known: Iterable[str]) -> str:
    """The closest known word, or "" when none is close enough."""
    close = difflib.get_close_matches(word.lower(), sorted(set(known)), n=1, cutoff=CLOSE)
    return close[0] if close else ""


def resolve(word: str, table: Mapping[str, C], extra_known: Iterable[str] = (),
            suggestion: bool = True) -> Resolution[C]:
    """The command ``word`` names in ``table`` (see the module docstring).

    ``extra_known`` are other words valid in the same place (game names
    where a general command is expected), offered as suggestions only.
    ``suggestion``: look for a close word when none matches (difflib: a
    reply's move, read as a possible command, paid for it on every move).
    """
    w = word.lower()
    if w in table:
        return Resolution(table[w])
    hits = prefix_matches(w, table) if w else []
    if len(hits) == 1:
        return Resolution(hits[0])
    if hits:
        names = ", ".join(c.name for c in hits)
        return Resolution(None, f"{word!r} is ambiguous: it could be {names}")
    close = suggest(w, [*table, *extra_known]) if suggestion else ""
    return Resolution(None, "", close)


def shortest(cmd: C, table: Mapping[str, C]) -> int:
    """The shortest prefix of ``cmd.name`` that resolves to it (what help shows)."""
    for n in range(max(1, cmd.abbrev), len(cmd.name) + 1):
        found = resolve(cmd.name[:n], table).command
        if found is cmd:
            return n
    return len(cmd.name)


def spelled(cmd: C, table: Mapping[str, C]) -> str:
    """``chall[enge]``: the part one must type, the rest in brackets."""
    n = shortest(cmd, table)
    return cmd.name if n >= len(cmd.name) else f"{cmd.name[:n]}[{cmd.name[n:]}]"


# -- options -----------------------------------------------------------------------

_OPTION = re.compile(r"^(?P<dashes>--?)(?P<name>[A-Za-z][A-Za-z0-9_-]*)(?P<rest>=.*)?$", re.DOTALL)


class AmbiguousOption(ValueError):
    """A shortened option that more than one option begins with."""


def option_name(typed: str, names: Iterable[str], dashes: str = "-") -> str:
    """The full option name for ``typed`` (any unambiguous prefix), else ``typed``.

    Where the candidates are forms of one word (``thread``/``threads``) the
    shortest, which the others begin with, is taken.
    """
    low = typed.lower()
    known = list(dict.fromkeys(n.lower() for n in names))
    if low in known:
        return low
    hits = [n for n in known if n.startswith(low)]
    if not hits:
        return typed
    first = min(hits, key=len)
    if all(h.startswith(first) for h in hits):
        return first
    raise AmbiguousOption(f"{dashes}{typed} is ambiguous: it could be "
                          + ", ".join(f"{dashes}{h}" for h in sorted(hits)))


def expand_options(tokens: list[str], names: Iterable[str], dashes: str = "-") -> list[str]:
    """Option tokens (``-siz=3``, ``--nag=3``) with their names written out in full.

    Only tokens with exactly ``dashes`` are touched; an unknown name is
    left as typed, for the game's own error message.
    """
    out = []
    names = list(names)
    for token in tokens:
        m = _OPTION.match(token)
        if m is None or m.group("dashes") != dashes or not names:
            out.append(token)
            continue
        full = option_name(m.group("name"), names, dashes)
        out.append(f"{dashes}{full}{m.group('rest') or ''}")
    return out
