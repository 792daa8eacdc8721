"""The e-mailed board (spec §6.2) and the coordinate key (§6.3).

Points are placed on a text grid by the plane embedding of §2.9 (shifted by
+14 rows, +26 columns); river marks sit halfway between joined points.
"""

from __future__ import annotations

from games.trimac.geometry import CELLS, COLOURS, NAMES, NPOINTS, SEAT_NAMES, joins
from games.trimac.moves import KINDS, checkers, general_point, owner_of
from games.trimac.state import ALIVE, RESIGNED, State

ROW0, COL0 = 14, 26
MAP_ROWS = 32
LEGEND_COL = 56
LIST_WIDTH = 77
_PIECE_LEGEND = [
    "K General  A Guard",
    "E Bishop   H Knight",
    "R Rook     C Cannon",
    "P Pawn     F Banner",
    ".  empty point",
    "~  river",
]


def _grid() -> list[list[str]]:
    return [[" "] * 56 for _ in range(MAP_ROWS)]


def _put(grid: list[list[str]], p: int, text: str) -> None:
    r, c = CELLS[p]
    for i, ch in enumerate(text):
        grid[r + ROW0][c + COL0 + i] = ch


def map_lines(board: bytes) -> list[str]:
    """The 32 map lines: pieces, empty points and river marks."""
    grid = _grid()
    for p in range(NPOINTS):
        c = board[p]
        _put(grid, p, f"{COLOURS[owner_of(c)]}{KINDS[c & 7]}" if c else ".")
    for a, b in joins():
        (ra, ca), (rb, cb) = CELLS[a], CELLS[b]
        r, c = (ra + rb) // 2 + ROW0, (ca + cb) // 2 + COL0
        if grid[r][c - 1] == grid[r][c] == grid[r][c + 1] == " ":
            grid[r][c] = "~"
    return ["".join(row).rstrip() for row in grid]


def key_lines() -> list[str]:
    """§6.3: the same layout with every point showing its file and rank."""
    grid = _grid()
    for p in range(NPOINTS):
        _put(grid, p, NAMES[p][1:])
    lines = ["".join(row).rstrip() for row in grid]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def piece_list(board: bytes, seat: int) -> list[str]:
    """``Red   : K Rf1; A Re1 ...`` wrapped between groups."""
    groups = []
    for kind in range(8):
        c = (seat + 1) * 8 + kind
        pts = [NAMES[p] for p in range(NPOINTS) if board[p] == c]
        if pts:
            groups.append(f"{KINDS[kind]} " + " ".join(pts))
    head = f"{SEAT_NAMES[seat]:<6}: "
    texts = [grp + (";" if i < len(groups) - 1 else "") for i, grp in enumerate(groups)]
    lines: list[str] = []
    line = head + (texts[0] if texts else "")
    for text in texts[1:]:
        if len(line) + 1 + len(text) <= LIST_WIDTH:
            line += " " + text
        else:
            lines.append(line)
            line = " " * len(head) + text
    lines.append(line)
    # a group longer than a whole line (e.g. 24 Pawns) breaks between its
    # squares, keeping the list's indent
    out: list[str] = []
    for line in lines:
        while len(line) > LIST_WIDTH:
            cut = line.rindex(" ", 0, LIST_WIDTH + 1)
            out.append(line[:cut])
            line = " " * len(head) + line[cut + 1 :]
        out.append(line)
    return out


def _event(seat: int, text: str) -> str:
    name = SEAT_NAMES[seat]
    if text == "pass":
        return f"{name} passes (no legal move)"
    if text == "resign":
        return f"{name} resigns"
    if text.startswith("checkmated"):
        return f"{name} is {text}"
    return f"{name} {text}"


def recent_events(state: State) -> list[str]:
    """What happened since the player to move last had a turn."""
    out: list[str] = []
    for seat, text in reversed(state.history):
        if (seat == state.to and state.result is None) or len(out) >= 6:
            break
        out.append(_event(seat, text))
    return list(reversed(out))


def render(state: State, compact: bool = False, game_no: int = 1, moveno: int | None = None,
           over: bool = False) -> str:
    alive = state.alive
    if state.result is None and over:  # ended by the server (forfeit, agreed draw): nobody is to move
        status = "game over"
    elif state.result is None:
        status = f"{SEAT_NAMES[state.to]} to move"
    elif state.result[0]:
        status = f"{SEAT_NAMES[state.result[0][0]]} wins"
    else:
        status = "drawn"
    number = state.turns + 1 if moveno is None else f"#{moveno if state.result is None and not over else moveno - 1}"
    out = [f"TriMac 3 Friends - game {game_no} - move {number} - {status}", ""]
    lines = map_lines(state.board)
    if not compact:
        legend = [
            "Red   r (bottom)",
            "Blue  b (upper left)",
            "Green g (upper right)",
            "",
            *_PIECE_LEGEND,
            "",
            "Turn order:",
            " > ".join(SEAT_NAMES[s] for s in alive),
        ]
        for i, text in enumerate(legend, start=1):
            if text:
                lines[i] = lines[i].ljust(LEGEND_COL) + text
    out += lines
    out.append("")
    if not compact:
        for seat in range(3):
            st = state.status[seat]
            if st == ALIVE:
                out += piece_list(state.board, seat)
            elif st == RESIGNED:
                out.append(f"{SEAT_NAMES[seat]:<6}: resigned")
            else:
                out.append(f"{SEAT_NAMES[seat]:<6}: defeated by {SEAT_NAMES[st]}")
    events = recent_events(state)
    if events:
        out.append("Last: " + "; ".join(events))
    for seat in alive:
        g = general_point(state.board, seat)
        who = checkers(state.board, seat, g) if g >= 0 else set()
        if who:
            by = " and ".join(SEAT_NAMES[o] for o in sorted(who))
            out.append(f"{SEAT_NAMES[seat]} is in check (from {by}).")
    if state.result is not None:
        out.append(f"Game over: {state.result[2]}.")
    return "\n".join(_wrap(line) for line in out) + "\n"


def _wrap(line: str) -> str:
    """Keep every line within 77 columns (long event lists only)."""
    if len(line) <= LIST_WIDTH:
        return line
    words, rows, cur = line.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > LIST_WIDTH:
            rows.append(cur)
            cur = "      " + w
        else:
            cur = f"{cur} {w}" if cur else w
    rows.append(cur)
    return "\n".join(rows)
