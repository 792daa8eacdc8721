"""The one PNG renderer: a :class:`games.drawing.Drawing` as PNG bytes, for mail.

Pillow does the drawing: it ships wheels with zlib and FreeType inside (no
system packages, no browser at run time) and carries its own font, so the
picture looks the same on every host.  Shapes are drawn at twice their
size and scaled down (Pillow's shapes have no anti-aliasing of their own).

Why tiles (issue 25): a move changes a few squares of a board, yet painting
the whole drawing at twice its size, reducing, quantizing and encoding cost
5.5-7.5 ms a position; the target is 1.5 ms with the game's own drawing.

* The picture is cut into a grid of tiles: ``TILE``-pixel squares, or the
  board's own squares where the drawing names them (``Drawing.grid``).  A
  tile's pixels depend only on the shapes that reach into it, so each tile
  is painted once per distinct (place, shapes) and kept (``_TILES``); on a
  board's own grid a tile is named by what it shows from its corner (its
  shapes' painting calls moved there: ``_LOOKS``), so a knight on a dark
  square is painted once wherever it stands.  Each shape is worked out once
  into Pillow's calls at whole pixels (``_ops``), so a tile paints its part
  of a shape exactly as the whole picture does.
* A drawing's fixed part (``Drawing.base_key``: the board, the same for
  every position) is laid out once (``_BASES``) and painted once per tile
  (``_CANVASES``).  The other shapes are laid out once and the layout kept
  (``_LAID``): the next position's starts from it and looks only at the
  tiles that a shape new to the drawing or gone from it reaches (games hand
  the same objects again for what did not change, in the same tuples: the
  diff compares the drawing's runs, ``Drawing.runs``, not every shape), so a
  picture costs what its move changed, not what it shows.  Off a board's own
  squares (TriMac) such a tile is painted again only inside the boxes of what
  came or went, each box painted once for all the tiles it crosses
  (``_patched``, ``_paint_box``): a ring is a quarter of each of four tiles.
* A line of text over plain background (the status line, the legend: they
  change with every move and cross a dozen tiles) is copied in after the
  tiles instead (``_Overlay``), painted alone at twice the size and reduced.
  Text is drawn from a mask kept two-level, so its edges have the same
  blends as a shape's; a new line's mask is put together from kept glyphs
  as FreeType would lay them out (``_glyph_mask``).
* Tiles and overlays are kept as arrays of colour ids (numpy; a registry of
  every colour this process painted, looked up in one gather), so a picture
  is put together by copying arrays, never quantized: its palette is the
  exact set of its colours.  Every game's views have fixed palette slots
  (``palettes.SLOTS``, written by tools/picture_palettes.py from seeded
  games): a colour takes its slot, so a move renumbers no colour of a band it
  did not change, and a tile is worked out once into its slots (uint8, the
  PNG's palette indices as they are) and kept, so a band is its tiles' slots
  side by side, never looked up again (``_band_slots``).  A colour the table
  lacks takes a free slot picture by picture.  Without a table (a new game)
  the palette is the colours in the order they first appear, tile by tile.
  (Past 256 colours: an octree palette, the old way.)
* Each row of tiles, cut again where a line of text starts and ends (a band),
  is deflated on its own and kept (``_STREAMS``, keyed by the band, and by
  its colours' palette indices where they may change); the PNG's IDAT is the
  bands' streams one after another, so a move re-encodes only the bands it
  changed, and the status and legend lines only their own rows.  Deflate is
  ISA-L's (``isal``): level 1 is 3-8x faster than zlib's on these pictures
  and the files come out smaller.  A band's first byte is stored and the
  rest deflated with it as the dictionary: ISA-L's first call without
  history files one position by the compressor's address, which made the
  bytes depend on the heap (``_STORED_BYTE``).

Because every tile, overlay and band is a pure function of its key (and
the colour ids, which are the process's history, never reach the PNG but
through a palette ordered by colour or by fixed slots), the PNG is the same
bytes whichever positions this process drew before: a mail drawn again after
a crash is identical.  The caches change how much is painted, never what.
"""

from __future__ import annotations

import io
import itertools
import math
import mmap
import operator
import threading
from bisect import bisect_left, bisect_right, insort
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import accumulate, compress, count, filterfalse, repeat
from typing import Any

import numpy as np
from isal import isal_zlib
from PIL import Image, ImageColor, ImageDraw, ImageFont

from games.drawing import Circle, Drawing, Line, Polygon, Rect, Shape, Text
from server.pictures.palettes import SLOTS

SUPERSAMPLE = 2
#: Palette size where a picture has more than 256 colours (the old octree path).
COLOURS = 96
#: Tile edge at scale 1: about a square of the larger boards, so a moved piece touches few tiles.
TILE = 48
#: Painted tiles kept per process (48x48 colour ids: 4.5 KB each).
TILE_CACHE = 4096
#: Bands kept per process (a band of a 650-pixel board: 62 KB of colour ids) and encoded bands.
BAND_CACHE = 256
STREAM_CACHE = 1024
#: Tiles' fixed shapes painted at twice the size (96x96 RGB: 27 KB each).
CANVAS_CACHE = 512
#: Shapes remembered by object (their serial and tiles); the cache is emptied when it grows past this.
SHAPE_CACHE = 100_000
#: Colour id of a row's PNG filter byte (column 0 of every band): always palette index 0, filter "None".
_FILTER = 0
_ANCHOR = {"start": "lm", "middle": "mm", "end": "rm"}
#: Margin (scale 1) around a shape's computed extent: strokes' rounding and the reduce's 2x2 boxes.
_PAD = 2
_SERIALS = itertools.count(1)
_TWO_LEVELS = [0] * 128 + [255] * 128
_ADLER = 65521
#: A stored block's header for one byte (not the last block; a band's stream starts on a byte boundary): each
#: band's stream is its first byte so, then ISA-L's deflate of the rest with that byte as its dictionary.
#: Why (issue 25: a re-sent board mail carries the same picture): ISA-L's level 1 (2.32,
#: ``igzip_icf_body_h1_gr_bt.asm``, ``.write_first_byte``), on a stream's first call without history, files the third byte's position under a hash taken from a register
#: that still holds the stream's own address (bits 16-47 of the ``isal_zstream``), not from the data; where
#: that bucket is later looked up before it is written (after a run of literals ISA-L skips without hashing),
#: the match found is another of the same bytes (a distance 2 longer or shorter: the same length, the same
#: rows).  So the stream depended on where the heap put the compressor: about 1 in 6,000 addresses for a
#: TriDChess band (5 of 30,000, all of one bucket).  With a dictionary ISA-L starts with history and never
#: takes that path.  Five bytes a band.
_STORED_BYTE = b"\x00\x01\x00\xfe\xff"


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size)


class _Colours:
    """Every colour this process painted, by id (1, 2, ...; 0 is the filter byte's).

    The ids are the process's own (their order is history); nothing of them
    reaches a PNG but through the palette, which is ordered by colour value.
    A colour's key is its RGB as a little-endian word (red in the low byte).

    Why a table of every possible colour: a tile's pixels are looked up in one
    gather (``table[keys]``) instead of a binary search per pixel, which was a
    third of painting a tile.  The table is 32 MB of address space that the
    system hands out zeroed page by page as colours are written (``_zeroed``),
    so only the pages of colours ever painted (a few hundred at most) take memory.
    """

    def __init__(self) -> None:
        self.rgb: list[tuple[int, int, int]] = [(0, 0, 0)]
        #: key -> id (0: not seen yet).
        self.table = _zeroed(1 << 24)
        #: id -> key, to order a tile's colours by value.
        self.keys = np.zeros(256, dtype="<u4")

    def ids(self, keys: np.ndarray) -> np.ndarray:
        """The id of each key (an array of 24-bit keys), registering new colours first."""
        ids = self.table.take(keys)
        if np.count_nonzero(ids) == ids.size:  # (ndarray.all goes through Python: a microsecond more a tile)
            return ids
        new = np.array(sorted(set(keys[ids == 0].tolist())), dtype="<u4")  # (np.unique imports numpy.ma)
        first = len(self.rgb)
        self.rgb.extend((v & 255, (v >> 8) & 255, (v >> 16) & 255) for v in new.tolist())
        if len(self.rgb) > len(self.keys):
            self.keys = np.concatenate([self.keys, np.zeros(max(len(self.keys), len(new)), dtype="<u4")])
        self.keys[first:len(self.rgb)] = new
        self.table[new] = np.arange(first, len(self.rgb), dtype=np.uint16)
        return self.table.take(keys)

    def by_value(self, ids: np.ndarray) -> np.ndarray:
        """Those ids (distinct) in the order of their colours' values."""
        return ids.take(np.argsort(self.keys.take(ids), kind="stable"))


def _zeroed(n: int) -> np.ndarray:
    """``n`` zeros (uint16) in memory the system makes on first write, one 4 KB page at a time.

    Anonymous memory comes zeroed and is made as it is touched; huge pages are
    asked off for it (on this machine the kernel gives 2 MB pages to any large
    mapping, and the first colour written in each cost 2 MB and a stall of
    tens of milliseconds).  Elsewhere, numpy's zeros."""
    try:
        block = mmap.mmap(-1, n * 2)
        if hasattr(mmap, "MADV_NOHUGEPAGE"):
            block.madvise(mmap.MADV_NOHUGEPAGE)
    except (OSError, ValueError):
        return np.zeros(n, dtype=np.uint16)
    return np.frombuffer(block, dtype=np.uint16)


_REGISTRY = _Colours()
_RAW_ENCODER = Image.core.raw_encoder
#: Held while a picture is made or the caches emptied (see ``to_png``).
_LOCK = threading.Lock()


class _Patch:
    """Pixels as colour ids; their colours, and their palette slots in a view's table, worked out when
    first asked (a view with a table never asks for the colours: see ``_slotted``)."""

    __slots__ = ("ids", "serial", "_colours", "_slots", "patched")

    def __init__(self, ids: np.ndarray) -> None:
        self.ids = ids
        #: Unique for the life of the process: a band's key names its tiles by it.
        self.serial = next(_SERIALS)
        self._colours: tuple[int, ...] | None = None
        #: table serial -> the pixels' slots in that table (``_slots_of``).
        self._slots: dict[int, _Slotted] = {}
        #: A tile made from another by writing boxes into it (``_patched``): that tile's slots and the boxes
        #: (row and column slices), until this one's slots are made from them (``_slots_of``); else None.
        self.patched: tuple[dict[int, _Slotted], list[tuple[slice, slice]]] | None = None

    @property
    def colours(self) -> tuple[int, ...]:
        """Its colours (ids) in the order of their values."""
        if self._colours is None:
            self._colours = tuple(_REGISTRY.by_value(np.flatnonzero(np.bincount(self.ids.ravel()))).tolist())
        return self._colours


class _Slotted:
    """Pixels (a patch or a band) in a view's fixed palette slots (``_Slots``).

    ``index``: each pixel's slot, the PNG's palette index as it is (0 where its colour has no slot).
    ``spare``: the ids of its colours without a slot; ``spots``: where they are (rows, columns, ids),
    to be written into a copy of ``index`` once the picture has given them slots.
    ``mask``: the slots of its colours, as bits of a number (the picture's are the bands' together): only
    a picture with spare colours needs it (to find the free slots), so it is worked out when first asked,
    from ``index`` or from ``parts`` (a band's: its tiles' and overlays' whole)."""

    __slots__ = ("index", "spare", "spots", "_mask", "_parts")

    def __init__(self, index: np.ndarray, spare: frozenset[int], spots: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
                 mask: int | None = None, parts: Sequence[_Slotted] = ()) -> None:
        self.index, self.spare, self.spots = index, spare, spots
        self._mask, self._parts = mask, parts

    @property
    def mask(self) -> int:
        if self._mask is None:
            if self._parts:
                mask = 0
                for part in self._parts:
                    mask |= part.mask
            else:
                present = np.bincount(self.index.ravel(), minlength=256)
                if self.spots is not None:  # a spare colour's pixels read 0 in ``index``: not slot 0's
                    present[0] -= len(self.spots[0])
                mask = _mask(present)
            self._mask = mask
            self._parts = ()
        return self._mask


