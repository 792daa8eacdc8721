"""ASCII boards for mail: the kind of every square is visible at a glance.

Each square is three characters, the piece (or a filler) between two marks
that say what the square is, so a piece never hides the geometry:

    !K!  bridge, vertical strand on top     =K=  bridge, horizontal on top
    |K|  slope of a vertical strand         -K-  slope of a horizontal strand
    #K#  Dungeon cell
"""

from __future__ import annotations

from games.contract import Outcome
from games.weavedungeon import geometry as g
from games.weavedungeon.moves import COLOUR_NAMES, LETTERS, POOL_TYPES, THRONE, WHITE, Position

_MARK = {"V": "!", "H": "=", "|": "|", "-": "-", "#": "#"}
_FILL = {"V": "+", "H": "+", "|": " ", "-": " ", "#": "#"}

LEGEND = (
    "!+! bridge, vertical on top",
    "=+= bridge, horizontal on top",
    "| | slope of a vertical strand",
    "- - slope of a horizontal strand",
    "### Dungeon cell",
    "White upper case, Black lower case",
    "K Star C Circle T Triangle",
    "S Square P Pentagon D Diamond",
    "",
)


def _map_char(sq: int) -> str:
    return g.BOARD_MAP[g.SIZE - 1 - g.rank_of(sq)][g.file_of(sq)]


def _piece(pc: int) -> str:
    letter = LETTERS[pc & 7]
    return letter if pc >> 3 == WHITE else letter.lower()


def square_text(pos: Position, sq: int) -> str:
    ch = _map_char(sq)
    pc = pos.board[sq]
    mark = _MARK[ch]
    return f"{mark}{_piece(pc) if pc else _FILL[ch]}{mark}"


def _star_text(pos: Position, colour: int) -> str:
    sq = pos.stars[colour]
    who = f"{COLOUR_NAMES[colour]}'s Star"
    if sq == THRONE[colour] and not pos.moved[colour]:
        return f"{who} is on its throne {g.name(sq)}"
    if g.is_cell(sq):
        return f"{who} is imprisoned in the Dungeon at {g.name(sq)}"
    if sq == THRONE[colour]:
        return f"{who} is back on its throne {g.name(sq)} (it abdicated)"
    return f"{who} has abdicated and stands on {g.name(sq)}"


def _pool_text(pos: Position) -> str:
    parts = []
    for colour in (0, 1):
        letters = " ".join(
            LETTERS[t] for t, n in zip(POOL_TYPES, pos.pools[colour], strict=True) for _ in range(n)
        )
        parts.append(f"{COLOUR_NAMES[colour]} {letters or 'none'}")
    return "Captured (rescuable): " + "; ".join(parts)


def status_lines(pos: Position, out: Outcome | None, seat_names: list[str],
                 moveno: int | None = None, over: bool = False) -> list[str]:
    if out is not None:
        winner = out.winners[0]
        last = (
            f" (last move: {COLOUR_NAMES[1 - pos.side]} {pos.last_move})" if pos.last_move else ""
        )
        return [
            f"Game over after move {pos.fullmove if moveno is None else f'#{moveno - 1}'}{last}:",
            f"{out.reason}.",
            f"{seat_names[winner]} wins -- {out.grade}.",
        ]
    if over:  # ended by the server (resignation, forfeit, agreed draw): nobody is to move
        last = f" (last move: {COLOUR_NAMES[1 - pos.side]} {pos.last_move})" if pos.last_move else ""
        return [f"Game over{last}."]
    line = f"Move {pos.fullmove if moveno is None else f'#{moveno}'}: {COLOUR_NAMES[pos.side]} to move"
    if pos.last_move:
        line += f" (last move: {COLOUR_NAMES[1 - pos.side]} {pos.last_move})"
    lines = [line]
    if pos.in_check():
        lines.append(f"{COLOUR_NAMES[pos.side]}'s Star is in CHECK.")
    return lines


def render(pos: Position, out: Outcome | None, compact: bool = False, moveno: int | None = None,
           over: bool = False, black_below: bool = False) -> str:
    """The mailed board; ``black_below``: turned for the Black player (rank 1 at the top, i on the left)."""
    names = list(COLOUR_NAMES)
    ranks = range(g.SIZE) if black_below else range(g.SIZE - 1, -1, -1)
    files = range(g.SIZE - 1, -1, -1) if black_below else range(g.SIZE)
    if compact:
        lines = []
        for rank in ranks:
            cells = []
            for file in files:
                sq = g.square(file, rank)
                pc = pos.board[sq]
                cells.append(_piece(pc) if pc else _MARK[_map_char(sq)])
            lines.append(f"{rank + 1} " + " ".join(cells))
        lines.append("  " + " ".join(g.FILES[f] for f in files))
        lines.append("(! = bridge V on top, = H on top, | - slopes, # cells)")
        lines += status_lines(pos, out, names, moveno, over)
        return "\n".join(lines) + "\n"
    header = "     " + "   ".join(g.FILES[f] for f in files)
    lines = ["Weave & Dungeon", "", header]
    for i, rank in enumerate(ranks):
        row = " ".join(square_text(pos, g.square(f, rank)) for f in files)
        legend = LEGEND[i] if i < len(LEGEND) else ""
        lines.append(f"{rank + 1:>2}  {row}  {rank + 1:<2} {legend}".rstrip())
    lines.append(header)
    lines.append("")
    lines.append(_star_text(pos, 0) + ".")
    lines.append(_star_text(pos, 1) + ".")
    lines.append(_pool_text(pos) + ".")
    lines += status_lines(pos, out, names, moveno, over)
    return "\n".join(lines) + "\n"
