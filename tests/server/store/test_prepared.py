"""Hot statements on the DB-API cursor (server/store/prepared.py, issue 25).

Real SQLite files and a real PostgreSQL.  Every statement the move path
runs through ``store.queries.core`` is run both ways -- planned, and through
SQLAlchemy's own connection -- on the same rows, and must give the same
values, of the same types, under the same keys, and write the same rows.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import bindparam, event, insert, select, update
from sqlalchemy.exc import IntegrityError

from server.boards.boards import _INSERT_MOVE, _MOVES
from server.boards.watchers import _FOLLOWS
from server.mail.fairqueue import _HEADS, _KNOWN_HEADS, _TAKE, _WAITING
from server.mail.quota import _COUNT
from server.mail.replies import _INSERT_OUTBOX
from server.mail.taken import _LOCKED, _SAVE
from server.mail.tokens import _SECRET
from server.store import prepared
from server.store.database import Database
from server.store.model import Board, GameFollow, Inbound, Move, Outbox, ServerSecret, User
from server.store.queries import _OWNER_ID

NOW = datetime(2026, 11, 27, 21, 30, 15, 123456)


def _setup(url: str) -> Database:
    db = Database(url)
    db.upgrade()
    with db.transaction() as s:
        s.add_all([User(userid="alice", password_hash="x"), User(userid="bob", password_hash="x")])
        board = Board(game="tictactoe", number=101, options={}, state={"cells": "X........"}, ply=1, to_move=1,
                      status="active", pending={}, nagtime=7.0, forfeittime=21.0, reminders_sent=0)
        s.add(board)
        s.flush()
        s.add_all([Move(board_id=board.id, ply=0, seat=0, move="a1", played_at=NOW, auto=False),
                   Move(board_id=board.id, ply=1, seat=1, move="b2", played_at=NOW + timedelta(seconds=1),
                        auto=True)])
        for i, known in enumerate([True, True, False]):
            s.add(Inbound(received_at=NOW, mail_from=f"p{i}@x.test", rcpt_to=[f"pbmserv+t{i}@games.test"],
                          sender=f"p{i % 2}@x.test", known=known, dedupe_key=f"k{i % 2}", raw=b"Subject: x\r\n\r\nhi",
                          size=20, status="new", tries=0, commands_done=0, results=[{"ok": True, "text": "é"}]))
        s.add(ServerSecret(name="reply", value="v" * 40, previous=None))
        s.add_all([GameFollow(game="tictactoe", user_id=1, kind="watch", created_at=NOW - timedelta(days=1)),
                   GameFollow(game="tictactoe", user_id=2, kind="watch", created_at=NOW + timedelta(days=1))])
    return db


#: (statement, parameters) of the move path's reads.
READS: list[tuple[Any, dict[str, Any]]] = [
    (_HEADS, {"now": NOW, "known": True, "heads": 5}),
    (_HEADS, {"now": NOW, "known": False, "heads": 5}),
    (_WAITING, {"now": NOW, "known": True}),
    (_TAKE, {"id": 1, "now": NOW}),
    (_LOCKED, {"id": 2}),
    (_LOCKED, {"id": 3}),  # an earlier copy (row 1: the same dedupe key): ``copied``
    (_KNOWN_HEADS, {"now": NOW, "known": True, "heads": 5}),  # with a stranger's mail waiting (row 3)
    (_SECRET, {"name": "reply"}),
    (_MOVES, {"board": 1}),
    (_FOLLOWS, {"board": 1, "game": "tictactoe", "created": NOW}),
    (_OWNER_ID, {"address": "nobody@x.test"}),
]


def test_planned_reads_give_what_sqlalchemy_gives(db_url: str) -> None:
    db = _setup(db_url)
    for statement, params in READS:
        with db.transaction() as s:
            ours = prepared.execute(s, statement, params).all()
            theirs = s.connection().execute(statement, params)
            keys, expected = list(theirs.keys()), [tuple(r) for r in theirs.all()]
        # It was planned, not handed on to SQLAlchemy.
        assert prepared._PLANS[(statement, db.engine.dialect.name, tuple(params))] is not None  # noqa: SLF001
        assert [tuple(r) for r in ours] == expected, statement
        assert [[type(v) for v in r] for r in ours] == [[type(v) for v in r] for r in expected], statement
        assert all(list(r._fields) == keys for r in ours), statement


def test_the_reads_find_rows_so_the_comparison_means_something(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with db.transaction() as s:
        found = [prepared.execute(s, statement, params).all() for statement, params in READS]
    assert sum(bool(rows) for rows in found) >= 8
    assert [tuple(r) for r in found[9]] == [("watch", 1)]  # the follow made before the board's start
    heads = found[0]
    assert [(r.sender, r.count_1) for r in heads] == [("p0@x.test", 1), ("p1@x.test", 1)]
    assert found[8][1].played_at == NOW + timedelta(seconds=1) and found[8][1].auto is True


def _rows(db: Database, table: Any, exclude: tuple[str, ...]) -> list[dict[str, Any]]:
    with db.engine.connect() as conn:
        rows = conn.execute(select(table).order_by(table.c.id)).mappings().all()
    return [{k: v for k, v in r.items() if k not in exclude} for r in rows]


def test_planned_writes_write_what_sqlalchemy_writes(db_url: str) -> None:
    db = _setup(db_url)
    outbox = dict(envelope_from="pbmserv@games.test", recipients=["a@x.test", "b@x.test"], subject="Board 101",
                  message=b"Subject: x\r\n\r\nbody\r\n", status="pending", pictures={"k": {"game": "t"}},
                  stranger=False)
    move = {"board_id": 1, "ply": 2, "seat": 0, "move": "c3", "auto": False}
    save = {"row_id": 1, "status": "done", "tries": 0, "commands_done": 1, "results": [{"text": "ü"}],
            "claimed_by": "w1", "claimed_until": None, "error": None, "done_at": NOW}
    for ply, run in enumerate((lambda s, st, p: prepared.execute(s, st, p),
                               lambda s, st, p: s.connection().execute(st, p)), start=2):
        with db.transaction() as s:
            run(s, _INSERT_OUTBOX, outbox)
            run(s, _INSERT_MOVE, {**move, "ply": ply})
            assert run(s, _COUNT[db.engine.dialect.name],
                       {"address": "a@x.test", "day": date(2026, 11, 27), "amount": 1}).scalar() in (1, 2)
        with db.transaction() as s:
            run(s, _SAVE[False], save)
            save = {**save, "row_id": 2}
    sent = _rows(db, Outbox.__table__, ("id", "created_at", "next_attempt"))
    assert len(sent) == 2 and sent[0] == sent[1]
    with db.engine.connect() as conn:
        stamps = conn.execute(select(Outbox.created_at, Outbox.next_attempt)).all()
    assert all(isinstance(v, datetime) and abs(v - datetime.utcnow()) < timedelta(minutes=5)
               for row in stamps for v in row)  # the columns' Python defaults, filled in as SQLAlchemy does
    moves = _rows(db, Move.__table__, ("id", "ply", "played_at"))
    assert moves[-1] == moves[-2]
    inbound = _rows(db, Inbound.__table__, ("id", "mail_from", "rcpt_to", "sender", "dedupe_key"))
    assert inbound[0] == inbound[1] and inbound[0]["results"] == [{"text": "ü"}] and inbound[0]["done_at"] == NOW


def test_in_lists_are_expanded_per_call_and_typed(db_url: str) -> None:
    """An expanding IN list (the listener's hour counts, the deliverer's marks) is planned; its SQL
    and values are SQLAlchemy's own expansion, a datetime beside it processed as the column's."""
    db = _setup(db_url)
    ids = select(Inbound.id, Inbound.received_at).where(
        Inbound.id.in_(bindparam("ids", expanding=True)), Inbound.received_at >= bindparam("since")).order_by(Inbound.id)
    mark = update(Inbound.__table__).where(Inbound.__table__.c.id.in_(bindparam("ids", expanding=True))).values(
        done_at=bindparam("now"))
    with db.transaction() as s:
        for chosen in ([1, 3], [2], [1, 2, 3]):
            rows = prepared.execute(s, ids, {"ids": chosen, "since": NOW - timedelta(seconds=1)}).all()
            assert [tuple(r) for r in rows] == [(i, NOW) for i in chosen]
        assert prepared._PLANS[(ids, db.engine.dialect.name, ("ids", "since"))] is not None  # noqa: SLF001
        assert prepared.execute(s, mark, {"ids": [1, 3], "now": NOW}).rowcount == 2
    with db.engine.connect() as conn:
        done = conn.execute(select(Inbound.id, Inbound.done_at).order_by(Inbound.id)).all()
    assert [tuple(r) for r in done] == [(1, NOW), (2, None), (3, NOW)]


def test_what_cannot_be_planned_goes_to_sqlalchemy(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    many = insert(User.__table__).returning(User.__table__.c.id)
    with db.transaction() as s:
        ids = prepared.execute(s, many, [{"userid": "u1", "password_hash": "x"},
                                         {"userid": "u2", "password_hash": "x"}]).scalars().all()
        assert len(ids) == 2


def test_errors_are_sqlalchemys_and_the_cursor_events_fire(db_url: str) -> None:
    db = _setup(db_url)
    seen: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda _c, _cur, statement, *_: seen.append(statement))
    with pytest.raises(IntegrityError), db.transaction() as s:
        prepared.execute(s, insert(User.__table__), {"userid": "alice", "password_hash": "x"})
    assert any(statement.startswith("INSERT INTO users") for statement in seen)
    with db.transaction() as s:  # the connection is good again after the rollback
        assert prepared.execute(s, _SECRET, {"name": "reply"}).first().value == "v" * 40


def test_a_savepoint_begun_after_a_statement_still_rolls_back_what_follows(db_url: str) -> None:
    """The connection is kept per transaction *and* savepoint: a command's savepoint (the worker's
    ``begin_nested``) must be emitted before its statements, or a refused command's writes stay.
    SAVEPOINT, RELEASE and ROLLBACK TO go to the cursor (no Core statement through the execution
    layer) and do what they did: a refused command's writes undone, a released one's kept, the
    transaction's own writes kept either way."""
    db = _setup(db_url)
    core_statements: list[str] = []
    cursor_statements: list[str] = []
    event.listen(db.engine, "before_execute", lambda _c, clause, *_: core_statements.append(str(clause)))
    event.listen(db.engine, "before_cursor_execute", lambda _c, _cur, sql, *_: cursor_statements.append(sql))
    with db.transaction() as s:
        assert prepared.execute(s, _SECRET, {"name": "reply"}).first() is not None  # the connection, kept
        try:
            with s.begin_nested():
                prepared.execute(s, _INSERT_MOVE, {"board_id": 1, "ply": 9, "seat": 0, "move": "z9", "auto": False})
                raise RuntimeError("the command is refused")
        except RuntimeError:
            pass
        with s.begin_nested():
            prepared.execute(s, _INSERT_MOVE, {"board_id": 1, "ply": 10, "seat": 1, "move": "d4", "auto": False})
        prepared.execute(s, _INSERT_MOVE, {"board_id": 1, "ply": 11, "seat": 0, "move": "y8", "auto": False})
    with db.transaction() as s:
        assert [r.move for r in prepared.execute(s, _MOVES, {"board": 1})] == ["a1", "b2", "d4", "y8"]
    savepoint_sql = [sql for sql in cursor_statements if "SAVEPOINT" in sql.upper()]
    assert [sql.split()[0].upper() for sql in savepoint_sql] == ["SAVEPOINT", "ROLLBACK", "SAVEPOINT", "RELEASE"]
    assert not [sql for sql in core_statements if "SAVEPOINT" in sql.upper()]
