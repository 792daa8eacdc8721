"""The ``pbmserv`` command-line tool.

Every setting is a flag on the top-level group and an environment variable
(``PBMSERV_DATABASE_URL``, ``PBMSERV_ADDRESS``, ...), so a systemd unit, a
crontab line and a shell all configure the server the same way.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from pathlib import Path

import click
from sqlalchemy import func, select

import games
from server.boards.computer import queue_counts
from server.commands import CommandError, Context, Request, dispatch
from server.core.config import DEFAULT_DATABASE_URL, Settings
from server.mail.quota import sent_last_hour
from server.mail.replies import queue
from server.processes import cli_tournaments
from server.processes.cli_games import cli_game
from server.processes.exit_codes import EX_CONFIG, EX_DATAERR, EX_TEMPFAIL, Failure
from server.store.database import Database
from server.store.model import Board, Inbound, Outbox, User, utcnow


def safe_url(url: str) -> str:
    """The database URL without its password, for messages."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(an unreadable URL)"


def explain(exc: BaseException, settings: Settings | None) -> tuple[int, str]:
    """One line for the admin and an exit code (75: trying again later may help)."""
    from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

    from server.mail.credentials import MailConfigError

    url = safe_url(settings.database_url) if settings else "the database"
    if isinstance(exc, MailConfigError):  # a mailbox setting, login or certificate: the admin must act
        return EX_CONFIG, str(exc)
    if isinstance(exc, Failure):
        return exc.code, str(exc)
    if isinstance(exc, CommandError | games.GameError):
        return 1, str(exc).splitlines()[0]
    if isinstance(exc, ArgumentError | NoSuchModuleError):
        return EX_CONFIG, f"bad --database-url {url}: {_first_line(exc)} (e.g. sqlite:///pbmserv.db)"
    if isinstance(exc, DBAPIError):
        return EX_TEMPFAIL, f"cannot use the database {url}: {_first_line(exc)}"
    if isinstance(exc, OSError):
        return EX_TEMPFAIL, f"{exc.strerror or exc}"
    return 1, _first_line(exc)


