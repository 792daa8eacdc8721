"""Board pictures in mail: the PNG, its alt text, and the HTML part that shows it.

A game draws a state (``Game.draw``, a :class:`games.drawing.Drawing`);
here it becomes a :class:`Picture` for a mail.  Every board mail of a move
shows the same position, so the PNG is made once per position and kept in
a small cache: the players and watchers of one move share it.

In the mail the picture sits in a ``multipart/related`` HTML alternative,
above the ``<pre>`` board, referenced by ``cid:``; the text/plain part is
the same as without pictures.

The PNG is drawn by the deliverer, not by the command (issue 25): a command
runs inside the write lock (SQLite) or holding the board's row lock, and
the PNG was a third of its time.  So a command's :class:`Picture` carries
what to draw (``spec``: game, stored state, players), the rendered mail
holds a :func:`placeholder` where the PNG's base64 goes, the outbox row
keeps the specs, and :func:`fill` draws and puts the PNGs in just before
the mail goes to the relay.  The drawing is a pure function of the spec
(server.pictures.draw_png), so the mail the relay gets is the same bytes
whether it is filled at once or after a crash and restart.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import io
import json
import logging
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from PIL import Image
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import games
from games import Game
from server.pictures.draw_png import to_png
from server.store.model import Address, User
from server.store.queries import known_owners

log = logging.getLogger("pbmserv.pictures")
_CACHE: OrderedDict[str, tuple[bytes, str]] = OrderedDict()
_CACHE_SIZE = 64
#: The same PNGs in base64 as a mail carries them (CRLF lines), by spec key: each mail of a move
#: carried its own copy of the encoding (issue 25).
_ENCODED: OrderedDict[str, bytes] = OrderedDict()
_ENCODED_SIZE = 16


@dataclass(frozen=True)
class Picture:
    """One inline image of a mail: PNG bytes, the alt text, a file name, a web page link."""

    #: The PNG, or None while it is still to be drawn from ``spec`` (by the deliverer).
    png: bytes | None
    alt: str
    filename: str
    link: str | None = None
    #: What to draw: {"game", "state" (the game's dump), "players"}.
    spec: dict[str, Any] | None = None

    @functools.cached_property
    def key(self) -> str:
        """The spec's digest: names the placeholder in the mail and the PNG in the cache.

        Computed once a picture (a JSON dump and a SHA-256 of the position): a move's picture
        is asked its key by each mail it goes in, two or three times each (issue 25).
        """
        return spec_key(self.spec or {})

    def to_json(self) -> dict[str, Any]:
        """For the multiple-mode results kept on the inbound row until the combined reply."""
        return {"png": base64.b64encode(self.png).decode("ascii") if self.png is not None else None,
                "alt": self.alt, "filename": self.filename, "link": self.link, "spec": self.spec}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Picture:
        png = base64.b64decode(data["png"]) if data.get("png") is not None else None
        return cls(png, data["alt"], data["filename"], data.get("link"), data.get("spec"))


def spec_key(spec: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()


def placeholder(key: str) -> bytes:
    """Where a PNG's base64 goes in a rendered mail until the deliverer draws it.

    NUL bytes never occur in a rendered mail (headers are ASCII, parts are
    quoted-printable or base64), so no text a player sends can forge one.
    """
    return b"\x00pbmserv-picture:" + key.encode("ascii") + b"\x00"


def fill(message: bytes, specs: dict[str, dict[str, Any]] | None) -> bytes:
    """``message`` with each placeholder replaced by its PNG in base64 (drawn here, outside any lock)."""
    if not specs:
        return message
    for key, spec in specs.items():
        mark = placeholder(key)
        if mark not in message:
            continue
        encoded = _ENCODED.get(key)  # a move's mails carry the same picture: encoded once
        if encoded is None:
            png = spec_png(spec, key)
            encoded = base64.encodebytes(png).replace(b"\n", b"\r\n").rstrip(b"\r\n")
            if png is not _BLANK:
                _ENCODED[key] = encoded
                while len(_ENCODED) > _ENCODED_SIZE:
                    _ENCODED.popitem(last=False)
        message = message.replace(mark, encoded)
    return message


def spec_png(spec: dict[str, Any], key: str | None = None) -> bytes:
    """The PNG a spec names (``key``: its spec_key, when known); a blank 1x1 PNG where the game
    can no longer draw it (uninstalled), so the mail still goes out whole."""
    try:
        key = key or spec_key(spec)
        made = _CACHE.get(key)  # the other mails of the same move: drawn once
        if made is None:
            game = games.load_game(spec["game"])
            made = _drawn(key, game, game.load(spec["state"]), spec.get("players"), spec.get("seat"))
    except Exception:
        log.exception("board picture of %s could not be drawn; a blank one is sent", spec.get("game"))
        made = None
    return made[0] if made is not None else _BLANK


def _blank_png() -> bytes:
    out = io.BytesIO()
    Image.new("P", (1, 1)).save(out, format="PNG")
    return out.getvalue()


def _spec(game: Game, state: Any, players: list[str] | None, seat: int | None) -> dict[str, Any]:
    """What the deliverer needs to draw a picture (the seat only when it is seen from one side)."""
    spec: dict[str, Any] = {"game": game.name, "state": game.dump(state), "players": players}
    if seat is not None:
        spec["seat"] = seat
    return spec


def drawing_png(game: Game, state: Any, players: list[str] | None,
                seat: int | None = None) -> tuple[bytes, str] | None:
    """(PNG, alt text) of ``state`` (seen from ``seat``), or None when the game draws no picture."""
    key = spec_key(_spec(game, state, players, seat))
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    return _drawn(key, game, state, players, seat)


def _drawn(key: str, game: Game, state: Any, players: list[str] | None,
           seat: int | None = None) -> tuple[bytes, str] | None:
    drawing = game.draw(state, seat, players)
    if drawing is None:
        return None
    # The board's own last picture is where this one's layout starts (draw_png.to_png's lineage).
    made = (to_png(drawing, (tuple(players or ()), seat)), drawing.title)
    _CACHE[key] = made
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return made


def make(game: Game, state: Any, players: list[str] | None, name: str, link: str | None = None,
         seat: int | None = None) -> Picture | None:
    """The picture of ``state`` (seen from ``seat``) for a mail, to be drawn by the deliverer;
    ``name`` makes its file name (e.g. "board-101").  Only the drawing's title (the alt text) is made here."""
    spec = _spec(game, state, players, seat)
    hit = _CACHE.get(spec_key(spec))
    if hit is not None:
        return Picture(None, hit[1], f"{game.name}-{name}.png", link, spec)
    title = game.picture_title(state, seat, players)  # the title alone: the deliverer draws it
    if title is None:
        return None
    return Picture(None, title, f"{game.name}-{name}.png", link, spec)


