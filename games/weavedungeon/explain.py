"""Why a move is refused, said in the board's own terms.

Called only for moves that are not legal, so it can afford to look at the
geometry from several sides: the same templates the generator uses, read on
the real board (blocked? wrong capture?) and on an empty one (unreachable,
and if so which rule of the Weave or Dungeon forbids it).
"""

from __future__ import annotations

from games.weavedungeon import geometry as g
from games.weavedungeon.moves import (
    CIRCLE,
    COLOUR_NAMES,
    DIAMOND,
    FAR_RANK,
    FORWARD,
    LETTERS,
    PENTAGON,
    PIECE_NAMES,
    POOL_TYPES,
    SQUARE,
    STAR,
    TEMPLATES,
    TRIANGLE,
    TYPE_OF_LETTER,
    Position,
    attackers,
)
from games.weavedungeon.notation import ParsedMove


def _names(squares: list[int]) -> str:
    names = [g.name(q) for q in squares]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _ring(c: int) -> set[int]:
    return {
        q
        for q in (g.offset(c, df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1))
        if q is not None and q != c
    }


def _turn(c: int, a: int, b: int) -> str:
    """Which way round cell ``c`` going from ``a`` to ``b`` is (seen from above)."""
    ax, ay = g.file_of(a) - g.file_of(c), g.rank_of(a) - g.rank_of(c)
    bx, by = g.file_of(b) - g.file_of(c), g.rank_of(b) - g.rank_of(c)
    return "counterclockwise" if ax * by - ay * bx > 0 else "clockwise"


def why_illegal(pos: Position, mv: ParsedMove) -> str:
    """The reason ``mv`` is not a legal move in ``pos``."""
    me = pos.side
    x, y = mv.frm, mv.to
    board = pos.board
    pc = board[x]
    if not pc:
        return f"there is no piece on {g.name(x)}"
    t = pc & 7
    name = PIECE_NAMES[t]
    label = f"{LETTERS[t]}{g.name(x)}-{g.name(y)}"
    if pc >> 3 != me:
        return (
            f"the {name} on {g.name(x)} is {COLOUR_NAMES[pc >> 3]}'s; you play {COLOUR_NAMES[me]}"
        )
    if mv.letter and TYPE_OF_LETTER[mv.letter] != t:
        return (
            f"there is no {PIECE_NAMES[TYPE_OF_LETTER[mv.letter]]} on {g.name(x)}: "
            f"it holds your {name}"
        )
    if x == y:
        return "a move must go to another square"
    target = board[y]
    temps = [tm for tm in TEMPLATES[pc][x] if tm.dest == y]
    if target and target >> 3 == me:
        # Name the own piece only where the move could otherwise land: Ke1xe2
        # fails because a Star never moves within its own segment.
        if not temps:
            return _unreachable(pos, label, t, x, y)
        return f"{g.name(y)} holds your own {PIECE_NAMES[target & 7]}"
    if mv.rescue:
        rescued = TYPE_OF_LETTER[mv.rescue]
        if t != DIAMOND:
            return "only a Diamond can rescue a piece, on the move that reaches the far row"
        if g.rank_of(y) != FAR_RANK[me]:
            return f"a Diamond rescues only on arriving at the far row (rank {FAR_RANK[me] + 1})"
        if g.rank_of(x) == FAR_RANK[me]:
            return (
                f"the Diamond on {g.name(x)} already stands on the far row: "
                "it can rescue only on the move that arrives there"
            )
        if not pos.pools[me][POOL_TYPES.index(rescued)]:
            return f"you have no captured {PIECE_NAMES[rescued]} to rescue"
    if target and target & 7 == STAR and temps:
        return f"the Star can never be captured ({label} lands on {COLOUR_NAMES[1 - me]}'s Star)"
    if temps:
        return _blocked(pos, label, name, temps, target, x, y)
    return _unreachable(pos, label, t, x, y)


