"""Reading a game's drawing back from its SVG, as a browser would get it.

Tests check where the pieces are by the SVG elements the renderer wrote
(``class`` = what a shape shows, ``data-at`` = the square in the game's own
notation), never by comparing image bytes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from server.pictures.draw_svg import to_svg

NS = "{http://www.w3.org/2000/svg}"


def svg_of(game: Any, state: Any, players: list[str] | None = None) -> ET.Element:
    drawing = game.draw(state, None, players)
    assert drawing is not None, f"{game.title} draws no picture"
    return ET.fromstring(to_svg(drawing))


def start(game: Any, position: str | None = None, players: int | None = None) -> Any:
    """A fresh state, from a spec position string when given."""
    options = game.parse_options([])
    if position is not None:
        options["position"] = position
    return game.start(options, players or game.players)


def elements(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == cls]


def pieces(root: ET.Element) -> dict[str, str]:
    """Square -> the letter drawn on the piece standing there."""
    return {e.get("data-at", ""): (e.text or "") for e in elements(root, "piece-letter")}


def squares_with(root: ET.Element, cls: str) -> set[str]:
    return {e.get("data-at", "") for e in elements(root, cls)}


def centre(e: ET.Element) -> tuple[float, float]:
    """The centre of a rect, circle or polygon element."""
    if e.tag == NS + "circle":
        return float(e.get("cx", 0)), float(e.get("cy", 0))
    if e.tag == NS + "rect":
        return float(e.get("x", 0)) + float(e.get("width", 0)) / 2, float(e.get("y", 0)) + float(e.get("height", 0)) / 2
    pts = [tuple(map(float, p.split(","))) for p in e.get("points", "").split()]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def size(e: ET.Element) -> tuple[float, float]:
    """Width and height of a rect or polygon element."""
    if e.tag == NS + "rect":
        return float(e.get("width", 0)), float(e.get("height", 0))
    pts = [tuple(map(float, p.split(","))) for p in e.get("points", "").split()]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return max(xs) - min(xs), max(ys) - min(ys)