class Main(click.Group):
    """The top-level group: an ordinary failure is one line on stderr and an exit
    code, never a traceback (a bug still shows one, with -v)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:
            app = ctx.find_object(App)
            code, text = explain(exc, app.settings if app else None)
            if app is not None and app.verbose >= 2:
                logging.getLogger("pbmserv.cli").exception("failed")
            click.echo(f"pbmserv: {text}", err=True)
            ctx.exit(code)


class App:
    """What the subcommands share: settings, and the database opened on demand."""

    def __init__(self, settings: Settings, verbose: int = 0) -> None:
        self.settings = settings
        self.verbose = verbose
        self._db: Database | None = None

    @property
    def db(self) -> Database:
        """The database, created (and migrated) on first use, as ``serve`` does."""
        if self._db is None:
            check_folder(self.settings.database_url)
            self._db = Database(self.settings.database_url, self.settings.busy_timeout)
            self._db.upgrade()
        return self._db

    @property
    def existing_db(self) -> Database:
        """The database for a command that only reads: never an empty one made in passing."""
        path = sqlite_file(self.settings.database_url)
        check_folder(self.settings.database_url)
        if self._db is None and path is not None and not path.exists():
            raise Failure(EX_CONFIG, f"no database at {path} (give --database-url, or create it with "
                                     "pbmserv db upgrade)")
        return self.db


def require_games() -> None:
    """A server with no game answers every player that their game does not exist: do not start one."""
    if not games.available():
        broken = "; ".join(f"{name}: {why}" for name, why in sorted(games.unavailable().items()))
        raise Failure(EX_CONFIG, "no game plugin could be loaded, so no game could be played: "
                                 + (broken or "none is installed (pip install the package that has them)"))


def check_folder(url: str) -> None:
    """A SQLite file in a directory that does not exist: permanent until the admin acts (78, not 75)."""
    path = sqlite_file(url)
    if path is not None and not path.parent.is_dir():
        raise Failure(EX_CONFIG, f"no directory {path.parent} for the database {path} "
                                 "(create it, or give --database-url)")


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and in-memory ones)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    if parsed.database.startswith("file:"):
        return None  # a URI filename: SQLite's own rules
    return Path(parsed.database).absolute()


pass_app = click.make_pass_decorator(App)


def _split_addresses(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> list[str]:
    out = [a for v in value for a in v.replace(",", " ").split()]
    return out or ["pbmserv@localhost"]


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbmserv", prog_name="pbmserv", message="%(prog)s %(version)s")
@click.option("--database-url", envvar="PBMSERV_DATABASE_URL", default=DEFAULT_DATABASE_URL, show_default=True,
              help="SQLAlchemy URL: sqlite:///FILE (embedded default) or postgresql://user@host/db.")
@click.option("--address", "addresses", envvar="PBMSERV_ADDRESS", multiple=True, callback=_split_addresses,
              help="Our own address (repeatable; env: space-separated). Only these are accepted as RCPT; "
                   "the first is the From of every reply.  [default: pbmserv@localhost]")
@click.option("--relay", envvar="PBMSERV_RELAY", default=None,
              help="Where replies go: host[:port] of a smarthost (plain SMTP), or a provider's submission "
                   "server smtp://USER@HOST:587 (STARTTLS required) or smtps://USER@HOST:465; the password "
                   "from PBMSERV_RELAY_PASSWORD or the file named by PBMSERV_RELAY_PASSWORD_FILE.")
@click.option("--from", "mail_from", envvar="PBMSERV_FROM", default=None,
              help="Envelope sender and From of replies, when the submission server insists on its "
                   "account's own address.  [default: the first --address]")
@click.option("--imap", envvar="PBMSERV_IMAP", default=None,
              help="Read mail from a mailbox: imaps://USER@HOST[:PORT]/FOLDER, or imap://... with STARTTLS; "
                   "the password from PBMSERV_IMAP_PASSWORD or the file named by PBMSERV_IMAP_PASSWORD_FILE.")
@click.option("--imap-done", envvar="PBMSERV_IMAP_DONE", default="flag", show_default=True,
              help="What becomes of a mailbox message once stored: flag (\\Seen and $Pbmserv), "
                   "move:FOLDER or delete.")
@click.option("--imap-poll", envvar="PBMSERV_IMAP_POLL", type=float, default=60.0, show_default=True,
              help="Seconds between looks at a mailbox whose server has no IDLE.")
@click.option("--listen", envvar="PBMSERV_LISTEN", default="127.0.0.1:8025", show_default=True,
              help="host:port the listener binds.")
@click.option("--max-size", envvar="PBMSERV_MAX_SIZE", type=int, default=1024 * 1024, show_default=True,
              help="Largest message accepted, in bytes (larger: 552).")
@click.option("--max-stranger-size", envvar="PBMSERV_MAX_STRANGER_SIZE", type=int, default=64 * 1024,
              show_default=True, help="Largest message accepted from a sender without an account (larger: 552).")
@click.option("--stranger-bytes-per-hour", envvar="PBMSERV_STRANGER_BYTES_PER_HOUR", type=int,
              default=16 * 1024 * 1024, show_default=True,
              help="Bytes all senders without an account may store per hour, together (beyond: 452 to them only).")
@click.option("--rate-limit", envvar="PBMSERV_RATE_LIMIT", type=int, default=300, show_default=True,
              help="Messages per hour one sender may send before we answer 450.")
@click.option("--mail-cpu-seconds", envvar="PBMSERV_MAIL_CPU_SECONDS", type=float, default=20.0, show_default=True,
              help="CPU seconds one mail may use; past it the rest of its commands are refused.")
@click.option("--stranger-cpu-seconds", envvar="PBMSERV_STRANGER_CPU_SECONDS", type=float, default=3.0,
              show_default=True, help="The same for a mail from an address without an account.")
@click.option("--stranger-commands", envvar="PBMSERV_STRANGER_COMMANDS", type=int, default=5, show_default=True,
              help="Commands read from a mail of an address without an account.")
@click.option("--nagtime", envvar="PBMSERV_NAGTIME", type=float, default=7.0, show_default=True,
              help="Default days before a reminder.")
@click.option("--forfeittime", envvar="PBMSERV_FORFEITTIME", type=float, default=21.0, show_default=True,
              help="Default days before a stalled player forfeits.")
@click.option("--retry-base", envvar="PBMSERV_RETRY_BASE", type=float, default=60.0, show_default=True,
              help="Seconds before the first delivery retry (doubled each try).")
@click.option("--lease-seconds", envvar="PBMSERV_LEASE_SECONDS", type=float, default=30.0, show_default=True,
              help="Seconds a worker owns a received message; a crashed worker's messages wait this long.")
@click.option("--delivery-lease-seconds", envvar="PBMSERV_DELIVERY_LEASE_SECONDS", type=float, default=120.0,
              show_default=True, help="Seconds a deliverer owns a batch of replies before another may send them.")
@click.option("--busy-timeout", envvar="PBMSERV_BUSY_TIMEOUT", type=float, default=30.0, show_default=True,
              help="Seconds SQLite waits for another process's lock before the store fails (451 / exit 75).")
@click.option("--max-connections", envvar="PBMSERV_MAX_CONNECTIONS", type=int, default=200, show_default=True,
              help="Concurrent SMTP connections; beyond it 421.")
@click.option("--max-connections-per-peer", envvar="PBMSERV_MAX_CONNECTIONS_PER_PEER", type=int, default=20,
              show_default=True, help="Concurrent SMTP connections from one address; beyond it 421.")
@click.option("--max-connections-per-network", envvar="PBMSERV_MAX_CONNECTIONS_PER_NETWORK", type=int, default=50,
              show_default=True, help="Concurrent SMTP connections from one /24 (IPv6: /64); beyond it 421.")
@click.option("--max-session-seconds", envvar="PBMSERV_MAX_SESSION_SECONDS", type=float, default=300.0,
              show_default=True, help="Seconds an SMTP session may last (closed between transactions).")
@click.option("--max-idle-commands", envvar="PBMSERV_MAX_IDLE_COMMANDS", type=int, default=20, show_default=True,
              help="SMTP commands in a row without a mail transaction (NOOP, RSET, ...) before 421.")
@click.option("--idle-timeout", envvar="PBMSERV_IDLE_TIMEOUT", type=float, default=60.0, show_default=True,
              help="Seconds an idle SMTP connection is kept.")
@click.option("--store-timeout", envvar="PBMSERV_STORE_TIMEOUT", type=float, default=20.0, show_default=True,
              help="Seconds DATA waits for its commit before answering 451 (at most half --idle-timeout).")
@click.option("--watchdog", "watchdog_seconds", envvar="PBMSERV_WATCHDOG", type=float, default=300.0,
              show_default=True, help="Seconds the listener or one commit may hang before serve exits 70 "
                                      "for the service manager to restart it (0: never).")
@click.option("--unknown-backlog", envvar="PBMSERV_UNKNOWN_BACKLOG", type=int, default=200, show_default=True,
              help="Waiting mails from unknown senders beyond which they get 450.")
@click.option("--unknown-per-minute", envvar="PBMSERV_UNKNOWN_PER_MINUTE", type=int, default=300, show_default=True,
              help="Mails from unknown senders handled per minute (their shared budget).")
@click.option("--outbound-per-hour", envvar="PBMSERV_OUTBOUND_PER_HOUR", type=int, default=5000, show_default=True,
              help="Mails sent per hour in all; beyond it replies wait and status alerts.")
@click.option("--outbound-strangers-per-hour", envvar="PBMSERV_OUTBOUND_STRANGERS_PER_HOUR", type=int, default=500,
              show_default=True, help="Mails sent per hour to addresses without an account (their own pool).")
@click.option("--replies-per-day", envvar="PBMSERV_REPLIES_PER_DAY", type=int, default=1000, show_default=True,
              help="Mails one account address receives per day.")
@click.option("--stranger-replies-per-day", envvar="PBMSERV_STRANGER_REPLIES_PER_DAY", type=int, default=10,
              show_default=True, help="Replies an address without an account receives per day.")
@click.option("--broadcasts-per-day", envvar="PBMSERV_BROADCASTS_PER_DAY", type=click.IntRange(min=0), default=1,
              show_default=True, help="'broadcast' mails one account (or one From address) may send a day (0: none).")
@click.option("--recipient-delimiter", envvar="PBMSERV_RECIPIENT_DELIMITER", default="+", show_default=True,
              help="Characters that start the tag of a reply address (pbmserv+TOKEN@...); "
                   "the same as Postfix's recipient_delimiter.")
@click.option("--address-proof", envvar="PBMSERV_ADDRESS_PROOF", type=click.Choice(["token", "from"]),
              default="token", show_default=True,
              help="What confirms a new account address: a reply to a confirmation mail (token), or the "
                   "From itself (from: only behind a front MTA that rejects forged From).")
@click.option("--trust-authentication-results", "trusted_authserv", envvar="PBMSERV_TRUST_AUTHENTICATION_RESULTS",
              default=None, metavar="AUTHSERV-ID",
              help="The front MTA's authserv-id: its Authentication-Results dmarc=pass proves a From address.")
@click.option("--web-url", envvar="PBMSERV_WEB_URL", default=None,
              help="Public base URL of 'pbmserv web'; board mails then link to the board's page.")
@click.option("--pictures/--no-pictures", envvar="PBMSERV_PICTURES", default=True, show_default=True,
              help="A picture of the board in board mails (players may still turn theirs off).")
@click.option("--footer-file", envvar="PBMSERV_FOOTER_FILE", default=None,
              type=click.Path(exists=True, dir_okay=False, readable=True),
              help="A text put under every mail the server sends (the original's advertisement file).")
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
@click.pass_context
def main(ctx: click.Context, database_url: str, addresses: list[str], relay: str | None,
         mail_from: str | None, imap: str | None, imap_done: str, imap_poll: float, listen: str,
         max_size: int, max_stranger_size: int, stranger_bytes_per_hour: int, rate_limit: int, mail_cpu_seconds: float,
         stranger_cpu_seconds: float, stranger_commands: int, nagtime: float, forfeittime: float, retry_base: float,
         lease_seconds: float, delivery_lease_seconds: float, busy_timeout: float, max_connections: int,
         max_connections_per_peer: int, max_connections_per_network: int, max_session_seconds: float,
         max_idle_commands: int, idle_timeout: float, store_timeout: float, watchdog_seconds: float,
         unknown_backlog: int, unknown_per_minute: int,
         outbound_per_hour: int, outbound_strangers_per_hour: int, replies_per_day: int, stranger_replies_per_day: int,
         broadcasts_per_day: int, recipient_delimiter: str, address_proof: str, trusted_authserv: str | None,
         web_url: str | None, pictures: bool, footer_file: str | None, verbose: int) -> None:
    """pbmserv: a play-by-email game server."""
    from server.mail.tokens import RedactFilter

    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactFilter())  # reply tokens never reach a log line
    ctx.obj = App(Settings(database_url=database_url, addresses=addresses, relay=relay, listen=listen,
                           max_size=max_size, max_stranger_size=max_stranger_size, rate_limit=rate_limit,
                           stranger_bytes_per_hour=stranger_bytes_per_hour,
                           nagtime=nagtime, forfeittime=forfeittime, mail_cpu_seconds=mail_cpu_seconds,
                           stranger_cpu_seconds=stranger_cpu_seconds, stranger_commands=stranger_commands,
                           retry_base=retry_base, lease_seconds=lease_seconds,
                           delivery_lease_seconds=delivery_lease_seconds, busy_timeout=busy_timeout,
                           max_connections=max_connections, max_connections_per_peer=max_connections_per_peer,
                           max_connections_per_network=max_connections_per_network,
                           max_session_seconds=max_session_seconds, max_idle_commands=max_idle_commands,
                           idle_timeout=idle_timeout, store_timeout=store_timeout,
                           watchdog_seconds=watchdog_seconds, unknown_backlog=unknown_backlog,
                           unknown_per_minute=unknown_per_minute, outbound_per_hour=outbound_per_hour,
                           outbound_strangers_per_hour=outbound_strangers_per_hour,
                           replies_per_recipient_day=replies_per_day,
                           replies_per_stranger_day=stranger_replies_per_day,
                           broadcasts_per_day=broadcasts_per_day,
                           recipient_delimiter=recipient_delimiter or "+", web_url=web_url,
                           address_proof=address_proof, trusted_authserv=trusted_authserv,
                           pictures=pictures, mail_from=mail_from, imap=imap, imap_done=imap_done,
                           imap_poll=imap_poll, footer=read_footer(footer_file)), verbose)



#: The longest footer: a few lines under every mail, not a second body.
FOOTER_CHARS = 1000


def read_footer(path: str | None) -> str:
    """The admin's footer, wrapped to 78 columns like every reply line."""
    if path is None:
        return ""
    from server.mail.wrapping import wrap

    try:
        text = Path(path).read_text(encoding="utf-8").strip("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"{path}: {exc}", param_hint="--footer-file") from None
    if len(text) > FOOTER_CHARS:
        raise click.BadParameter(f"{path}: {len(text)} characters; a footer has at most {FOOTER_CHARS}",
                                 param_hint="--footer-file")
    return wrap(text)


def default_workers(database_url: str) -> int:
    """Worker processes when ``--workers`` is not given: one on SQLite, one per core on PostgreSQL.

    On SQLite every command's transaction takes the one write lock, so a
    second worker adds no parallel work, only the contention for it: on
    2 cores, one worker took 92.6 moves/s at 12.8 ms of CPU a move, two
    took 76.0 at 15.9 ms (bench_throughput.py, same run; by password 85.0
    against 80.3).  PostgreSQL locks board rows, and its workers do run
    side by side.
    """
    return 1 if database_url.startswith("sqlite") else (os.cpu_count() or 1)


@main.command()
@click.option("--lmtp", is_flag=True, envvar="PBMSERV_LMTP", help="Speak LMTP (for Postfix's lmtp transport).")
@click.option("--workers", envvar="PBMSERV_WORKERS", type=click.IntRange(min=0), default=None,
              help="Processes applying commands (default: 1 on SQLite, the number of cores on PostgreSQL; "
                   "0: threads of the listener's process).  Replies go out from one more process.")
@click.option("--computer/--no-computer", envvar="PBMSERV_COMPUTER", default=True,
              help="Play the computer opponent's turns and answer hints here, in a process of their own "
                   "(default on; with several hosts one may be enough).")
@pass_app
def serve(app: App, lmtp: bool, workers: int | None, computer: bool) -> None:
    """Run the listener, the worker and the delivery loop until stopped."""
    from server.processes.serve import Server

    root = logging.getLogger()
    if root.level > logging.DEBUG:
        # aiosmtpd logs every SMTP line on "mail.log" at INFO: keep that for -vv,
        # so the default shows one line per command (server.processes.worker), not ten.
        logging.getLogger("mail.log").setLevel(logging.WARNING)
        logging.getLogger("alembic").setLevel(logging.WARNING)
    root.setLevel(min(root.level, logging.INFO))
    app.settings.lmtp = lmtp
    app.settings.computer = computer
    app.settings.workers = default_workers(app.settings.database_url) if workers is None else workers
    require_games()
    try:
        host, port = app.settings.listen_hostport
    except ValueError:
        raise click.BadParameter(f"{app.settings.listen!r}: give host:port, e.g. 127.0.0.1:8025",
                                 param_hint="--listen") from None
    if not 0 < port < 65536:
        raise click.BadParameter(f"port {port} is not 1-65535", param_hint="--listen")
    if not app.settings.relay:
        click.echo("warning: no --relay (PBMSERV_RELAY): replies are stored and wait until a relay is "
                   "given", err=True)
    from server.processes.cli_mail import check_at_start

    check_at_start(app.settings)  # a wrong mailbox setting, password or certificate: one line, exit 78
    server = Server(app.settings, app.db)
    try:
        server.start()
    except Exception as exc:
        server.stop()
        reason = getattr(exc, "strerror", None) or _first_line(exc)
        click.echo(f"pbmserv: cannot listen on {host}:{port}: {reason}", err=True)
        sys.exit(EX_TEMPFAIL)
    click.echo(f"pbmserv listening on {host}:{port} ({'LMTP' if lmtp else 'SMTP'}); Ctrl-C stops it", err=True)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    done.wait()
    server.stop()


@main.command()
@click.option("--sender", envvar="SENDER", default=None,
              help="Envelope sender (Postfix pipe: ${sender}); default: the Return-Path or From header.")
@click.option("--recipient", envvar=["ORIGINAL_RECIPIENT", "RECIPIENT"], default=None,
              help="Envelope recipient (Postfix and Exim set $ORIGINAL_RECIPIENT / $RECIPIENT): a reply "
                   "address (pbmserv+TOKEN@...) is read from it; default: our first address.")
@pass_app
def process(app: App, sender: str | None, recipient: str | None) -> None:
    """Store and handle one message from standard input (for .forward/procmail pipes).

    Exits 0 once the message is stored and handled, 75 (EX_TEMPFAIL) if the
    database cannot be reached, so the MTA keeps the message and retries.
    """
    from email.parser import BytesHeaderParser
    from email.utils import parseaddr

    from server.mail.inbound import RateLimited, store
    from server.mail.listener import MAX_PATH
    from server.mail.outbox import Deliverer
    from server.processes.worker import Worker

    try:
        require_games()
    except Failure as exc:  # the MTA keeps the mail (75) until the games are back
        click.echo(f"pbmserv: {exc}", err=True)
        sys.exit(EX_TEMPFAIL)
    raw = sys.stdin.buffer.read()
    if len(raw) > app.settings.max_size:
        click.echo(f"message of {len(raw)} bytes is over the limit of {app.settings.max_size}", err=True)
        sys.exit(1)
    if sender is None:
        head = BytesHeaderParser().parsebytes(raw)
        sender = parseaddr(str(head.get("Return-Path") or head.get("From") or ""))[1]
    if len(sender) > MAX_PATH:
        click.echo(f"sender address longer than {MAX_PATH} octets", err=True)
        sys.exit(EX_DATAERR)
    try:
        db = app.db
        ours = recipient is not None and app.settings.is_ours(recipient)
        rcpt = [recipient.strip("<> ")] if ours and recipient else list(app.settings.addresses)
        store(db, raw, sender if sender != "<>" else "", rcpt, app.settings.rate_limit)
    except RateLimited:
        click.echo("rate limit reached for this sender; try later", err=True)
        sys.exit(EX_TEMPFAIL)
    except Exception as exc:
        # Only the error's first line: SQLAlchemy's text carries the raw message (the password too).
        click.echo(f"cannot store the message: {_first_line(exc)}", err=True)
        sys.exit(EX_TEMPFAIL)
    # Stored means ours: a failure from here on is retried by the next run or
    # by `serve`, and must not make the MTA bounce or re-send the message.
    try:
        Worker(db, app.settings).drain()
        if app.settings.relay:
            Deliverer(db, app.settings).drain()
    except Exception as exc:
        click.echo(f"message stored; handling it failed for now ({_first_line(exc)}): it is retried later", err=True)


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


@main.command()
@pass_app
def deliver(app: App) -> None:
    """Send every reply that is due, once, then exit."""
    from server.mail.outbox import Deliverer

    if not app.settings.relay:
        raise click.UsageError("no relay: give --relay or PBMSERV_RELAY")
    try:
        sent = Deliverer(app.db, app.settings).drain()
    except Exception as exc:
        # cron mails whatever we print: one line, never a traceback.
        click.echo(f"delivery stopped ({_first_line(exc)}); the rest is retried on the next run", err=True)
        sys.exit(EX_TEMPFAIL)
    click.echo(f"{sent} handled")


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
@pass_app
def db_upgrade(app: App) -> None:
    """Create or migrate the schema to the newest revision."""
    from server.store.database import current_revision

    check_folder(app.settings.database_url)
    db = Database(app.settings.database_url, app.settings.busy_timeout)
    before = current_revision(db.engine)
    db.upgrade()
    after = current_revision(db.engine)
    where = safe_url(app.settings.database_url)
    if before is None:
        click.echo(f"created the schema (revision {after}) in {where}")
    elif before != after:
        click.echo(f"upgraded the schema from revision {before} to {after} in {where}")
    else:
        click.echo(f"schema already current (revision {after}) in {where}")


def admin_command(app: App, words: list[str], read_only: bool = False) -> str:
    """Run a mail command as the admin, in one transaction, queueing its mails."""
    db = app.existing_db if read_only else app.db

    def work(session):  # type: ignore[no-untyped-def]
        request = Request(words=words, line=" ".join(words), sender=app.settings.address, admin=True)
        ctx = Context(session=session, settings=app.settings, request=request, now=utcnow())
        result = dispatch(ctx, words)
        for mail in result.mails:
            queue(session, app.settings, mail)
        return result.text

    try:
        return db.run(work)
    except (CommandError, games.GameError) as exc:
        raise click.ClickException(str(exc)) from None


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("game")
@click.argument("args", nargs=-1, required=True, type=click.UNPROCESSED)
@pass_app
def challenge(app: App, game: str, args: tuple[str, ...]) -> None:
    """Start a board: GAME USER1 USER2 [USER3] [-OPTION[=VALUE] ...] (mails every player)."""
    click.echo(admin_command(app, [cli_game(game).name, "challenge", *args]))


@main.group()
def secret() -> None:
    """The server secret behind reply addresses."""


@secret.command("rotate")
@pass_app
def secret_rotate(app: App) -> None:
    """Replace the secret: every reply address mailed so far stops working.

    Use it if the database (or a copy) may have been read by someone else.
    Players then reply to the next board mail they get, or use passwords.
    """
    from server.mail import tokens

    app.db.run(tokens.rotate)
    click.echo("secret rotated: every reply address issued so far is revoked")


@main.group()
def user() -> None:
    """Accounts."""


@user.command("add")
@click.argument("userid")
@click.argument("password")
@click.argument("addresses", nargs=-1, required=True)
@pass_app
def user_add(app: App, userid: str, password: str, addresses: tuple[str, ...]) -> None:
    """Open an account (no mail is sent)."""
    from server.accounts import accounts

    def work(session):  # type: ignore[no-untyped-def]
        return accounts.create_user(session, userid, password, accounts.check_addresses(list(addresses), "")).userid

    try:
        click.echo(f"added {app.db.run(work)}")
    except CommandError as exc:
        raise click.ClickException(str(exc)) from None


@user.command("list")
@pass_app
def user_list(app: App) -> None:
    """Every account with its addresses."""
    with app.existing_db.transaction() as session:
        for u in session.scalars(select(User).order_by(User.userid)):
            flags = ("" if u.active else " [closed]") + (" [vacation]" if u.vacation else "")
            click.echo(f"{u.userid:<20} {', '.join(a.address for a in u.addresses)}{flags}")


@user.command("passwd")
@click.argument("userid")
@click.argument("password")
@pass_app
def user_passwd(app: App, userid: str, password: str) -> None:
    """Set a user's password."""
    from server.accounts import accounts

    def work(session):  # type: ignore[no-untyped-def]
        accounts.set_password(accounts.require_user(session, userid), password)

    try:
        app.db.run(work)
    except CommandError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"password of {userid.lower()} set")


