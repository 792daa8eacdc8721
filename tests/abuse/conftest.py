"""Fixtures of the abuse suite: a server factory, and accounts and boards made directly in the database.

Setting up a sock puppet in hundreds of boards by mail would take the
attacker minutes and the test most of its budget; the state is written
straight into the database instead (the same rows the commands write), and
only the attack itself goes by mail.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from server.store.database import Database
from tests.abuse.harness import Pbmserv
from tests.mailtools import Sink, free_port


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite file migrated to head, copied for each test (migrating costs seconds a test)."""
    path = tmp_path_factory.mktemp("abuse-template") / "pbmserv.db"
    db = Database(f"sqlite:///{path}")
    db.upgrade()
    db.dispose()
    return path


@pytest.fixture
def start(tmp_path: Path, sink: Sink, template_db: Path) -> Iterator[Callable[..., tuple[Pbmserv, Database]]]:
    """start(*flags, url=None, nofile=None) -> (server, database); stopped at teardown."""
    started: list[Pbmserv] = []
    dbs: list[Database] = []

    def go(*flags: str, url: str | None = None, nofile: int | None = None,
           setup: Callable[[Database], None] | None = None) -> tuple[Pbmserv, Database]:
        if url is None:
            target = tmp_path / "pbmserv.db"
            shutil.copyfile(template_db, target)
            url = f"sqlite:///{target}"
        db = Database(url)
        db.upgrade()
        if setup is not None:
            setup(db)
        server = Pbmserv(url, free_port(), sink.port, tmp_path / f"serve{len(started)}.log", *flags, nofile=nofile)
        started.append(server)
        dbs.append(db)
        server.start()
        return server, db

    yield go
    for server in started:
        server.stop()
    for db in dbs:
        db.dispose()


def make_accounts(db: Database, names: list[str], addresses: Callable[[str], list[str]] | None = None,
                  password: str = "secret1") -> None:
    """Accounts with one shared password hash (argon2 once, not once per account)."""
    from server.accounts.passwords import hash_password
    from server.store.model import Address, User

    hashed = hash_password(password)

    def work(session) -> None:  # type: ignore[no-untyped-def]
        for name in names:
            user = User(userid=name, password_hash=hashed)
            user.addresses = [Address(address=a) for a in (addresses(name) if addresses else
                                                             [f"{name}@players.test"])]
            session.add(user)

    db.run(work)


def make_boards(db: Database, pairs: list[tuple[str, str]]) -> None:
    """Tic-tac-toe boards between each pair, as a challenge makes them (no mail queued)."""
    from server.boards import boards
    from server.store.model import User
    from tests.tictactoe import GAME

    def work(session) -> None:  # type: ignore[no-untyped-def]
        users = {u.userid: u for u in session.query(User)}
        for first, second in pairs:
            boards.create_board(session, GAME, [users[first], users[second]], {}, 7.0, 21.0)

    db.run(work)
