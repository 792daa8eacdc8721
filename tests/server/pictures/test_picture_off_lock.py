"""The board picture is drawn outside every lock, by the deliverer, from what the command stored.

Real server (listener, worker, deliverer as threads of one process) over a
real SQLite file, real SMTP both ways.  The write lock is the database's
in-process lock plus an flock on ``DB-pbmserv.lock``; while a PNG is drawn
the drawing thread must own neither.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

import games
from server.pictures import cache
from server.pictures.cache import placeholder
from server.store.model import Outbox
from tests.server.conftest import Running
from tests.server.pictures.test_pictures import first_legal, picture_of

ROOT = Path(__file__).resolve().parents[3]
PNG_MAGIC_B64 = b"iVBORw0KGgo"  # the first bytes of every PNG, in base64


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


def test_no_picture_is_drawn_while_the_write_lock_is_held(players: Running, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lock = players.db._sqlite_lock
    assert lock is not None
    seen: list[bool] = []
    real = cache.to_png

    def watched(drawing, lineage=None):  # type: ignore[no-untyped-def]
        seen.append(not lock._is_owned())  # type: ignore[attr-defined]
        return real(drawing, lineage)

    monkeypatch.setattr(cache, "to_png", watched)
    cache._CACHE.clear()
    new = players.mail("alice@example.org", "interweave challenge alice bob")
    picture_of(new[0].message)
    move = first_legal(games.load_game("interweave"))
    moved = players.mail("alice@example.org", f"interweave move 101 alice apple1 {move}")
    assert all(picture_of(m.message) for m in moved)
    assert len(seen) >= 2, "no picture was drawn at all"
    assert all(seen), f"{seen.count(False)} of {len(seen)} pictures were drawn inside the write lock"


def test_the_outbox_keeps_what_to_draw_and_the_relay_gets_what_a_fresh_process_draws(players: Running) -> None:
    new = players.mail("alice@example.org", "interweave challenge alice bob")
    delivered = {m.rcpt_tos[0]: picture_of(m.message)[0] for m in new}
    with players.db.transaction() as s:
        rows = s.scalars(select(Outbox).where(Outbox.subject.like("New Interweave Board 101%"))).all()
        stored = [(row.recipients[0], row.message, row.pictures) for row in rows]
    assert len(stored) == 2
    specs = {}
    for recipient, message, pictures in stored:
        # The command stored no PNG: a placeholder, and what to draw for it.
        assert PNG_MAGIC_B64 not in message
        assert pictures and len(pictures) == 1
        (key, spec), = pictures.items()
        assert placeholder(key) in message
        assert spec["game"] == "interweave" and spec["players"] == ["alice", "bob"]
        specs[recipient] = spec
    # As if the server had died after the commit: a new process fills each stored mail in
    # (each player's own picture: Black's is drawn from Black's side, issue 26 item 8).
    code = (f"import sys, json, base64; sys.path.insert(0, {str(ROOT)!r})\n"
            "from server.pictures.cache import spec_png\n"
            "specs = json.loads(sys.stdin.read())\n"
            "print(json.dumps({k: base64.b64encode(spec_png(v)).decode() for k, v in specs.items()}))\n")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(specs).encode(), capture_output=True,
                         check=True, timeout=120).stdout
    fresh = {k: base64.b64decode(v) for k, v in json.loads(out).items()}
    assert delivered == fresh


def test_a_picture_the_game_cannot_draw_any_more_still_sends_the_mail() -> None:
    message = b"before\r\n" + placeholder("k") + b"\r\nafter"
    filled = cache.fill(message, {"k": {"game": "no-such-game", "state": {}, "players": []}})
    assert b"\x00" not in filled and filled.startswith(b"before\r\n") and filled.endswith(b"\r\nafter")
