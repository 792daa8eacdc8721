"""The one PNG renderer: a :class:`games.drawing.Drawing` as PNG bytes, for mail.

Pillow does the drawing: it ships wheels with zlib and FreeType inside (no
system packages, no browser at run time) and carries its own font, so the
picture looks the same on every host.  The picture is drawn at twice its
size and scaled down (Pillow's shapes have no anti-aliasing of their own),
then reduced to a palette of at most 96 colours, which keeps a board at
roughly 15-45 KB without visible banding on these flat-coloured drawings.
Each step is the fast variant (box reduce, octree palette from a half-size
copy, zlib level 3): 40-70 ms for the largest board on an idle core, made
once per position (server.pictures.cache).
"""

from __future__ import annotations

import io
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from games.drawing import Circle, Drawing, Line, Polygon, Rect, Shape, Text

SUPERSAMPLE = 2
COLOURS = 96
_ANCHOR = {"start": "lm", "middle": "mm", "end": "rm"}


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size)


#: Painted fixed parts of boards (see Drawing.base_key); a handful of geometries.
_BASES: dict[tuple[str, int, int, str], Image.Image] = {}


def to_png(drawing: Drawing) -> bytes:
    size, shapes = (drawing.width, drawing.height), drawing.shapes
    if not drawing.base_key:
        return _encode(_paint(size, drawing.background, shapes))
    # The board's fixed part (TriMac: 800 lines, points and labels) is painted once.
    key = (drawing.base_key, *size, drawing.background)
    if key not in _BASES:
        _BASES[key] = _paint(size, drawing.background, shapes[: drawing.base_count])
    img = _BASES[key].copy()
    _draw(img, shapes[drawing.base_count:])
    return _encode(img)


def _paint(size: tuple[int, int], background: str, shapes: list[Shape]) -> Image.Image:
    """The shapes at SUPERSAMPLE times the size, in RGB."""
    img = Image.new("RGB", (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE), background)
    _draw(img, shapes)
    return img


def _draw(img: Image.Image, shapes: list[Shape]) -> None:
    k = SUPERSAMPLE
    pen = ImageDraw.Draw(img)

    def px(v: float) -> float:
        return v * k

    def line_width(w: float) -> int:
        return max(1, round(w * k))

    for s in shapes:
        if isinstance(s, Rect):
            pen.rectangle([px(s.x), px(s.y), px(s.x + s.w) - 1, px(s.y + s.h) - 1], fill=s.fill,
                          outline=s.stroke, width=line_width(s.width) if s.stroke else 0)
        elif isinstance(s, Circle):
            pen.ellipse([px(s.cx - s.r), px(s.cy - s.r), px(s.cx + s.r), px(s.cy + s.r)], fill=s.fill,
                        outline=s.stroke, width=line_width(s.width) if s.stroke else 0)
        elif isinstance(s, Polygon):
            pts = [(px(x), px(y)) for x, y in s.points]
            pen.polygon(pts, fill=s.fill, outline=s.stroke, width=line_width(s.width) if s.stroke else 0)
        elif isinstance(s, Line):
            pen.line([px(s.x1), px(s.y1), px(s.x2), px(s.y2)], fill=s.stroke, width=line_width(s.width))
        elif isinstance(s, Text):
            pen.text((px(s.x), px(s.y)), s.text, fill=s.fill, font=_font(round(s.size * k)),
                     anchor=_ANCHOR.get(s.anchor, "mm"))


def _encode(img: Image.Image) -> bytes:
    img = img.reduce(SUPERSAMPLE)
    # The palette comes from a half-size copy (4x less work; flat colours and
    # their edges survive), by octree, which keeps rare colours such as the
    # gold last-move ring that median cut merges away; mapping the picture
    # onto a given palette is then cheap.
    palette = img.reduce(2).quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    img = img.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=3)
    return out.getvalue()
