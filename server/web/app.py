"""Read-only web pages of the boards: ``pbmserv web``.

Starlette serves them (a small, well-kept ASGI toolkit: routing and
responses, nothing we do not use), under uvicorn in production.  The pages
read the same database as the mail server, with a plain engine of their own
(no write lock: SQLite readers in WAL mode never wait for the writer), so any
number of web processes can run beside ``pbmserv serve`` and on other hosts
against PostgreSQL.

Nothing private is shown: userids, moves, whose turn it is and the result,
as ``list`` and ``show`` mail them to anyone; never a mail address, a
password, a reply token, a comment or a chat, nor a queued move.

Pages: ``/`` lists active (a page of PAGE at a time, ``?page=N``) and
recently finished boards per game;
``/GAME/NUMBER`` shows one board (the SVG drawing, players, status, move
list) with a position browser: ``#N`` in the URL is the position after N
moves, shown by ``/board.js`` fetching ``/GAME/NUMBER/N.svg``;
``/GAME/NUMBER/record`` downloads its game record.

Safe on the open internet (issue 32): the front page once listed all 5,001
active boards (0.9 CPU-s a request), a position SVG replayed the game from
move 0 on every request, and a board number past 2^63 or a 5,000-digit ply
answered HTTP 500 with a traceback in the log.  Now the front page is paged,
drawn position SVGs are kept (an LRU: a position never changes once
played), path numbers are bounded (404), and each client address gets
``PBMSERV_WEB_RATE`` requests a minute (429 beyond; default 120).
"""

from __future__ import annotations

import html
import os
import threading
import time
from collections import OrderedDict
from typing import Any

from sqlalchemy import Engine, create_engine, select
from sqlalchemy.orm import Session, selectinload
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

import games
from games.digits import is_digits
from server.boards import board_record, boards
from server.pictures.draw_svg import to_svg
from server.store.model import Board, Seat
from server.web import tournaments

RECENT = 20
#: Active boards per game on one front page.
PAGE = 50
#: Path numbers longer than this are no board or ply of ours (404, never a 500 from the database).
MAX_DIGITS = 9
#: Drawn position SVGs kept.
SVG_CACHE = 512
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
STYLE = """<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 70em; padding: 0 1em; color: #222 }
table { border-collapse: collapse } td, th { padding: .2em .8em; text-align: left }
tr:nth-child(even) td { background: #f3f1ec }
.board { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start }
.picture svg { max-width: 100%; height: auto } .moves { max-height: 40em; overflow-y: auto }
.moves a { text-decoration: none } .moves .here { background: #f2d46b }
nav a { margin-right: 1em }
</style>"""

SCRIPT = """// The position browser: #N in the URL shows the board after N moves.
(function () {
  var fig = document.getElementById('picture');
  if (!fig) return;
  var base = fig.dataset.base, last = parseInt(fig.dataset.ply, 10);
  function show() {
    var n = parseInt(location.hash.slice(1), 10);
    if (isNaN(n) || n < 0 || n > last) n = last;
    fetch(base + '/' + n + '.svg').then(function (r) { return r.text(); }).then(function (svg) {
      fig.innerHTML = svg;
    });
    document.getElementById('prev').href = '#' + Math.max(0, n - 1);
    document.getElementById('next').href = '#' + Math.min(last, n + 1);
    document.getElementById('at').textContent = n == last ? 'now (after move ' + n + ')' : 'after move ' + n;
    document.querySelectorAll('.moves li').forEach(function (li) {
      li.className = parseInt(li.dataset.ply, 10) === n ? 'here' : '';
    });
  }
  window.addEventListener('hashchange', show);
  if (location.hash) show();
})();
"""


def page(title: str, body: str) -> HTMLResponse:
    doc = (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f"<title>{html.escape(title)}</title>{STYLE}</head><body>{body}</body></html>")
    return HTMLResponse(doc, headers=HEADERS)


def plugin(name: str) -> games.Game | None:
    try:
        return games.load_game(name)
    except games.GameUnavailable:
        raise  # a 503 (create_app), not "No such board"
    except games.UnknownGame:
        return None


def players_of(board: Board) -> list[str]:
    return [s.user.userid for s in sorted(board.seats, key=lambda s: s.seat)]


def path_number(text: str) -> int | None:
    """A board number or ply from the path: ASCII digits, at most MAX_DIGITS of them; else None (404)."""
    return int(text) if is_digits(text) and len(text) <= MAX_DIGITS else None