@main.group()
def game() -> None:
    """Boards."""


@game.command("list")
@click.argument("name", required=False)
@click.option("--all", "show_all", is_flag=True, help="Finished and removed boards too.")
@pass_app
def game_list(app: App, name: str | None, show_all: bool) -> None:
    """Boards of one game or of all games."""
    from server.boards import boards

    wanted = cli_game(name).name if name else None
    with app.existing_db.transaction() as session:
        query = select(Board).order_by(Board.game, Board.number)
        if wanted:
            query = query.where(Board.game == wanted)
        if not show_all:
            query = query.where(Board.status == "active")
        for b in session.scalars(query):
            players = ", ".join(u.userid for u in boards.seat_users(b))
            mover = boards.user_to_move(b)
            click.echo(f"{b.game:<14} {b.number:>5}  move {b.ply + 1:>4}  {b.status:<9} "
                       f"{'to move: ' + mover.userid if mover else '':<22} {players}")


@game.command("show")
@click.argument("name")
@click.argument("number", type=int)
@pass_app
def game_show(app: App, name: str, number: int) -> None:
    """A board with its whole move list."""
    click.echo(admin_command(app, [cli_game(name).name, "show", str(number)], read_only=True))


@game.command("export")
@click.argument("name")
@click.argument("number", type=int)
@click.option("--out", type=click.Path(dir_okay=False, writable=True), help="write the record here (default: stdout)")
@pass_app
def game_export(app: App, name: str, number: int, out: str | None) -> None:
    """A board's game record (docs/record-format.md), at any point of the game."""
    from server.boards import board_record, boards

    plugin = cli_game(name)

    def work(session):  # type: ignore[no-untyped-def]
        board = boards.find_board(session, plugin, number)
        return board_record.record_text(board, plugin, boards.moves_of(session, board), site=app.settings.address)

    try:
        text = app.db.run(work)
    except CommandError as exc:
        raise click.ClickException(str(exc)) from None
    if out is None:
        click.echo(text, nl=False)
    else:
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(text)
        click.echo(f"wrote the record of {plugin.title} Board {number} to {out}", err=True)


