"""The one SVG renderer: a :class:`games.drawing.Drawing` as an SVG document.

Used by the web pages (scalable, selectable text) and by tests, which read
the shapes back through their ``class``/``data-at`` attributes.
"""

from __future__ import annotations

from html import escape

from games.drawing import Circle, Drawing, Line, Polygon, Rect, Shape, Text


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _paint(fill: str | None, stroke: str | None, width: float) -> str:
    out = f' fill="{fill or "none"}"'
    if stroke:
        out += f' stroke="{stroke}" stroke-width="{_num(width)}"'
    return out


def _tags(s: Shape) -> str:
    out = f' class="{escape(s.role)}"' if s.role else ""
    return out + (f' data-at="{escape(s.at)}"' if s.at else "")


def _shape(s: Shape) -> str:
    if isinstance(s, Rect):
        return (f'<rect x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(s.w)}" height="{_num(s.h)}"'
                f"{_paint(s.fill, s.stroke, s.width)}{_tags(s)}/>")
    if isinstance(s, Circle):
        return (f'<circle cx="{_num(s.cx)}" cy="{_num(s.cy)}" r="{_num(s.r)}"'
                f"{_paint(s.fill, s.stroke, s.width)}{_tags(s)}/>")
    if isinstance(s, Polygon):
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in s.points)
        return f'<polygon points="{pts}"{_paint(s.fill, s.stroke, s.width)} stroke-linejoin="round"{_tags(s)}/>'
    if isinstance(s, Line):
        return (f'<line x1="{_num(s.x1)}" y1="{_num(s.y1)}" x2="{_num(s.x2)}" y2="{_num(s.y2)}"'
                f' stroke="{s.stroke}" stroke-width="{_num(s.width)}" stroke-linecap="round"{_tags(s)}/>')
    if isinstance(s, Text):
        return (f'<text x="{_num(s.x)}" y="{_num(s.y)}" font-size="{_num(s.size)}" fill="{s.fill}"'
                f' text-anchor="{s.anchor}" dominant-baseline="central"{_tags(s)}>{escape(s.text)}</text>')
    raise TypeError(f"not a drawing shape: {s!r}")


def to_svg(drawing: Drawing) -> str:
    """The SVG text (standalone; also fit to inline in an HTML page)."""
    w, h = drawing.width, drawing.height
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}"'
            f' role="img" aria-label="{escape(drawing.title)}" font-family="DejaVu Sans, Arial, sans-serif">')
    body = [f"<title>{escape(drawing.title)}</title>",
            f'<rect x="0" y="0" width="{w}" height="{h}" fill="{drawing.background}"/>']
    body += [_shape(s) for s in drawing.shapes]
    return head + "\n".join(body) + "</svg>\n"
