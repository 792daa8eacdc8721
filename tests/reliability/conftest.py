"""Fixtures of the reliability tests: a relay sink, and players set up directly in the database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.core.config import Settings
from server.processes.cli import App, admin_command
from server.store.database import Database
from tests.mailtools import Sink
from tests.reliability.serverproc import ADDRESS, ServerProcess


@pytest.fixture
def procs() -> Iterator[list[ServerProcess]]:
    """Server processes a test starts: stopped at teardown even when the test fails."""
    started: list[ServerProcess] = []
    yield started
    for proc in started:
        proc.stop()


@pytest.fixture
def sink() -> Iterator[Sink]:
    s = Sink().start()
    yield s
    s.stop()


def password_of(userid: str) -> str:
    """Distinctive, so a grep for it in what the server wrote finds nothing but a leak."""
    return f"pw{userid}Zq7"


def make_players(db: Database, count: int, prefix: str = "p") -> list[str]:
    from server.accounts import accounts  # after server.cli: importing accounts first is circular

    names = [f"{prefix}{i}" for i in range(count)]

    def work(session) -> None:  # type: ignore[no-untyped-def]
        for name in names:
            accounts.create_user(session, name, password_of(name), [f"{name}@players.test"])

    db.run(work)
    return names


def make_boards(url: str, pairs: list[tuple[str, str]]) -> list[int]:
    """Tic-tac-toe boards between each pair, started by the admin (their board mails are queued)."""
    app = App(Settings(database_url=url, addresses=[ADDRESS]))
    numbers = []
    for first, second in pairs:
        text = admin_command(app, ["tictactoe", "challenge", first, second])
        numbers.append(int(text.split("Board ")[1].split(":")[0]))
    app.db.dispose()
    return numbers