@main.group()
def outbox() -> None:
    """The queue of outgoing mail."""


@outbox.command("list")
@click.option("--status", type=click.Choice(["pending", "sent", "failed", "all"]), default="pending", show_default=True)
@pass_app
def outbox_list(app: App, status: str) -> None:
    """Outgoing mail by status."""
    with app.existing_db.transaction() as session:
        query = select(Outbox).order_by(Outbox.id)
        if status != "all":
            query = query.where(Outbox.status == status)
        rows = session.scalars(query).all()
        for row in rows:
            click.echo(f"{row.id:>6} {row.status:<8} tries={row.tries:<2} {', '.join(row.recipients):<30} "
                       f"{row.subject[:40]}  {row.last_error or ''}")
        if not rows:
            click.echo(f"no {'' if status == 'all' else status + ' '}mail in the outbox")


@outbox.command("retry")
@click.argument("ids", nargs=-1, type=int)
@pass_app
def outbox_retry(app: App, ids: tuple[int, ...]) -> None:
    """Send failed (or delayed) mail again now: the ids given, else every failed one."""

    def work(session):  # type: ignore[no-untyped-def]
        query = select(Outbox).where(Outbox.status != "sent")
        query = query.where(Outbox.id.in_(ids)) if ids else query.where(Outbox.status == "failed")
        rows = session.scalars(query).all()
        for row in rows:
            row.status, row.next_attempt, row.claimed_until, row.tries = "pending", utcnow(), None, 0
        return len(rows)

    click.echo(f"{app.db.run(work)} queued again")


