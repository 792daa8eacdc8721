"""``pbmserv tournament create|start|list``: the admin's side of tournaments.

Kept apart from server.processes.cli (which registers the group with one
line), as cli_pictures is.  Players join and leave by mail; ``pbmserv
remind`` starts a tournament at its date and pairs each Swiss round.
"""

from __future__ import annotations

from typing import Any

import click
from sqlalchemy import select

KINDS = ("roundrobin", "double", "swiss", "pools")


def _context(app: Any, session: Any) -> Any:
    from server.boards.context import Context, Request
    from server.store.model import utcnow

    request = Request(words=["tournament"], line="pbmserv tournament", sender=app.settings.address, admin=True)
    return Context(session=session, settings=app.settings, request=request, now=utcnow())


def _run(app: Any, work: Any) -> Any:
    """One transaction; its mails are queued in it; a CommandError is the admin's clear message."""
    import games
    from server.core.errors import CommandError

    try:
        return app.db.run(work)
    except (CommandError, games.GameError) as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
def tournament() -> None:
    """Tournaments: create one, start it, list them (players join by mail)."""


@tournament.command()
@click.argument("game")
@click.argument("name")
@click.option("--kind", type=click.Choice(KINDS), required=True,
              help="roundrobin, double (round robin twice), swiss, or pools (three-player games).")
@click.option("--rounds", type=int, default=None, help="Rounds of a Swiss.")
@click.option("--options", "options", default="", help='Challenge options of every board, e.g. "-size=2".')
@click.option("--starts", "starts", default=None, metavar="TIMESTAMP",
              help="When pbmserv remind starts it (ISO 8601, UTC unless it has an offset).")
@click.option("--max-players", type=int, default=None, help="At most this many; pbmserv remind starts it when full.")
@click.pass_obj
def create(app: Any, game: str, name: str, kind: str, rounds: int | None, options: str, starts: str | None,
           max_players: int | None) -> None:
    """Open tournament NAME of GAME for entries, and mail the announcement to the game's followers."""
    from server.accounts.accounts import addresses_of
    from server.boards import boards, tournaments
    from server.boards.timers import parse_now
    from server.commands.play import written_out
    from server.commands.tournaments import announcement
    from server.mail.replies import Mail, queue
    from server.store.model import GameFollow

    try:
        starts_at = parse_now(starts) if starts else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--starts") from None

    def work(session: Any) -> str:
        plugin = boards.plugin_for(game)
        tokens = written_out(plugin, options.split())
        made = tournaments.create(session, plugin, name, kind, rounds, tokens, starts_at, max_players)
        subject, text = announcement(plugin, made)
        followers = {f.user.id: f.user for f in session.scalars(select(GameFollow).where(GameFollow.game == plugin.name))}
        for user in followers.values():
            if user.active and user.addresses:
                queue(session, app.settings, Mail(to=addresses_of(user), subject=subject, body=text,
                                                  users=[user.userid]))
        return (f"created tournament {made.name} ({plugin.name}, {kind}); announced to "
                f"{len(followers)} followers of {plugin.name}.\n\nSubject: {subject}\n\n{text}")

    click.echo(_run(app, work))


@tournament.command()
@click.argument("name")
@click.pass_obj
def start(app: Any, name: str) -> None:
    """Start tournament NAME now: its first boards are mailed to the players."""
    from server.boards import tournaments
    from server.mail.replies import queue

    def work(session: Any) -> str:
        found = tournaments.find(session, name, lock=True)
        mails = tournaments.start(_context(app, session), found)
        for mail in mails:
            queue(session, app.settings, mail)
        return f"started tournament {found.name}: {len(found.entries)} players, {len(mails)} mails queued"

    click.echo(_run(app, work))


@tournament.command(name="list")
@click.pass_obj
def list_(app: Any) -> None:
    """Every tournament: name, game, kind, status, players."""
    from server.store.model import Tournament

    def work(session: Any) -> list[str]:
        rows = session.scalars(select(Tournament).order_by(Tournament.id)).all()
        return [f"{t.name:<16} {t.game:<12} {t.kind:<10} {t.status:<8} {len(t.entries)} players"
                + (f", round {t.current_round}" if t.kind == "swiss" and t.current_round else "") for t in rows]

    for line in _run(app, work) or ["no tournaments"]:
        click.echo(line)
