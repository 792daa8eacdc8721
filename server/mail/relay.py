"""The connection replies leave by: a smarthost, or a provider's submission server.

``--relay host:port`` keeps its first meaning (plain SMTP to a local MTA,
no login).  ``smtp://USER@HOST:587`` is submission: STARTTLS is required
(a server that does not offer it is refused, so a password never crosses
the network in the clear) and then AUTH; ``smtps://USER@HOST:465`` is TLS
from the first byte.  smtplib does all of it; what is ours is the policy
(no STARTTLS, no login) and one clear line for each way it can go wrong.
"""

from __future__ import annotations

import smtplib
import ssl

from server.mail.credentials import (
    Endpoint,
    MailConfigError,
    describe_tls_error,
    password,
    tls_context,
)


class RelayRefused(MailConfigError):
    """The submission server refused us for a reason only the admin can fix (login, TLS)."""


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
            smtp = smtplib.SMTP_SSL(endpoint.host, endpoint.port, local_hostname=helo, timeout=timeout,
                                    context=tls_context())
        else:
            smtp = smtplib.SMTP(endpoint.host, endpoint.port, local_hostname=helo, timeout=timeout)
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
