"""How the mailbox settings are read: URLs, passwords, and the envelope a mailbox message had."""

from __future__ import annotations

import pytest

from server.core.config import Settings
from server.mail.credentials import Endpoint, MailConfigError, parse_imap, parse_relay, password
from server.mail.imap import Done, envelope_of


@pytest.mark.parametrize(("text", "expected"), [
    ("imaps://club@imap.example.org/INBOX", Endpoint("imaps", "imap.example.org", 993, "club", "INBOX")),
    ("imaps://club@imap.example.org", Endpoint("imaps", "imap.example.org", 993, "club", "INBOX")),
    ("imap://club@imap.example.org:1143/Games/Moves", Endpoint("imap", "imap.example.org", 1143, "club", "Games/Moves")),
    # An address as the user name: %40, or a plain @ (the last one separates the host).
    ("imaps://me%40example.org@imap.example.org/INBOX", Endpoint("imaps", "imap.example.org", 993, "me@example.org", "INBOX")),
    ("IMAPS://me@example.org@[::1]:10993/INBOX", Endpoint("imaps", "::1", 10993, "me@example.org", "INBOX")),
])
def test_imap_urls(text: str, expected: Endpoint) -> None:
    assert parse_imap(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("127.0.0.1:2525", Endpoint("plain", "127.0.0.1", 2525)),
    ("mail.example.org", Endpoint("plain", "mail.example.org", 25)),
    ("smtp://club@smtp.example.org", Endpoint("smtp", "smtp.example.org", 587, "club")),
    ("smtp://club@smtp.example.org:2587", Endpoint("smtp", "smtp.example.org", 2587, "club")),
    ("smtps://me%40example.org@smtp.example.org", Endpoint("smtps", "smtp.example.org", 465, "me@example.org")),
])
def test_relay_urls(text: str, expected: Endpoint) -> None:
    assert parse_relay(text) == expected


def test_a_relay_url_without_user_logs_in_as_nobody() -> None:
    endpoint = parse_relay("smtp://smtp.example.org")
    assert endpoint.user == "" and endpoint.starttls
    assert password(endpoint, {"PBMSERV_RELAY_PASSWORD": "x"}) is None


@pytest.mark.parametrize(("text", "said"), [
    ("imaps://club:hunter22@imap.example.org/INBOX", "do not put the password in the URL"),
    ("pop3://club@example.org", "is not a imaps:// or imap:// URL"),
    ("imaps://imap.example.org/INBOX", "names no user"),
    ("imaps://club@/INBOX", "names no host"),
    ("imaps://club@host:notaport/INBOX", "no valid host:port"),
])
def test_bad_imap_urls_are_explained(text: str, said: str) -> None:
    with pytest.raises(MailConfigError) as caught:
        parse_imap(text)
    assert said in str(caught.value)
    assert "hunter22" not in str(caught.value)


def test_a_relay_password_in_the_url_is_refused_and_not_repeated() -> None:
    with pytest.raises(MailConfigError) as caught:
        parse_relay("smtp://club:hunter22@smtp.example.org:587")
    assert "PBMSERV_RELAY_PASSWORD" in str(caught.value) and "hunter22" not in str(caught.value)


def test_passwords_come_from_the_variable_or_its_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    imap = parse_imap("imaps://club@imap.example.org")
    assert password(imap, {"PBMSERV_IMAP_PASSWORD": "s3 cret"}) == "s3 cret"
    secret = tmp_path / "pw"
    secret.write_text("from a file\n")
    assert password(imap, {"PBMSERV_IMAP_PASSWORD_FILE": str(secret)}) == "from a file"
    # The relay's variable is not the mailbox's: each side names its own.
    with pytest.raises(MailConfigError, match="set PBMSERV_IMAP_PASSWORD or PBMSERV_IMAP_PASSWORD_FILE"):
        password(imap, {"PBMSERV_RELAY_PASSWORD": "other"})
    with pytest.raises(MailConfigError, match="cannot read"):
        password(imap, {"PBMSERV_IMAP_PASSWORD_FILE": str(tmp_path / "missing")})


def test_shown_urls_carry_no_secret_and_round_trip() -> None:
    for text in ("imaps://club@imap.example.org:993/INBOX", "smtp://club@smtp.example.org:587",
                 "imap://me@example.org@[::1]:143/Games"):
        endpoint = parse_imap(text) if text.startswith("imap") else parse_relay(text)
        assert str(endpoint) == text


@pytest.mark.parametrize(("text", "expected"), [
    ("flag", Done("flag")), ("delete", Done("delete")), ("move:Games/Done", Done("move", "Games/Done")),
])
def test_what_becomes_of_stored_mail(text: str, expected: Done) -> None:
    assert Done.parse(text) == expected


@pytest.mark.parametrize("text", ["move:", "archive", "move"])
def test_unknown_dispositions_are_refused(text: str) -> None:
    with pytest.raises(MailConfigError, match="give flag, delete or move:FOLDER"):
        Done.parse(text)


SETTINGS = Settings(addresses=["club@games.test"])


def test_the_envelope_is_read_back_from_what_the_mx_wrote() -> None:
    raw = (b"Return-Path: <bounce-alice@lists.example.org>\r\nDelivered-To: club+abcdefghijklmnopqrstu@games.test\r\n"
           b"From: Alice <alice@example.org>\r\nTo: someone@else.org, Club <club@games.test>\r\nSubject: move b2\r\n\r\nb2\r\n")
    assert envelope_of(raw, SETTINGS) == ("bounce-alice@lists.example.org",
                                          ["club+abcdefghijklmnopqrstu@games.test", "club@games.test"])


def test_a_bounce_keeps_its_null_sender_and_a_bare_mail_falls_back_to_from() -> None:
    bounce = b"Return-Path: <>\r\nFrom: MAILER-DAEMON@example.org\r\nSubject: Undelivered\r\n\r\n.\r\n"
    assert envelope_of(bounce, SETTINGS) == ("", ["club@games.test"])
    bare = b"From: Bob <BOB@example.org>\r\nTo: undisclosed-recipients:;\r\nSubject: help\r\n\r\n"
    assert envelope_of(bare, SETTINGS) == ("BOB@example.org", ["club@games.test"])


def test_a_sender_with_control_characters_is_dropped() -> None:
    raw = b"Return-Path: <al\x00ice@example.org>\r\nFrom: x@example.org\r\n\r\n"
    assert envelope_of(raw, SETTINGS)[0] == ""
