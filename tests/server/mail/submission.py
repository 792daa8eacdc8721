"""A provider's submission server for the tests: the real aiosmtpd with STARTTLS (or TLS) and AUTH.

It refuses MAIL before TLS and login, as a provider's port 587 does, and
notes with each mail whether it came over TLS and as whom.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.mailtools import Sink, SinkHandler, free_port


@dataclass
class SubmissionHandler(SinkHandler):
    #: (login, over TLS) of each mail received.
    sessions: list[tuple[str, bool]] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        answer = await super().handle_DATA(server, session, envelope)
        with self.lock:
            login = session.auth_data.decode() if isinstance(session.auth_data, bytes) else ""
            tls = session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None
            self.sessions.append((login, tls))
        return answer


class Submission(Sink):
    """``smtp://USER@127.0.0.1:PORT`` (STARTTLS required), or ``smtps://`` with ``implicit_tls``."""

    def __init__(self, cert: Path, key: Path, user: str, password: str, implicit_tls: bool = False,
                 offer_starttls: bool = True) -> None:
        self.handler = SubmissionHandler()
        self.port = free_port()
        self.user, self.implicit_tls = user, implicit_tls
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(cert), str(key))

        def authenticate(server, session, envelope, mechanism, data):  # type: ignore[no-untyped-def]
            ok = isinstance(data, LoginPassword) and data.login == user.encode() and data.password == password.encode()
            return AuthResult(success=ok, handled=False, auth_data=data.login if ok else None)

        tls = {"ssl_context": context} if implicit_tls else (
            {"tls_context": context, "require_starttls": True} if offer_starttls else {})
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port,
                                     authenticator=authenticate, auth_required=True,
                                     # aiosmtpd counts only STARTTLS as TLS for this check: on
                                     # the implicit-TLS port every byte is encrypted anyway.
                                     auth_require_tls=offer_starttls and not implicit_tls, **tls)

    def url(self, host: str = "127.0.0.1") -> str:
        return f"{'smtps' if self.implicit_tls else 'smtp'}://{self.user}@{host}:{self.port}"

    @property
    def sessions(self) -> list[tuple[str, bool]]:
        with self.handler.lock:
            return list(self.handler.sessions)
