"""server.mail.tokens: the one token mechanism (reply addresses, address confirmations).

Against a real database (the secret lives there); the expectations come from
the properties the issue asks for (80-bit tag, case-insensitive, revocation
by binding and by rotation, no existence oracle), not from the code's output.
"""

from __future__ import annotations

import base64
import logging
import string
from collections.abc import Iterator

import pytest

from server.core.config import Settings, split_tag
from server.mail import tokens
from server.mail.tokens import Failure, TokenError
from server.store.database import Database
from tests.conftest import migrated


@pytest.fixture
def db(sqlite_url: str) -> Iterator[Database]:
    yield from migrated(sqlite_url)


def issue(db: Database, purpose: str, fields: tuple[int, ...], binding: str) -> str:
    return db.run(lambda s: tokens.issue(s, purpose, fields, binding))


def verify(db: Database, token: str, purpose: str, bindings: dict[tuple[int, ...], str]) -> tuple[int, ...]:
    return db.run(lambda s: tokens.verify(s, token, purpose, bindings.get))


def reason(db: Database, token: str, purpose: str, bindings: dict[tuple[int, ...], str]) -> Failure:
    with pytest.raises(TokenError) as info:
        verify(db, token, purpose, bindings)
    return info.value.reason


def test_round_trip_any_case_and_shape(db: Database) -> None:
    token = issue(db, "reply", (7, 123456, 3), "hash-a")
    assert set(token) <= set(string.ascii_lowercase + "234567")  # mail-, URL-safe, one case
    raw = base64.b32decode(token.upper() + "=" * (-len(token) % 8))
    assert len(raw) - 1 - 5 >= 10 + 1  # fields plus a tag of at least 80 bits
    assert verify(db, token, "reply", {(7, 123456, 3): "hash-a"}) == (7, 123456, 3)
    assert verify(db, token.upper(), "reply", {(7, 123456, 3): "hash-a"}) == (7, 123456, 3)
    # Same inputs, same token (stateless); other inputs, another one.
    assert issue(db, "reply", (7, 123456, 3), "hash-a") == token
    assert issue(db, "reply", (7, 123456, 4), "hash-a") != token


