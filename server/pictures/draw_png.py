"""The one PNG renderer: a :class:`games.drawing.Drawing` as PNG bytes, for mail.

Pillow does the drawing: it ships wheels with zlib and FreeType inside (no
system packages, no browser at run time) and carries its own font, so the
picture looks the same on every host.  Shapes are drawn at twice their
size and scaled down (Pillow's shapes have no anti-aliasing of their own).

Why tiles (issue 25): a move changes a few squares of a board, yet painting
the whole drawing at twice its size, reducing, quantizing and encoding cost
5.5-7.5 ms a position.  Now:

* The picture is cut into a fixed grid of ``TILE``-pixel tiles.  A tile's
  pixels depend only on the shapes that reach into it, so each tile is
  painted once per distinct (place, shapes) and kept (``_TILES``).
* A line of text over plain background (the status line, the legend: they
  change with every move and cross a dozen tiles) is pasted at scale 1 on
  top instead (``_Overlay``).
* Text is drawn from a two-level mask at twice the size, so its edges have
  the same five blends as a shape's and a picture keeps within 256 exact
  colours: the palette is that set of colours, so no colour ever shifts.
  (More than 256: an octree palette, the old way.)
* Each row of tiles (a band) is quantized and deflated on its own and kept
  (``_BANDS``); the PNG's IDAT is the bands' streams one after another, so
  a move re-encodes only the bands it changed.

Because the grid is fixed and every tile, overlay and band is a pure
function of its key, the PNG is the same bytes whichever positions this
process drew before: a mail drawn again after a crash is identical.
"""

from __future__ import annotations

import io
import itertools
import math
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache, lru_cache

from PIL import Image, ImageColor, ImageDraw, ImageFont

from games.drawing import Circle, Drawing, Line, Polygon, Rect, Shape, Text

SUPERSAMPLE = 2
#: Palette size where a picture has more than 256 colours (the old octree path).
COLOURS = 96
#: Tile edge at scale 1: about a square of the larger boards, so a moved piece touches few tiles.
TILE = 48
#: Painted tiles kept per process (48x48 RGB: 7 KB each).
TILE_CACHE = 4096
#: Encoded bands kept per process (a band of a 600-pixel board: about 30 KB of raw rows).
BAND_CACHE = 512
_ANCHOR = {"start": "lm", "middle": "mm", "end": "rm"}
#: Margin (scale 1) around a shape's computed extent: strokes' rounding and the reduce's 2x2 boxes.
_PAD = 2
_SERIALS = itertools.count(1)
_TWO_LEVELS = [0] * 128 + [255] * 128


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size)


@dataclass(frozen=True)
class _Tile:
    image: Image.Image
    colours: frozenset[tuple[int, int, int]]
    #: Unique for the life of the process: a band's key names its tiles by it.
    serial: int


@dataclass(frozen=True)
class _Overlay:
    """A line of text over plain background, pasted at scale 1 after the tiles."""

    key: tuple
    mask: Image.Image
    x: int
    y: int
    fill: tuple[int, int, int]
    colours: frozenset[tuple[int, int, int]]


_TILES: OrderedDict[tuple, _Tile] = OrderedDict()
#: (palette, the band's tiles and overlays) -> (its raw PNG rows, their deflate stream).
_BANDS: OrderedDict[tuple, tuple[bytes, bytes]] = OrderedDict()
_PALETTE_IDS: dict[tuple[tuple[int, int, int], ...], int] = {}


def to_png(drawing: Drawing) -> bytes:
    """The drawing as a palette PNG, from cached tiles and bands (see the module's docstring)."""
    width, height = drawing.width, drawing.height
    tiles, overlays, colours = _layout(drawing)
    if len(colours) > 256:
        return _encode(_assemble(drawing, tiles, overlays, 0, height))
    palette = tuple(sorted(colours))
    palette_id = _PALETTE_IDS.setdefault(palette, len(_PALETTE_IDS))
    cols = math.ceil(width / TILE)
    adler, streams = 1, []
    for row in range(math.ceil(height / TILE)):
        top, bottom = row * TILE, min(height, (row + 1) * TILE)
        here = tuple(o.key for o in overlays if o.y < bottom and o.y + o.mask.height > top)
        key = (palette_id, width, top, bottom, drawing.background,
               tuple(t.serial if t else 0 for t in tiles[row * cols:(row + 1) * cols]), here)
        band = _BANDS.get(key)
        if band is None:
            band = _encode_band(_assemble(drawing, tiles, overlays, top, bottom), palette)
            _BANDS[key] = band
            if len(_BANDS) > BAND_CACHE:
                _BANDS.popitem(last=False)
        adler = zlib.adler32(band[0], adler)
        streams.append(band[1])
    # zlib header, the bands' deflate blocks, an empty final block, the Adler-32 of all rows.
    idat = b"\x78\x01" + b"".join(streams) + b"\x03\x00" + adler.to_bytes(4, "big")
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 3, 0, 0, 0])
    return b"".join([b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header),
                     _chunk(b"PLTE", bytes(v for rgb in palette for v in rgb)), _chunk(b"IDAT", idat),
                     _chunk(b"IEND", b"")])


