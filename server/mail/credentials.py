"""Where a mailbox or a submission server is, and how to log in to it.

Both sides of a provider's mailbox are named by a URL without a password
(``imaps://USER@HOST[:PORT]/FOLDER``, ``smtp://USER@HOST:587``): the
password comes from an environment variable or a file it names, never from
the command line, because anyone on the host can read another process's
arguments in ``ps``.  A URL that carries a password is refused outright
rather than used, so the mistake is caught the first time.

TLS certificates are always verified, against the system store
(``ssl.create_default_context``; OpenSSL reads ``SSL_CERT_FILE`` when it is
set, which is how a private CA or a test certificate is trusted).
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from server.core.config import parse_hostport

#: Scheme -> (default port, TLS from the first byte, STARTTLS required).
SCHEMES = {
    "imaps": (993, True, False),
    "imap": (143, False, True),
    "smtps": (465, True, False),
    "smtp": (587, False, True),
}


class MailConfigError(Exception):
    """A setting that cannot work as given: the admin must change it (exit 78)."""


@dataclass(frozen=True)
class Endpoint:
    """One server of the mailbox: scheme, account, host, port and (IMAP) folder."""

    scheme: str
    host: str
    port: int
    user: str = ""
    folder: str = ""

    @property
    def implicit_tls(self) -> bool:
        return SCHEMES[self.scheme][1] if self.scheme in SCHEMES else False

    @property
    def starttls(self) -> bool:
        return SCHEMES[self.scheme][2] if self.scheme in SCHEMES else False

    def __str__(self) -> str:
        """The URL for messages and ``status``: it never holds a secret, so it can be shown."""
        if self.scheme == "plain":
            return f"{self.host}:{self.port}"
        user = f"{self.user}@" if self.user else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        folder = f"/{self.folder}" if self.folder else ""
        return f"{self.scheme}://{user}{host}:{self.port}{folder}"


def parse_url(text: str, schemes: tuple[str, ...], what: str) -> Endpoint:
    """``scheme://USER@HOST[:PORT][/FOLDER]`` for one of ``schemes``; MailConfigError otherwise.

    The user may be written with ``%40`` for an ``@`` in it
    (``imaps://me%40example.org@imap.example.org``); a plain ``@`` in the
    user part works too, since only the last one separates the host.
    """
    text = text.strip()
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in schemes:
        raise MailConfigError(f"{what}: {_safe(text)!r} is not a {' or '.join(s + '://' for s in schemes)} URL")
    scheme = scheme.lower()
    netloc, _, path = rest.partition("/")
    userinfo, at, hostport = netloc.rpartition("@")
    if ":" in userinfo:
        raise MailConfigError(
            f"{what}: do not put the password in the URL (it would show in ps); "
            f"give it in {_password_variable(scheme)} or {_password_variable(scheme)}_FILE")
    try:
        parts = urlsplit(f"//{hostport}")
        host, port = parts.hostname or "", parts.port or SCHEMES[scheme][0]
    except ValueError:
        raise MailConfigError(f"{what}: {_safe(text)!r} has no valid host:port") from None
    if not host:
        raise MailConfigError(f"{what}: {_safe(text)!r} names no host")
    return Endpoint(scheme, host, port, unquote(userinfo) if at else "", unquote(path).strip("/"))


def parse_relay(text: str) -> Endpoint:
    """``--relay``: ``host[:port]`` (today's meaning: plain SMTP, no login), ``smtp://`` or ``smtps://``."""
    if "://" not in text:
        try:
            host, port = parse_hostport(text, 25)
        except ValueError:
            raise MailConfigError(f"--relay: {_safe(text)!r}: give host:port or smtp://USER@HOST:PORT") from None
        return Endpoint("plain", host, port)
    return parse_url(text, ("smtp", "smtps"), "--relay")


def parse_imap(text: str) -> Endpoint:
    """``--imap``: ``imaps://USER@HOST[:PORT]/FOLDER`` or ``imap://`` (STARTTLS); the folder defaults to INBOX."""
    endpoint = parse_url(text, ("imaps", "imap"), "--imap")
    if not endpoint.user:
        raise MailConfigError(f"--imap: {_safe(text)!r} names no user (imaps://USER@HOST/FOLDER)")
    return Endpoint(endpoint.scheme, endpoint.host, endpoint.port, endpoint.user, endpoint.folder or "INBOX")


def _password_variable(scheme: str) -> str:
    return "PBMSERV_IMAP_PASSWORD" if scheme.startswith("imap") else "PBMSERV_RELAY_PASSWORD"


def _safe(text: str) -> str:
    """A URL as the admin typed it, with anything between ``://`` and ``@`` that has a colon cut out."""
    scheme, sep, rest = text.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if sep and at and ":" in userinfo:
        return f"{scheme}://{userinfo.split(':')[0]}:***@{host}"
    return text


def password(endpoint: Endpoint, env: dict[str, str] | None = None) -> str | None:
    """The account's password: ``PBMSERV_IMAP_PASSWORD`` / ``PBMSERV_RELAY_PASSWORD``, or the
    file their ``_FILE`` variant names (one line; a trailing newline is dropped).

    None when the endpoint has no user (a plain relay) or neither is set.
    Read at each login, so a rotated password file takes effect without a restart.
    """
    if not endpoint.user:
        return None
    env = os.environ if env is None else env
    name = _password_variable(endpoint.scheme)
    if env.get(name):
        return env[name]
    if env.get(f"{name}_FILE"):
        path = Path(env[f"{name}_FILE"])
        try:
            return path.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as exc:
            raise MailConfigError(f"{name}_FILE: cannot read {path}: {exc.strerror or exc}") from None
    raise MailConfigError(f"{endpoint}: no password; set {name} or {name}_FILE")


def tls_context() -> ssl.SSLContext:
    """Certificates checked against the system store (or ``SSL_CERT_FILE``), host name included."""
    return ssl.create_default_context()


def describe_tls_error(endpoint: Endpoint, exc: BaseException) -> str | None:
    """One line for a certificate that does not check out, or None if ``exc`` is another failure."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"{endpoint}: the server's certificate does not check out ({exc.verify_message}); "
                f"if it is signed by a private CA, point SSL_CERT_FILE at that CA's certificate")
    return None