def test_every_altered_character_is_refused(db: Database) -> None:
    """Altered purpose, fields or tag: not ours.  An altered seal (the last 40
    bits) cannot be told from a genuine token whose binding changed: revoked."""
    token = issue(db, "reply", (1, 2, 0), "h")
    bindings = {(1, 2, 0): "h"}
    seal_starts = (len(token) * 5 // 8 - 5) * 8 // 5  # the base32 character holding its first bit
    for i, ch in enumerate(token):
        for other in ("a", "7", "q"):
            if other != ch:
                altered = token[:i] + other + token[i + 1:]
                expected = {Failure.TAMPERED} if i < seal_starts else {Failure.TAMPERED, Failure.REVOKED}
                assert reason(db, altered, "reply", bindings) in expected, (i, altered)
    for bad in ("", "x", token[:-1], token + "a", token[1:], "0" * len(token), "é" * 30, "a" * 5000):
        assert reason(db, bad, "reply", bindings) is Failure.TAMPERED


def test_unknown_fields_look_like_tampering_and_are_not_looked_up(db: Database) -> None:
    """A made-up token never reaches the lookup: no answer depends on what exists."""
    looked_up: list[tuple[int, ...]] = []

    def lookup(fields: tuple[int, ...]) -> str | None:
        looked_up.append(fields)
        return "h"

    forged = base64.b32encode(bytes([1, 5, 9, 0]) + bytes(15)).decode().rstrip("=").lower()
    with pytest.raises(TokenError) as info:
        db.run(lambda s: tokens.verify(s, forged, "reply", lookup))
    assert info.value.reason is Failure.TAMPERED and looked_up == []


def test_binding_change_revokes(db: Database) -> None:
    token = issue(db, "reply", (3, 4, 5), "old-password-hash")
    assert reason(db, token, "reply", {(3, 4, 5): "new-password-hash"}) is Failure.REVOKED
    assert reason(db, token, "reply", {}) is Failure.REVOKED  # the user or board is gone


def test_wrong_purpose(db: Database) -> None:
    confirm = issue(db, "confirm", (3, 4), "alice@example.org")
    assert reason(db, confirm, "reply", {(3, 4): "alice@example.org"}) is Failure.WRONG_PURPOSE
    assert verify(db, confirm, "confirm", {(3, 4): "alice@example.org"}) == (3, 4)


def test_the_claimed_purpose_is_read_without_the_key_and_proves_nothing(db: Database) -> None:
    with db.transaction() as s:
        reply = tokens.issue(s, "reply", [1, 2, 3], "bind")
        confirm = tokens.issue(s, "confirm", [4], "bind")
    assert (tokens.claimed_purpose(reply), tokens.claimed_purpose(confirm)) == ("reply", "confirm")
    assert tokens.claimed_purpose("not a token!") is None and tokens.claimed_purpose("") is None
    # A made-up token may claim any purpose; verify() still refuses it.
    forged = tokens._b32(bytes([tokens.PURPOSES["confirm"], 4]) + bytes(tokens.TAG_BYTES + tokens.SEAL_BYTES))
    assert tokens.claimed_purpose(forged) == "confirm"
    with db.transaction() as s, pytest.raises(TokenError) as refused:
        tokens.verify(s, forged, "confirm", lambda fields: "bind")
    assert refused.value.reason is Failure.TAMPERED


def test_rotation_revokes_then_forgets(db: Database) -> None:
    bindings = {(1, 1, 1): "h"}
    token = issue(db, "reply", (1, 1, 1), "h")
    db.run(tokens.rotate)
    assert reason(db, token, "reply", bindings) is Failure.REVOKED
    fresh = issue(db, "reply", (1, 1, 1), "h")
    assert fresh != token and verify(db, fresh, "reply", bindings) == (1, 1, 1)
    db.run(tokens.rotate)
    assert reason(db, token, "reply", bindings) is Failure.TAMPERED  # two keys ago: not ours any more
    assert reason(db, fresh, "reply", bindings) is Failure.REVOKED


def test_a_token_issued_after_a_rotation_in_the_same_transaction_uses_the_new_key(db: Database) -> None:
    """The keys are read by a Core statement, which does not see the rotation before it is flushed."""
    issue(db, "reply", (1, 1, 1), "h")  # the secret exists and was read once

    def rotate_then_issue(session) -> str:  # type: ignore[no-untyped-def]
        tokens.rotate(session)
        return tokens.issue(session, "reply", (1, 1, 1), "h")

    token = db.run(rotate_then_issue)
    assert verify(db, token, "reply", {(1, 1, 1): "h"}) == (1, 1, 1)


def test_the_secret_is_made_once_and_shared(sqlite_url: str) -> None:
    """Two processes (two Database objects) see one secret, made by whichever came first."""
    a, b = Database(sqlite_url), Database(sqlite_url)
    a.upgrade()
    token = a.run(lambda s: tokens.issue(s, "reply", (1, 2, 3), "h"))
    assert b.run(lambda s: tokens.verify(s, token, "reply", lambda f: "h")) == (1, 2, 3)
    a.dispose()
    b.dispose()


def test_plus_addresses() -> None:
    assert tokens.plus_address("pbmserv@games.test", "abc") == "pbmserv+abc@games.test"
    assert tokens.plus_address("pbmserv@games.test", "abc", "-+") == "pbmserv-abc@games.test"
    assert split_tag("PBMServ+Tok@Games.Test") == ("PBMServ@Games.Test", "Tok")
    assert split_tag("<pbmserv+a+b@x.test>") == ("pbmserv@x.test", "a+b")
    assert split_tag("pbmserv@x.test") == ("pbmserv@x.test", None)
    assert split_tag("+x@x.test") == ("+x@x.test", None)  # a tag needs a local part before it
    own = ["pbmserv@games.test"]
    assert tokens.token_of("pbmserv+t0k@games.test", own) == "t0k"
    assert tokens.token_of("PBMSERV+T0K@GAMES.TEST", own) == "T0K"
    assert tokens.token_of("other+t0k@games.test", own) is None
    assert tokens.token_of("pbmserv@games.test", own) is None
    assert tokens.token_of("pbmserv-t0k@games.test", own, "-") == "t0k"


def test_listener_accepts_tagged_forms_of_our_addresses_only() -> None:
    s = Settings(addresses=["pbmserv@games.test", "games@other.test"])
    for ok in ("pbmserv@games.test", "pbmserv+anything@games.test", "PBMSERV+X@GAMES.TEST",
               "<games+x@other.test>"):
        assert s.is_ours(ok), ok
    for bad in ("pbmserv+x@evil.test", "pbmservx@games.test", "alice+x@games.test",
                "pbmserv-x@games.test", "pbmserv+x@games.test.evil.test", "pbmserv@games.test+x"):
        assert not s.is_ours(bad), bad
    s.recipient_delimiter = "-+"
    assert s.is_ours("pbmserv-x@games.test") and s.is_ours("pbmserv+x@games.test")


def test_redact_masks_tokens_in_text_and_in_log_records(db: Database, caplog) -> None:  # type: ignore[no-untyped-def]
    token = issue(db, "reply", (12, 3456, 78), "h")
    line = f"RCPT TO:<pbmserv+{token}@games.test> and pbmserv+{token.upper()}@games.test"
    clean = tokens.redact(line)
    assert token not in clean.lower() and clean.count("pbmserv+***@games.test") == 2
    assert tokens.redact("alice+games@example.org, Board 101 #5") == "alice+games@example.org, Board 101 #5"
    handler = logging.StreamHandler()
    handler.addFilter(tokens.RedactFilter())
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "to %s", (f"pbmserv+{token}@g.test",), None)
    handler.filter(record)
    assert record.getMessage() == "to pbmserv+***@g.test"


def test_two_processes_making_the_secret_at_once_agree(postgres_url: str) -> None:
    """PostgreSQL: the second INSERT waits for the first, fails in its savepoint, reads the winner's."""
    import threading

    a, b = Database(postgres_url), Database(postgres_url)
    a.upgrade()
    made = threading.Event()
    release = threading.Event()
    tokens_made: dict[str, str] = {}

    def first() -> None:
        with a.transaction() as s:
            tokens_made["a"] = tokens.issue(s, "reply", (1, 2, 3), "h")
            made.set()
            release.wait(10)

    def second() -> None:
        made.wait(10)
        with b.transaction() as s:
            tokens_made["b"] = tokens.issue(s, "reply", (1, 2, 3), "h")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    threads[1].join(0.5)
    assert threads[1].is_alive()  # waiting on the uncommitted secret
    release.set()
    for t in threads:
        t.join(10)
    assert tokens_made["a"] == tokens_made["b"]
    a.dispose()
    b.dispose()
