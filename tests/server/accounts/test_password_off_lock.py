"""argon2 runs outside the write lock (issue 32, item 4): a password command's check never holds up other writers.

Real server (listener, worker, deliverer as threads of one process) over a
real SQLite file, real SMTP both ways.  The write lock is the database's
in-process lock (plus an flock beside the file); every argon2 verify the
worker makes must run while its thread owns neither.  The answers stay what
they were: a right password plays, a wrong one is refused with its line
masked, and a wrong one always pays a full argon2 verify.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.accounts import passwords
from server.store.model import Board
from tests.server.conftest import Running


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


class Watched:
    """The argon2 hasher, noting for each verify whether the calling thread held the write lock."""

    def __init__(self, real, lock) -> None:  # type: ignore[no-untyped-def]
        self.real, self.lock = real, lock
        self.seen: list[tuple[str, bool]] = []  # (password tried, outside the lock)

    def verify(self, stored: str, password: str) -> bool:
        self.seen.append((password, not self.lock._is_owned()))
        return self.real.verify(stored, password)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.real, name)


def ply(players: Running) -> int:
    with players.db.transaction() as s:
        return s.scalars(select(Board.ply).where(Board.number == 101)).one()


def test_no_password_is_verified_while_the_write_lock_is_held(players: Running, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lock = players.db._sqlite_lock
    assert lock is not None
    watched = Watched(passwords._hasher, lock)
    monkeypatch.setattr(passwords, "_hasher", watched)
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    assert ply(players) == 0

    wrong = players.mail("alice@example.org", "tictactoe move 101 alice wrongpw a1")
    text = "\n".join(m.text for m in wrong)
    assert "Wrong password for alice" in text and "wrongpw" not in text, text
    assert ply(players) == 0  # refused: nothing played

    again = players.mail("alice@example.org", "tictactoe move 101 alice wrongpw a1")
    assert "Wrong password for alice" in "\n".join(m.text for m in again)

    right = players.mail("alice@example.org", "tictactoe move 101 alice apple1 a1")
    assert ply(players) == 1, "\n".join(m.text for m in right)

    tried = [password for password, _ in watched.seen]
    # A wrong password pays argon2 every time (no verdict outlives its mail); the right one once.
    assert tried.count("wrongpw") == 2, tried
    assert tried.count("apple1") == 1, tried
    outside = [ok for _, ok in watched.seen]
    assert all(outside), f"{outside.count(False)} of {len(outside)} argon2 verifies ran inside the write lock"


def test_a_known_password_plays_without_argon2(players: Running, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lock = players.db._sqlite_lock
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 a1")
    watched = Watched(passwords._hasher, lock)
    monkeypatch.setattr(passwords, "_hasher", watched)
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 b1")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 a2")
    assert ply(players) == 3
    assert [p for p, _ in watched.seen] == ["banana2"], watched.seen  # alice's from the cache
