"""Reference data read from the seed and the spec themselves, never from our code.

The seed help page (its board drawing) and the spec (its boards, its size-4
inventory tables and its test-case move lists) are read from the shared
folder when it is there, else from the verbatim copies in ``data/`` (kept so
the suite also runs from a checkout without the shared folder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data"
SHARED = Path("/work/shared")
SEED_NAME = "001_a5cff8e40bddb205.txt"
SPEC_NAME = "warpweft.md"


def seed_path() -> Path:
    shared = SHARED / "seeds" / SEED_NAME
    return shared if shared.exists() else DATA / f"seed_{SEED_NAME}"


def spec_path() -> Path:
    shared = SHARED / "rules" / SPEC_NAME
    return shared if shared.exists() else DATA / "warpweft_spec.md"


def seed_board() -> list[str]:
    """The seed's default board, header line to footer line, as printed."""
    lines = seed_path().read_text().splitlines()
    start = lines.index("The default Warp and Weft board is as follows:") + 1
    header = lines[start]
    assert header.lstrip().startswith("A   B")
    end = lines.index(header, start + 1)
    return lines[start : end + 1]


def spec_text() -> str:
    return spec_path().read_text()


def spec_boards() -> dict[str, list[str]]:
    """The fenced boards of spec section 2, keyed by the sentence before them."""
    text = spec_text()
    boards: dict[str, list[str]] = {}
    for m in re.finditer(r"\n([^\n]*)\n+```\n(.*?)```", text, re.S):
        intro = m.group(1).strip()
        key = intro
        n = 1
        while key in boards:
            n += 1
            key = f"{intro} #{n}"
        boards[key] = m.group(2).rstrip("\n").split("\n")
    return boards


def spec_table(heading: str) -> list[list[str]]:
    """Rows (cells split on ``|``) of the markdown table under ``heading``."""
    text = spec_text()
    at = text.index(heading)
    rows: list[list[str]] = []
    started = False
    for line in text[at:].splitlines()[1:]:
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if set("".join(cells)) <= set("- "):
                continue
            rows.append(cells)
        elif started:
            break
    # without the header row (the heading itself, when it is that row)
    return rows if heading.startswith("|") else rows[1:]


# -- the spec's test cases ------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One entry of a case: ``user`` plays ``move``; ``accepted`` or refused."""

    user: str  # "a" or "b"
    move: str
    accepted: bool
    number: int | None  # the move number printed in the spec, if any


_ENTRY = re.compile(
    r"\((?P<su>[ab]) (?P<sm>\S+)\)|(?:(?P<n>\d+)\.)?(?P<u>[ab]) (?P<m>\S+)(?P<r> -)?"
)


def spec_case(tag: str) -> tuple[str, list[Step]]:
    """Title line and the steps of spec test case ``tag`` ("T1".."T8")."""
    lines = spec_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"**{tag}:"):
            moves = lines[i + 1].strip().strip("`")
            break
    else:
        raise KeyError(tag)
    steps: list[Step] = []
    for entry in re.split(r"\s{2,}", moves.strip()):
        m = _ENTRY.fullmatch(entry)
        assert m, entry
        if m.group("su"):
            steps.append(Step(m.group("su"), m.group("sm"), True, None))
        else:
            number = int(m.group("n")) if m.group("n") else None
            steps.append(Step(m.group("u"), m.group("m"), not m.group("r"), number))
    return line, steps
