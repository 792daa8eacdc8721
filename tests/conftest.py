"""Shared fixtures: real SQLite files, a real PostgreSQL, real SMTP on loopback.

PostgreSQL tests run against ``PBMSERV_TEST_POSTGRES_URL`` (``.ci/run`` sets
it, so there they are mandatory); each test gets a schema of its own.  Without
the variable they are skipped with a message saying how to enable them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

import games
from server.store.database import Database
from tests.tictactoe import GAME as TICTACTOE

POSTGRES_URL = os.environ.get("PBMSERV_TEST_POSTGRES_URL")

games.register(TICTACTOE)


def postgres_schema_url(base: str, schema: str) -> str:
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh schema in the test PostgreSQL, dropped afterwards."""
    if not POSTGRES_URL:
        if os.environ.get("PBMSERV_REQUIRE_POSTGRES"):
            pytest.fail("PBMSERV_REQUIRE_POSTGRES is set but PBMSERV_TEST_POSTGRES_URL is not")
        pytest.skip("PostgreSQL tests need PBMSERV_TEST_POSTGRES_URL (e.g. postgresql://postgres@127.0.0.1/test)")
    schema = "t_" + uuid.uuid4().hex[:12]
    url = POSTGRES_URL.replace("postgresql://", "postgresql+psycopg://", 1)
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield postgres_schema_url(url, schema)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path) -> str:  # type: ignore[no-untyped-def]
    return f"sqlite:///{tmp_path / 'pbmserv.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request) -> str:  # type: ignore[no-untyped-def]
    """The same test on the embedded SQLite and on PostgreSQL."""
    return request.getfixturevalue(f"{request.param}_url")


def migrated(url: str) -> Iterator[Database]:
    """A fixture's body: the database at ``url`` with the schema migrated, disposed of after the test."""
    database = Database(url)
    database.upgrade()
    yield database
    database.dispose()


# The mail-server harness serves the games' by-mail tests too, not only tests/server.
from tests.server.conftest import sink, sqlite_players  # noqa: E402,F401
