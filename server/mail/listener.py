"""The SMTP/LMTP listener: the front door of the message path.

It accepts RCPT only for our own addresses (never an open relay), refuses
mail over the size limit (552, aiosmtpd's ``data_size_limit``), and answers
250 only once the message is committed.  Any failure answers 451 so the
sending MTA keeps the message and tries again: aiosmtpd's default turns an
exception into a permanent 500, which would lose mail.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Callable
from typing import Any

import aiosmtpd
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from server.core.config import Settings
from server.mail.guards import (
    ConnectionGate,
    QuietErrors,
    SessionBounds,
    header_problem,
    path_problem,
)
from server.mail.inbound import Backlogged, GroupCommit, RateLimited, StrangersFull, TooLarge
from server.store.database import Database

log = logging.getLogger("pbmserv.listener")
#: aiosmtpd releases whose ``SMTP.__init__`` GatedSMTP.fresh was read against (what a connection's
#: copy must make anew); with any other, each connection's protocol object is built in full.
COPY_CHECKED = ("1.4.",)
COPYABLE = aiosmtpd.__version__.startswith(COPY_CHECKED)
#: RFC 5321's limit on a reverse-path; the database column holds 320.
MAX_PATH = 256
_ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~-"
#: A MAIL/RCPT path in its plain form: ``<dot-atom@domain>``, then parameters (printable ASCII, not
#: starting with a comment, no trailing blank).  Anything else is parsed by aiosmtpd (GatedSMTP._getaddr).
_PLAIN_PATH = re.compile(rf"<(?P<address>[{_ATEXT}]+(?:\.[{_ATEXT}]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)>"
                         r"(?:[ \t]+(?P<rest>[!-'*-~](?:[ -~]*[!-~])?))?")


class InboundHandler:
    """aiosmtpd's handler: checks the envelope, hands DATA to the group commit.

    ``wake`` is called once stored mail is committed (it wakes the workers,
    which may be other processes).
    """

    def __init__(self, db: Database, settings: Settings, wake: Callable[[], None] | None = None) -> None:
        self.db = db
        self.settings = settings
        self.store = GroupCommit(db, settings.rate_limit, wake, settings.unknown_backlog, settings)

    @property
    def store_wait(self) -> float:
        """Seconds DATA waits for its commit: ``--store-timeout``, and at most half the idle
        timeout, since aiosmtpd drops a session whose handler outlives it (no answer at all)."""
        return max(0.1, min(self.settings.store_timeout, self.settings.idle_timeout / 2))

    def close(self) -> None:
        self.store.close()

    async def handle_MAIL(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          mail_options: list[str]) -> str:
        if len(address) > MAX_PATH:
            # Refused for good: a 451 after a failed INSERT had the sender retry for days.
            return f"553 5.1.7 Sender address longer than {MAX_PATH} octets (RFC 5321 4.5.3.1.3)"
        if (problem := path_problem(address)) is not None:
            # Refused for good: PostgreSQL refuses NUL in text, and a 451 had the sender retry forever.
            return f"553 5.1.7 Sender address refused: {problem}"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if not self.settings.is_ours(address):
            return f"550 5.7.1 <{address}>: no such mailbox here (this server does not relay)"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        mail_from = envelope.mail_from or ""
        if mail_from == "<>":
            mail_from = ""
        if (problem := header_problem(raw)) is not None:
            # Refused, not stored: parsing such headers cost minutes of worker time.
            log.warning("refused a message from %r: %s", mail_from, problem)
            return self._per_recipient(server, envelope, f"552 5.6.0 Message refused: {problem}")
        try:
            # Resolved by the store thread once this message's commit is on disk;
            # waited for only so long, so the sender hears 451, never silence.
            await asyncio.wait_for(asyncio.wrap_future(self.store.submit(raw, mail_from, list(envelope.rcpt_tos))),
                                   self.store_wait)
        except TimeoutError:
            log.warning("the database did not commit within %.0f s; %r asked to retry (451)", self.store_wait,
                        mail_from)
            return self._per_recipient(server, envelope, "451 4.3.0 The database is busy; try again later")
        except TooLarge:
            log.warning("refused %d bytes from %r, who has no account (--max-stranger-size %d)", len(raw), mail_from,
                        self.settings.max_stranger_size)
            return self._per_recipient(server, envelope, "552 5.3.4 Message too big for a sender without an "
                                       f"account (at most {self.settings.max_stranger_size} bytes); "
                                       "a command needs a few lines")
        except StrangersFull:
            log.warning("senders without an account stored --stranger-bytes-per-hour (%d) this hour; %r asked "
                        "to retry", self.settings.stranger_bytes_per_hour, mail_from)
            return self._per_recipient(server, envelope, "452 4.3.1 Too much mail from senders without an "
                                       "account this hour; try later")
        except Backlogged:
            log.warning("backlog: too much mail from unknown senders waiting; %r asked to retry", mail_from)
            return self._per_recipient(server, envelope, "450 4.7.1 Too much mail waiting here; try later")
        except RateLimited:
            log.warning("rate limit: %s sent more than %d messages this hour", mail_from, self.settings.rate_limit)
            return self._per_recipient(server, envelope, "450 4.7.1 Too many messages from you this hour; try later")
        except Exception:
            log.exception("could not store a message from %r", mail_from)
            return self._per_recipient(server, envelope, "451 4.3.0 Temporary failure storing the message; try again")
        return self._per_recipient(server, envelope, "250 2.0.0 Message accepted")

    async def handle_exception(self, error: Exception) -> str:
        log.exception("listener error", exc_info=error)
        return "451 4.3.0 Temporary server error; try again later"

    @staticmethod
    def _per_recipient(server: SMTP, envelope: Envelope, status: str) -> str:
        """LMTP answers DATA once per recipient; SMTP once."""
        if isinstance(server, LMTP) and len(envelope.rcpt_tos) > 1:
            return "\r\n".join([status] * len(envelope.rcpt_tos))
        return status


class GatedSMTP(SMTP):
    """aiosmtpd's SMTP behind the connection caps and the session bounds: beyond them, 421 and close.

    Three costs of aiosmtpd's that a session paid for nothing (issue 25)
    are avoided here: its per-connection setup (see :meth:`fresh`), its
    parse of a plain address (see :meth:`_getaddr`) and a write per line of
    a multi-line reply (see :meth:`push`).
    """

    gate: ConnectionGate
    settings: Settings
    #: Lines of a multi-line reply not yet written (see push).
    _pending: tuple[str, ...] = ()

    def fresh(self) -> GatedSMTP:
        """A protocol object for a new connection, as ``type(self)(handler, **kwargs)`` would build it.

        aiosmtpd's ``SMTP.__init__`` scans the handler and the protocol class
        (``inspect.getmembers``, ``dir``) for hooks, commands and AUTH
        mechanisms on every connection: 150 us of CPU for the same answer
        each time, about a tenth of the event loop's time per mail.  Built
        once (the instance ``Listener.factory`` keeps, never connected
        itself), it is copied here; what belongs to one connection is made
        new: the stream reader and the protocol's own state
        (``StreamReaderProtocol.__init__``, as ``SMTP.__init__`` calls it),
        and the commands and built-in AUTH mechanisms, bound to the copy.
        Everything else ``__init__`` sets is configuration, or state a
        connection replaces before use (session, envelope, transport).
        """
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        asyncio.StreamReaderProtocol.__init__(
            clone, asyncio.StreamReader(loop=self.loop, limit=self.line_length_limit),
            client_connected_cb=clone._cb_client_connected, loop=self.loop)
        clone._smtp_methods = {name: getattr(clone, method.__name__) for name, method in self._smtp_methods.items()}
        clone._auth_methods = {name: mech._replace(method=getattr(clone, mech.method.__name__)) if mech.is_builtin
                               else mech for name, mech in self._auth_methods.items()}
        return clone

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        """(address, parameters) of a MAIL or RCPT argument, as aiosmtpd's ``_getaddr`` gives them.

        aiosmtpd parses each path with the email package's header parser and
        defines a ``typing.Protocol`` class on every call: 70-90 us, twice a
        mail.  The plain form (``_PLAIN_PATH``: what MTAs and mail clients
        send) gives the same answer by one regular expression; every other
        form (quoted local parts, comments, address literals, UTF-8, source
        routes, syntax errors) is still aiosmtpd's to parse.  A test
        compares the two on generated paths.
        """
        match = _PLAIN_PATH.fullmatch(arg)
        if match is None or self.local_part_limit:
            return super()._getaddr(arg)
        return match["address"], match["rest"] or ""

    async def push(self, status: str | bytes) -> None:
        """Send a reply line; the lines of a multi-line reply go out together, in one write.

        aiosmtpd writes (and drains) each line: EHLO's five lines were five
        ``send`` calls of the eleven a mail took, each a kernel round trip
        through the loopback.  A line whose code is followed by ``-``
        continues its reply (RFC 5321 4.2.1), so it waits for the reply's
        last line, which carries all of them.
        """
        if isinstance(status, str) and status[3:4] == "-" and "\n" not in status:
            self._pending = (*self._pending, status)
            return
        if self._pending:
            lines, self._pending = self._pending, ()
            text = status if isinstance(status, str) else status.decode("utf-8", "surrogateescape")
            status = "\r\n".join((*lines, text))
        await super().push(status)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self._gate_peer = str(peer[0]) if peer else "?"
        self._admitted = self.gate.admit(self._gate_peer)
        if not self._admitted:
            transport.write(b"421 4.7.0 Too many connections; try again later\r\n")  # type: ignore[attr-defined]
            transport.close()
            return
        self._bounds = SessionBounds(self.settings.max_session_seconds, self.settings.max_idle_commands)
        super().connection_made(transport)

    def connection_lost(self, error: Exception | None) -> None:
        if not self._admitted:
            return
        self.gate.release(self._gate_peer)
        super().connection_lost(error)

    def eof_received(self) -> bool | None:
        return super().eof_received() if self._admitted else False

    def data_received(self, data: bytes) -> None:
        if not self._admitted:
            return
        envelope = getattr(self, "envelope", None)
        reason = self._bounds.over(data, envelope is not None and envelope.mail_from is not None)
        if reason is not None and self.transport is not None:
            log.info("closing a session from %s: %s", self._gate_peer, reason)
            self.transport.write(f"421 4.7.0 Closing: {reason}; connect again\r\n".encode())  # type: ignore[attr-defined]
            self.transport.close()
            return
        super().data_received(data)


class GatedLMTP(GatedSMTP, LMTP):
    pass


class Listener(Controller):
    """aiosmtpd's threaded controller, speaking SMTP or LMTP, behind the connection caps."""

    def __init__(self, handler: InboundHandler, settings: Settings, **kwargs: Any) -> None:
        host, port = settings.listen_hostport
        self.lmtp = settings.lmtp
        super().__init__(
            handler,
            hostname=host,
            port=port,
            data_size_limit=settings.max_size,
            enable_SMTPUTF8=True,
            ident="pbmserv",
            # aiosmtpd otherwise calls socket.getfqdn() for every connection,
            # inside the event loop: 15 ms of blocked listener per message here.
            server_hostname=socket.getfqdn(),
            timeout=settings.idle_timeout,
            **kwargs,
        )
        self.settings = settings
        self.gate = ConnectionGate(settings.max_connections, settings.max_connections_per_peer,
                                   settings.max_connections_per_network)
        # asyncio logs every failed accept() (EMFILE): megabytes a second.
        self.loop.set_exception_handler(QuietErrors())
        #: The protocol object each connection's is copied from (built on the first connection).
        self._template: GatedSMTP | None = None

    def factory(self) -> SMTP:
        """The protocol object of a new connection: a fresh copy of one built at the first (see
        GatedSMTP.fresh), with the aiosmtpd releases that copy was checked against; else built anew."""
        if self._template is not None:
            return self._template.fresh()
        cls = GatedLMTP if self.lmtp else GatedSMTP
        smtp = cls(self.handler, **self.SMTP_kwargs)
        smtp.gate = self.gate
        smtp.settings = self.settings
        if COPYABLE:
            self._template = smtp
            return smtp.fresh()
        return smtp