def _blocked(pos: Position, label: str, name: str, temps: list, target: int, x: int, y: int) -> str:
    """The piece could reach the square on an empty board: what stops it now?"""
    me = pos.side
    if target:
        fit = [tm for tm in temps if tm.can_capture]
        if not fit:
            how = {tm.how for tm in temps}
            if how & {"cell", "slide2"}:
                return f"a Diamond's two-square move never captures ({label})"
            seg = g.SEGMENT[x]
            return (
                f"a Diamond captures only when stepping: {label} is a slide "
                f"along the segment {g.segment_text(seg)}"
            )
    else:
        fit = [tm for tm in temps if tm.can_move]
        if not fit:
            return f"a Diamond moves sideways only to capture ({label})"
    open_ways = [tm for tm in fit if not pos.occ & tm.req]
    if not open_ways:
        best = min(fit, key=lambda tm: bin(tm.req & pos.occ).count("1"))
        blockers = [q for q in g.SQUARES if best.req & pos.occ & (1 << q)]
        return f"{label} is blocked: the {name} cannot pass {_names(blockers)}"
    # Geometrically fine: it must expose the Star.
    star = y_star = pos.stars[me]
    if pos.board[x] & 7 == STAR:
        y_star = y
    board = list(pos.board)
    board[y], board[x] = board[x], 0
    occ = (pos.occ & ~(1 << x)) | (1 << y)
    who = attackers(tuple(board), occ, y_star, 1 - me)
    whom = ", ".join(f"{PIECE_NAMES[board[q] & 7]} on {g.name(q)}" for q in who)
    if pos.in_check():
        return f"your Star on {g.name(star)} is in check and {label} does not end it ({whom})"
    return f"{label} would put your own Star in check ({whom})"


def _unreachable(pos: Position, label: str, t: int, x: int, y: int) -> str:
    name = PIECE_NAMES[t]
    me = pos.side
    if t == PENTAGON and g.is_cell(y):
        return "the Pentagon can never enter the Dungeon"
    if t == STAR and g.is_cell(x):
        if g.is_weave(y):
            return "the Star can never leave the Dungeon once imprisoned"
        return "in the Dungeon the Star moves only to an adjacent cell"
    if t == DIAMOND:
        dr = g.rank_of(y) - g.rank_of(x)
        if dr * FORWARD[me] < 0:
            return "a Diamond never moves backwards"
        if dr == 2 * FORWARD[me] and g.file_of(x) == g.file_of(y):
            return (
                f"{g.name(x)} and {g.name(y)} are in different segments, so the "
                "Diamond cannot slide two spaces"
            )
        return "a Diamond moves one space (or one cell) forward, or captures one space aside"
    if t == CIRCLE:
        return "the Circle moves one or two squares straight along a rank or file"
    if t in (TRIANGLE, SQUARE) and g.is_cell(x):
        line = "a diagonal" if t == TRIANGLE else "a rank or file"
        return f"from the Dungeon a {name} moves only in a straight line along {line}"
    if g.is_cell(y):
        if t == STAR:
            return (
                f"the Star enters the Dungeon only into a cell next to it "
                f"({'diagonally from a bridge' if g.KIND[x] == g.BRIDGE else 'straight from a slope'})"
            )
        if t == TRIANGLE:
            if g.KIND[x] == g.SLOPE:
                return "a Triangle on a slope has no access to the Dungeon"
            return "a Triangle enters the Dungeon from a bridge along a diagonal only"
        if t == SQUARE:
            if g.KIND[x] == g.BRIDGE:
                return "a Square on a bridge has no access to the Dungeon"
            return "a Square enters the Dungeon from a slope straight across its strand only"
    # Weave to Weave by a segment stepper (or a Square off its strands).
    if t == SQUARE:
        strands = [g.strand_name(g.OWNER[x])]
        if g.KIND[x] == g.BRIDGE:
            strands.append(g.strand_name(g.UNDER[x]))
        return f"the Square on {g.name(x)} can only ride {' or '.join(strands)}"
    if g.SEGMENT[x] is g.SEGMENT[y]:
        return (
            f"a {name} must leave its segment: {g.name(x)} and {g.name(y)} are both in "
            f"{g.segment_text(g.SEGMENT[x])}"
        )
    back = any(tm.dest == x and tm.how.startswith("step") for tm in TEMPLATES[pos.board[x]][y])
    if back:
        cells = [
            c
            for c in g.CELLS
            if x in _ring(c) and y in _ring(c) and _turn(c, x, y) != g.PINWHEEL[c]
        ]
        if cells:
            # Two cells flank every step; name the counterclockwise one, as S1 does.
            c = min(cells, key=lambda q: g.PINWHEEL[q] != "counterclockwise")
            return (
                f"{g.name(c)} can only be circled {g.PINWHEEL[c]}: "
                f"{label} steps down from the wrong side"
            )
        return (
            f"segment stepping runs only one way here: {g.name(y)} to {g.name(x)} "
            f"is possible, {g.name(x)} to {g.name(y)} is not"
        )
    b1 = g.segment_bridge(x)
    slopes = _names(list(g.normal_slopes(b1)))
    extra = " (twice at most)" if t in (TRIANGLE, PENTAGON) else ""
    return (
        f"the {name} on {g.name(x)} steps down{extra} from the bridge {g.name(b1)} of its "
        f"segment {g.segment_text(g.SEGMENT[x])} onto {slopes}; it cannot reach {g.name(y)}"
        + (" and it cannot ride a strand" if t in (STAR, TRIANGLE) else "")
    )
