"""Stress: a board picture's bytes are a pure function of the view, whatever the process drew before.

A board mail re-sent after a crash is drawn again by a new process and must
be the same bytes (server/pictures/cache.py).  This draws every view (each
seat's side where the game turns the board) of random games of all five
games in a shuffled order, interleaved across games, while a second thread
draws other views of them (as a deliverer thread beside another), and
compares each PNG with the bytes a fresh interpreter draws for the same view,
in play order.  On a difference it says what differs: pixels and palette, or
only the deflate streams (the symptom seen in issue 25: every band's stream
different, each decoding to the same rows).

The default is one round of a few seconds.  Knobs (environment):

* ``PBM_PNG_HISTORY_ROUNDS``: rounds, each with its own games and order (default 1);
* ``PBM_PNG_HISTORY_MOVES``: moves per game (default 8, two games per plugin);
* ``PBM_PNG_HISTORY_SEED``: the first round's seed (default 1; rounds count up from it);
* ``PBM_PNG_HISTORY_THREAD``: 0 to draw without the second thread (default 1).

For example ``PBM_PNG_HISTORY_ROUNDS=20 PBM_PNG_HISTORY_MOVES=30`` is a
few minutes.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import threading
import zlib
from pathlib import Path

from PIL import Image

import games
from server.pictures import draw_png
from tests.server.pictures.test_draw_png import positions

ROOT = Path(__file__).resolve().parents[3]
ROUNDS = int(os.environ.get("PBM_PNG_HISTORY_ROUNDS", "1"))
MOVES = int(os.environ.get("PBM_PNG_HISTORY_MOVES", "8"))
SEED = int(os.environ.get("PBM_PNG_HISTORY_SEED", "1"))
THREAD = os.environ.get("PBM_PNG_HISTORY_THREAD", "1") != "0"

DRAW_ALL = """
import sys, json, base64
sys.path.insert(0, {root!r})
import games
from server.pictures.draw_png import to_png
out = []
for spec in json.loads(sys.stdin.read()):
    game = games.load_game(spec["game"])
    out.append(base64.b64encode(to_png(game.draw(game.load(spec["state"]), spec["seat"], spec["players"]))).decode())
print(json.dumps(out))
"""


def _views(seed: int) -> list[tuple[games.Game, object, int | None, list[str]]]:
    """Every view of two random games per plugin, in play order."""
    rng = random.Random(seed)
    views = []
    for game in games.available():
        names = ["alice", "bob", "carol"][: game.players]
        if game.draw(game.start(game.parse_options([]), game.players), None, names) is None:
            continue
        seats: list[int | None] = [None, *range(game.players)] if game.oriented else [None]
        for _ in range(2):
            for state in positions(game, MOVES, rng.randrange(1 << 30)):
                views.extend((game, state, seat, names) for seat in seats)
    return views


def _idat_streams(png: bytes) -> bytes:
    """The IDAT chunks' data, joined."""
    at, out = 8, []
    while at < len(png):
        length = int.from_bytes(png[at:at + 4], "big")
        if png[at + 4:at + 8] == b"IDAT":
            out.append(png[at + 8:at + 8 + length])
        at += 12 + length
    return b"".join(out)


def _what_differs(here: bytes, fresh: bytes) -> str:
    a, b = Image.open(io.BytesIO(here)), Image.open(io.BytesIO(fresh))
    if a.size != b.size or a.tobytes() != b.tobytes() or a.getpalette() != b.getpalette():
        return "pixels or palette differ"
    rows_a = zlib.decompress(_idat_streams(here))
    rows_b = zlib.decompress(_idat_streams(fresh))
    if rows_a != rows_b:
        return "palette indices differ"
    return f"only the deflate streams differ ({len(_idat_streams(here))} vs {len(_idat_streams(fresh))} bytes)"


def _round(seed: int) -> list[str]:
    views = _views(seed)
    specs = [{"game": g.name, "state": g.dump(s), "players": n, "seat": seat} for g, s, seat, n in views]
    fresh_run = subprocess.Popen([sys.executable, "-c", DRAW_ALL.format(root=str(ROOT))], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # drawn here while the fresh process draws (a context switch or two more: what a busy server has)
    order = list(range(len(views)))
    random.Random(seed).shuffle(order)
    stop = threading.Event()
    errors: list[BaseException] = []

    def other() -> None:
        rng = random.Random(seed + 1)
        try:
            while not stop.is_set():
                g, s, seat, n = views[rng.randrange(len(views))]
                draw_png.to_png(g.draw(s, seat, n))
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    drawer = threading.Thread(target=other, daemon=True) if THREAD else None
    if drawer is not None:
        drawer.start()
    here: dict[int, bytes] = {}
    try:
        for i in order:
            g, s, seat, n = views[i]
            here[i] = draw_png.to_png(g.draw(s, seat, n))
    finally:
        stop.set()
        if drawer is not None:
            drawer.join()
    assert not errors, errors
    out, err = fresh_run.communicate(json.dumps(specs).encode(), timeout=600)
    assert fresh_run.returncode == 0, err.decode()[-2000:]
    import base64

    fresh = [base64.b64decode(x) for x in json.loads(out)]
    return [f"round {seed}: {views[i][0].name} seat {views[i][2]} view {i}: {_what_differs(here[i], fresh[i])}"
            for i in range(len(views)) if here[i] != fresh[i]]


def test_every_picture_is_the_bytes_a_fresh_process_draws() -> None:
    draw_png.forget()
    differ: list[str] = []
    for seed in range(SEED, SEED + ROUNDS):
        differ.extend(_round(seed))
    assert not differ, f"{len(differ)} pictures differ:\n" + "\n".join(differ[:20])