def wanted_by(session: Session, addresses: list[str]) -> bool:
    """False when a user of one of these addresses has turned pictures off."""
    known = known_owners(session, addresses)
    if known is not None:
        return all(user.pictures for user in known)
    lowered = [a.lower() for a in addresses]
    off = session.scalar(
        select(func.count()).select_from(User).join(Address)
        .where(func.lower(Address.address).in_(lowered), User.pictures.is_(False))
    )
    return not off


def html_page(body: str, pictures: list[Picture], cids: list[str]) -> str:
    """The HTML alternative: each picture (and its page link) above the ``<pre>`` board text."""
    figures = []
    for pic, cid in zip(pictures, cids, strict=True):
        img = f'<img src="cid:{cid}" alt="{html.escape(pic.alt)}" style="max-width: 100%; height: auto">'
        if pic.link:
            img = f'<a href="{html.escape(pic.link)}">{img}</a>'
        figures.append(f"<p>{img}</p>")
    return ("<html><body>" + "".join(figures) + '<pre style="font-family: monospace">' + html.escape(body)
            + "</pre></body></html>\n")


def related_part(page_qp: bytes, pictures: list[Picture], cids: list[str]) -> bytes:
    """A ``multipart/related`` MIME part (headers and body, CRLF) of the HTML and its PNGs."""
    boundary = f"===============rel{uuid.uuid4().hex}=="
    out = [f'Content-Type: multipart/related; type="text/html";\r\n boundary="{boundary}"\r\n\r\n'
           f"--{boundary}\r\n"
           'Content-Type: text/html; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
           .encode("ascii"), page_qp]
    for pic, cid in zip(pictures, cids, strict=True):
        data = (base64.encodebytes(pic.png).replace(b"\n", b"\r\n") if pic.png is not None
                else placeholder(pic.key) + b"\r\n")
        out.append(f"\r\n--{boundary}\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
                   f"Content-ID: <{cid}>\r\nContent-Disposition: inline; filename=\"{pic.filename}\"\r\n\r\n"
                   .encode("ascii"))
        out.append(data)
    out.append(f"\r\n--{boundary}--\r\n".encode("ascii"))
    return b"".join(out)


def content_ids(pictures: list[Picture], domain: str) -> list[str]:
    return [f"{pic.filename.removesuffix('.png')}.{uuid.uuid4().hex[:12]}@{domain}" for pic in pictures]


_BLANK = _blank_png()
