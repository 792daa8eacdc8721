"""ASCII board for e-mail (spec §8): seven layer grids side by side.

Every grid shows the whole z-e x 0-9 projection, so a (file, rank) stays in
the same text column in every layer.  Drawn from White's side (the spec's
DECISION 13) for White and for anyone who said ``flip off``; Black's player
sees it turned (issue 26 item 8: Black at the bottom, as in every chess
diagram printed for Black): ranks 0 to 9 downwards and the files e to z.
Only the presentation turns: the ranks and files are printed beside the
grids, the squares keep their names, and the levels stay highest first
(a height does not change with the side one sits on).
"""

from __future__ import annotations

from games.tridchess.geometry import FILES, PIN_LAYER, PIN_NAME, cell
from games.tridchess.rules import AB_NAMES, BLACK, PIECE_LETTERS, State

LAYERS = (6, 5, 4, 3, 2, 1, 0)
LABELS = {6: "L6", 5: "B", 4: "L4", 3: "N", 2: "L2", 1: "W", 0: "L0"}


def _cell_char(st: State, exists: frozenset[int], c: int, x: int, y: int) -> str:
    p = st.board.get(c)
    if p is not None:
        letter = PIECE_LETTERS[p & 7]
        return letter.lower() if p & BLACK else letter
    if c in exists:
        return ":" if (x + y) % 2 == 0 else "."
    return " "


def grid_lines(st: State, compact: bool = False, black_below: bool = False) -> list[str]:
    exists = st.geo.exists
    sep = " " if compact else "  "
    xs = range(5, -1, -1) if black_below else range(6)
    files = sep.join("".join(FILES[x] for x in xs) for _ in LAYERS)
    lines = [
        "    " + sep.join(LABELS[h].center(6) for h in LAYERS),
        "    " + files,
    ]
    for y in range(10) if black_below else range(9, -1, -1):
        groups = []
        for h in LAYERS:
            groups.append("".join(_cell_char(st, exists, cell(x, y, h), x, y) for x in xs))
        lines.append(f" {y}  " + sep.join(groups) + f"  {y}")
    if not compact:
        lines.append("    " + files)
    return lines


def pin_map(st: State) -> str:
    parts = []
    for h in (6, 4, 2, 0):
        here = [f"{AB_NAMES[i]}={PIN_NAME[p]}" for i, p in enumerate(st.pins) if PIN_LAYER[p] == h]
        if here:
            parts.append(f"L{h}: " + " ".join(here))
    return "   ".join(parts)


def render(st: State, title: str, status: str, last: str, check: str, compact: bool,
           black_below: bool = False) -> str:
    """The mailed board; ``black_below``: turned for Black's player (see the module docstring)."""
    boards = " ".join(f"{AB_NAMES[i]}={PIN_NAME[p]}" for i, p in enumerate(st.pins))
    out = [title]
    out.extend(grid_lines(st, compact, black_below))
    if compact:
        out.append(f"Boards: {boards}")
        footer = f"Last: {last}   Check: {check}"
        # one line while it fits a mail's 78 columns; a long status (the
        # game-over reasons) gets a line of its own
        if len(f"{footer}   {status}") <= 78:
            out.append(f"{footer}   {status}")
        else:
            out.extend([footer, status])
        return "\n".join(line.rstrip() for line in out) + "\n"
    else:
        # the two footer lines exactly as in the spec's example (§8)
        out.append(f"Boards: {boards}   (pin ni = hanging under board)")
        out.append(f"Last move: {last:<12} Check: {check}")
        out.append(f"Pins by layer: {pin_map(st)}")
    out.append(status)
    return "\n".join(line.rstrip() for line in out) + "\n"
