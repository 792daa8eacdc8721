"""``pbmserv check-mail``, the mailbox checks of ``serve`` and the IMAP lines of ``status``.

Kept apart from server.cli (which registers them) so the IMAP client loads
only where a mailbox is used.
"""

from __future__ import annotations

import smtplib
import socket
import sys
from datetime import datetime

import click
from sqlalchemy import select
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail.credentials import MailConfigError, parse_relay, password
from server.store.model import ImapState

EX_TEMPFAIL = 75
EX_CONFIG = 78


def check_at_start(settings: Settings) -> None:
    """``serve``: settings that cannot work stop it now, with one line and exit 78 (via the CLI's
    error handler); a mailbox that is only unreachable for now is retried in the background."""
    if settings.relay:
        password(parse_relay(settings.relay))  # a login without a password would fail at every delivery
    if not settings.imap:
        return
    from server.mail import imap_login as imap

    try:
        line = imap.check(settings)
    except MailConfigError:
        raise
    except Exception as exc:
        endpoint = imap.parse_imap(settings.imap)
        click.echo(f"warning: {imap.describe(endpoint, exc)}; retrying in the background", err=True)
        return
    click.echo(line, err=True)


def _check_relay(settings: Settings) -> str:
    from server.mail import relay

    endpoint = parse_relay(settings.relay or "")
    try:
        return relay.check(endpoint, socket.getfqdn())
    except (OSError, smtplib.SMTPException) as exc:
        raise _Temporary(f"{endpoint}: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from None


def _check_imap(settings: Settings) -> str:
    from server.mail import imap_login as imap

    try:
        return imap.check(settings)
    except MailConfigError:
        raise
    except Exception as exc:
        raise _Temporary(imap.describe(imap.parse_imap(settings.imap or ""), exc)) from None


class _Temporary(Exception):
    """The server could not be reached now: trying later may work (exit 75)."""


@click.command("check-mail")
@click.pass_obj
def check_mail(app) -> None:  # type: ignore[no-untyped-def]
    """Log in to the mailbox (--imap) and the submission server (--relay) and say what works.

    Exits 0 when every side given works, 78 when a setting, password or
    certificate is wrong, 75 when a server cannot be reached now.
    """
    settings: Settings = app.settings
    sides = [(name, check) for name, check, given in (("IMAP", _check_imap, settings.imap),
                                                        ("relay", _check_relay, settings.relay)) if given]
    if not sides:
        raise click.UsageError("nothing to check: give --imap (PBMSERV_IMAP) and/or --relay (PBMSERV_RELAY)")
    code = 0
    for name, run in sides:
        try:
            click.echo(f"ok      {run(settings)}")
        except MailConfigError as exc:
            click.echo(f"FAILED  {name} {exc}")
            code = max(code, EX_CONFIG)
        except _Temporary as exc:
            click.echo(f"FAILED  {name} {exc} (try again later)")
            code = max(code, EX_TEMPFAIL)
    if settings.mail_from:
        click.echo(f"replies are sent from {settings.mail_from}")
    for name in ("IMAP", "relay"):
        if name not in {n for n, _ in sides}:
            click.echo(f"-       no {name} given (--{name.lower()})")
    sys.exit(code)


#: The receiver's states (server/mail/imap.py) as status says them.
STATES = {"idle": "connected (IDLE)", "polling": "connected (polling)", "disconnected": "DISCONNECTED",
          "connecting": "connecting", "stopped": "stopped (no serve reads it)"}


def imap_status(session: Session, now: datetime) -> list[str]:
    """``pbmserv status``: each mailbox the receiver watches, its state and last error."""
    lines = []
    for row in session.scalars(select(ImapState).order_by(ImapState.mailbox)):
        since = max(0, int((now - row.since).total_seconds()))
        label = STATES.get(row.state, row.state)
        lines.append(f"imap:              {row.mailbox} {label} for {_age(since)}, "
                     f"{row.stored} stored, last UID {row.last_uid}")
        if row.last_error:
            ago = int((now - row.last_error_at).total_seconds()) if row.last_error_at else 0
            lines.append(f"last imap error ({_age(max(0, ago))} ago): {row.last_error[:200]}")
    return lines


def _age(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s"
    return f"{seconds // 60} min" if seconds < 7200 else f"{seconds // 3600} h"
