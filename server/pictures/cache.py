"""Board pictures in mail: the PNG, its alt text, and the HTML part that shows it.

A game draws a state (``Game.draw``, a :class:`games.drawing.Drawing`);
here it becomes a :class:`Picture` for a mail.  Every board mail of a move
shows the same position, so the PNG is made once per position and kept in
a small cache: the players and watchers of one move share it.

In the mail the picture sits in a ``multipart/related`` HTML alternative,
above the ``<pre>`` board, referenced by ``cid:``; the text/plain part is
the same as without pictures.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from games import Game
from server.pictures.draw_png import to_png
from server.store.model import Address, User

_CACHE: OrderedDict[str, tuple[bytes, str]] = OrderedDict()
_CACHE_SIZE = 64


@dataclass(frozen=True)
class Picture:
    """One inline image of a mail: PNG bytes, the alt text, a file name, a web page link."""

    png: bytes
    alt: str
    filename: str
    link: str | None = None

    def to_json(self) -> dict[str, Any]:
        """For the multiple-mode results kept on the inbound row until the combined reply."""
        return {"png": base64.b64encode(self.png).decode("ascii"), "alt": self.alt, "filename": self.filename,
                "link": self.link}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Picture:
        return cls(base64.b64decode(data["png"]), data["alt"], data["filename"], data.get("link"))


def drawing_png(game: Game, state: Any, players: list[str] | None,
                seat: int | None = None) -> tuple[bytes, str] | None:
    """(PNG, alt text) of ``state`` (seen from ``seat``), or None when the game draws no picture."""
    key = hashlib.sha256(json.dumps([game.name, game.dump(state), players, seat], sort_keys=True,
                                    default=str).encode()).hexdigest()
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    drawing = game.draw(state, seat, players)
    if drawing is None:
        return None
    made = (to_png(drawing), drawing.title)
    _CACHE[key] = made
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return made


def make(game: Game, state: Any, players: list[str] | None, name: str, link: str | None = None,
         seat: int | None = None) -> Picture | None:
    """The picture of ``state`` for a mail; ``name`` makes its file name (e.g. "board-101")."""
    made = drawing_png(game, state, players, seat)
    if made is None:
        return None
    return Picture(made[0], made[1], f"{game.name}-{name}.png", link)


def wanted_by(session: Session, addresses: list[str]) -> bool:
    """False when a user of one of these addresses has turned pictures off."""
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
        data = base64.encodebytes(pic.png).replace(b"\n", b"\r\n")
        out.append(f"\r\n--{boundary}\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
                   f"Content-ID: <{cid}>\r\nContent-Disposition: inline; filename=\"{pic.filename}\"\r\n\r\n"
                   .encode("ascii"))
        out.append(data)
    out.append(f"\r\n--{boundary}--\r\n".encode("ascii"))
    return b"".join(out)


def content_ids(pictures: list[Picture], domain: str) -> list[str]:
    return [f"{pic.filename.removesuffix('.png')}.{uuid.uuid4().hex[:12]}@{domain}" for pic in pictures]