@dataclass(frozen=True)
class _Overlay:
    """A line of text over plain background, copied in after the tiles."""

    key: tuple
    patch: _Patch
    x: int
    y: int


@dataclass(frozen=True)
class _Grid:
    """Where the tiles' edges are: column and row boundaries, from 0 to the picture's size."""

    xs: tuple[int, ...]
    ys: tuple[int, ...]


@dataclass
class _Base:
    """A drawing's fixed part, laid out on the tile grid once."""

    serial: int
    grid: _Grid
    shapes: list[Shape]
    extents: list[tuple[float, float, float, float]]
    #: Per tile: the indexes of the fixed shapes reaching into it, and their serials.
    indexes: list[list[int]]
    serials: list[tuple[int, ...]]
    #: Per tile, once asked for: those shapes' looks from the tile's corner (see ``_look``).
    looks: dict[int, tuple[int, ...]]
    #: Cut along the board's squares (``Drawing.grid``): tiles are named by what they show.
    aligned: bool


class _Laid:
    """A drawing's other shapes on the tiles (see ``_layout``).  It holds the shapes and runs, so their ids stay
    theirs."""

    def __init__(self, shapes: list[Shape], runs: list[tuple[Shape, ...]] | None, run_ids: list[int] | None,
                 run_set: set[int] | None, run_of: dict[int, tuple[int, int]] | None, near: list[list[_SHAPE]],
                 lone: dict[int, Text], tiles: list[_Patch | None], overlays: list[_Overlay]) -> None:
        self.shapes = shapes
        #: The drawing's runs of these shapes (``Drawing.runs``), their ids as a list and a set, and each
        #: shape's run and place in it (shape id -> (run id, offset)): the next position's diff looks at runs
        #: (``_step_runs``).  None where the runs are not the shapes or a shape comes twice (``_step``).
        self.runs, self.run_ids, self.run_set, self.run_of = runs, run_ids, run_set, run_of
        #: Per tile: every other shape reaching into it (its ``_SHAPES`` entry), in the drawing's order (lone
        #: texts too).
        self.near = near
        #: The wide texts no other shape comes near, by id: drawn as overlays, not in their tiles.
        self.lone = lone
        self.tiles = tiles
        self.overlays = overlays
        self._ids: list[int] | None = None
        self._idset: set[int] | None = None

    @property
    def ids(self) -> list[int]:
        """The shapes' ids (``_step``'s diff: only where the runs cannot be used)."""
        if self._ids is None:
            self._ids = list(map(id, self.shapes))
        return self._ids

    @property
    def idset(self) -> set[int]:
        if self._idset is None:
            self._idset = set(self.ids)
        return self._idset


class _Band:
    """Rows ``top`` to ``bottom`` of the row of tiles starting at ``row_top``, with the overlays crossing
    them: kept as what it is made of, and put together (as colour ids, or as slots of a view's table)
    when first asked.  A view with a table asks for its slots (``_band_slots``); its ids only where a
    colour has no slot, its colours never."""

    __slots__ = ("grid", "row_top", "top", "bottom", "background", "tiles", "overlays", "serial", "_ids",
                 "_listed", "_colours", "_slots", "source")

    def __init__(self, grid: _Grid, row_top: int, top: int, bottom: int, background: int,
                 tiles: list[_Patch | None], overlays: list[_Overlay]) -> None:
        self.grid, self.row_top, self.top, self.bottom = grid, row_top, top, bottom
        self.background, self.tiles, self.overlays = background, tiles, overlays
        #: Unique for the life of the process: its streams are kept by it (a number hashes quicker than the key).
        self.serial = next(_SERIALS)
        self._ids: np.ndarray | None = None
        self._listed: tuple[int, ...] | None = None
        self._colours: np.ndarray | None = None
        self._slots: dict[int, _Slotted] = {}
        #: The last picture's band of the same rows, until this one's slots are made from it (``_band_slots``;
        #: set by ``_bands``, which clears the source's own first, so no band holds a chain of them).
        self.source: _Band | None = None

    @property
    def ids(self) -> np.ndarray:
        """Its pixels as colour ids, the filter column first."""
        if self._ids is None:
            self._ids = _assemble_ids(self)
        return self._ids

    @property
    def listed(self) -> tuple[int, ...]:
        """Its colours tile by tile (a tile's all, whichever of its rows the band holds), then the overlays'
        (the palette's order where the view has no table is worked out from them for every picture)."""
        if self._listed is None:
            colours: list[int] = []
            for tile in self.tiles:
                colours.extend(tile.colours if tile is not None else (self.background,))
            for o in _overlays_in(self):
                colours.extend(o.patch.colours)
            self._listed = tuple(dict.fromkeys(colours))
        return self._listed

    @property
    def colours(self) -> np.ndarray:
        """``listed`` as an array."""
        if self._colours is None:
            self._colours = np.array(self.listed, dtype=np.intp)
        return self._colours


#: (base, tile, the other shapes' serials) -> the tile; the same by what it shows, wherever it is.
_TILES: OrderedDict[tuple, _Patch] = OrderedDict()
_LOOKS: OrderedDict[tuple, _Patch] = OrderedDict()
#: A tile's fixed shapes painted at twice the size, the others to be painted over a copy.
_CANVASES: OrderedDict[tuple, Image.Image] = OrderedDict()
_BASES: OrderedDict[tuple, _Base] = OrderedDict()
_BANDS: OrderedDict[tuple, _Band] = OrderedDict()
#: (band key, its colours' palette indices) -> (deflate stream, Adler-32 of its rows, their length).
_STREAMS: OrderedDict[tuple, tuple[bytes, int, int]] = OrderedDict()
_OVERLAYS: OrderedDict[tuple, _Overlay] = OrderedDict()
#: (size, background, grid) -> the last picture's tiles, and its rows: tiles, overlays, (band key, band) pairs.
_ROWS: OrderedDict[tuple, list] = OrderedDict()
#: (fixed part's serial, lineage) -> the last layout of that lineage (the next position's starts from it,
#: and _step_runs takes it over: a layout is kept under one key only).
_LAID: OrderedDict[tuple[int, Hashable], _Laid] = OrderedDict()
#: Lineages kept (a busy server's boards in play at once, each seen from one or more sides).
LAID_CACHE = 64
_SHAPE = tuple[Shape, int, tuple[float, float, float, float], _Grid | None, tuple[int, ...], bool]
#: id(shape) -> (shape, serial, extent, grid, tiles, wide text); the shape is kept so its id stays its own.
_SHAPES: dict[int, _SHAPE] = {}
_SHAPE_SERIALS: dict[Shape, int] = {}
_BACKGROUNDS: dict[str, int] = {}
#: (shape serial, tile corner) -> the serial of its look from there; looks (painting calls) -> serial.
_LOOKS_AT: dict[tuple[int, int, int], int] = {}
_LOOK_SERIALS: dict[tuple, int] = {}


def _remember(cache_: OrderedDict, key: tuple, value: Any, size: int) -> None:
    cache_[key] = value
    if len(cache_) > size:
        cache_.popitem(last=False)


def forget() -> None:
    """Empty every cache (the colour ids too): a cold start, for benchmarks and when the ids run out."""
    with _LOCK:
        _forget()


def _forget() -> None:
    global _REGISTRY
    for kept in (_TILES, _LOOKS, _CANVASES, _BASES, _BANDS, _STREAMS, _OVERLAYS, _LAID, _SHAPES, _SHAPE_SERIALS,
                 _BACKGROUNDS, _LOOKS_AT, _LOOK_SERIALS, _OPS, _ROWS):
        kept.clear()
    _REGISTRY = _Colours()


def to_png(drawing: Drawing, lineage: Hashable = None) -> bytes:
    """The drawing as a palette PNG, from cached tiles and bands (see the module's docstring).

    ``lineage`` names the pictures this one follows (the deliverer: the board's players and the
    side it is seen from): its layout starts from the last picture of the same lineage, not from
    whatever was drawn last (``_layout``).  It changes how much is worked out, never the bytes.

    One picture at a time per process (``_LOCK``): the caches, the colour registry and the layout kept
    from the last position are shared, and a thread that reads them while another fills them would get
    another picture's ids.  A lock nobody else holds costs nothing beside a picture."""
    with _LOCK:
        return _to_png(drawing, lineage)


def _to_png(drawing: Drawing, lineage: Hashable = None) -> bytes:
    if len(_REGISTRY.rgb) > 60_000:
        _forget()
    bands = _bands(drawing, lineage)
    table = _slot_table(drawing.base_key)
    if table is not None:
        got = _slotted_png(drawing, bands, table)
        if got is not None:
            return got
    order = list(dict.fromkeys(itertools.chain.from_iterable(b.listed for _, b in bands)))
    if len(order) > 256:
        return _encode(_rgb_image(bands))
    lut = np.zeros(len(_REGISTRY.rgb), dtype=np.uint8)
    lut[order] = np.arange(len(order), dtype=np.uint8)
    lut[_FILTER] = 0
    palette = _REGISTRY.keys.take(order).view(np.uint8).reshape(-1, 4)[:, :3].tobytes()  # R, G, B of each
    streams = [_stream((band.serial, lut[band.colours].tobytes()), band, lut) for _, band in bands]
    return _png(drawing, palette, streams)


def _stream(key: tuple, band: _Band, lut: np.ndarray | None, slotted: _Slotted | None = None) -> tuple[bytes, int, int]:
    """The band's rows deflated (kept by ``key``): its slots (``slotted``: the spare colours' through
    ``lut``), or its ids through ``lut``."""
    made = _STREAMS.get(key)
    if made is None:
        if slotted is None:
            # take, mode "clip" (every id is below len(lut)): numpy converts the ids to intp in blocks, where
            # mode "raise" converted the whole band first (four times the time for a 48-row band)
            raw = lut.take(band.ids, mode="clip")  # type: ignore[union-attr]
        elif slotted.spots is None:
            raw = slotted.index
        else:
            raw = slotted.index.copy()
            ys, xs, ids = slotted.spots
            raw[ys, xs] = lut.take(ids)  # type: ignore[union-attr]
        # Its first byte (the first row's filter byte) goes as a stored block of its own, and ISA-L deflates
        # the rest with that byte as its dictionary (``_STORED_BYTE``: why).  Deflated as it is, not copied.
        flat = raw.reshape(-1)
        first = flat[:1].tobytes()
        packer = isal_zlib.compressobj(1, isal_zlib.DEFLATED, -15, zdict=first)
        made = (_STORED_BYTE + first + packer.compress(flat[1:]) + packer.flush(isal_zlib.Z_SYNC_FLUSH),
                isal_zlib.adler32(raw), raw.nbytes)
        _remember(_STREAMS, key, made, STREAM_CACHE)
    return made


def _png(drawing: Drawing, palette: bytes, streams: list[tuple[bytes, int, int]]) -> bytes:
    """The PNG file: its palette and the bands' streams, one after another."""
    adler = 1
    for _, check, length in streams:
        adler = _adler_combine(adler, check, length)
    # IDAT: the zlib header, the bands' deflate blocks, an empty final block, the Adler-32 of all rows.  Its
    # pieces go into the file in one join, its CRC taken piece by piece: joining the IDAT, then its chunk,
    # then the file copied the ~45 KB three more times (fresh memory each: 40 us a TriMac picture).
    pieces = [b"\x78\x01", *[made[0] for made in streams], b"\x03\x00" + adler.to_bytes(4, "big")]
    crc = isal_zlib.crc32(b"IDAT")
    for piece in pieces:
        crc = isal_zlib.crc32(piece, crc)
    header = drawing.width.to_bytes(4, "big") + drawing.height.to_bytes(4, "big") + bytes([8, 3, 0, 0, 0])
    return b"".join([b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     sum(map(len, pieces)).to_bytes(4, "big") + b"IDAT", *pieces, crc.to_bytes(4, "big"),
                     _chunk(b"IEND", b"")])