class LRU:
    """A small thread-safe least-recently-used map (the app may serve from a thread pool)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Any, str] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any) -> str | None:
        with self.lock:
            if key not in self.items:
                return None
            self.items.move_to_end(key)
            return self.items[key]

    def put(self, key: Any, value: str) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


class RateLimit:
    """ASGI middleware: ``per_minute`` requests a minute per client address (a token bucket), then 429.

    Four clients fetching the unpaged front page once saturated the server;
    one client now gets its share and no more.  Behind nginx the client is
    the forwarded address (uvicorn runs with proxy headers).
    """

    MAX_CLIENTS = 10_000

    def __init__(self, app: ASGIApp, per_minute: int) -> None:
        self.app = app
        self.rate = max(1, per_minute)
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self.lock = threading.Lock()

    def allow(self, client: str) -> bool:
        now = time.monotonic()
        with self.lock:
            tokens, stamp = self.buckets.pop(client, (float(self.rate), now))
            tokens = min(float(self.rate), tokens + (now - stamp) * self.rate / 60.0)
            ok = tokens >= 1.0
            self.buckets[client] = (tokens - 1.0 if ok else tokens, now)
            while len(self.buckets) > self.MAX_CLIENTS:
                self.buckets.popitem(last=False)
            return ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") != "/healthz":
            client = (scope.get("client") or ("?", 0))[0]
            if not self.allow(str(client)):
                response = PlainTextResponse("Too many requests; try again in a minute", status_code=429,
                                             headers={**HEADERS, "Retry-After": "60"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class WebApp:
    """The routes over one read-only engine."""

    def __init__(self, database_url: str) -> None:
        self.engine: Engine = create_engine(database_url, pool_pre_ping=True)
        self.svgs = LRU(SVG_CACHE)

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    # -- pages -------------------------------------------------------------------------
    def front(self, request: Request) -> Response:
        number = request.query_params.get("page", "1")
        at = int(number) if is_digits(number) and len(number) <= 6 and int(number) >= 1 else 1
        parts = ['<nav><a href="/tournaments">Tournaments</a></nav><h1>pbmserv boards</h1>']
        more = False
        with self.session() as s:
            for game in games.available():
                active = s.scalars(select(Board).where(Board.game == game.name, Board.status == "active")
                                   .options(selectinload(Board.seats).selectinload(Seat.user))
                                   .order_by(Board.number).offset((at - 1) * PAGE).limit(PAGE + 1)).all()
                more = more or len(active) > PAGE
                recent = s.scalars(select(Board).where(Board.game == game.name, Board.status == "finished")
                                   .options(selectinload(Board.seats).selectinload(Seat.user))
                                   .order_by(Board.finished_at.desc()).limit(RECENT)).all() if at == 1 else []
                parts.append(f"<h2>{html.escape(game.title)}</h2>")
                parts.append(self._table(game, list(active[:PAGE]), "Active boards"))
                if at == 1:
                    parts.append(self._table(game, list(recent), "Recently finished"))
        pages = ([f'<a href="/?page={at - 1}">&larr; page {at - 1}</a>'] if at > 1 else []) + (
            [f'<a href="/?page={at + 1}">page {at + 1} &rarr;</a>'] if more else [])
        if pages:
            parts.append(f"<nav>{' '.join(pages)}</nav>")
        return page("pbmserv boards", "".join(parts))

    def _table(self, game: games.Game, rows: list[Board], caption: str) -> str:
        if not rows:
            return f"<p>{caption}: none.</p>"
        out = [f"<table><caption>{caption}</caption><tr><th>Board</th><th>Moves</th><th>Players</th>"
               "<th>Status</th></tr>"]
        for b in rows:
            names = players_of(b)
            if b.status == "active":
                status = f"{names[b.to_move]} to move" if b.to_move is not None else "active"
            else:
                won = [names[i] for i in (b.outcome or {}).get("winners", [])]
                status = f"won by {', '.join(won)}" if won else "drawn"
            out.append(f'<tr><td><a href="/{game.name}/{b.number}">{b.number}</a></td><td>{b.ply}</td>'
                       f"<td>{html.escape(', '.join(names))}</td><td>{html.escape(status)}</td></tr>")
        return "".join(out) + "</table>"

    def _find(self, s: Session, request: Request) -> tuple[games.Game, Board] | None:
        game = plugin(request.path_params["game"])
        number = path_number(request.path_params["number"])
        if game is None or number is None:
            return None
        board = s.scalars(select(Board).where(Board.game == game.name, Board.number == number,
                                              Board.status != "removed")).one_or_none()
        return None if board is None else (game, board)

    def board(self, request: Request) -> Response:
        with self.session() as s:
            found = self._find(s, request)
            if found is None:
                return PlainTextResponse("No such board", status_code=404, headers=HEADERS)
            game, board = found
            state = game.load(board.state)
            moves = boards.moves_of(s, board)
            drawing = game.draw(state, None, players_of(board))
            status = boards.status_line(board, game, state)
            seats = ", ".join(boards.player_label(board, game, state, i) for i in range(len(board.seats)))
        title = f"{game.title} Board {board.number}"
        base = f"/{game.name}/{board.number}"
        svg = to_svg(drawing) if drawing is not None else f"<pre>{html.escape(game.render(state))}</pre>"
        items = "".join(
            # (the <ol> numbers the moves: no number of our own, or it reads "1. 1. alice: G5")
            f'<li data-ply="{m.ply}"><a href="#{m.ply}">{html.escape(players_of(board)[m.seat])}: '
            f"{html.escape(m.move)}</a></li>" for m in moves)
        body = (f'<nav><a href="/">All boards</a></nav><h1>{html.escape(title)}</h1>'
                f"<p>Players: {html.escape(seats)}</p><p>{html.escape(status)}</p>"
                f'<p><a id="record" href="{base}/record" download>Download the game record</a> '
                "(plain text, every move: docs/record-format.md)</p>"
                f'<div class="board"><div><p><a id="prev" href="#{max(0, board.ply - 1)}">&larr; previous</a>'
                f' <span id="at">now (after move {board.ply})</span> '
                f'<a id="next" href="#{board.ply}">next &rarr;</a></p>'
                f'<div id="picture" class="picture" data-base="{base}" data-ply="{board.ply}">{svg}</div></div>'
                f'<div class="moves"><h2>Moves</h2><ol start="0"><li data-ply="0"><a href="#0">start</a></li>'
                f"{items}</ol></div></div>"
                '<script src="/board.js"></script>')
        return page(title, body)

    def position_svg(self, request: Request) -> Response:
        with self.session() as s:
            found = self._find(s, request)
            if found is None:
                return PlainTextResponse("No such board", status_code=404, headers=HEADERS)
            game, board = found
            at = path_number(request.path_params["ply"])
            moves = boards.moves_of(s, board)
            if at is None or at > len(moves):
                return PlainTextResponse(f"Board {board.number} has {len(moves)} moves", status_code=404,
                                         headers=HEADERS)
            # A position, once played, never changes: the same board, ply and moves give the same picture.
            key = (board.id, at, len(moves), moves[-1].id if moves else 0)
            svg = self.svgs.get(key)
            if svg is None:
                state = game.load(board.state) if at == len(moves) else boards.replay(game, board, moves, at)
                drawing = game.draw(state, None, players_of(board))
                svg = "" if drawing is None else to_svg(drawing)
                self.svgs.put(key, svg)
        if not svg:
            return PlainTextResponse("This game has no picture", status_code=404, headers=HEADERS)
        return Response(svg, media_type="image/svg+xml",
                        headers={**HEADERS, "Cache-Control": "public, max-age=60"})

    def record(self, request: Request) -> Response:
        """The board's game record as a file to save (server.boards.board_record)."""
        with self.session() as s:
            found = self._find(s, request)
            if found is None:
                return PlainTextResponse("No such board", status_code=404, headers=HEADERS)
            game, board = found
            text = board_record.record_text(board, game, boards.moves_of(s, board))
            name = board_record.record_filename(board)
        return PlainTextResponse(text, headers={**HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})

    def script(self, request: Request) -> Response:
        return Response(SCRIPT, media_type="text/javascript", headers={**HEADERS, "Cache-Control": "max-age=3600"})

    def health(self, request: Request) -> Response:
        with self.session() as s:
            s.scalar(select(Board.id).limit(1))
        return PlainTextResponse("ok", headers=HEADERS)


def create_app(database_url: str) -> ASGIApp:
    web = WebApp(database_url)
    routes: list[Any] = [
        Route("/", web.front),
        Route("/board.js", web.script),
        Route("/healthz", web.health),
        *tournaments.routes(web.session, page, HEADERS),
        # Numbers as text, parsed by path_number: Starlette's int converter makes a
        # 5,000-digit ply a ValueError (HTTP 500) and a number past 2^63 a database error.
        Route("/{game:str}/{number:str}", web.board),
        Route("/{game:str}/{number:str}/{ply:str}.svg", web.position_svg),
        Route("/{game:str}/{number:str}/record", web.record),
    ]
    app = Starlette(routes=routes, exception_handlers={games.GameUnavailable: unavailable})
    rate = os.environ.get("PBMSERV_WEB_RATE", "120")
    return RateLimit(app, int(rate) if is_digits(rate) else 120)


async def unavailable(request: Request, exc: Exception) -> Response:
    """A game whose plugin failed to load: temporarily unavailable (503), never "no such board"."""
    return PlainTextResponse(str(exc), status_code=503, headers={**HEADERS, "Retry-After": "300"})
