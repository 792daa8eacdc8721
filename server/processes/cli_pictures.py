"""``pbmserv draw``, ``pbmserv web`` and ``pbmserv user pictures``: the pictures' commands.

Kept apart from server.cli (which registers them) so the picture and web
tools, and their imports, load only when used.
"""

from __future__ import annotations

from pathlib import Path

import click
from sqlalchemy import select

import games
from server.core.config import parse_hostport
from server.processes.cli_games import cli_game
from server.processes.exit_codes import EX_CONFIG, EX_TEMPFAIL, Failure
from server.store.model import Board, User


@click.command()
@click.argument("game")
@click.argument("board")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="File to write: .png or .svg.")
@click.option("--moves", default="", help="Moves to play first (space-separated), e.g. for a sample.")
@click.option("--option", "options", multiple=True, help="Challenge option for BOARD 'new', e.g. -size=2.")
@click.pass_obj
def draw(app, game: str, board: str, out: Path, moves: str, options: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """Write the picture of a board: BOARD is a number (NUMBER#N: after N moves) or 'new'."""
    from server.boards import boards
    from server.pictures.draw_png import to_png
    from server.pictures.draw_svg import to_svg

    plugin = cli_game(game)
    players: list[str] | None = None
    try:
        if board.lower() == "new":
            state = plugin.start(plugin.parse_options(list(options)), plugin.players)
        else:
            number, at = boards.parse_board_ref(board)

            def work(session):  # type: ignore[no-untyped-def]
                row = session.scalars(select(Board).where(Board.game == plugin.name, Board.number == number)).one_or_none()
                if row is None:
                    raise click.ClickException(f"There is no {plugin.title} Board {number}")
                stored = boards.moves_of(session, row)
                if at is not None and at > len(stored):
                    raise click.ClickException(f"Board {number} has only {len(stored)} moves")
                st = plugin.load(row.state) if at is None else boards.replay(plugin, row, stored, at)
                return st, [u.userid for u in boards.seat_users(row)]

            state, players = app.existing_db.run(work)
        for move in moves.split():
            seat = plugin.to_move(state)
            if seat is None:
                raise click.ClickException(f"The game is over before {move}")
            state = plugin.play(state, seat, move)
    except games.GameError as exc:
        raise click.ClickException(str(exc)) from None
    except Exception as exc:
        if type(exc).__name__ == "CommandError":
            raise click.ClickException(str(exc)) from None
        raise
    drawing = plugin.draw(state, None, players)
    if drawing is None:
        raise click.ClickException(f"{plugin.title} draws no picture")
    if out.suffix.lower() == ".svg":
        out.write_text(to_svg(drawing), encoding="utf-8")
    elif out.suffix.lower() == ".png":
        out.write_bytes(to_png(drawing))
    else:
        raise click.ClickException(f"{out}: the file name must end in .png or .svg")
    click.echo(f"{out}: {drawing.width}x{drawing.height}, {drawing.title}")


@click.command()
@click.option("--bind", envvar="PBMSERV_WEB_BIND", default="127.0.0.1:8080", show_default=True,
              help="host:port the web pages are served on.")
@click.option("--workers", envvar="PBMSERV_WEB_WORKERS", type=int, default=1, show_default=True,
              help="uvicorn worker processes.")
@click.pass_obj
def web(app, bind: str, workers: int) -> None:  # type: ignore[no-untyped-def]
    """Serve the read-only board pages (behind nginx or Caddy; see deploy/)."""
    import os

    try:
        import uvicorn
    except ImportError:
        raise click.ClickException("pbmserv web needs the web extra: pip install 'pbmserv[web]'") from None
    try:
        host, port = parse_hostport(bind, 8080)
    except ValueError:
        raise click.BadParameter(f"{bind!r}: give host:port, host or port", param_hint="--bind") from None
    check_bind(host, port)
    app.db  # noqa: B018 - create and migrate the database first, as serve does
    os.environ["PBMSERV_DATABASE_URL"] = app.settings.database_url
    click.echo(f"pbmserv web pages on http://{host}:{port}/ ; Ctrl-C stops it", err=True)
    uvicorn.run("server.processes.cli_pictures:asgi_app", factory=True, host=host, port=port, workers=workers,
                proxy_headers=True, log_level="warning")


def check_bind(host: str, port: int) -> None:
    """Fail before the banner when the address cannot be listened on (in use, not ours).

    uvicorn binds after the banner and exits on its own log line; the admin
    saw "web pages on ..." above an error.  The socket is closed at once
    and uvicorn binds again (SO_REUSEADDR): the gap is a few milliseconds.
    """
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        socket.create_server((host, port), family=family).close()
    except OSError as exc:
        code = EX_TEMPFAIL if exc.errno == errno.EADDRINUSE else EX_CONFIG  # in use: may free up
        raise Failure(code, f"cannot serve the web pages on {host}:{port}: {exc.strerror or exc}") from None


def asgi_app():  # type: ignore[no-untyped-def]
    """The app for uvicorn (also ``uvicorn --factory server.processes.cli_pictures:asgi_app``)."""
    import os

    from server.core.config import DEFAULT_DATABASE_URL
    from server.web.app import create_app

    return create_app(os.environ.get("PBMSERV_DATABASE_URL", DEFAULT_DATABASE_URL))


@click.command("pictures")
@click.argument("userid")
@click.argument("setting", type=click.Choice(["on", "off"], case_sensitive=False))
@click.pass_obj
def user_pictures(app, userid: str, setting: str) -> None:  # type: ignore[no-untyped-def]
    """Board pictures in USERID's mail: on or off."""

    def work(session):  # type: ignore[no-untyped-def]
        user = session.scalars(select(User).where(User.userid == userid.lower())).one_or_none()
        if user is None:
            raise click.ClickException(f"Unknown userid {userid!r}")
        user.pictures = setting.lower() == "on"
        return user.userid

    click.echo(f"{app.db.run(work)}: pictures {setting.lower()}")
