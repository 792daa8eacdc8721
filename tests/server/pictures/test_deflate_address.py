"""A band's deflate stream is the same wherever the compressor sits in memory (issue 25).

test_png_history.py failed about one run in six at its heavy settings, always
with "only the deflate streams differ".  Every captured failure (seven, on
main) was the same: one TriDChess band (``BAND`` below: 48 rows of 613
bytes, the filter byte and 612 palette indices), one match 53 bytes long at
11084, whose distance was 11084 in one process and 11082 in the other (both
point at zeros: the same rows).  The cause is ISA-L's level 1 (2.32,
``igzip_icf_body_h1_gr_bt.asm``): on a stream's first call without history
(``.write_first_byte``) it files the third byte's position under a hash of a
register that still holds the stream's own address, bits 16-47 of the
``isal_zstream``, instead of the data.  Where that bucket is looked up later
before anything else is filed there (a stale hash after a run of literals
that ISA-L skips without hashing), the match found is that position's.  So
the bytes depended on where the heap put the compressor: 5 of 30,000
addresses for this band, all of one bucket, the bucket this band looks up
stale.  The renderer now gives ISA-L history from the start (a band's first
byte stored, the rest deflated with it as the dictionary: ``_STORED_BYTE``).

To be deterministic the test does not wait for an address to fall in the
band's bucket: it takes two compressors, works out the first one's bucket
from its address, and writes into the band, where its stale hash is taken,
four bytes that hash there.
"""

from __future__ import annotations

import base64
import types
import zlib
from collections import OrderedDict

import numpy as np
import pytest
from isal import isal_zlib

from server.pictures import draw_png

#: The band of every captured failure (zlib, base64): seed 1004 of test_png_history.py, view 177.
BAND = zlib.decompress(base64.b64decode(
    "eNrt3E9rgzAYgHE3ELogWw560ZsKbaGUHmrv+/5fakarRpf1z5a3a+3zwGQj6+2Hb4jSILhJi5fTvZ7p5W+fX7yZ3gOacyAjmdI4"
    "BhnJGovSOAIZiSKrfzKQkWxxlIKMhAMZCd/HGJckXZYGKchIduOfZYxLul0gI5ARyEBGICOQgQxkICOQEchA9kjlS3NdHporyEii"
    "ysjKD+0VZCTSMq955cvKXEFGIh1yMycNMAMNZCSzKatHZj0qK59bsmAhi+jc50F2Z/OyvY35nZYgoxGyqpmYzfWWyD5OBLK5zcvm"
    "FKO9goyENmWH5ijjfpHtSlVX7n5Cti3MerEF2R0rq4brbZF97h19TpDVwhJdl9TOXMiKYb0A2VN1EbK9a9LtR8jWSunwmFZqPUW2"
    "Gq+vQAaya5GtVRJaJb2y3thkfQUykF2HbGLMUuY0NigDGcguRTY1ZBTZyFzrIAPZNchKFX7ruPs/7vkd6wXIQHYFsmFPP6TVgMy9"
    "DrJZZ38/mQdku+5GZY7B1Kb7Y9ch27rXtyCbs7EojiKPyMpux2XuWJtOUVJ2yIrxercrK0A248x3FGQekfXTsPml+6udl6Np2a5v"
    "rHkJslnfzP4LWX8nA9ncjWWpCLJE6yQJf0Zm78lA9izG/CPTYXjmTsa4fDJj/jf+w3Gre+Pf/xMb/1mXRXF/huH3CMNG5jrCsJFx"
    "hPE0eT2MtZG5DmPtPRuHsSD71WMlvTn9WMm8TqZ5rAQyHpDTfSLjVR8SR8ZLiySPjNevH7Iv1wd2yg=="
))
ROWS, WIDTH = 48, 613
#: Where four bytes hashing to a bucket make ISA-L look that bucket up again, stale, at the zeros of 11084.
AT = 11051
#: ISA-L's level 1 hash table: 8 K buckets.
MASK = 0x1FFF
#: Where the isal_zstream starts in python-isal's compressor object (after the object's header).
OFFSET = 16


