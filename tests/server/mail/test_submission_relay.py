"""Replies through a provider's submission server: STARTTLS or TLS, AUTH, --from (issue 31).

The server gets mail over its SMTP listener here (the mailbox side has its
own tests); what is checked is the way out, against aiosmtpd acting as the
provider: TLS first, then login, and a refusal that names its reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from server.mail.credentials import parse_relay
from server.mail.relay import RelayRefused, connect
from server.store.model import Outbox
from tests.mailtools import make_mail, send
from tests.server.conftest import ADDRESS, Running, start_server
from tests.server.mail.conftest import PASSWORD
from tests.server.mail.dovecot import make_certificate
from tests.server.mail.submission import Submission

ALICE = "alice@example.org"
# aiosmtpd warns of AUTH without STARTTLS on the implicit-TLS port, where every byte is TLS already.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@pytest.fixture
def certificate(tmp_path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    cert, key = make_certificate(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.setenv("PBMSERV_RELAY_PASSWORD", PASSWORD)
    return cert, key


@pytest.fixture
def provider(certificate) -> Iterator:  # type: ignore[no-untyped-def]
    started: list[Submission] = []

    def make(**kwargs: object) -> Submission:
        server = Submission(*certificate, "club", PASSWORD, **kwargs)  # type: ignore[arg-type]
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def serve(sqlite_url: str) -> Iterator:
    servers = []

    def start(sink: Submission, **overrides: object) -> Running:
        server = start_server(sqlite_url, sink, relay=sink.url(), **overrides)
        servers.append(server)
        return Running(server, sink)

    yield start
    for server in servers:
        server.stop()


def test_smtps_on_port_465_style(provider, serve) -> None:  # type: ignore[no-untyped-def]
    sink = provider(implicit_tls=True)
    run = serve(sink)
    out = run.mail(ALICE, "help")
    assert [m.rcpt_tos for m in out] == [[ALICE]]
    assert sink.sessions == [("club", True)]


def test_from_is_the_envelope_and_the_header_when_the_provider_insists(provider, serve) -> None:  # type: ignore[no-untyped-def]
    sink = provider()
    run = serve(sink, mail_from="club.account@provider.example")
    [reply] = run.mail(ALICE, "help")
    assert reply.mail_from == "club.account@provider.example"
    assert reply.message["From"].addresses[0].addr_spec == "club.account@provider.example"
    assert sink.sessions == [("club", True)]
    # Mail to the From address is ours too (a player who answers it reaches the server).
    assert run.server.settings.is_ours("club.account@provider.example") and run.server.settings.is_ours(ADDRESS)


def test_a_server_without_starttls_never_gets_the_password(provider, serve) -> None:  # type: ignore[no-untyped-def]
    sink = provider(offer_starttls=False)  # it would even take AUTH in the clear
    with pytest.raises(RelayRefused, match="does not offer STARTTLS; refusing to send the password"):
        connect(parse_relay(sink.url()))
    run = serve(sink)
    run.server.settings.retry_base = 60  # one try is enough to look at
    send(run.port, make_mail(ALICE, ADDRESS, "help"), sender=ALICE, to=ADDRESS)
    row = first_failure(run)
    assert "does not offer STARTTLS" in row.last_error
    assert row.status == "pending" and row.tries == 1  # retried later with the usual backoff
    assert sink.messages == [] and sink.sessions == []


def test_a_wrong_password_is_retried_with_a_clear_reason(provider, serve, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    sink = provider()
    monkeypatch.setenv("PBMSERV_RELAY_PASSWORD", "wrong-horse")
    run = serve(sink, retry_base=60)
    send(run.port, make_mail(ALICE, ADDRESS, "help"), sender=ALICE, to=ADDRESS)
    row = first_failure(run)
    assert row.status == "pending" and row.tries == 1
    assert row.last_error.startswith(f"{sink.url()}: login refused (535")
    assert "wrong-horse" not in row.last_error and PASSWORD not in row.last_error
    assert sink.messages == []


def first_failure(run: Running, timeout: float = 15.0) -> Outbox:
    """The reply's outbox row once a delivery attempt has failed."""
    deadline = time.monotonic() + timeout
    while True:
        with run.db.transaction() as s:
            row = s.scalars(select(Outbox).where(Outbox.last_error.is_not(None))).first()
            if row is not None:
                s.expunge(row)
                return row
        assert time.monotonic() < deadline, "no delivery attempt failed"
        time.sleep(0.05)


def test_the_submission_certificate_is_checked(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    cert, key = make_certificate(tmp_path, "provider")
    other, _ = make_certificate(tmp_path, "other")
    monkeypatch.setenv("SSL_CERT_FILE", str(other))  # trusts another certificate, not the provider's
    monkeypatch.setenv("PBMSERV_RELAY_PASSWORD", PASSWORD)
    for implicit in (False, True):
        sink = Submission(cert, key, "club", PASSWORD, implicit_tls=implicit)
        sink.start()
        try:
            with pytest.raises(RelayRefused, match="certificate does not check out"):
                connect(parse_relay(sink.url()))
            assert sink.sessions == []
        finally:
            sink.stop()

