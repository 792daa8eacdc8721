"""Plain column updates written past the unit of work (server/store/light_flush.py, issue 25).

Real SQLite files and PostgreSQL, real sessions.  The light path must write
exactly what the ORM's unit of work writes (checked against a session maker
without it, on a second database), at the same moments (autoflush, commit),
and leave to the unit of work every flush it is not sure of.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete, event, select, text
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from server.store import light_flush
from server.store.database import Database
from server.store.model import Board, Seat, User

COLUMNS = ("state", "ply", "to_move", "status", "outcome", "pending", "nagtime", "totaltime", "turn_since",
           "finished_at", "rated", "vote_since", "reminders_sent")


def _setup(url: str) -> Database:
    db = Database(url)
    db.upgrade()
    with db.transaction() as s:
        s.add_all([User(userid="alice", password_hash="x"), User(userid="bob", password_hash="x")])
        s.add(Board(game="tictactoe", number=101, options={}, state={"cells": "........."}, ply=0, to_move=0,
                    status="active", pending={}, nagtime=7.0, forfeittime=21.0, reminders_sent=0,
                    created_at=datetime(2026, 1, 1), turn_since=datetime(2026, 1, 1)))
    return db


class Flushes:
    """Counts the flushes the unit of work carried out (after_flush fires only for those)."""

    def __init__(self, session: Session) -> None:
        self.count = 0
        event.listen(session, "after_flush", self._seen)

    def _seen(self, *_: Any) -> None:
        self.count += 1


def _row(db: Database) -> dict[str, Any]:
    with db.engine.connect() as conn:
        return dict(conn.execute(select(Board.__table__)).mappings().one())


def test_a_moves_board_update_is_one_statement_past_the_unit_of_work(db_url: str) -> None:
    db = _setup(db_url)
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_a: statements.append(statement.split()[0].upper()))
    with db.transaction() as s:
        flushes = Flushes(s)
        board = s.scalars(select(Board)).one()
        statements.clear()
        board.state, board.ply, board.to_move = {"cells": "X........"}, 1, 1
        board.turn_since = datetime(2026, 11, 27, 21, 0, 0)
    assert flushes.count == 0  # without the light path the commit's flush runs the unit of work
    assert statements == ["UPDATE"]
    row = _row(db)
    assert (row["state"], row["ply"], row["to_move"]) == ({"cells": "X........"}, 1, 1)
    assert row["turn_since"] == datetime(2026, 11, 27, 21, 0, 0)


def test_an_assignment_of_the_same_value_writes_nothing(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    statements: list[str] = []
    with db.transaction() as s:
        board = s.scalars(select(Board)).one()
        event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
        board.ply, board.pending = 0, {}
        assert s.dirty  # the ORM took note of the assignments
    assert statements == []  # as the unit of work: equal values are not written


def test_autoflush_writes_before_a_query_reads(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with db.transaction() as s:
        board = s.scalars(select(Board)).one()
        board.ply = 7
        assert s.scalar(text("SELECT ply FROM boards")) is not None  # text() does not autoflush
        assert s.scalar(select(Board.ply)) == 7  # an ORM query autoflushes: the light path ran
        assert not s.dirty
        board.ply = 8  # changed again after its flush: written again at commit
    assert _row(db)["ply"] == 8


def test_a_rollback_undoes_a_light_write(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with pytest.raises(RuntimeError), db.transaction() as s:
        board = s.scalars(select(Board)).one()
        board.ply = 5
        s.flush()
        raise RuntimeError("the command failed")
    assert _row(db)["ply"] == 0


def test_a_row_deleted_underneath_raises_as_the_unit_of_work_does(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with pytest.raises(StaleDataError), db.transaction() as s:
        board = s.scalars(select(Board)).one()
        s.connection().execute(delete(Board.__table__))
        board.ply = 3


def test_what_is_not_plain_goes_to_the_unit_of_work(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with db.transaction() as s:
        flushes = Flushes(s)
        board = s.scalars(select(Board)).one()
        alice = s.scalars(select(User).where(User.userid == "alice")).one()
        board.ply = 1
        board.seats.append(Seat(seat=0, user=alice))  # a new row and a collection change
    assert flushes.count == 1
    with db.transaction() as s:
        board = s.scalars(select(Board)).one()
        assert board.ply == 1 and [seat.user.userid for seat in board.seats] == ["alice"]


def _random_value(column: str, rng: random.Random) -> Any:
    if column in ("state", "pending"):
        return {"cells": "".join(rng.choice("XO.") for _ in range(9)), "n": rng.randint(0, 9),
                "list": [rng.random() for _ in range(rng.randint(0, 3))]}
    if column == "outcome":
        return rng.choice([None, {"winner": rng.randint(0, 1)}, {}])
    if column in ("ply", "reminders_sent"):
        return rng.randint(0, 500)
    if column == "to_move":
        return rng.choice([None, 0, 1])
    if column == "status":
        return rng.choice(["active", "finished", "aborted"])
    if column in ("nagtime", "totaltime"):
        return rng.choice([None, rng.random() * 30]) if column == "totaltime" else rng.random() * 30
    if column == "rated":
        return rng.random() < 0.5
    base = datetime(2026, 1, 1) + timedelta(seconds=rng.randint(0, 10**8), microseconds=rng.randint(0, 999999))
    return None if column != "turn_since" and rng.random() < 0.3 else base


def test_the_light_path_writes_what_the_unit_of_work_writes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    light, plain = _setup(f"sqlite:///{tmp_path}/light.db"), _setup(f"sqlite:///{tmp_path}/plain.db")
    orm_only = sessionmaker(plain.engine, expire_on_commit=False)  # no light_flush.install
    rng = random.Random(25)
    for _ in range(60):
        changes = {c: _random_value(c, rng) for c in rng.sample(COLUMNS, rng.randint(1, 5))}
        for sessions in (light.sessions, orm_only):
            with sessions() as s, s.begin():
                board = s.scalars(select(Board)).one()
                for column, value in changes.items():
                    setattr(board, column, value)
        assert _row(light) == _row(plain)
    with orm_only() as s:  # the comparison session really used the unit of work
        flushes = Flushes(s)
        with s.begin():
            s.scalars(select(Board)).one().ply += 1
        assert flushes.count == 1


def test_installed_sessions_count_what_they_write(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with db.transaction() as s:
        board = s.scalars(select(Board)).one()
        users = list(s.scalars(select(User)))
        board.ply = 2
        for user in users:
            user.vacation = True
        assert light_flush.write_plain_updates(s) == 3
        assert not s.dirty
        assert light_flush.write_plain_updates(s) == 0
    with db.transaction() as s:
        assert all(u.vacation for u in s.scalars(select(User)))