def _crc32c(word: int) -> int:
    """The x86 ``crc32`` instruction (CRC-32C, no inversions) of a 32-bit word from 0: ISA-L's hash."""
    crc = 0
    for byte in word.to_bytes(4, "little"):
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def _bucket(packer: object, offset: int = OFFSET) -> int:
    """Where ISA-L files a fresh stream's third byte: the hash of bits 16-47 of the stream's address."""
    return _crc32c(((id(packer) + offset) >> 16) & 0xFFFFFFFF) & MASK


#: Four bytes (x, 0, 0, y) for each bucket, the shape of the band's own bytes there.
WORDS: dict[int, bytes] = {}
for _last in range(1, 256):
    for _first in range(256):
        WORDS.setdefault(_crc32c(_first | _last << 24) & MASK, bytes([_first, 0, 0, _last]))


def _pair(args: tuple, kwargs: dict, keep: list) -> tuple[object, object, int]:
    """Two fresh compressors in different buckets (the first's bucket, sure whatever the exact offset)."""
    while True:
        one, other = isal_zlib.compressobj(*args, **kwargs), isal_zlib.compressobj(*args, **kwargs)
        keep += [one, other]  # alive, so the next ones are elsewhere
        bucket = _bucket(one)
        if bucket == _bucket(one, 0) == _bucket(one, 400) and bucket != _bucket(other):
            return one, other, bucket


def _crafted(bucket: int) -> bytes:
    return BAND[:AT] + WORDS[bucket] + BAND[AT + 4:]


def _inflate(stream: bytes) -> bytes:
    return zlib.decompressobj(-15).decompress(stream)


def test_isal_alone_depends_on_the_address() -> None:
    """What the renderer works around: ISA-L's level 1 from a fresh stream, as the renderer called it
    before, gives other bytes (the same rows) for the crafted band from a compressor in its bucket.

    The premise of the renderer's test below: without it, that test would pass whatever the renderer
    did.  Should an ISA-L release fix its first call, this fails, and says so: the stored first byte
    (``draw_png._STORED_BYTE``, 5 bytes a band) may then go."""
    keep: list = []
    differ = 0
    for _ in range(4):
        one, other, bucket = _pair((1, isal_zlib.DEFLATED, -15), {}, keep)
        data = _crafted(bucket)
        a, b = (p.compress(data) + p.flush(isal_zlib.Z_SYNC_FLUSH) for p in (one, other))
        assert _inflate(a) == _inflate(b) == data
        differ += a != b
    assert differ, ("this ISA-L no longer files a fresh stream's third byte by its address: the renderer's "
                    "workaround (_STORED_BYTE) can go, and this file's band no longer shows the defect")


def test_band_stream_is_the_same_wherever_the_compressor_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_stream`` gives the same bytes for the same rows from compressors in different buckets, the
    first one in the bucket the band looks up stale (main before this fix gave other bytes for it)."""
    calls: list[tuple[tuple, dict]] = []
    queue: list = []

    def compressobj(*args: object, **kwargs: object) -> object:
        calls.append((args, kwargs))
        return queue.pop() if queue else isal_zlib.compressobj(*args, **kwargs)

    monkeypatch.setattr(draw_png, "isal_zlib", types.SimpleNamespace(
        compressobj=compressobj, DEFLATED=isal_zlib.DEFLATED, Z_SYNC_FLUSH=isal_zlib.Z_SYNC_FLUSH,
        adler32=isal_zlib.adler32, crc32=isal_zlib.crc32))
    monkeypatch.setattr(draw_png, "_STREAMS", OrderedDict())
    lut = np.arange(256, dtype=np.uint8)

    def stream(data: bytes, key: object, packer: object | None = None) -> bytes:
        if packer is not None:
            queue.append(packer)
        band = types.SimpleNamespace(ids=np.frombuffer(data, dtype=np.uint8).reshape(ROWS, WIDTH).astype(np.uint16))
        got = draw_png._stream(("deflate address", key), band, lut)  # type: ignore[arg-type]
        assert not queue
        assert got[1:] == (zlib.adler32(data), len(data))
        assert _inflate(got[0]) == data
        return got[0]

    stream(BAND, "arguments")  # the arguments the renderer gives the compressor
    args, kwargs = calls[-1]
    keep: list = []
    for n in range(4):
        one, other, bucket = _pair(args, kwargs, keep)
        data = _crafted(bucket)
        assert stream(data, (n, 1), one) == stream(data, (n, 2), other), f"bucket {bucket:#x}"
