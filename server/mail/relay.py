"""The connection replies leave by: a smarthost, or a provider's submission server.

``--relay host:port`` keeps its first meaning (plain SMTP to a local MTA,
no login).  ``smtp://USER@HOST:587`` is submission: STARTTLS is required
(a server that does not offer it is refused, so a password never crosses
the network in the clear) and then AUTH; ``smtps://USER@HOST:465`` is TLS
from the first byte.  smtplib does all of it; what is ours is the policy
(no STARTTLS, no login) and one clear line for each way it can go wrong.
:class:`KeptSession` keeps one such session open between the deliverer's
batches.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import smtplib
import ssl
import time

from server.mail.credentials import (
    Endpoint,
    MailConfigError,
    describe_tls_error,
    password,
    tls_context,
)


class RelayRefused(MailConfigError):
    """The submission server refused us for a reason only the admin can fix (login, TLS)."""


#: A plain address: ``quoteaddr`` gives it back in angle brackets, unchanged (a test compares the two).
_PLAIN = re.compile(r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")


class _Cheaper:
    """smtplib's per-mail work without two of its costs, with the same bytes on the wire (issue 25).

    ``quoteaddr`` parses every MAIL and RCPT address with the email package
    (7-8 us each); a plain address quotes to itself in brackets.  ``data``
    dot-stuffs with a multi-line regular expression: 130 us for a 26 KB
    board mail, against 30 us for ``bytes.replace`` (the same result: a
    period at the start of the message or after a line feed is doubled).
    """

    def mail(self, sender: str, options: tuple[str, ...] | list[str] = ()) -> tuple[int, bytes]:
        if _PLAIN.fullmatch(sender) is None and sender != "":
            return super().mail(sender, options)  # type: ignore[misc]
        optionlist = ""
        if options and self.does_esmtp:  # type: ignore[attr-defined]
            if any(x.lower() == "smtputf8" for x in options):
                return super().mail(sender, options)  # type: ignore[misc]
            optionlist = " " + " ".join(options)
        self.putcmd("mail", f"FROM:<{sender}>{optionlist}")  # type: ignore[attr-defined]
        return self.getreply()  # type: ignore[attr-defined,no-any-return]

    def rcpt(self, recip: str, options: tuple[str, ...] | list[str] = ()) -> tuple[int, bytes]:
        if _PLAIN.fullmatch(recip) is None:
            return super().rcpt(recip, options)  # type: ignore[misc]
        optionlist = " " + " ".join(options) if options and self.does_esmtp else ""  # type: ignore[attr-defined]
        self.putcmd("rcpt", f"TO:<{recip}>{optionlist}")  # type: ignore[attr-defined]
        return self.getreply()  # type: ignore[attr-defined,no-any-return]

    def data(self, msg: bytes | str) -> tuple[int, bytes]:
        if not isinstance(msg, bytes):
            return super().data(msg)  # type: ignore[misc]
        # smtplib's own data(), its _quote_periods done by bytes.replace.
        self.putcmd("data")  # type: ignore[attr-defined]
        code, reply = self.getreply()  # type: ignore[attr-defined]
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        stuffed = (b"." + msg if msg[:1] == b"." else msg).replace(b"\n.", b"\n..")
        if stuffed[-2:] != b"\r\n":
            stuffed += b"\r\n"
        self.send(stuffed + b".\r\n")  # type: ignore[attr-defined]
        return self.getreply()  # type: ignore[attr-defined,no-any-return]


class SMTP(_Cheaper, smtplib.SMTP):
    """smtplib.SMTP, cheaper per mail (see _Cheaper)."""


class SMTP_SSL(_Cheaper, smtplib.SMTP_SSL):  # noqa: N801 (smtplib's name)
    """smtplib.SMTP_SSL, cheaper per mail (see _Cheaper)."""


def connect(endpoint: Endpoint, helo: str | None = None, timeout: float = 30.0,
            env: dict[str, str] | None = None) -> smtplib.SMTP:
    """An SMTP session ready for MAIL FROM: TLS and login done as the endpoint asks.

    Raises RelayRefused (wrong password, bad certificate, no STARTTLS: retrying
    will not help), OSError or SMTPException (the network: retrying may).
    """
    secret = password(endpoint, env)
    smtp: smtplib.SMTP
    try:
        if endpoint.implicit_tls:
            smtp = SMTP_SSL(endpoint.host, endpoint.port, local_hostname=helo, timeout=timeout,
                                    context=tls_context())
        else:
            smtp = SMTP(endpoint.host, endpoint.port, local_hostname=helo, timeout=timeout)
    except ssl.SSLCertVerificationError as exc:
        raise RelayRefused(describe_tls_error(endpoint, exc) or str(exc)) from None
    try:
        if endpoint.starttls:
            smtp.ehlo()
            if not smtp.has_extn("starttls"):
                raise RelayRefused(f"{endpoint}: the server does not offer STARTTLS; "
                                   f"refusing to send the password in the clear (smtps:// for port 465?)")
            try:
                smtp.starttls(context=tls_context())
            except ssl.SSLCertVerificationError as exc:
                raise RelayRefused(describe_tls_error(endpoint, exc) or str(exc)) from None
            smtp.ehlo()
        if endpoint.user:
            try:
                smtp.login(endpoint.user, secret or "")
            except smtplib.SMTPAuthenticationError as exc:
                raise RelayRefused(f"{endpoint}: login refused ({exc.smtp_code} {_text(exc.smtp_error)})") from None
            except smtplib.SMTPNotSupportedError:
                raise RelayRefused(f"{endpoint}: the server offers no AUTH after "
                                   f"{'TLS' if endpoint.scheme != 'plain' else 'EHLO'}") from None
            except smtplib.SMTPException as exc:
                if "No suitable authentication method" in str(exc):
                    raise RelayRefused(f"{endpoint}: no AUTH method we know (PLAIN, LOGIN)") from None
                raise
    except BaseException:
        smtp.close()
        raise
    return smtp


#: Seconds a relay session stays open with nothing to send.  Short: a relay
#: (Postfix: 300 s; providers' submission servers often less) would drop it
#: anyway, and an idle session holds one of the relay's connection slots.
KEEP_OPEN = 5.0
#: Mails a kept session carries before it is closed and a new one made: some
#: relays cap the mails of one session (and refuse the next with a 4xx).
MAILS_PER_SESSION = 100


class KeptSession:
    """One relay session kept open from batch to batch, and closed after a few idle seconds.

    A session per batch cost as much as the batch (issue 25: connect, EHLO
    and QUIT 0.2-0.3 ms of the deliverer's CPU for a move's two mails, and on
    a provider's port 587 a TLS handshake and a login more).  Before a kept
    session is used again, a look at its socket (no round trip) tells
    whether the relay closed it or spoke unasked (a 421 before it hangs up);
    if so, if it is ours from before a fork, or if it has carried
    ``MAILS_PER_SESSION`` mails, a new one is made.  A relay
    that hangs up in the instant between that look and MAIL FROM is the
    deliverer's to notice (``session`` says whether the session was kept:
    its first mail may go again on a new one).
    """

    def __init__(self, endpoint: Endpoint, helo: str | None = None, keep: float | None = None,
                 timeout: float = 30.0) -> None:
        self.endpoint = endpoint
        self.helo = helo
        self.keep = KEEP_OPEN if keep is None else keep
        self.timeout = timeout
        self.smtp: smtplib.SMTP | None = None
        #: The process that opened it: a forked child must not speak on its parent's socket.
        self.pid = 0
        #: time.monotonic() when it last carried a mail.
        self.used = 0.0
        #: Mails it has carried.
        self.mails = 0

    def session(self) -> tuple[smtplib.SMTP, bool]:
        """A session ready for MAIL FROM, and whether it had been kept (raises as :func:`connect`)."""
        if self.smtp is not None:
            if self.pid != os.getpid():
                self.smtp = None  # the parent's: left alone, neither used nor closed
            elif self.idle() or self.mails >= MAILS_PER_SESSION:
                self.close()
            elif not _quiet(self.smtp):
                self.drop()
            else:
                return self.smtp, True
        self.smtp = connect(self.endpoint, self.helo, self.timeout)
        self.pid = os.getpid()
        self.used = time.monotonic()
        self.mails = 0
        return self.smtp, False

    def carried(self, mails: int) -> None:
        """The session just took ``mails`` mails: its idle time starts again."""
        self.used = time.monotonic()
        self.mails += mails

    def idle(self) -> bool:
        return time.monotonic() - self.used >= self.keep

    def close_if_idle(self) -> None:
        if self.smtp is not None and self.idle():
            self.close()

    def close(self) -> None:
        """QUIT, politely (errors do not matter any more)."""
        smtp, self.smtp = self.smtp, None
        if smtp is not None and self.pid == os.getpid():
            with contextlib.suppress(OSError, smtplib.SMTPException):
                smtp.quit()
            smtp.close()

    def drop(self) -> None:
        """Close without a word: after an error the session is in no state to QUIT."""
        smtp, self.smtp = self.smtp, None
        if smtp is not None and self.pid == os.getpid():
            smtp.close()


def _quiet(smtp: smtplib.SMTP) -> bool:
    """Nothing waits to be read: the relay neither closed the session nor spoke out of turn."""
    sock = smtp.sock
    if sock is None:
        return False  # smtplib closed it (a 421 answer)
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return False
    poller = select.poll()  # not select.select: no limit on the descriptor's number
    poller.register(sock, select.POLLIN)
    return not poller.poll(0)  # readable, hung up or in error: not fit to reuse


def check(endpoint: Endpoint, helo: str | None = None, env: dict[str, str] | None = None) -> str:
    """Log in and out (``pbmserv check-mail``): what worked, in one line; raises as :func:`connect`."""
    with connect(endpoint, helo, timeout=20.0, env=env) as smtp:
        tls = "TLS" if endpoint.implicit_tls else "STARTTLS" if endpoint.starttls else "no TLS"
        login = f"logged in as {endpoint.user}" if endpoint.user else "no login"
        smtp.noop()
    return f"relay {endpoint}: connected ({tls}), {login}"


def _text(value: bytes | str) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return " ".join(text.split())[:200]