@main.group()
def inbound() -> None:
    """Received mail, and the messages set aside after repeated failures."""


@inbound.command("list")
@click.option("--status", type=click.Choice(["new", "done", "ignored", "duplicate", "shunted", "all"]),
              default="shunted", show_default=True)
@pass_app
def inbound_list(app: App, status: str) -> None:
    """Stored messages by status (default: the ones set aside)."""
    with app.existing_db.transaction() as session:
        query = select(Inbound).order_by(Inbound.id)
        if status != "all":
            query = query.where(Inbound.status == status)
        rows = session.scalars(query).all()
        for row in rows:
            err = (row.error or "").strip().splitlines()
            click.echo(f"{row.id:>6} {row.status:<9} tries={row.tries} from={row.mail_from:<30} "
                       f"{err[-1][:60] if err else ''}")
        if not rows:
            click.echo(f"no {'' if status == 'all' else status + ' '}received mail")


@inbound.command("retry")
@click.argument("ids", nargs=-1, type=int, required=True)
@pass_app
def inbound_retry(app: App, ids: tuple[int, ...]) -> None:
    """Put set-aside messages back in the queue (after fixing what broke them)."""

    def work(session):  # type: ignore[no-untyped-def]
        rows = session.scalars(select(Inbound).where(Inbound.id.in_(ids), Inbound.status == "shunted")).all()
        for row in rows:
            row.status, row.tries, row.claimed_until = "new", 0, None
        return len(rows)

    click.echo(f"{app.db.run(work)} queued again")


