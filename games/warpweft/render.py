"""ASCII drawing of the board (spec section 2).

One algorithm draws both forms: the standard form (cell width 3, which
reproduces the seed's board character for character) and the compact form
(cell width 1).  The drawing is derived from the region map alone: a border
is drawn wherever two squares belong to different regions, and junctions are
chosen from the four regions that meet there.  Claimed regions are filled
with the owner's letter, border gaps inside the region included (spec 2.3).
"""

from __future__ import annotations

from functools import lru_cache

from games.warpweft.geometry import OUT, PATCH, WARP, WEFT, Geometry, column_letter

#: Clockwise orders of the three regions at a T-junction that draw ``+``.
_PLUS_ORDERS = {(WEFT, WARP, PATCH), (WARP, PATCH, WEFT), (PATCH, WEFT, WARP)}


#: Where the template has region ``rid``'s fill, it holds this character plus ``rid``
#: (Unicode's private use area: never in a board's own characters).
_SLOT = 0xE000


def draw_board(
    geo: Geometry, owners: tuple[int, ...], marks: tuple[str, str], width: int
) -> list[str]:
    """The board lines, header to footer, for cell ``width`` 3 or 1.

    Every character but a region's fill depends on the region map alone,
    which never changes during a game: the lines are drawn once per
    geometry and width with a slot character where each region's fill goes
    (:func:`_template`), and each position only fills the slots.  That made
    the board text 15x cheaper (it was 0.8 ms, drawn for every recipient of
    every board mail: issue 25).
    """
    fills = {_SLOT + rid: (" " if owner < 0 else marks[owner]) for rid, owner in enumerate(owners)}
    return [line.translate(fills).rstrip() if slotted else line for line, slotted in _template(geo, width)]


@lru_cache(maxsize=32)
def _template(geo: Geometry, width: int) -> tuple[tuple[str, bool], ...]:
    """The board's lines with a slot per region fill (see :func:`draw_board`), each with
    whether it has a slot (a line without one is final as it stands: the blank spacers)."""
    return tuple((line, any(ord(c) >= _SLOT for c in line)) for line in _draw(geo, width))


def _draw(geo: Geometry, width: int) -> list[str]:
    """The drawing algorithm proper, with each region's fill left as its slot character."""
    span = geo.span
    pitch = width + 1
    squares = geo.squares

    def region(x: int, y: int) -> int:
        return squares.get((x, y), OUT)

    def fill(rid: int) -> str:
        """The character inside region ``rid``: the owner's mark or blank."""
        return " " if rid == OUT else chr(_SLOT + rid)

    def kind(rid: int) -> int:
        return PATCH if rid == OUT else geo.kinds[rid]

    def col(x: int) -> int:
        """Text column where the interior of grid column ``x`` starts."""
        return 4 + pitch * (x + 1)

    #: text columns up to and including the right border of the right rim
    line_len = col(span) + width + 1

    def junction(ul: int, ur: int, ll: int, lr: int) -> str:
        up, down, left, right = ul != ur, ll != lr, ul != ll, ur != lr
        arms = up + down + left + right
        if arms == 0:
            return fill(ul)
        if arms == 2:
            if up and down:
                return "|"
            if left and right:
                return "-"
            return "+"
        if arms == 3:
            ring = [kind(ul), kind(ur), kind(lr), kind(ll)]  # clockwise
            three = [k for i, k in enumerate(ring) if k != ring[i - 1]]
            if len(three) == 3 and any(
                tuple(three[i:] + three[:i]) in _PLUS_ORDERS for i in range(3)
            ):
                return "+"
            return "|" if up and down else "-"
        return "+"

    def cell_line(y: int) -> str:
        chars = [" "] * line_len
        for x in range(-1, span + 1):
            chars[col(x) : col(x) + width] = fill(region(x, y)) * width
        for x in range(-2, span + 1):
            here, there = region(x, y), region(x + 1, y)
            chars[col(x) + width] = "|" if here != there else fill(here)
        text = "".join(chars)
        if 0 <= y < span:
            text = f"{y + 1:2d}{text[2:]} {y + 1}"
        return text.rstrip()

    def border_line(above: int, below: int) -> str:
        chars = [" "] * line_len
        for x in range(-1, span + 1):
            a, b = region(x, above), region(x, below)
            chars[col(x) : col(x) + width] = "-" * width if a != b else fill(a) * width
        for x in range(-2, span + 1):
            chars[col(x) + width] = junction(
                region(x, above), region(x + 1, above), region(x, below), region(x + 1, below)
            )
        return "".join(chars).rstrip()

    header = [" "] * line_len
    for x in range(span):
        header[col(x) + width // 2] = column_letter(x)
    head = "".join(header).rstrip()

    lines = [head, " "]
    for y in range(span, -2, -1):  # the top rim row down to the bottom rim row
        lines.append(border_line(y + 1, y))
        lines.append(cell_line(y))
    lines.append(border_line(-1, -2))
    lines.extend([" ", head])
    return lines