def to_image(drawing: Drawing) -> Image.Image:
    """The drawing at scale 1, in RGB, before its palette (for tools and tests)."""
    tiles, overlays, _ = _layout(drawing)
    return _assemble(drawing, tiles, overlays, 0, drawing.height)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(data, zlib.crc32(kind)).to_bytes(4, "big")


def _encode_band(img: Image.Image, palette: tuple[tuple[int, int, int], ...]) -> tuple[bytes, bytes]:
    """A band's PNG rows (filter byte 0, one palette index a pixel) and their own deflate stream.

    Compressed on its own and ended on a byte boundary (a sync flush), so
    the picture's IDAT is the bands' streams one after another.
    """
    indexed = img.quantize(palette=_exact_palette(palette), dither=Image.Dither.NONE).tobytes()
    w = img.width
    raw = b"".join(b"\x00" + indexed[i:i + w] for i in range(0, len(indexed), w))
    packer = zlib.compressobj(1, zlib.DEFLATED, -15)
    return raw, packer.compress(raw) + packer.flush(zlib.Z_SYNC_FLUSH)


def _layout(drawing: Drawing) -> tuple[list[_Tile | None], list[_Overlay], set[tuple[int, int, int]]]:
    """Each tile of the grid (None: plain background), the text overlays, and every colour used."""
    width, height = drawing.width, drawing.height
    cols, rows = math.ceil(width / TILE), math.ceil(height / TILE)
    shapes = drawing.shapes
    extents = [_extent(s) for s in shapes]
    # A tile's key names its shapes by their hashes, each computed once here
    # (hashing and comparing whole shapes in every tile's key was half the
    # time of a position drawn from cached tiles).
    hashes = [hash(s) for s in shapes]
    lone = set()
    for i, s in enumerate(shapes):
        x0, y0, x1, y1 = extents[i]
        if isinstance(s, Text) and x1 - x0 > TILE and not any(
                j != i and e[0] < x1 and e[2] > x0 and e[1] < y1 and e[3] > y0 for j, e in enumerate(extents)):
            lone.add(i)
    per_tile: list[list[int]] = [[] for _ in range(cols * rows)]
    for i in range(len(shapes)):
        if i in lone:
            continue
        x0, y0, x1, y1 = extents[i]
        c0, c1 = max(0, int(x0 // TILE)), min(cols - 1, int(x1 // TILE))
        r0, r1 = max(0, int(y0 // TILE)), min(rows - 1, int(y1 // TILE))
        for r in range(r0, r1 + 1):
            base = r * cols
            for c in range(c0, c1 + 1):
                per_tile[base + c].append(i)
    background = drawing.background
    colours: set[tuple[int, int, int]] = set()
    tiles: list[_Tile | None] = []
    plain = bool(lone)
    for index, here in enumerate(per_tile):
        if not here:
            tiles.append(None)
            plain = True
            continue
        r, c = divmod(index, cols)
        x, y = c * TILE, r * TILE
        key = (background, x, y, min(TILE, width - x), min(TILE, height - y), tuple(hashes[i] for i in here))
        tile = _TILES.get(key)
        if tile is None:
            tile = _paint_tile(key, [shapes[i] for i in here])
            _TILES[key] = tile
            if len(_TILES) > TILE_CACHE:
                _TILES.popitem(last=False)
        tiles.append(tile)
        colours |= tile.colours
    if plain:
        colours.add(_rgb(background))
    overlays = [_overlay(shapes[i], background) for i in sorted(lone)]  # type: ignore[arg-type]
    for o in overlays:
        colours |= o.colours
    return tiles, overlays, colours


def _assemble(drawing: Drawing, tiles: list[_Tile | None], overlays: list[_Overlay], top: int,
              bottom: int) -> Image.Image:
    """Rows ``top`` to ``bottom`` (a band, or the whole picture) in RGB, from tiles and overlays."""
    cols = math.ceil(drawing.width / TILE)
    img = Image.new("RGB", (drawing.width, bottom - top), drawing.background)
    for index in range(top // TILE * cols, min(len(tiles), math.ceil(bottom / TILE) * cols)):
        tile = tiles[index]
        if tile is not None:
            img.paste(tile.image, ((index % cols) * TILE, (index // cols) * TILE - top))
    for o in overlays:
        if o.y < bottom and o.y + o.mask.height > top:
            img.paste(o.fill, (o.x, o.y - top), o.mask)
    return img


def _overlay(s: Text, background: str) -> _Overlay:
    """``s`` as a scale-1 mask placed on the picture's 2x2 grid, with the colours it makes."""
    k = SUPERSAMPLE
    x, y = s.x * k, s.y * k
    size, anchor = round(s.size * k), _ANCHOR.get(s.anchor, "mm")
    _, left, top = _text_mask(s.text, size, anchor, x % 1, y % 1)
    x2, y2 = math.floor(x) + left, math.floor(y) + top
    small = _reduced_mask(s.text, size, anchor, x % 1, y % 1, x2 % 2, y2 % 2)
    fill = _rgb(s.fill)
    levels = tuple(sorted(v for _, v in small.getcolors(256) or []))
    return _Overlay((s.text, size, anchor, x, y, fill), small, (x2 - x2 % 2) // 2, (y2 - y2 % 2) // 2, fill,
                    _blends(_rgb(background), fill, levels))


@lru_cache(maxsize=1024)
def _reduced_mask(text: str, size: int, anchor: str, fx: float, fy: float, odd_x: int, odd_y: int) -> Image.Image:
    """The two-level text mask reduced to scale 1 on the picture's 2x2 grid (shifted by the odd pixel)."""
    mask, _, _ = _text_mask(text, size, anchor, fx, fy)
    w, h = mask.width + odd_x, mask.height + odd_y
    grid = Image.new("L", (w + w % 2, h + h % 2), 0)
    grid.paste(mask, (odd_x, odd_y))
    return grid.reduce(SUPERSAMPLE)


@lru_cache(maxsize=1024)
def _blends(background: tuple[int, int, int], fill: tuple[int, int, int],
            levels: tuple[int, ...]) -> frozenset[tuple[int, int, int]]:
    """The colours pasting ``fill`` through these mask levels onto ``background`` makes (Pillow's own blend)."""
    strip = Image.new("RGB", (len(levels), 1), background)
    mask = Image.new("L", (len(levels), 1))
    mask.putdata(list(levels))
    strip.paste(fill, (0, 0), mask)
    return frozenset(rgb for _, rgb in strip.getcolors(256) or [])


def _paint_tile(key: tuple, shapes: list[Shape]) -> _Tile:
    background, x, y, w, h, _ = key
    k = SUPERSAMPLE
    # Pillow truncates negative fractional coordinates towards zero, so a
    # circle that starts left of the tile would come out a pixel off.  The
    # canvas reaches out far enough that every fractional coordinate stays
    # positive (an even margin, to keep the 2x2 grid), then is cropped.
    left, top = x * k, y * k
    reach_x = reach_y = 0.0
    for s in shapes:
        if not isinstance(s, (Text, Rect)):
            x0, y0, _, _ = _extent(s)
            reach_x, reach_y = max(reach_x, left - x0 * k), max(reach_y, top - y0 * k)
    mx, my = 2 * math.ceil(reach_x / 2), 2 * math.ceil(reach_y / 2)
    img = Image.new("RGB", (w * k + mx, h * k + my), background)
    _draw(img, shapes, mx - left, my - top)
    if mx or my:
        img = img.crop((mx, my, mx + w * k, my + h * k))
    small = img.reduce(k)
    found = small.getcolors(w * h) or []
    return _Tile(small, frozenset(rgb for _, rgb in found), next(_SERIALS))


def _extent(s: Shape) -> tuple[float, float, float, float]:
    """Where ``s`` may paint, at scale 1, padded: which tiles it belongs to."""
    if isinstance(s, Rect):
        pad = _PAD + (s.width if s.stroke else 0)
        return s.x - pad, s.y - pad, s.x + s.w + pad, s.y + s.h + pad
    if isinstance(s, Circle):
        pad = _PAD + s.r + (s.width if s.stroke else 0)
        return s.cx - pad, s.cy - pad, s.cx + pad, s.cy + pad
    if isinstance(s, Polygon):
        xs, ys = [p[0] for p in s.points], [p[1] for p in s.points]
        pad = _PAD + (s.width if s.stroke else 0)
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
    if isinstance(s, Line):
        pad = _PAD + s.width
        return min(s.x1, s.x2) - pad, min(s.y1, s.y2) - pad, max(s.x1, s.x2) + pad, max(s.y1, s.y2) + pad
    k = SUPERSAMPLE
    mask, left, top = _text_mask(s.text, round(s.size * k), _ANCHOR.get(s.anchor, "mm"), s.x * k % 1, s.y * k % 1)
    return (s.x + left / k - _PAD, s.y + top / k - _PAD, s.x + (left + mask.width) / k + _PAD,
            s.y + (top + mask.height) / k + _PAD)


def _draw(img: Image.Image, shapes: tuple[Shape, ...] | list[Shape], dx: float = 0, dy: float = 0) -> None:
    """Paint ``shapes`` at SUPERSAMPLE times their size, shifted by (dx, dy) pixels of ``img``."""
    k = SUPERSAMPLE
    pen = ImageDraw.Draw(img)

    def px(v: float) -> float:
        return v * k + dx

    def py(v: float) -> float:
        return v * k + dy

    def line_width(w: float) -> int:
        return max(1, round(w * k))

    for s in shapes:
        if isinstance(s, Rect):
            pen.rectangle([px(s.x), py(s.y), px(s.x + s.w) - 1, py(s.y + s.h) - 1], fill=s.fill,
                          outline=s.stroke, width=line_width(s.width) if s.stroke else 0)
        elif isinstance(s, Circle):
            pen.ellipse([px(s.cx - s.r), py(s.cy - s.r), px(s.cx + s.r), py(s.cy + s.r)], fill=s.fill,
                        outline=s.stroke, width=line_width(s.width) if s.stroke else 0)
        elif isinstance(s, Polygon):
            pts = [(px(x), py(y)) for x, y in s.points]
            pen.polygon(pts, fill=s.fill, outline=s.stroke, width=line_width(s.width) if s.stroke else 0)
        elif isinstance(s, Line):
            pen.line([px(s.x1), py(s.y1), px(s.x2), py(s.y2)], fill=s.stroke, width=line_width(s.width))
        elif isinstance(s, Text):
            x, y = px(s.x), py(s.y)
            mask, left, top = _text_mask(s.text, round(s.size * k), _ANCHOR.get(s.anchor, "mm"), x % 1, y % 1)
            img.paste(_rgb(s.fill), (math.floor(x) + left, math.floor(y) + top), mask)


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, anchor: str, fx: float, fy: float) -> tuple[Image.Image, int, int]:
    """The text's ink as a two-level mask, and where its corner goes relative to the anchor point.

    Rendered once per text (a tile cut through a legend would otherwise render
    the whole line again: FreeType was 50% of the tiles' cost) and kept two-level
    (ink or not) at twice the size, so after the 2x2 reduce a text edge has the
    same five blends as a shape's, and a picture keeps within 256 exact colours.
    """
    left, top, right, bottom = _font(size).getbbox(text, anchor=anchor)
    left, top = math.floor(left) - 2, math.floor(top) - 2
    mask = Image.new("L", (math.ceil(right) - left + 3, math.ceil(bottom) - top + 3), 0)
    ImageDraw.Draw(mask).text((fx - left, fy - top), text, fill=255, font=_font(size), anchor=anchor)
    return mask.point(_TWO_LEVELS), left, top


@cache
def _rgb(colour: str) -> tuple[int, int, int]:
    return ImageColor.getrgb(colour)[:3]  # type: ignore[return-value]


@lru_cache(maxsize=256)
def _exact_palette(colours: tuple[tuple[int, int, int], ...]) -> Image.Image:
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for rgb in colours for v in rgb])
    return palette


def _encode(img: Image.Image) -> bytes:
    """A picture of more than 256 colours: an octree palette from a half-size copy, as before the tiles.

    Octree keeps rare colours such as the gold last-move ring that median cut merges away.
    """
    palette = img.reduce(2).quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    img = img.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)
    return out.getvalue()