@main.command()
@click.option("--days", type=float, default=30.0, show_default=True, help="Keep what is younger than this.")
@pass_app
def prune(app: App, days: float) -> None:
    """Delete handled mail older than --days: received mail that is done, ignored or a
    duplicate, and replies that were sent.

    Received mail holds what players typed, passwords included, so it should
    not be kept for ever; run this from cron.  Mail still waiting, set aside or
    failed is kept.  A copy of a message re-sent after its original was pruned
    is handled again, where a move's #N still stops it from playing twice.
    """
    from datetime import timedelta

    from sqlalchemy import delete

    if not days >= 0:
        raise click.BadParameter(f"{days:g}: give zero or more days", param_hint="--days")
    cutoff = utcnow() - timedelta(days=days)

    def work(session):  # type: ignore[no-untyped-def]
        gone_in = session.execute(delete(Inbound).where(
            Inbound.status.in_(["done", "ignored", "duplicate"]), Inbound.received_at < cutoff)).rowcount
        gone_out = session.execute(delete(Outbox).where(Outbox.status == "sent", Outbox.created_at < cutoff)).rowcount
        return gone_in, gone_out

    gone_in, gone_out = app.db.run(work)
    click.echo(f"pruned {gone_in} received and {gone_out} sent messages older than {days:g} days")


