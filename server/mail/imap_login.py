"""Logging in to a mailbox over IMAP, and one line for whatever goes wrong.

Shared by the receiver (server/mail/imap.py), ``pbmserv check-mail`` and the
check ``serve`` makes before it starts: a wrong password, an untrusted
certificate, a missing folder or a server without STARTTLS is an
:class:`ImapRefused` (the admin must act, exit 78); anything else is the
network, retried.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
from dataclasses import dataclass

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from server.core.config import Settings
from server.mail.credentials import (
    Endpoint,
    MailConfigError,
    describe_tls_error,
    parse_imap,
    password,
    tls_context,
)

# IMAPClient's protocol log (-vv) would carry every message's text, the passwords of
# commands included, and its INFO lines say "Connection closed" at every reconnection.
logging.getLogger("imapclient").setLevel(logging.WARNING)


class ImapRefused(MailConfigError):
    """Login refused, certificate wrong, folder missing: the admin must act (exit 78)."""



@dataclass(frozen=True)
class Done:
    """What becomes of a stored message: ``flag``, ``move`` (to ``folder``) or ``delete``."""

    action: str
    folder: str = ""

    @classmethod
    def parse(cls, text: str) -> Done:
        text = (text or "flag").strip()
        if text in ("flag", "delete"):
            return cls(text)
        if text.startswith("move:") and text[5:].strip():
            return cls("move", text[5:].strip())
        raise MailConfigError(f"--imap-done: {text!r}: give flag, delete or move:FOLDER")



def connect(endpoint: Endpoint, done: Done | None = None, timeout: float = 30.0) -> IMAPClient:
    """A logged-in client with the folder selected; ImapRefused for what only the admin can fix."""
    secret = password(endpoint)
    try:
        client = IMAPClient(endpoint.host, endpoint.port, ssl=endpoint.implicit_tls,
                            ssl_context=tls_context(), timeout=timeout)
    except ssl.SSLCertVerificationError as exc:
        raise ImapRefused(describe_tls_error(endpoint, exc) or str(exc)) from None
    try:
        if endpoint.starttls:
            if not client.has_capability("STARTTLS"):
                raise ImapRefused(f"{endpoint}: the server does not offer STARTTLS; refusing to send "
                                  f"the password in the clear (imaps:// for port 993?)")
            try:
                client.starttls(tls_context())
            except ssl.SSLCertVerificationError as exc:
                raise ImapRefused(describe_tls_error(endpoint, exc) or str(exc)) from None
        try:
            client.login(endpoint.user, secret or "")
        except LoginError as exc:
            raise ImapRefused(f"{endpoint}: login refused ({_text(exc)})") from None
        try:
            client.select_folder(endpoint.folder)
        except IMAPClientError as exc:
            raise ImapRefused(f"{endpoint}: cannot open the folder {endpoint.folder!r} ({_text(exc)})") from None
        if done is not None and done.action == "move":
            target = folder_name(client, done.folder)
            try:
                if not client.folder_exists(target):
                    client.create_folder(target)
            except IMAPClientError as exc:
                raise ImapRefused(f"{endpoint}: cannot create the folder {target!r} for "
                                  f"--imap-done ({_text(exc)})") from None
    except BaseException:
        with contextlib.suppress(Exception):
            client.shutdown()
        raise
    return client


def folder_name(client: IMAPClient, folder: str) -> str:
    """``Games/Done`` with the server's own hierarchy separator (Dovecot's maildir uses ``.``)."""
    listed = client.list_folders("", "")  # LIST "" "": the separator alone (RFC 3501 6.3.8)
    separator = listed[0][1] if listed and listed[0][1] else b"/"
    sep = separator.decode() if isinstance(separator, bytes) else str(separator)
    return folder.replace("/", sep)


def check(settings: Settings) -> str:
    """Log in and out (``pbmserv check-mail``, ``serve`` at start): what works, in one line.

    Raises ImapRefused (the admin must act), or OSError / IMAPClientError (the network).
    """
    endpoint = parse_imap(settings.imap or "")
    done = Done.parse(settings.imap_done)
    client = connect(endpoint, done, timeout=20.0)
    try:
        info = client.folder_status(endpoint.folder, [b"MESSAGES", b"UNSEEN"])
        idle = "IDLE" if client.has_capability("IDLE") else f"no IDLE (polled every {settings.imap_poll:g} s)"
    finally:
        with contextlib.suppress(Exception):
            client.logout()
    tls = "TLS" if endpoint.implicit_tls else "STARTTLS"
    return (f"IMAP {endpoint}: connected ({tls}), logged in, folder {endpoint.folder} has "
            f"{info.get(b'MESSAGES', '?')} messages ({info.get(b'UNSEEN', '?')} unseen), {idle}")


def describe(endpoint: Endpoint, exc: BaseException) -> str:
    """One line for any failure of the mailbox connection; it never holds the password."""
    if isinstance(exc, MailConfigError):
        return str(exc)
    if (tls := describe_tls_error(endpoint, exc)) is not None:
        return tls
    if isinstance(exc, socket.gaierror):
        return f"{endpoint}: cannot resolve {endpoint.host} ({exc.strerror})"
    if isinstance(exc, ConnectionRefusedError):
        return f"{endpoint}: connection refused"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{endpoint}: {exc.strerror}"
    return f"{endpoint}: {type(exc).__name__}: {_text(exc)}"


def _text(exc: BaseException) -> str:
    """The server's words in an exception, without the ``b'...'`` that IMAPClient leaves around them."""
    text = str(exc)
    if len(text) > 2 and text[0] == "b" and text[1] in "'\"" and text[-1] == text[1]:
        text = text[2:-1]
    return " ".join(text.split())[:300]