@cache
def _slot_table(base_key: str) -> _Slots | None:
    """The fixed slots of ``base_key``'s pictures: a view's own table, or else its game's (the key's first
    word: a game of at most 256 colours has one table for all its views)."""
    listed = (SLOTS.get(base_key) or SLOTS.get(base_key.partition("-")[0])) if base_key else None
    return _slots(listed) if listed else None


@cache
def _slots(listed: str) -> _Slots:
    """One ``_Slots`` per table, whichever views share it (their tiles' slots are worked out once)."""
    return _Slots(listed)


def _slotted_png(drawing: Drawing, bands: list[tuple[tuple, _Band]], table: _Slots) -> bytes | None:
    """The picture in its view's fixed palette slots; None where its colours do not fit in them (then the
    colours' own order is used).

    Why: ordered by where each colour first appears, a move (~14 of TriMac's 226-250 colours come or
    go, and a changed tile moves where a colour first appears in every game) renumbered the colours of
    bands it did not change, and each was mapped and deflated again.  A colour with a slot always has
    that index, so a band whose colours all have one is its own palette indices (worked out once, kept
    with it: no lookup and no new stream a picture), and its stream is kept by the band alone.  The
    colours without a slot take the free slots in the order of their values: first those past the
    table, then the table's slots whose colour the picture lacks (their PLTE entry is then theirs, the
    others keep their table colour: no pixel uses them).  All of it depends on the picture's colours
    and a table in the code alone, never on what this process drew, so the bytes stay a pure function
    of the position and view."""
    slotted = [_band_slots(band, table) for _, band in bands]
    spare: frozenset[int] = frozenset().union(*(got.spare for got in slotted if got.spare))
    if not spare:
        return _png(drawing, table.plte, [_stream((band.serial, table.serial), band, None, got)
                                          for (_, band), got in zip(bands, slotted, strict=True)])
    rest = sorted(spare, key=_REGISTRY.keys.__getitem__)
    used = 0
    if len(rest) > 256 - table.size:  # (no pixel has a slot past the table: those are free without looking)
        for got in slotted:
            used |= got.mask
    free = _free_slots(used, table.size, len(rest))
    if len(free) < len(rest):
        return None
    lut = table.lookup().astype(np.uint8)  # (256, no slot, wraps to 0: each is given one below)
    lut[rest] = free
    lut[_FILTER] = 0
    colours = table.rgb.copy()
    colours[free] = _REGISTRY.keys.take(rest).view(np.uint8).reshape(-1, 4)[:, :3]
    palette = colours[:max(table.size, max(free) + 1)].tobytes()
    slot_of = dict(zip(rest, free, strict=True))
    streams = []
    for (_, band), got in zip(bands, slotted, strict=True):
        if not got.spare:
            streams.append(_stream((band.serial, table.serial), band, None, got))
        else:  # the slots its spare colours took name its stream (the others' never change)
            taken = bytes(slot_of[i] for i in sorted(got.spare))
            streams.append(_stream((band.serial, table.serial, taken), band, lut, got))
    return _png(drawing, palette, streams)


def _free_slots(used: int, size: int, wanted: int) -> list[int]:
    """The first ``wanted`` slots not in ``used`` (bits of a number), those past the table's ``size`` first,
    each part in ascending order (fewer where there are not so many).

    Found bit by bit among the free ones: a TriMac table fills all 256 slots, and testing each slot was
    a 256-step loop in 2 of 3 of its pictures."""
    free: list[int] = []
    for low, high in ((size, 256), (0, size)):
        bits = ~used & ((1 << high) - (1 << low))
        while bits and len(free) < wanted:
            lowest = bits & -bits
            free.append(lowest.bit_length() - 1)
            bits ^= lowest
    return free


def to_image(drawing: Drawing) -> Image.Image:
    """The drawing at scale 1, in RGB, before its palette (for tools and tests)."""
    with _LOCK:
        return _rgb_image(_bands(drawing))


def _rgb_image(bands: list[tuple[tuple, _Band]]) -> Image.Image:
    table = np.array(_REGISTRY.rgb, dtype=np.uint8)
    return Image.fromarray(table[np.concatenate([b.ids[:, 1:] for _, b in bands])], "RGB")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + isal_zlib.crc32(data, isal_zlib.crc32(kind)).to_bytes(4, "big")