@main.command()
@pass_app
def status(app: App) -> None:
    """Queue depths, active boards per game, the last error, and whether the listener
    of this directory's ``serve`` is alive (its heartbeat file)."""
    from server.processes.health import describe

    try:
        _queue_status(app)
    finally:  # also when the database cannot be read: then the heartbeat may say why
        for line in describe(app.settings):
            click.echo(line)


def _queue_status(app: App) -> None:
    from server.mail.inbound import stranger_bytes_last_hour

    now = utcnow()

    def age(when) -> str:  # type: ignore[no-untyped-def]
        seconds = max(0, int((now - when).total_seconds()))
        if seconds < 120:
            return f"{seconds} s"
        return f"{seconds // 60} min" if seconds < 7200 else f"{seconds // 3600} h"

    with app.existing_db.transaction() as session:
        def count(model, *where):  # type: ignore[no-untyped-def]
            return session.scalar(select(func.count()).select_from(model).where(*where))

        def oldest(column, *where) -> str:  # type: ignore[no-untyped-def]
            when = session.scalar(select(func.min(column)).where(*where))
            return f" (oldest {age(when)})" if when is not None else ""

        pending_in = (Inbound.status == "new",)
        pending_out = (Outbox.status == "pending",)
        click.echo(f"inbound pending:   {count(Inbound, *pending_in)}{oldest(Inbound.received_at, *pending_in)}")
        click.echo(f"inbound set aside: {count(Inbound, Inbound.status == 'shunted')}")
        click.echo(f"outbox pending:    {count(Outbox, *pending_out)}{oldest(Outbox.created_at, *pending_out)}")
        click.echo(f"outbox failed:     {count(Outbox, Outbox.status == 'failed')}")
        sent, budget = sent_last_hour(session, now, stranger=False), app.settings.outbound_per_hour
        alert = "  ALERT: the budget is spent; replies wait (--outbound-per-hour)" if sent >= budget else ""
        click.echo(f"sent last hour:    {sent} of {budget}{alert}")
        sent, budget = sent_last_hour(session, now, stranger=True), app.settings.outbound_strangers_per_hour
        if sent:
            alert = "  ALERT: spent; their replies wait (--outbound-strangers-per-hour)" if sent >= budget else ""
            click.echo(f"  to strangers:    {sent} of {budget}{alert}")
        stored, cap = stranger_bytes_last_hour(session, now), app.settings.stranger_bytes_per_hour
        if cap and stored * 2 >= cap:  # said once it matters: half the strangers' hourly bytes are used
            alert = "  ALERT: reached; strangers hear 452 (--stranger-bytes-per-hour)" if stored >= cap else ""
            click.echo(f"stranger bytes:    {stored} of {cap} this hour{alert}")
        rows = session.execute(select(Board.game, func.count()).where(Board.status == "active")
                               .group_by(Board.game).order_by(Board.game)).all()
        click.echo(f"active boards:     {sum(n for _, n in rows)}")
        for name, n in rows:
            click.echo(f"  {name:<16} {n}")
        queued = queue_counts(session)
        if any(queued.values()):  # only on a server where someone plays the computer
            click.echo(f"computer queue:    {queued['turns']} turns, {queued['hint']} hints, {queued['review']} reviews "
                       f"waiting; {queued['boards']} boards against it; {queued['cut']} turns cut")
        last_in = session.scalars(select(Inbound).where(Inbound.error.is_not(None), Inbound.status.in_(["new", "shunted"]))
                                  .order_by(Inbound.id.desc()).limit(1)).first()
        last_out = session.scalars(select(Outbox).where(Outbox.last_error.is_not(None), Outbox.status != "sent")
                                   .order_by(Outbox.id.desc()).limit(1)).first()
        if last_in is not None:
            lines = (last_in.error or "").strip().splitlines() or [""]
            click.echo(f"last inbound error (#{last_in.id}, {last_in.status}, received {age(last_in.received_at)} ago): "
                       f"{lines[-1][:100]}")
        if last_out is not None:
            click.echo(f"last delivery error (#{last_out.id}, {last_out.status}, tries {last_out.tries}): "
                       f"{(last_out.last_error or '')[:100]}")
        if last_in is None and last_out is None:
            click.echo("last error:        none")
        from server.processes.cli_mail import imap_status

        for line in imap_status(session, now):
            click.echo(line)



