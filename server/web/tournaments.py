"""The tournaments' web pages: ``/tournaments`` and ``/tournament/NAME``.

One page per tournament: the standings, the crosstable (each player's
result against each other player, in the order of the standings), and the
rounds with a link to every board.  Read-only and public like the board
pages: userids and results only.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from server.boards import standings
from server.store.model import Tournament

Page = Callable[[str, str], HTMLResponse]

TABLE_STYLE = "<style>.cross td { text-align: center } .cross td.me { background: #ddd }</style>"


def _score(t: Tournament, points: int) -> str:
    """One game's score for the crosstable: 1 / ½ / 0 (pools: 2 / 1 / 0)."""
    if t.kind == "pools":
        return str(points)
    return {2: "1", 1: "½", 0: "0"}[points]


def pool_table(table: standings.Standings) -> str:
    """Pools: three players a board, so a row per board with each player's points on it."""
    names = [row.userid for row in table.rows]
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    out = [f'<table class="cross"><caption>Crosstable (points per board)</caption><tr><th>Board</th>{head}</tr>']
    for board in table.boards:
        seats = {s.user.userid: s.seat for s in board.seats}
        cells = []
        for name in names:
            if name not in seats:
                cells.append('<td class="me"></td>')
            elif board.status == "finished" and board.outcome is not None:
                cells.append(f"<td>{standings.seat_points(board.outcome, seats[name])}</td>")
            else:
                cells.append("<td>&hellip;</td>")
        out.append(f'<tr><td><a href="/{board.game}/{board.number}">{board.number}</a></td>{"".join(cells)}</tr>')
    return "".join(out) + "</table>"


def crosstable(table: standings.Standings) -> str:
    t = table.tournament
    if t.kind == "pools":
        return pool_table(table)
    rows = table.rows
    results: dict[tuple[int, int], list[str]] = defaultdict(list)
    for row in rows:
        for other, got in row.games:
            results[(row.user_id, other)].append(_score(t, got))
    head = "".join(f"<th>{i}</th>" for i in range(1, len(rows) + 1))
    out = [f'<table class="cross"><caption>Crosstable</caption><tr><th>#</th><th>Player</th>{head}'
           "<th>Points</th></tr>"]
    for i, row in enumerate(rows, start=1):
        cells = []
        for j, other in enumerate(rows, start=1):
            if i == j:
                cells.append('<td class="me">&times;</td>')
            else:
                cells.append(f"<td>{html.escape(' '.join(results.get((row.user_id, other.user_id), [])))}</td>")
        out.append(f"<tr><td>{i}</td><td>{html.escape(row.userid)}</td>{''.join(cells)}"
                   f"<td>{table.points_text(row.points)}</td></tr>")
    return "".join(out) + "</table>"


def standings_table(table: standings.Standings) -> str:
    t = table.tournament
    tie = {"swiss": ["Buchholz", "S-B"], "pools": ["Pool"]}.get(t.kind, ["S-B"])
    head = "".join(f"<th>{h}</th>" for h in ["#", "Player", "Points", "W", "D" if t.kind != "pools" else "T", "L",
                                             *tie])
    out = [f'<table class="standings"><caption>Standings</caption><tr>{head}</tr>']
    for row in table.rows:
        extra = {"swiss": [table.points_text(row.buchholz), table.points_text(row.sonneborn)],
                 "pools": [standings.pool_letter(row.pool or 1)]}.get(t.kind, [table.points_text(row.sonneborn)])
        name = row.userid + (" (withdrawn)" if row.withdrawn else "")
        cells = [str(row.rank), name, table.points_text(row.points), str(row.wins), str(row.ties), str(row.losses),
                 *extra]
        out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    return "".join(out) + "</table>"


def rounds_list(table: standings.Standings) -> str:
    t = table.tournament
    by_round: dict[int, list[Any]] = defaultdict(list)
    for board in table.boards:
        by_round[board.tournament_round or 0].append(board)
    out = ['<section class="rounds"><h2>Rounds</h2>']
    for number in sorted(by_round):
        label = standings.round_label(t, number)
        out.append(f"<h3>{html.escape(label[:1].upper() + label[1:])}</h3><ul>")
        for board in by_round[number]:
            names = [s.user.userid for s in board.seats]
            if board.status == "active":
                result = "playing"
            else:
                won = [names[i] for i in (board.outcome or {}).get("winners", [])]
                result = f"won by {', '.join(won)}" if won else "drawn"
            out.append(f'<li><a href="/{board.game}/{board.number}">Board {board.number}</a>: '
                       f"{html.escape(' vs '.join(names))} ({html.escape(result)})</li>")
        out.append("</ul>")
    return "".join(out) + "</section>"


class TournamentPages:
    """The routes, given the board pages' session factory, page frame and headers (server.web.app mounts them)."""

    def __init__(self, session: Callable[[], Session], page: Page, headers: dict[str, str]) -> None:
        self.session = session
        self.page = page
        self.headers = headers

    def listing(self, request: Request) -> Response:
        with self.session() as s:
            rows = s.scalars(select(Tournament).order_by(Tournament.id)).all()
            items = "".join(f'<li><a href="/tournament/{t.name}">{html.escape(t.name)}</a>: {html.escape(t.game)}, '
                            f"{standings.KIND_NAMES.get(t.kind, t.kind)}, {t.status}, {len(t.entries)} players</li>"
                            for t in rows)
        return self.page("pbmserv tournaments", f'<nav><a href="/">All boards</a></nav><h1>Tournaments</h1>'
                                           f"<ul>{items or '<li>none yet</li>'}</ul>")

    def tournament(self, request: Request) -> Response:
        with self.session() as s:
            t = s.scalars(select(Tournament).where(Tournament.name == request.path_params["name"].lower())).one_or_none()
            if t is None:
                return PlainTextResponse("No such tournament", status_code=404, headers=self.headers)
            table = standings.compute(s, t)
            kind = standings.KIND_NAMES.get(t.kind, t.kind)
            state = {"open": "open for entries", "running": "running", "finished": "finished"}[t.status]
            if t.kind == "swiss" and t.status != "open":
                state += f", round {t.current_round} of {t.rounds}"
            body = ['<nav><a href="/">All boards</a><a href="/tournaments">Tournaments</a></nav>',
                    f"<h1>Tournament {html.escape(t.name)}</h1>",
                    f"<p>{html.escape(t.game)}, {kind}, {state}. {html.escape(standings.scoring_note(t))}</p>"]
            if t.status == "open":
                names = ", ".join(e.user.userid for e in t.entries) or "nobody yet"
                body.append(f"<p>Entries: {html.escape(names)}</p>")
            else:
                body += [standings_table(table), crosstable(table), rounds_list(table)]
        return self.page(f"Tournament {t.name}", TABLE_STYLE + "".join(body))


def routes(session: Callable[[], Session], page: Page, headers: dict[str, str]) -> list[Route]:
    pages = TournamentPages(session, page, headers)
    return [Route("/tournaments", pages.listing), Route("/tournament/{name:str}", pages.tournament)]