def _adler_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (zlib's adler32_combine)."""
    rem = length % _ADLER
    low = ((first & 0xFFFF) + (second & 0xFFFF) + _ADLER - 1) % _ADLER
    high = ((rem * (first & 0xFFFF)) % _ADLER + (first >> 16) + (second >> 16) + _ADLER - rem) % _ADLER
    return low | (high << 16)


def _bands(drawing: Drawing, lineage: Hashable = None) -> list[tuple[tuple, _Band]]:
    """Each band of the picture with its key: colour ids, the filter column first.

    A band is a row of tiles, cut again where a text overlay starts or ends: the status and legend
    lines change with every move, and a band of their own rows alone (about 20) is what is put
    together and deflated again, where the two or three whole rows of tiles they cross were.  The
    cuts follow from the layout, so a band is still a pure function of its key."""
    width = drawing.width
    grid, tiles, overlays = _layout(drawing, lineage)
    cols = len(grid.xs) - 1
    background = _background_id(drawing.background)
    out: list[tuple[tuple, _Band]] = []
    ys, rows_count = grid.ys, len(grid.ys) - 1
    # A row whose tiles and overlays are the very objects of the last picture of this size is its bands.
    # The rows whose tiles are not are found in one pass over the tiles (a move changes a few of 15 rows).
    kept = _ROWS.get((width, drawing.height, background, grid))
    last = kept[1] if kept is not None else None
    changed = {t // cols for t in compress(range(len(tiles)), map(operator.is_not, tiles, kept[0]))} \
        if kept is not None else set()
    crossing_rows: dict[int, list[_Overlay]] = {}  # row -> the overlays crossing it, in their order
    for o in overlays:
        for row in range(max(0, bisect_right(ys, o.y) - 1),
                         min(rows_count, bisect_left(ys, o.y + o.patch.ids.shape[0]))):
            crossing_rows.setdefault(row, []).append(o)
    rows: list[tuple[list[_Patch | None], list[_Overlay], list[tuple[tuple, _Band]]]] = []
    for row in range(rows_count):
        crossing = crossing_rows.get(row, [])
        if last is not None and row not in changed and len(crossing) == len(last[row][1]) \
                and all(map(operator.is_, crossing, last[row][1])):
            rows.append(last[row])
            out.extend(last[row][2])
            continue
        top, bottom = ys[row], ys[row + 1]
        mine = tiles[row * cols:(row + 1) * cols]
        serials = tuple(t.serial if t else 0 for t in mine)
        cuts = sorted({top, bottom}.union(*((o.y, o.y + o.patch.ids.shape[0]) for o in crossing)))
        parts = []
        before = {band.top: band for _, band in last[row][2] if not band.overlays} if last is not None else {}
        for a, b in zip(cuts, cuts[1:], strict=False):
            if a < top or b > bottom:
                continue
            here = [o for o in crossing if o.y < b and o.y + o.patch.ids.shape[0] > a]
            key = (width, a, b, background, grid.xs, serials, tuple(o.key for o in here))
            band = _BANDS.get(key)
            if band is None:
                band = _Band(grid, top, a, b, background, mine, here)
                source = before.get(a)
                if not here and source is not None and source.bottom == b:
                    source.source = None
                    band.source = source
                _remember(_BANDS, key, band, BAND_CACHE)
            parts.append((key, band))
        rows.append((mine, crossing, parts))
        out.extend(parts)
    _remember(_ROWS, (width, drawing.height, background, grid), (tiles, rows), 64)
    return out


def _background_id(colour: str) -> int:
    got = _BACKGROUNDS.get(colour)
    if got is None:
        got = _BACKGROUNDS[colour] = int(_patch(Image.new("RGB", (1, 1), colour).im).ids[0, 0])
    return got


def _overlays_in(band: _Band) -> list[_Overlay]:
    """The band's overlays that reach into its rows and the picture's width."""
    width = band.grid.xs[-1]
    return [o for o in band.overlays if max(band.top, o.y) < min(band.bottom, o.y + o.patch.ids.shape[0])
            and max(0, o.x) < min(width, o.x + o.patch.ids.shape[1])]


def _assemble_ids(band: _Band) -> np.ndarray:
    """The band's pixels as colour ids, the filter column first."""
    grid, top, bottom = band.grid, band.top, band.bottom
    width, height = grid.xs[-1], bottom - top
    first, last = top - band.row_top, bottom - band.row_top
    parts = [_plain(height, 1, _FILTER)]
    for c, tile in enumerate(band.tiles):
        if tile is None:
            parts.append(_plain(height, grid.xs[c + 1] - grid.xs[c], band.background))
        else:
            parts.append(tile.ids[first:last])
    ids = np.concatenate(parts, axis=1)  # one copy for the band, where a slice per tile was a fifth of it
    for o in _overlays_in(band):
        h, w = o.patch.ids.shape
        y0, y1 = max(top, o.y), min(bottom, o.y + h)
        x0, x1 = max(0, o.x), min(width, o.x + w)
        ids[y0 - top:y1 - top, 1 + x0:1 + x1] = o.patch.ids[y0 - o.y:y1 - o.y, x0 - o.x:x1 - o.x]
    return ids


class _Slots:
    """A view's fixed palette slots (``palettes.SLOTS``) and the slot of each colour id this process has."""

    def __init__(self, listed: str) -> None:
        rgb = [int(word, 16) for word in listed.split()][:256]
        #: Slots the table fills (slots past them are free for the colours it lacks).
        self.size = len(rgb)
        self.serial = next(_SERIALS)
        keys = np.array([(c >> 16) | (c & 0xFF00) | ((c & 0xFF) << 16) for c in rgb], dtype="<u4")  # as _Colours'
        by_key = np.argsort(keys, kind="stable")
        self.keys_sorted, self.slot_of = keys[by_key], by_key.astype(np.uint16)
        #: Every slot's R, G, B (256 rows; a slot past the table's end is black).
        self.rgb = np.zeros((256, 3), dtype=np.uint8)
        self.rgb[:len(rgb)] = [((c >> 16) & 255, (c >> 8) & 255, c & 255) for c in rgb]
        self.plte = self.rgb[:self.size].tobytes()
        #: colour id -> its slot, or 256: none (grown with the registry; made again for a new one).
        self.lut = np.zeros(0, dtype=np.uint16)
        self.registry: _Colours | None = None
        #: colour id -> a plain tile of it in these slots (one pixel; emptied with ``lut``).
        self.plains: dict[int, _Slotted] = {}

    def plain(self, colour: int) -> _Slotted:
        """A tile of plain background (``colour``) in these slots: one pixel of it."""
        got = self.plains.get(colour) if self.registry is _REGISTRY else None
        if got is None:
            slot = int(self.lookup()[colour])
            if slot == 256:
                got = _Slotted(np.zeros((1, 1), dtype=np.uint8), frozenset((colour,)),
                               (np.zeros(1, dtype=np.intp), np.zeros(1, dtype=np.intp),
                                np.full(1, colour, dtype=np.uint16)), 0)
            else:
                got = _Slotted(np.full((1, 1), slot, dtype=np.uint8), frozenset(), None, 1 << slot)
            self.plains[colour] = got
        return got

    def lookup(self) -> np.ndarray:
        """``lut`` covering every colour id of the registry."""
        n = len(_REGISTRY.rgb)
        if self.registry is not _REGISTRY:
            self.registry, self.lut, self.plains = _REGISTRY, np.zeros(0, dtype=np.uint16), {}
        if len(self.lut) < n:
            keys = _REGISTRY.keys[len(self.lut):n]
            at = np.searchsorted(self.keys_sorted, keys).clip(max=len(self.keys_sorted) - 1)
            slots = np.where(self.keys_sorted.take(at) == keys, self.slot_of.take(at), 256).astype(np.uint16)
            self.lut = np.concatenate([self.lut, slots])
        return self.lut


def _mask(present: np.ndarray) -> int:
    """The slots (0-255) whose count is not zero, as bits of a number."""
    return int.from_bytes(np.packbits(present[:256] != 0, bitorder="little").tobytes(), "little")


def _slots_of(patch: _Patch, table: _Slots) -> _Slotted:
    """A patch's pixels in ``table``'s slots, kept on the patch (a tile is used again move after move)."""
    got = patch._slots.get(table.serial)
    if got is None and patch.patched is not None:
        got = _patched_slots(patch, table)
    if got is None:
        slots = table.lookup().take(patch.ids, mode="clip")
        if slots.max() == 256:  # colours without a slot (rare): where they are
            ys, xs = np.nonzero(slots == 256)
            ids = patch.ids[ys, xs]
            got = _Slotted(slots.astype(np.uint8), frozenset(ids.tolist()), (ys, xs, ids))
        else:
            got = _Slotted(slots.astype(np.uint8), frozenset(), None)
        patch._slots[table.serial] = got
    return got


def _patched_slots(patch: _Patch, table: _Slots) -> _Slotted | None:
    """A patched tile's slots from the tile it was made from (``_Patch.patched``): its slots copied and the
    boxes' looked up, or None where that tile's slots in this table were not made, or either has colours
    without a slot (then the whole tile is looked up).

    Why: a TriMac move patches ten tiles in their changed boxes (a quarter of each, about), and looking up
    every pixel of each (a gather of 2,304 ids, its maximum, a cast) was most of their slots' cost.  The
    same array: outside the boxes the ids are the other tile's, so their slots are too."""
    kept, boxes = patch.patched  # type: ignore[misc]
    patch.patched = None
    was = kept.get(table.serial)
    if was is None or was.spots is not None:
        return None
    lut = table.lookup()
    index = was.index.copy()
    for rows, cols in boxes:
        slots = lut.take(patch.ids[rows, cols], mode="clip")
        if slots.max() == 256:
            return None
        index[rows, cols] = slots
    got = _Slotted(index, frozenset(), None)
    patch._slots[table.serial] = got
    return got


def _band_slots(band: _Band, table: _Slots) -> _Slotted:
    """The band in ``table``'s slots: its rows as palette indices, the filter column first (where all its
    colours have slots, the PNG's rows as they are: no lookup a picture), kept on the band.

    Its mask and spare colours are its tiles' and overlays' whole (as ``listed``), so the picture's are
    the set of colours of its tiles and overlays, which depends on the position alone."""
    got = band._slots.get(table.serial)
    if got is not None:
        return got
    if band.source is not None:
        got = _band_slots_from(band, band.source, table)
        band.source = None
        if got is not None:
            band._slots[table.serial] = got
            return got
    grid, top, bottom = band.grid, band.top, band.bottom
    width, height = grid.xs[-1], bottom - top
    first, last = top - band.row_top, bottom - band.row_top
    plain = table.plain(band.background)
    serial, edges = table.serial, grid.xs
    parts: list[_Slotted] = []
    blocks = [_plain(height, 1, 0, np.uint8)]
    spotted = False
    for c, tile in enumerate(band.tiles):  # (one pass: a new band a TriMac move is 14 tiles)
        if tile is None:
            part = plain
            blocks.append(_plain(height, edges[c + 1] - edges[c], int(plain.index[0, 0]), np.uint8))
        else:
            part = tile._slots.get(serial) or _slots_of(tile, table)
            blocks.append(part.index[first:last])
        parts.append(part)
        if part.spots is not None:
            spotted = True
    overlays = _overlays_in(band) if band.overlays else []
    laid = [_slots_of(o.patch, table) for o in overlays]
    spare: frozenset[int] = frozenset()
    for part in itertools.chain(parts, laid):
        if part.spare:
            spare |= part.spare
    spots: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for c, part in enumerate(parts if spotted else ()):
        if part.spots is not None:
            ys, xs, ids = part.spots
            if band.tiles[c] is None:  # a plain tile of a colour without a slot
                ys, xs = np.indices((last - first, edges[c + 1] - edges[c])).reshape(2, -1)
                ys, ids = ys + first, np.full(len(ys), ids[0], dtype=ids.dtype)
            here = (ys >= first) & (ys < last)
            spots.append((ys[here] - first, xs[here] + edges[c] + 1, ids[here]))
    index = np.concatenate(blocks, axis=1)
    for o, part in zip(overlays, laid, strict=True):
        h, w = o.patch.ids.shape
        y0, y1 = max(top, o.y), min(bottom, o.y + h)
        x0, x1 = max(0, o.x), min(width, o.x + w)
        index[y0 - top:y1 - top, 1 + x0:1 + x1] = part.index[y0 - o.y:y1 - o.y, x0 - o.x:x1 - o.x]
        # the overlay's pixels replace the tiles' there, spots too
        spots = [(ys[keep], xs[keep], ids[keep]) for ys, xs, ids in spots
                 for keep in [(ys < y0 - top) | (ys >= y1 - top) | (xs < 1 + x0) | (xs >= 1 + x1)]]
        if part.spots is not None:
            ys, xs, ids = part.spots
            ys, xs = ys + (o.y - top), xs + (o.x + 1)
            here = (ys >= y0 - top) & (ys < y1 - top) & (xs >= 1 + x0) & (xs < 1 + x1)
            spots.append((ys[here], xs[here], ids[here]))
    joined = tuple(np.concatenate(column) for column in zip(*spots, strict=True)) if spots else None
    got = _Slotted(index, spare, joined, None, parts + laid)  # type: ignore[arg-type]
    band._slots[table.serial] = got
    return got


def _band_slots_from(band: _Band, source: _Band, table: _Slots) -> _Slotted | None:
    """``_band_slots`` from the last picture's band of the same rows (``source``): its palette indices
    copied and the columns of the tiles that are not the same objects written over, with the spots of
    colours without a slot kept outside those columns and the new tiles' added; or None where either band
    has an overlay or the source's slots in this table were not made.

    Why: a move changes two or three tiles of a row, and putting the band together from its 11-15 tiles
    (one block a tile, ``np.concatenate``) was 7% of a TriMac picture and more of Warp and Weft's.  Its
    mask and spare colours are its tiles' as ``_band_slots`` makes them (their whole: see there); the
    order of the spots is not the same, and nothing reads it (each is one pixel of its own)."""
    was = source._slots.get(table.serial)
    if was is None or band.overlays or source.overlays:
        return None
    serial, edges = table.serial, band.grid.xs
    plain = table.plain(band.background)
    parts = [plain if t is None else (t._slots.get(serial) or _slots_of(t, table)) for t in band.tiles]
    changed = list(compress(range(len(parts)), map(operator.is_not, band.tiles, source.tiles)))
    index = was.index.copy()
    first, last = band.top - band.row_top, band.bottom - band.row_top
    spots: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    if was.spots is not None:
        ys, xs, ids = was.spots
        if changed:
            out = np.zeros(index.shape[1], dtype=bool)
            for c in changed:
                out[1 + edges[c]:1 + edges[c + 1]] = True
            keep = ~out.take(xs)
            ys, xs, ids = ys[keep], xs[keep], ids[keep]
        spots.append((ys, xs, ids))
    for c in changed:
        part = parts[c]
        if band.tiles[c] is None:
            index[:, 1 + edges[c]:1 + edges[c + 1]] = part.index[0, 0]
        else:
            index[:, 1 + edges[c]:1 + edges[c + 1]] = part.index[first:last]
        if part.spots is not None:  # as ``_band_slots``
            ys, xs, ids = part.spots
            if band.tiles[c] is None:
                ys, xs = np.indices((last - first, edges[c + 1] - edges[c])).reshape(2, -1)
                ys, ids = ys + first, np.full(len(ys), ids[0], dtype=ids.dtype)
            here = (ys >= first) & (ys < last)
            spots.append((ys[here] - first, xs[here] + edges[c] + 1, ids[here]))
    spare = frozenset().union(*(part.spare for part in parts if part.spare))
    joined = tuple(np.concatenate(column) for column in zip(*spots, strict=True)) if spots else None
    if joined is not None and not len(joined[0]):
        joined = None
    return _Slotted(index, spare, joined, None, parts)  # type: ignore[arg-type]


@lru_cache(maxsize=256)
def _plain(height: int, width: int, colour: int, dtype: type = np.uint16) -> np.ndarray:
    """A block of one colour id, or palette index (never written to: bands copy it)."""
    block = np.full((height, width), colour, dtype=dtype)
    block.flags.writeable = False
    return block


def _ids(core: Any) -> np.ndarray:
    """An RGB image (Pillow's core image, as ``Image.im``) as colour ids (rows of columns).

    Its bytes come from Pillow's raw encoder called directly: ``Image.tobytes`` wraps the same call in
    six microseconds of Python, and a TriMac move turns ten tiles into ids."""
    width, height = core.size
    coder = _RAW_ENCODER("RGB", "RGBX")
    coder.setimage(core, (0, 0, width, height))
    chunks = []
    while True:
        _, status, data = coder.encode(max(65536, width * 4))
        chunks.append(data)
        if status:
            break
    if status < 0:
        raise RuntimeError(f"raw encoder error {status}")
    keys = np.frombuffer(chunks[0] if len(chunks) == 1 else b"".join(chunks), dtype="<u4") & 0xFFFFFF
    return _REGISTRY.ids(keys).reshape(height, width)


def _patch(core: Any) -> _Patch:
    """An RGB image (Pillow's core image) as colour ids, and its colours in the order of their values."""
    ids = _ids(core)
    return _Patch(ids)


@lru_cache(maxsize=64)
def _grid(width: int, height: int, board: tuple[int, int, int] | None) -> _Grid:
    """The tile grid: ``TILE`` squares, or the board's own squares where the drawing names them."""
    if board is None:
        return _Grid(tuple(range(0, width, TILE)) + (width,), tuple(range(0, height, TILE)) + (height,))
    x0, y0, step = board

    def cuts(origin: int, size: int) -> tuple[int, ...]:
        inner = {origin + k * step for k in range(-(origin // step) - 1, (size - origin) // step + 2)}
        return tuple(sorted({0, size} | {v for v in inner if 0 < v < size}))

    return _Grid(cuts(x0, width), cuts(y0, height))


def _shape(s: Shape, grid: _Grid) -> _SHAPE:
    """What the layout needs of a shape, kept by the shape object (see ``_SHAPES``)."""
    got = _SHAPES.get(id(s))
    if got is not None and got[0] is s:
        if got[3] is grid:
            return got
        extent, serial = got[2], got[1]
    else:
        if len(_SHAPES) > SHAPE_CACHE:
            _SHAPES.clear()
            _SHAPE_SERIALS.clear()
            _LOOKS_AT.clear()
            _LOOK_SERIALS.clear()
        found = _SHAPE_SERIALS.get(s)
        serial = _SHAPE_SERIALS[s] = found if found is not None else next(_SERIALS)
        extent = _extent(s)
    x0, y0, x1, y1 = extent
    xs, ys = grid.xs, grid.ys
    cols = len(xs) - 1
    c0, c1 = max(0, bisect_right(xs, x0) - 1), min(cols - 1, bisect_left(xs, x1) - 1)
    r0, r1 = max(0, bisect_right(ys, y0) - 1), min(len(ys) - 2, bisect_left(ys, y1) - 1)
    tiles = tuple(r * cols + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
    got = _SHAPES[id(s)] = (s, serial, extent, grid, tiles, isinstance(s, Text) and x1 - x0 > TILE)
    return got


def _base(drawing: Drawing, grid: _Grid) -> _Base:
    """The fixed part's layout, kept by (size, background, base key) and checked to be the same shapes."""
    n = drawing.base_count if drawing.base_key else 0
    key = (drawing.width, drawing.height, drawing.background, drawing.base_key, n, grid)
    shapes = drawing.shapes[:n]
    base = _BASES.get(key)
    if base is not None and base.shapes == shapes:  # the same objects: a pointer comparison each
        return base
    cells = (len(grid.xs) - 1) * (len(grid.ys) - 1)
    indexes: list[list[int]] = [[] for _ in range(cells)]
    infos = [_shape(s, grid) for s in shapes]
    for i, info in enumerate(infos):
        for t in info[4]:
            indexes[t].append(i)
    base = _Base(next(_SERIALS), grid, shapes, [info[2] for info in infos], indexes,
                 [tuple(infos[i][1] for i in here) for here in indexes], {}, drawing.grid is not None)
    _remember(_BASES, key, base, 64)
    return base


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]


def _info(s: Shape, grid: _Grid) -> _SHAPE:
    """``_shape``'s fast path: the kept entry when it is this object's, for this grid."""
    got = _SHAPES.get(id(s))
    return got if got is not None and got[0] is s and got[3] is grid else _shape(s, grid)


def _layout(drawing: Drawing, lineage: Hashable = None) -> tuple[_Grid, list[_Patch | None], list[_Overlay]]:
    """The tile grid, each tile (None: plain background) and the text overlays.

    A position's other shapes are mostly the very objects of the position before
    (the games keep them), so the layout is kept per fixed part (``_LAID``) and
    the next one starts from it: only the tiles that a shape new to the drawing
    or gone from it reaches are looked at again (``_step_runs``, ``_step``).
    Looking at every shape of every tile was a fifth of a TriMac picture (900
    shapes of Warp and Weft, none of them fixed).  Whatever the start, the layout
    is the one ``_full`` makes from nothing, so the picture is the same.

    Kept per fixed part *and* lineage: a deliverer draws its boards' moves interleaved, and a
    Warp and Weft or TriMac position diffed against another board's layout cost 25-30% more than
    against its own board's last one (24 boards in turn).  A lineage not kept (a new board, or
    past ``LAID_CACHE``) is laid out from nothing.  (Not from another lineage's layout: the step
    takes the layout it starts from over, so one kept under two keys would be changed under the
    other.)"""
    grid = _grid(drawing.width, drawing.height, drawing.grid)
    base = _base(drawing, grid)
    others = drawing.shapes[len(base.shapes):]
    runs = drawing.runs[drawing.base_runs:] if base.shapes else drawing.runs
    if sum(map(len, runs)) != len(others):  # shapes not handed through add and extend
        runs = None
    prev = _LAID.get((base.serial, lineage))
    laid = None
    if prev is not None:
        if runs is not None and prev.run_of is not None:
            laid = _step_runs(drawing.background, base, others, runs, prev)
        else:
            laid = _step(drawing.background, base, others, prev)
    if laid is None:
        laid = _full(drawing.background, base, others, runs)
    _remember(_LAID, (base.serial, lineage), laid, LAID_CACHE)
    return grid, laid.tiles, laid.overlays


def _full(background: str, base: _Base, others: list[Shape], runs: list[tuple[Shape, ...]] | None) -> _Laid:
    """The layout from nothing: every other shape into the tiles it reaches."""
    grid = base.grid
    infos = [_info(s, grid) for s in others]
    per_tile: list[list[int]] = [[] for _ in base.indexes]
    for i, info in enumerate(infos):
        for t in info[4]:
            per_tile[t].append(i)
    near = [[infos[i] for i in here] for here in per_tile]
    # A wide text no other shape comes near is an overlay; only shapes in the tiles it crosses can.
    lone = [i for i, info in enumerate(infos) if info[5] and not any(
        any(j != i and _overlaps(info[2], infos[j][2]) for j in per_tile[t])
        or any(_overlaps(info[2], base.extents[j]) for j in base.indexes[t]) for t in info[4])]
    for i in lone:
        for t in infos[i][4]:
            per_tile[t].remove(i)
    tiles = [_tile_of(background, base, t, [infos[i] for i in here]) for t, here in enumerate(per_tile)]
    run_ids = run_set = run_of = None
    if runs is not None:
        run_ids = list(map(id, runs))
        run_set = set(run_ids)
        run_of = {id(s): (id(r), j) for r in runs for j, s in enumerate(r)}
        if len(run_of) != len(others) or len(run_set) != len(runs):  # a shape or run twice: by shapes
            runs = run_ids = run_set = run_of = None
    return _Laid(others, runs, run_ids, run_set, run_of, near, {id(others[i]): others[i] for i in lone},
                 tiles,  # type: ignore[arg-type]
                 [_overlay(others[i], background) for i in lone])  # type: ignore[arg-type]


def _step_runs(background: str, base: _Base, others: list[Shape], runs: list[tuple[Shape, ...]],
               prev: _Laid) -> _Laid | None:
    """``_step`` by runs (``Drawing.runs``): the layout from the previous position's, or None where ``_full``
    must make it.

    Runs are told apart by identity, as ``_step`` tells shapes apart (``prev`` keeps its runs alive).
    The runs both drawings have must come in the same order, each once; a shape of a run that came is
    new to the drawing (or comes twice: then None), a shape of a run that went is gone, and a shape in
    both is taken as gone and come again (its tiles keep their keys, so their pixels are the kept ones).
    So only the runs are walked (Warp and Weft: ~260 runs for 770 shapes, TriMac 210 for 420), and a
    shape's place is its run's start plus its place in it."""
    assert prev.run_ids is not None and prev.run_set is not None and prev.run_of is not None and prev.runs
    run_ids = list(map(id, runs))
    if run_ids == prev.run_ids:
        return _Laid(others, runs, run_ids, prev.run_set, prev.run_of, prev.near, prev.lone, prev.tiles,
                     prev.overlays)
    now, was = set(run_ids), prev.run_set
    added_runs, removed_runs = now - was, was - now
    if len(now) != len(run_ids) or len(added_runs) + len(removed_runs) > len(run_ids) // 4 + 16:
        return None
    if list(filterfalse(added_runs.__contains__, run_ids)) != list(filterfalse(removed_runs.__contains__,
                                                                             prev.run_ids)):
        return None
    run_of = prev.run_of  # (prev is not used again: its successor takes the map over, or _full makes one)
    gone_shapes = [s for r in compress(prev.runs, map(removed_runs.__contains__, prev.run_ids)) for s in r]
    for s in gone_shapes:
        del run_of[id(s)]
    fresh_shapes = []
    for r in compress(runs, map(added_runs.__contains__, run_ids)):
        for j, s in enumerate(r):
            if id(s) in run_of:  # twice in the drawing
                return None
            run_of[id(s)] = (id(r), j)
            fresh_shapes.append(s)
    starts = dict(zip(run_ids, accumulate(map(len, runs), initial=0), strict=False))

    def place(i: int) -> int:  # shape id -> its place in this drawing
        r, j = run_of[i]
        return starts[r] + j

    def key(f: _SHAPE) -> int:  # (``place`` of the shape: one call a comparison, where two were)
        r, j = run_of[id(f[0])]
        return starts[r] + j

    grid = base.grid
    added, removed = set(map(id, fresh_shapes)), {id(s) for s in gone_shapes}
    swaps = _swaps(grid, prev.runs, prev.run_ids, removed_runs, runs, run_ids, added_runs, added, removed)
    near, lone, tiles, overlays = _relayout(
        background, base, prev, [_info(s, grid) for s in fresh_shapes], [_info(s, grid) for s in gone_shapes],
        added, removed, place, key, swaps)
    return _Laid(others, runs, run_ids, now, run_of, near, lone, tiles, overlays)


def _swaps(grid: _Grid, was: list[tuple[Shape, ...]], was_ids: list[int], removed: set[int],
           runs: list[tuple[Shape, ...]], run_ids: list[int], added: set[int], came: set[int], went: set[int]
           ) -> list[tuple[_SHAPE, _SHAPE]]:
    """Shapes of runs that came which take the very place of a gone run's shapes: (gone, came) entries.

    A run that went and one that came between the same two kept runs (the only ones there, and as long)
    give their shapes in pairs, where each pair reaches the same tiles: in each of those tiles' lists the
    new shape goes where the old one was (every other shape is before or after both, as the runs are), so
    ``_relayout`` puts it there, where it filtered the list and searched each new shape's place in it.
    TriMac's status and legend lines and Warp and Weft's claimed regions come so, each across many tiles.
    A shape in both a run that went and one that came (``came`` and ``went``: the shapes' ids) is in no
    pair: it is taken out of its lists and put in again by its place, as the shapes of no pair are."""
    def gaps(ids: list[int], changed: set[int]) -> dict[int, int]:
        """The gap (kept runs before it) of each changed run -> its place; -1 where a gap has several."""
        out: dict[int, int] = {}
        for k, p in enumerate(compress(range(len(ids)), map(changed.__contains__, ids))):
            out[p - k] = -1 if p - k in out else p
        return out

    before = gaps(was_ids, removed)
    swaps: list[tuple[_SHAPE, _SHAPE]] = []
    for gap, p in gaps(run_ids, added).items():
        q = before.get(gap, -1)
        if p < 0 or q < 0 or len(runs[p]) != len(was[q]):
            continue
        pairs = [(_info(old, grid), _info(new, grid)) for old, new in zip(was[q], runs[p], strict=True)
                 if id(old) not in came and id(new) not in went]
        if all(old[4] == new[4] for old, new in pairs):
            swaps.extend(pairs)
    return swaps


def _step(background: str, base: _Base, others: list[Shape], prev: _Laid) -> _Laid | None:
    """The layout from the previous position's (``prev``), or None where ``_full`` must make it (shape by
    shape: a drawing whose runs cannot be used, see ``_step_runs``).

    Shapes are told apart by identity (``prev`` keeps its shapes alive, so an id
    it holds is that object's).  The shapes both drawings have must come in the
    same order, each once: then every tile no new or gone shape reaches has the
    same shapes in the same order as before, and so the same key and pixels."""
    ids = list(map(id, others))
    if ids == prev.ids:
        return _Laid(others, None, None, None, None, prev.near, prev.lone, prev.tiles, prev.overlays)
    pos = dict(zip(ids, count(), strict=False))
    now, was = set(ids), prev.idset
    added, removed = now - was, was - now
    if len(pos) != len(ids) or len(added) + len(removed) > len(ids) // 4 + 16:
        return None
    if list(filterfalse(added.__contains__, ids)) != list(filterfalse(removed.__contains__, prev.ids)):
        return None
    grid = base.grid
    fresh = [_info(others[pos[i]], grid) for i in added]
    gone = []
    for i in removed:
        got = _SHAPES.get(i)
        if got is None:  # the kept entries were emptied: its tiles are not known
            return None
        gone.append(_info(got[0], grid))
    near, lone, tiles, overlays = _relayout(background, base, prev, fresh, gone, added, removed, pos.__getitem__)
    return _Laid(others, None, None, None, None, near, lone, tiles, overlays)


def _relayout(background: str, base: _Base, prev: _Laid, fresh: list[_SHAPE], gone: list[_SHAPE],
              added: set[int], removed: set[int], place: Callable[[int], int],
              key: Callable[[_SHAPE], int] | None = None, swaps: Sequence[tuple[_SHAPE, _SHAPE]] = ()
              ) -> tuple[list[list[_SHAPE]], dict[int, Text], list[_Patch | None], list[_Overlay]]:
    """The near lists, lone texts, tiles and overlays once the shapes ``fresh`` came and ``gone`` went
    (their ids: ``added``, ``removed``; ``place``: a shape id's place in the drawing; ``key``: a shape
    entry's, where the caller has a quicker one; ``swaps``: (gone, came) pairs of them where the new
    shape takes the old one's place in each of its tiles' lists, see ``_swaps``)."""
    grid = base.grid
    near = list(prev.near)
    swapped: set[int] = set()
    filtered = removed
    if swaps:
        taken = {id(old[0]) for old, _ in swaps}
        given = {id(new[0]) for _, new in swaps}
        fresh_rest = [info for info in fresh if id(info[0]) not in given]
        gone_rest = [info for info in gone if id(info[0]) not in taken]
        filtered = removed - taken
        for old, new in swaps:
            shape = old[0]
            for t in old[4]:
                here = near[t]
                if t not in swapped:
                    here = near[t] = list(here)
                    swapped.add(t)
                for k, entry in enumerate(here):
                    if entry[0] is shape:
                        here[k] = new
                        break
                else:
                    raise RuntimeError("a gone shape is not in the list of a tile it reaches")
    else:
        fresh_rest, gone_rest = fresh, gone
    coming: dict[int, list[_SHAPE]] = {}
    for info in fresh_rest:
        for t in info[4]:
            coming.setdefault(t, []).append(info)
    going = {t for info in gone_rest for t in info[4]}

    if key is None:
        def key(f: _SHAPE) -> int:
            return place(id(f[0]))

    for t in going | coming.keys():
        here = [f for f in near[t] if id(f[0]) not in filtered] if t in going else list(near[t])
        for f in coming.get(t, ()):
            insort(here, f, key=key)
        near[t] = here
    dirty = going | coming.keys() | swapped
    # Texts near a changed tile may have become lone or stopped being; elsewhere nothing changed.  A tile
    # is painted again where what it paints changed: a shape came or went that is not lone (a status or
    # legend line that gives way to another leaves the tiles it crosses as they were), or one turned lone
    # or stopped being.
    lone = {i: s for i, s in prev.lone.items() if i not in removed}
    repaint: set[int] = set()
    whole: set[int] = set()
    wide = {id(info[0]): info for t in dirty for info in near[t] if info[5]}  # each text looked at once
    for i, info in wide.items():
        alone = _alone(info, near, base)
        if alone != (i in lone):
            if alone:
                lone[i] = info[0]  # type: ignore[assignment]
            else:
                del lone[i]
            if i not in added:
                repaint.update(info[4])
                whole.update(info[4])
    for info in fresh:
        if id(info[0]) not in lone:
            repaint.update(info[4])
    for info in gone:
        if id(info[0]) not in prev.lone:
            repaint.update(info[4])
    # Off a board's own squares, a tile painted before is painted again only where the shapes that came or
    # went (not lone) may paint: their boxes, each painted once across the tiles it crosses (a ring's box is
    # a quarter of each of the four tiles it may cross).  A tile a text turning lone or not changed is
    # painted whole.
    boxes = [] if base.aligned else _boxes(
        [f[2] for f in itertools.chain((f for f in fresh if id(f[0]) not in lone),
                                       (f for f in gone if id(f[0]) not in prev.lone))],
        grid.xs[-1], grid.ys[-1])
    painted: dict[int, np.ndarray] = {}
    tiles = list(prev.tiles)
    crossed = {t for s in lone.values() for t in _info(s, grid)[4]}  # tiles a lone text crosses
    for t in repaint:
        infos = [f for f in near[t] if id(f[0]) not in lone] if t in crossed else near[t]
        before = prev.tiles[t]
        if base.aligned or before is None or t in whole:
            tiles[t] = _tile_of(background, base, t, infos)
        else:
            tiles[t] = _patched(background, base, t, infos, before, boxes, painted, near, lone, place)
    overlays = [_overlay(s, background) for s in sorted(lone.values(), key=lambda s: place(id(s)))]
    return near, lone, tiles, overlays


def _alone(info: _SHAPE, near: list[list[_SHAPE]], base: _Base) -> bool:
    """No other shape, fixed or not, comes near the text ``info`` (in the tiles it crosses, where alone
    any can): it may be an overlay."""
    s, extent = info[0], info[2]
    x0, y0, x1, y1 = extent
    for u in info[4]:
        for o in near[u]:
            e = o[2]
            if o[0] is not s and x0 < e[2] and x1 > e[0] and y0 < e[3] and y1 > e[1]:
                return False
        for j in base.indexes[u]:
            e = base.extents[j]
            if x0 < e[2] and x1 > e[0] and y0 < e[3] and y1 > e[1]:
                return False
    return True


def _tile_of(background: str, base: _Base, t: int, infos: list[_SHAPE]) -> _Patch | None:
    """Tile ``t`` with those other shapes over its fixed ones (None: plain background), kept by key."""
    if not infos and not base.indexes[t]:
        return None
    key = (base.serial, t, tuple(info[1] for info in infos))
    tile = _TILES.get(key)
    if tile is None:
        tile = _tile(background, base, t, infos)
        _remember(_TILES, key, tile, TILE_CACHE)
    return tile


def _boxes(extents: list[tuple[float, float, float, float]], width: int, height: int) -> list[tuple[int, int, int, int]]:
    """The extents of what came or went, on whole pixels inside the picture, overlapping ones merged into
    their common box (a piece, its letter and its ring are one box): each is painted once."""
    boxes = [[max(0, math.floor(e[0])), max(0, math.floor(e[1])), min(width, math.ceil(e[2])),
              min(height, math.ceil(e[3]))] for e in extents]
    out: list[list[int]] = []
    for b in sorted(b for b in boxes if b[0] < b[2] and b[1] < b[3]):
        for a in out:  # (a box grown by a merge may meet one kept before it: looked at again below)
            if a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]:
                a[0], a[1], a[2], a[3] = min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])
                break
        else:
            out.append(b)
    if len(out) > 1 and any(a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]
                            for i, a in enumerate(out) for b in out[i + 1:]):
        return _boxes([tuple(b) for b in out], width, height)  # type: ignore[misc]
    boxes = out
    return [(b[0], b[1], b[2], b[3]) for b in boxes]


def _patched(background: str, base: _Base, t: int, infos: list[_SHAPE], before: _Patch,
             boxes: list[tuple[int, int, int, int]], painted: dict[int, np.ndarray], near: list[list[_SHAPE]],
             lone: dict[int, Text], place: Callable[[int], int]) -> _Patch | None:
    """Tile ``t`` (not on a board's own squares) from ``before``, painted again inside ``boxes`` alone.

    A pixel depends only on the shapes whose extents reach it, painted in the drawing's order; outside
    the boxes of what came or went those are the same shapes as ``before``'s (the others keep their
    order), so those pixels are ``before``'s.  Inside, each box is painted once for every tile it
    crosses (``_paint_box``, kept in ``painted`` for this picture) and its part copied in: the same
    pixels as painting the tile whole."""
    if not infos and not base.indexes[t]:
        return None
    key = (base.serial, t, tuple(info[1] for info in infos))
    tile = _TILES.get(key)
    if tile is not None:
        return tile
    cols = len(base.grid.xs) - 1
    r, c = divmod(t, cols)
    x, y = base.grid.xs[c], base.grid.ys[r]
    x1, y1 = base.grid.xs[c + 1], base.grid.ys[r + 1]
    ids = None
    written: list[tuple[slice, slice]] = []
    for i, box in enumerate(boxes):
        bx0, by0, bx1, by1 = box
        ix0, iy0, ix1, iy1 = max(x, bx0), max(y, by0), min(x1, bx1), min(y1, by1)
        if ix0 >= ix1 or iy0 >= iy1:
            continue
        got = painted.get(i)
        if got is None:
            got = painted[i] = _paint_box(background, base, box, near, lone, place)
        if ids is None:
            ids = before.ids.copy()
        where = (slice(iy0 - y, iy1 - y), slice(ix0 - x, ix1 - x))
        ids[where] = got[iy0 - by0:iy1 - by0, ix0 - bx0:ix1 - bx0]
        written.append(where)
    if ids is None:
        tile = before
    else:
        tile = _Patch(ids)
        if before._slots:  # (before's slots, not before: a tile never holds a chain of the tiles before it)
            tile.patched = (before._slots, written)
    _remember(_TILES, key, tile, TILE_CACHE)
    return tile


def _paint_box(background: str, base: _Base, box: tuple[int, int, int, int], near: list[list[_SHAPE]],
               lone: dict[int, Text], place: Callable[[int], int]) -> np.ndarray:
    """The picture's pixels (colour ids) in ``box``: the fixed shapes from the kept canvases of the tiles
    it crosses, then every other shape (not lone) reaching it, in the drawing's order."""
    k = SUPERSAMPLE
    x0, y0, x1, y1 = box
    xs, ys = base.grid.xs, base.grid.ys
    cols = len(xs) - 1
    part: Image.Image | None = None
    shapes: dict[int, _SHAPE] = {}
    for r in range(max(0, bisect_right(ys, y0) - 1), len(ys) - 1):
        if ys[r] >= y1:
            break
        for c in range(max(0, bisect_right(xs, x0) - 1), cols):
            if xs[c] >= x1:
                break
            t = r * cols + c
            canvas = _canvas(background, base, t)
            ix0, iy0, ix1, iy1 = max(xs[c], x0), max(ys[r], y0), min(xs[c + 1], x1), min(ys[r + 1], y1)
            cut = canvas.im.crop(((ix0 - xs[c]) * k, (iy0 - ys[r]) * k, (ix1 - xs[c]) * k, (iy1 - ys[r]) * k))
            if part is None and (ix0, iy0, ix1, iy1) == box:  # within one tile
                part = canvas._new(cut)
            else:
                if part is None:
                    part = canvas._new(Image.core.new("RGB", ((x1 - x0) * k, (y1 - y0) * k)))
                part.im.paste(cut, ((ix0 - x0) * k, (iy0 - y0) * k, (ix1 - x0) * k, (iy1 - y0) * k))
            for f in near[t]:
                e = f[2]
                if e[0] < x1 and e[2] > x0 and e[1] < y1 and e[3] > y0 and id(f[0]) not in lone:
                    shapes[id(f[0])] = f
    assert part is not None  # the tiles cover the picture, and the box is inside it
    _draw(part, [shapes[i][0] for i in sorted(shapes, key=place)], -x0 * k, -y0 * k)
    return _ids(part.im.reduce((k, k), (0, 0, *part.size)))


def _canvas(background: str, base: _Base, t: int) -> Image.Image:
    """Tile ``t``'s fixed shapes painted at twice the size, kept (``_CANVASES``)."""
    key = (base.serial, t)
    img = _CANVASES.get(key)
    if img is None:
        cols = len(base.grid.xs) - 1
        r, c = divmod(t, cols)
        x, y = base.grid.xs[c], base.grid.ys[r]
        w, h = base.grid.xs[c + 1] - x, base.grid.ys[r + 1] - y
        img = Image.new("RGB", (w * SUPERSAMPLE, h * SUPERSAMPLE), background)
        _draw(img, [base.shapes[i] for i in base.indexes[t]], -x * SUPERSAMPLE, -y * SUPERSAMPLE)
        _remember(_CANVASES, key, img, CANVAS_CACHE)
    return img


def _tile(background: str, base: _Base, t: int, infos: list[_SHAPE]) -> _Patch:
    """Tile ``t`` of the picture.  On a board cut along its squares, what the tile shows, seen from its
    corner, names it, so a knight on a dark square is painted once wherever it stands.  Elsewhere a tile
    is its own.

    What a shape shows seen from a corner is its painting calls (``_ops``) moved there: whole pixels, so
    two tiles with the same calls have the same pixels, and a tile paints the picture's own shapes.  A
    shape's look is worked out once per corner (``_LOOKS_AT``) and named by a serial it shares with every
    equal one, so a tile's look is a tuple of numbers (making and hashing a dozen moved dataclasses per
    tile was a fifth of a Warp and Weft picture)."""
    cols = len(base.grid.xs) - 1
    r, c = divmod(t, cols)
    x, y = base.grid.xs[c], base.grid.ys[r]
    w, h = base.grid.xs[c + 1] - x, base.grid.ys[r + 1] - y
    fixed = [base.shapes[i] for i in base.indexes[t]]
    others = [info[0] for info in infos]
    if not base.aligned:
        return _paint_tile(background, x, y, w, h, (base.serial, t), fixed, others)
    look = base.looks.get(t)
    if look is None:
        look = base.looks[t] = tuple(_look(s, serial, x, y) for s, serial in zip(fixed, base.serials[t], strict=True))
    key = (background, w, h, look, tuple(_look(info[0], info[1], x, y) for info in infos))
    tile = _LOOKS.get(key)
    if tile is None:
        tile = _paint_tile(background, x, y, w, h, (background, w, h, look), fixed, others)
        _remember(_LOOKS, key, tile, TILE_CACHE)
    return tile


def _look(s: Shape, serial: int, x: int, y: int) -> int:
    """The serial of what ``s`` (whose serial is ``serial``) paints, seen from the corner (x, y)."""
    key = (serial, x, y)
    got = _LOOKS_AT.get(key)
    if got is None:
        dx, dy = x * SUPERSAMPLE, y * SUPERSAMPLE
        seen = []
        for op in _ops(s)[1]:
            if op[0] == _TEXT:
                seen.append((_TEXT, op[1] - dx, op[2] - dy, op[5], op[7]))
            elif op[0] == _POLYGON:
                seen.append((_POLYGON, tuple((px - dx, py - dy) for px, py in op[1]), *op[2:]))
            else:
                x0, y0, x1, y1 = op[2]
                seen.append((_BOX, op[1], (x0 - dx, y0 - dy, x1 - dx, y1 - dy), *op[3:]))
        calls = tuple(seen)
        got = _LOOK_SERIALS.get(calls)
        if got is None:
            got = _LOOK_SERIALS[calls] = next(_SERIALS)
        _LOOKS_AT[key] = got
    return got


def _overlay(s: Text, background: str) -> _Overlay:
    """``s`` placed on the picture's 2x2 grid, drawn over the background (kept per text)."""
    k = SUPERSAMPLE
    key = (s.text, round(s.size * k), _ANCHOR.get(s.anchor, "mm"), s.x * k, s.y * k, _rgb(s.fill), background)
    got = _OVERLAYS.get(key)
    if got is None:
        got = _overlay_at(*key)
        _remember(_OVERLAYS, key, got, 1024)
    return got


def _overlay_at(text: str, size: int, anchor: str, x: float, y: float, fill: tuple[int, int, int],
                background: str) -> _Overlay:
    """The text painted at twice the size on the background, on the picture's 2x2 grid, and
    reduced: the very pixels painting the whole picture gives there."""
    mask, left, top = _text_mask(text, size, anchor, x % 1, y % 1)
    x2, y2 = math.floor(x) + left, math.floor(y) + top
    odd_x, odd_y = x2 % 2, y2 % 2
    w, h = mask.width + odd_x, mask.height + odd_y
    img = Image.new("RGB", (w + w % 2, h + h % 2), background)
    img.im.paste(fill, (odd_x, odd_y, odd_x + mask.width, odd_y + mask.height), _text_bits(text, size, anchor, x % 1,
                                                                                           y % 1).im)
    return _Overlay((text, size, anchor, x, y, fill, background), _patch(img.im.reduce((SUPERSAMPLE, SUPERSAMPLE), (0, 0, *img.size))),
                    (x2 - odd_x) // 2, (y2 - odd_y) // 2)


def _paint_tile(background: str, x: int, y: int, w: int, h: int, canvas: tuple,
                fixed: Sequence[Shape], others: Sequence[Shape]) -> _Patch:
    """The tile at (x, y): the fixed shapes from a canvas kept by ``canvas``, the others over a copy
    (``_draw`` floors coordinates, so a tile's canvas is just the tile at twice the size)."""
    k = SUPERSAMPLE
    img = _CANVASES.get(canvas)
    if img is None:
        img = Image.new("RGB", (w * k, h * k), background)
        _draw(img, fixed, -x * k, -y * k)
        _remember(_CANVASES, canvas, img, CANVAS_CACHE)
    if others:
        img = img.copy()
        _draw(img, others, -x * k, -y * k)
    return _patch(img.im.reduce((k, k), (0, 0, *img.size)))  # Image.reduce's own call, without its checks


def _extent(s: Shape) -> tuple[float, float, float, float]:
    """Where ``s`` may paint, at scale 1 (left and top in, right and bottom out): which tiles it
    belongs to.  As tight as Pillow allows, so a square's shapes stay in the square's own tile:
    a rectangle (its outline is drawn inside it) on whole pixels paints exactly its box."""
    if isinstance(s, Rect):
        pad = 0 if all(float(v).is_integer() for v in (s.x, s.y, s.w, s.h)) else 1
        return s.x - pad, s.y - pad, s.x + s.w + pad, s.y + s.h + pad
    if isinstance(s, Circle):  # the outline is drawn inside the circle, too
        pad = s.r + 1
        return s.cx - pad, s.cy - pad, s.cx + pad, s.cy + pad
    if isinstance(s, Polygon):
        xs, ys = [p[0] for p in s.points], [p[1] for p in s.points]
        pad = _PAD + (s.width if s.stroke else 0)
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
    if isinstance(s, Line):
        pad = _PAD + s.width
        return min(s.x1, s.x2) - pad, min(s.y1, s.y2) - pad, max(s.x1, s.x2) + pad, max(s.y1, s.y2) + pad
    k = SUPERSAMPLE
    x, y = s.x * k, s.y * k
    mask, left, top = _text_mask(s.text, round(s.size * k), _ANCHOR.get(s.anchor, "mm"), x % 1, y % 1)
    x0, y0 = math.floor(x) + left, math.floor(y) + top
    return x0 / k - 1, y0 / k - 1, (x0 + mask.width) / k + 1, (y0 + mask.height) / k + 1


def _draw(img: Image.Image, shapes: Sequence[Shape], dx: int = 0, dy: int = 0) -> None:
    """Paint ``shapes`` at SUPERSAMPLE times their size, shifted by (dx, dy) whole pixels of ``img``.

    Each shape is worked out once into the calls that paint it at (0, 0)
    (``_ops``); a shift moves their whole-pixel coordinates, so a tile paints
    a shape exactly as the whole picture does, with no margin.  The calls go to
    Pillow's C drawing object directly: working out the coordinates, colours and
    text of eight shapes for every tile was half the time of painting it."""
    pen = Image.core.draw(img.im, 0)
    core = img.im
    get = _OPS.get
    for s in shapes:
        got = get(id(s))
        if got is None or got[0] is not s:
            got = _ops(s)
        for op in got[1]:
            kind = op[0]
            if kind == _TEXT:
                x, y = op[1] + dx, op[2] + dy
                core.paste(op[5], (x, y, x + op[3], y + op[4]), op[6])
            elif kind == _POLYGON:
                pts = [(x + dx, y + dy) for x, y in op[1]]
                if op[2] == "imagedraw":
                    ImageDraw.Draw(img).polygon(pts, fill=op[3], outline=op[4], width=op[5])
                else:
                    pen.draw_polygon(pts, *op[3:])  # as ImageDraw.polygon calls it
            else:
                x0, y0, x1, y1 = op[2]
                op[1](pen, (x0 + dx, y0 + dy, x1 + dx, y1 + dy), *op[3:])


#: Kinds of painting call (``_ops``): a text's mask pasted in its colour, a polygon, a call on a box.
_TEXT, _POLYGON, _BOX = 0, 1, 2
#: Pillow's C drawing calls, unbound (a box call names one: no attribute lookup per shape).
_PEN = type(Image.core.draw(Image.new("RGB", (1, 1)).im, 0))
_LINES, _RECTANGLE, _ELLIPSE = _PEN.draw_lines, _PEN.draw_rectangle, _PEN.draw_ellipse
#: id(shape) -> (shape, its painting calls at (0, 0)); the shape is kept so its id stays its own.
_OPS: dict[int, tuple[Shape, tuple[tuple, ...]]] = {}


def _ops(s: Shape) -> tuple[Shape, tuple[tuple, ...]]:
    """The calls that paint ``s`` at twice its size on a canvas at (0, 0), kept by the shape object.

    Pillow turns a shape's coordinates into whole pixels by truncating them,
    which for a negative fraction (a shape that starts left of a tile) rounds
    the other way; flooring them here first gives the pixels a whole-picture
    canvas would, wherever the canvas starts.  The calls and their tests are
    ``ImageDraw``'s (an outline in its fill's colour is not drawn, both unset
    draw the outline in the default ink); a polygon's outline wider than a pixel
    goes through ``ImageDraw`` itself (it masks the outline by the fill; only
    fixed shapes use it, painted once).  Text is pasted through a one-bit copy
    of its two-level mask: the same pixels, a fifth of the time."""
    k = SUPERSAMPLE
    floor = math.floor
    ops: list[tuple] = []

    def line_width(w: float) -> int:
        return max(1, round(w * k))

    if isinstance(s, Text):
        x, y = s.x * k, s.y * k
        key = (s.text, round(s.size * k), _ANCHOR.get(s.anchor, "mm"), x % 1, y % 1)
        mask, left, top = _text_mask(*key)
        ops.append((_TEXT, floor(x) + left, floor(y) + top, mask.width, mask.height, _rgb(s.fill), _text_bits(*key).im,
                    key))
    elif isinstance(s, Line):
        ops.append((_BOX, _LINES, (floor(s.x1 * k), floor(s.y1 * k), floor(s.x2 * k), floor(s.y2 * k)),
                    _ink(s.stroke), line_width(s.width)))
    else:
        fill = None if s.fill is None else _ink(s.fill)
        ink = _ink(s.stroke) if s.stroke is not None else (_ink(None) if fill is None else None)
        width = line_width(s.width) if s.stroke else 0
        outline = ink is not None and ink != fill and width != 0
        if isinstance(s, Rect):
            box = (floor(s.x * k), floor(s.y * k), floor((s.x + s.w) * k) - 1, floor((s.y + s.h) * k) - 1)
            if fill is not None:
                ops.append((_BOX, _RECTANGLE, box, fill, 1))
            if outline:
                ops.append((_BOX, _RECTANGLE, box, ink, 0, width))
        elif isinstance(s, Circle):
            box = (floor((s.cx - s.r) * k), floor((s.cy - s.r) * k), floor((s.cx + s.r) * k), floor((s.cy + s.r) * k))
            if fill is not None:
                ops.append((_BOX, _ELLIPSE, box, fill, 1))
            if outline:
                ops.append((_BOX, _ELLIPSE, box, ink, 0, width))
        else:
            pts = tuple((floor(x * k), floor(y * k)) for x, y in s.points)
            if outline and width != 1:
                ops.append((_POLYGON, pts, "imagedraw", s.fill, s.stroke, width))
            else:
                if fill is not None:
                    ops.append((_POLYGON, pts, "draw_polygon", fill, 1))
                if outline:
                    ops.append((_POLYGON, pts, "draw_polygon", ink, 0, width))
    if len(_OPS) > SHAPE_CACHE:
        _OPS.clear()
    got = _OPS[id(s)] = (s, tuple(ops))
    return got


@lru_cache(maxsize=4096)
def _text_bits(text: str, size: int, anchor: str, fx: float, fy: float) -> Image.Image:
    """``_text_mask``'s mask as a one-bit image: pasting through it gives the same pixels, faster."""
    return _text_mask(text, size, anchor, fx, fy)[0].convert("1", dither=Image.Dither.NONE)


_INKS = Image.core.draw(Image.new("RGB", (1, 1)).im, 0)


@cache
def _ink(colour: str | None) -> int:
    """Pillow's ink for ``colour`` on an RGB image (``None``: its default ink), as ``ImageDraw`` makes it."""
    return _INKS.draw_ink(-1 if colour is None else ImageColor.getcolor(colour, "RGB"))


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, anchor: str, fx: float, fy: float) -> tuple[Image.Image, int, int]:
    """The text's ink as a two-level mask, and where its corner goes relative to the anchor point.

    Rendered once per text (a tile cut through a legend would otherwise render
    the whole line again: FreeType was 50% of the tiles' cost) and kept two-level
    (ink or not) at twice the size, so after the 2x2 reduce a text edge has the
    same five blends as a shape's, and a picture keeps within 256 exact colours.

    The mask is put together from glyphs kept one by one (``_glyph_mask``): a
    status or legend line changes with every move, and FreeType laid it out three
    times and rendered every glyph twice (0.46 ms a legend line).  Where that is
    not sure to give FreeType's very mask, FreeType makes it (``_rendered_mask``).
    """
    got = _glyph_mask(text, size, anchor, fx, fy)
    return got if got is not None else _rendered_mask(text, size, anchor, fx, fy)


def _rendered_mask(text: str, size: int, anchor: str, fx: float, fy: float) -> tuple[Image.Image, int, int]:
    """``_text_mask`` by FreeType: ``getmask2`` gives the ink and the text's box (its offset is the box's
    corner), placed as ``ImageDraw.text`` places it on a canvas two pixels wider each way than the box."""
    font = _font(size)
    ink, (left, top) = font.getmask2(text, "L", anchor=anchor, start=(fx, fy))
    width, height = ink.size[0] - math.ceil(fx), ink.size[1] - math.ceil(fy)
    # ImageDraw.text at (fx - left + 2, fy - top + 2): whole pixels there, the fraction as FreeType's start
    at_x, at_y = fx - left + 2, fy - top + 2
    if at_x < 0 or at_y < 0:  # a mark below or right of its anchor (a full stop): another fraction
        ink, (ox, oy) = font.getmask2(text, "L", anchor=anchor, start=(math.modf(at_x)[0], math.modf(at_y)[0]))
        x, y = int(at_x) + ox, int(at_y) + oy
    else:
        x, y = int(at_x) + left, int(at_y) + top
    mask = Image.new("L", (width + 5, height + 5), 0)
    mask.im.paste(ink, (x, y, x + ink.size[0], y + ink.size[1]))
    return mask.point(_TWO_LEVELS), left - 2, top - 2


@dataclass(frozen=True)
class _Glyph:
    """One character at one size, as FreeType lays it out and renders it in a line of text."""

    #: Pen advance in 1/64 pixel, and the box FreeType's text box takes from it (pixels, from the pen on
    #: the baseline, y up; clamped by FreeType to the pen's own line and the baseline).
    advance: int
    x_min: int
    x_max: int
    y_min: int
    y_max: int
    #: The ink: where it starts from the pen (y down), the values, and the two-level mask of them (one bit a
    #: pixel: pasting through it is five times quicker than through an eight-bit one, the same pixels).
    ox: int
    oy: int
    ink: np.ndarray
    mask: Image.Image
    #: The columns that hold ink, from the pen (an empty glyph: 0, 0).
    ink_left: int
    ink_right: int


def _pixel(v: int) -> int:
    """FreeType 26.6 to whole pixels, rounding half up (Pillow's PIXEL)."""
    return ((v + 32) & -64) >> 6


def _c_round(v: np.float32) -> int:
    """C's round(): halves away from zero."""
    return math.floor(v + 0.5) if v >= 0 else math.ceil(v - 0.5)


@cache
def _glyph(size: int, char: str) -> _Glyph:
    font = _font(size)
    x0, y0, x1, y1 = font.getbbox(char, anchor="ls")
    core, (ox, oy) = font.getmask2(char, "L", anchor="ls")
    ink = np.frombuffer(bytes(core), dtype=np.uint8).reshape(core.size[1], core.size[0])
    cols = np.flatnonzero(ink.any(axis=0))
    left, right = (int(cols[0]) + ox, int(cols[-1]) + ox + 1) if len(cols) else (0, 0)
    mask = Image.frombuffer("L", core.size, ink.tobytes()).point(_TWO_LEVELS).convert("1", dither=Image.Dither.NONE)
    return _Glyph(round(font.getlength(char) * 64), x0, x1, -y1, -y0, ox, oy, ink, mask, left, right)


@cache
def _unkerned(size: int, first: str, second: str) -> bool:
    """The pair's pen moves by the two advances, no kerning between them (as the default font's)."""
    return round(_font(size).getlength(first + second) * 64) == _glyph(size, first).advance + _glyph(
        size, second).advance


@cache
def _middle(size: int) -> int:
    """FreeType's middle anchor (half way from descender to ascender) above the baseline, in pixels."""
    font = _font(size)
    return font.getbbox("x", anchor="lm")[1] - font.getbbox("x", anchor="ls")[1]


@cache
def _pair_ink(size: int, first: str, second: str, step: int) -> tuple[tuple[int, int], ...]:
    """Where two glyphs ``step`` pixels apart (pen to pen) blend into ink neither has alone: FreeType lays
    the second over the first (``src + dst * (255 - src) / 255``), which passes the half way mark at
    some pixels where each is below it.  From the first glyph's pen, y down."""
    a, b = _glyph(size, first), _glyph(size, second)
    if not len(a.ink) or not len(b.ink):
        return ()
    h = max(a.oy + a.ink.shape[0], b.oy + b.ink.shape[0]) - min(a.oy, b.oy)
    w = max(a.ox + a.ink.shape[1], step + b.ox + b.ink.shape[1]) - min(a.ox, step + b.ox)
    x0, y0 = min(a.ox, step + b.ox), min(a.oy, b.oy)
    under = np.zeros((h, w), dtype=np.int32)
    over = np.zeros((h, w), dtype=np.int32)
    under[a.oy - y0:a.oy - y0 + a.ink.shape[0], a.ox - x0:a.ox - x0 + a.ink.shape[1]] = a.ink
    over[b.oy - y0:b.oy - y0 + b.ink.shape[0], step + b.ox - x0:step + b.ox - x0 + b.ink.shape[1]] = b.ink
    tmp = under * (255 - over) + 128
    blend = np.minimum(255, over + (((tmp >> 8) + tmp) >> 8))
    extra = (under > 0) & (over > 0) & (under < 128) & (over < 128) & (blend >= 128)
    return tuple((int(x) + x0, int(y) + y0) for y, x in zip(*np.nonzero(extra), strict=True))


def _glyph_mask(text: str, size: int, anchor: str, fx: float, fy: float) -> tuple[Image.Image, int, int] | None:
    """``_text_mask`` from kept glyphs, or None where that is not sure to be FreeType's mask.

    Pillow's basic layout (the default font's) puts each glyph at its pen position
    rounded to a pixel and blends it over the glyphs before; the text's box is the
    union of the glyphs' boxes and the pen's line.  With whole-pixel advances (the
    default font's hinted ones, no kerning) that box and those positions follow
    from each glyph's own, and the two-level mask is the union of the glyphs'
    two-level masks but where two neighbours' faint edges blend past the half way
    mark (``_pair_ink``).  Not handled, so rendered: other anchors, empty text, a
    fractional advance, ink of a glyph reaching past its neighbour's, and a mark
    placed left or above its own box (``_rendered_mask``'s other fraction)."""
    if not text or anchor not in ("lm", "mm", "rm"):
        return None
    glyphs = [_glyph(size, c) for c in text]
    pens, pen = [], 0
    for g in glyphs:
        if g.advance & 63:
            return None
        pens.append(pen >> 6)
        pen += g.advance
    if not all(map(_unkerned, repeat(size), text, text[1:])):
        return None
    x_min = min(0, *(p + g.x_min for p, g in zip(pens, glyphs, strict=True)))
    x_max = max(p + g.x_max for p, g in zip(pens, glyphs, strict=True))
    y_max = max(g.y_max for g in glyphs)
    y_min = min(g.y_min for g in glyphs)
    x_anchor = 0 if anchor[0] == "l" else _pixel(pen // 2) if anchor[0] == "m" else _pixel(pen)
    y_anchor = _middle(size)
    left, top = x_min - x_anchor, y_anchor - y_max
    at_x, at_y = fx - left + 2, fy - top + 2  # as _rendered_mask
    if at_x < 0 or at_y < 0:
        return None
    # FreeType's pen starts at round((-x_min + fx) * 64) in single precision, as Pillow computes it.
    x0 = int(at_x) + left + _pixel(_c_round((np.float32(-x_min) + np.float32(fx)) * np.float32(64)))
    y0 = int(at_y) + top - _pixel(_c_round((np.float32(-y_max) - np.float32(fy)) * np.float32(64)))
    mask = Image.new("L", (x_max - x_min + 5, y_max - y_min + 5), 0)
    if _words_inked(mask.im, size, text, pens, x0, y0):
        return mask, left - 2, top - 2
    mask = Image.new("L", mask.size, 0)
    return (mask, left - 2, top - 2) if _glyphs_inked(mask.im, size, text, glyphs, pens, x0, y0) else None


def _glyphs_inked(core: Any, size: int, text: str, glyphs: Sequence[_Glyph], pens: Sequence[int], x0: int,
                  y0: int) -> bool:
    """Paste each glyph's ink into ``core`` (an "L" mask) from the pen at (x0, y0); False where a glyph's
    ink reaches past its inked neighbour's (then FreeType renders the text)."""
    # Each glyph's ink may meet its inked neighbours' (``_pair_ink``), no farther glyph's.
    reach = last_right = -(1 << 30)
    last = -1
    extras: list[tuple[int, int]] = []
    for i, (p, g) in enumerate(zip(pens, glyphs, strict=True)):
        if g.ink_left == g.ink_right:
            continue
        if p + g.ink_left < reach:
            return False
        x, y = x0 + p + g.ox, y0 + g.oy
        core.paste(255, (x, y, x + g.mask.width, y + g.mask.height), g.mask.im)
        if last >= 0 and p + g.ink_left < last_right:
            q = pens[last]
            extras.extend((x0 + q + ex, y0 + ey) for ex, ey in _pair_ink(size, text[last], text[i], p - q))
        reach, last_right, last = max(reach, last_right), p + g.ink_right, i
    for x, y in extras:
        core.putpixel((x, y), 255)
    return True


def _words_inked(core: Any, size: int, text: str, pens: Sequence[int], x0: int, y0: int) -> bool:
    """``_glyphs_inked`` a word at a time (the text cut at its spaces, each word's ink kept: ``_word_ink``);
    False where that is not sure to be the same (a space with ink, a word whose ink reaches back to an
    earlier word's), or a glyph's ink reaches past its neighbour's (``core`` may then be written).

    Why: the legend line is new with every TriMac move and pasting its ~50 glyphs one by one was most of
    its mask; its words come again (``Turn``, ``order:``, ``Last:``, a seat's name), so it is ~9 pastes.
    The same mask: pasting is a union (255 where any glyph or pair has ink), each word's ink is its glyphs'
    laid out from its pen exactly as in the line (whole-pixel advances), and where every glyph of a word
    starts right of every earlier glyph's ink, no pair across words blends (``_pair_ink``) and the
    neighbours' test sees what it sees within the word."""
    if _glyph(size, " ").ink_left != _glyph(size, " ").ink_right:
        return False
    running = -(1 << 30)  # the rightmost ink of the words so far, from the text's pen
    start = 0
    for word in text.split(" "):
        if word:
            got = _word_ink(size, word)
            if got is None:
                return False
            if got:
                bits, bx, by, lo, hi = got
                p = pens[start]
                if p + lo < running:
                    return False
                x, y = x0 + p + bx, y0 + by
                core.paste(255, (x, y, x + bits.size[0], y + bits.size[1]), bits)
                running = p + hi
        start += len(word) + 1
    return True


@lru_cache(maxsize=4096)
def _word_ink(size: int, word: str) -> tuple[Any, int, int, int, int] | tuple[()] | None:
    """A word's ink as ``_glyphs_inked`` lays it out from its pen at (0, 0): a one-bit core image, where
    its corner goes, and the leftmost and rightmost ink of its glyphs; () where it has no ink, None where a
    glyph's ink reaches past its neighbour's.  (The caller has checked its advances are whole pixels.)"""
    glyphs = [_glyph(size, c) for c in word]
    pens = list(accumulate((g.advance >> 6 for g in glyphs[:-1]), initial=0))
    inked = [(p, g) for p, g in zip(pens, glyphs, strict=True) if g.ink_left != g.ink_right]
    if not inked:
        return ()
    bx = min(p + g.ox for p, g in inked)
    by = min(g.oy for _, g in inked)
    w = max(p + g.ox + g.mask.width for p, g in inked) - bx
    h = max(g.oy + g.mask.height for _, g in inked) - by
    mask = Image.new("L", (w, h), 0)
    if not _glyphs_inked(mask.im, size, word, glyphs, pens, -bx, -by):
        return None
    return (mask.convert("1", dither=Image.Dither.NONE).im, bx, by, min(p + g.ink_left for p, g in inked),
            max(p + g.ink_right for p, g in inked))


@cache
def _rgb(colour: str) -> tuple[int, int, int]:
    return ImageColor.getrgb(colour)[:3]  # type: ignore[return-value]


def _encode(img: Image.Image) -> bytes:
    """A picture of more than 256 colours: an octree palette from a half-size copy, as before the tiles.

    Octree keeps rare colours such as the gold last-move ring that median cut merges away.
    """
    palette = img.reduce(2).quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    img = img.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)
    return out.getvalue()