@main.command()
@click.option("--now", "now_text", metavar="TIMESTAMP", default=None,
              help="Evaluate as of this moment (ISO 8601; UTC unless it has an offset). Default: now.")
@click.option("--dry-run", is_flag=True, help="List what would be sent and forfeited; change nothing.")
@pass_app
def remind(app: App, now_text: str | None, dry_run: bool) -> None:
    """Send due reminders and forfeit stalled boards (run it from cron or the systemd timer).

    Idempotent: each reminder period of a turn is sent once however often
    this runs.  Prints a one-line summary: checked, reminded, forfeited, skipped.
    """
    from server.boards import timers

    try:
        now = timers.parse_now(now_text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--now") from None
    run = timers.Reminders(app.db, app.settings, now)
    if not sys.stdout.isatty():
        summary = run.run(dry_run=dry_run)
    else:
        with app.db.transaction() as session:
            total = timers.count_active(session)
        with click.progressbar(length=total, label="checking boards ") as bar:
            checked, due = run.plan(progress=bar.update)
        acting = sum(1 for d in due if d.kind != "skip")
        if dry_run or not acting:
            summary = run.execute(checked, due, dry_run=dry_run)
        else:
            with click.progressbar(length=acting, label="acting on boards") as bar:
                summary = run.execute(checked, due, sending=bar.update)
    for line in summary.listing:
        click.echo(line)
    click.echo(summary.line())



def _register_picture_commands() -> None:
    from server.processes.cli_mail import check_mail
    from server.processes.cli_pictures import draw, user_pictures, web

    main.add_command(check_mail)
    main.add_command(draw)
    main.add_command(web)
    user.add_command(user_pictures)


_register_picture_commands()
main.add_command(cli_tournaments.tournament)

if __name__ == "__main__":  # python -m server.cli, where the console script is not installed
    main()
