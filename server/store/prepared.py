"""Hot Core statements run on the DB-API cursor, compiled and typed by SQLAlchemy once.

A Core statement on a SQLAlchemy connection costs ~31 us on a 2-core VM
(the cache key, the execution context, the result's metadata), the DB-API
call alone ~2 us; a move by reply runs about fifteen of them in the worker
and a few more in the listener and the deliverer (issue 25).  ``execute``
compiles a statement once per dialect and set of parameter names, keeps
SQLAlchemy's own bind and result processors of its column types (a
datetime or a JSON column reads and writes exactly as through SQLAlchemy),
and from then on runs it on the DB-API cursor of the session's connection
(or of a Core connection: the listener's store, the deliverer's claim).

What the plan cannot do the same way goes to SQLAlchemy as before (a
statement is judged once): Python-side column defaults that are not a
constant or a plain function, or with an ``IN`` list; executemany with
RETURNING.  ``IN`` lists are expanded per call by SQLAlchemy's
``construct_expanded_state``.

Errors are SQLAlchemy's (the connection's own handler wraps them, and
invalidates the connection on a disconnect), and the engine's cursor
events fire (the PostgreSQL hang guard counts statements; tests count them).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.expression import (
    ReleaseSavepointClause,
    RollbackToSavepointClause,
    SavepointClause,
)

Processor = Callable[[Any], Any] | None


class Rows:
    """The part of a CursorResult the hot paths use, on rows already fetched."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def all(self) -> list[Any]:
        return list(self._rows)

    def first(self) -> Any:
        return self._rows[0] if self._rows else None

    def scalar(self) -> Any:
        return self._rows[0][0] if self._rows else None

    def scalars(self) -> list[Any]:
        return [row[0] for row in self._rows]


@dataclass(frozen=True)
class _Bind:
    name: str  # in the SQL
    key: str  # in the caller's parameters
    fixed: Any  # the statement's own value (a LIMIT's), or a column default's
    default: Callable[[], Any] | None  # a Python column default (INSERT)
    process: Processor


@dataclass(frozen=True)
class _Plan:
    sql: str
    positional: bool
    binds: tuple[_Bind, ...]
    row: type | None  # a namedtuple of the result's keys; None: no rows
    results: tuple[Processor, ...]
    typed: bool  # any result processor at all
    expanded: Any = None  # the compiled statement, when its IN lists are expanded per call

    def parameters(self, params: Mapping[str, Any]) -> Any:
        values = []
        for bind in self.binds:  # as SQLAlchemy does: every value through its type's processor
            if bind.key in params:
                value = params[bind.key]
            else:
                value = bind.default() if bind.default is not None else bind.fixed
            values.append(value if bind.process is None else bind.process(value))
        if self.positional:
            return tuple(values)
        return {bind.name: value for bind, value in zip(self.binds, values, strict=True)}

    def rows(self, fetched: list[Any]) -> list[Any]:
        if self.row is None:
            return []
        make = self.row._make  # type: ignore[attr-defined]
        if not self.typed:
            return [make(r) for r in fetched]
        procs = self.results
        return [make([v if p is None else p(v) for p, v in zip(procs, r, strict=True)]) for r in fetched]


#: (statement, dialect name, parameter names in order) -> plan, or None: SQLAlchemy runs it.
_PLANS: dict[tuple[Any, str, tuple[str, ...]], _Plan | None] = {}


def execute(where: Session | Connection, statement: Executable,
            params: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None) -> Any:
    """Run ``statement`` in the session's transaction, or on the Core connection: past SQLAlchemy's
    execution layer when it can.

    Returns a :class:`Rows` (or SQLAlchemy's result when the statement goes
    the usual way): ``first``, ``scalar``, ``all``, ``scalars``, iteration,
    ``rowcount``; rows are named tuples of the keys SQLAlchemy gives them.
    On a Connection nothing begins a transaction for the statement: the
    caller has begun one (``Database.connection``), or the statement runs
    on its own (on SQLite a read outside any transaction: a peek).
    """
    conn = where if isinstance(where, Connection) else _connection(where)
    many = params is not None and not isinstance(params, dict) and isinstance(params, Sequence)
    first: Mapping[str, Any] = (params[0] if params else {}) if many else (params or {})  # type: ignore[index]
    key = (statement, conn.dialect.name, tuple(first))
    try:
        plan = _PLANS[key]
    except KeyError:
        plan = _PLANS[key] = _compile(statement, conn.dialect, first)
    if plan is None or (many and (plan.row is not None or plan.expanded is not None)):
        return conn.execute(statement, params)  # type: ignore[arg-type]
    return _run(conn, plan, params, many)  # type: ignore[arg-type]


def _connection(session: Session) -> Connection:
    """``session.connection()``, asked again only when the session's transaction or savepoint changed.

    ``session.connection()`` costs ~22 us (the session's state machine), and
    a move asks it for every statement.  The answer is the same Connection
    for the whole transaction, but a savepoint begun since (``begin_nested``)
    is emitted only when its connection is first asked for: so the answer is
    kept with the transaction *and* the innermost savepoint it was given in
    (the objects themselves, so neither can be mistaken for a later one).
    """
    root, nested = session.get_transaction(), session.get_nested_transaction()
    kept = session.info.get(_CONNECTION)
    if kept is not None and kept[0] is root and kept[1] is nested and root is not None:
        return kept[2]
    conn = session.connection()
    session.info[_CONNECTION] = (session.get_transaction(), session.get_nested_transaction(), conn)
    return conn


#: session.info key: (transaction, savepoint, connection) of the last ``_connection``.
_CONNECTION = "pbmserv_prepared_connection"


def _run(conn: Connection, plan: _Plan, params: Any, many: bool) -> Rows:
    if plan.expanded is not None:  # IN lists: the SQL and its parameters as SQLAlchemy expands them
        state = plan.expanded.construct_expanded_state(params or {})
        sql, values, procs = state.statement, state.parameters, state.processors
        names = state.positiontup if plan.positional else list(values)
        processed = [values[n] if procs.get(n) is None else procs[n](values[n]) for n in names]
        parameters: Any = tuple(processed) if plan.positional else dict(zip(names, processed, strict=True))
    else:
        sql = plan.sql
        parameters = [plan.parameters(p) for p in params] if many else plan.parameters(params or {})
    fetched, rowcount = run_sql(conn, sql, parameters, many, plan.row is not None)
    return Rows(plan.rows(fetched), rowcount)


def run_sql(conn: Connection, sql: str, parameters: Any = (), many: bool = False,
            fetch: bool = False) -> tuple[list[Any], int]:
    """``sql`` on ``conn``'s DB-API cursor, as SQLAlchemy would run it: the cursor events fired
    (the PostgreSQL hang guard and the tests that count statements see it), a driver error
    wrapped (and a lost connection invalidated) by the connection's own handler.
    Returns (the rows fetched when ``fetch``, the row count)."""
    raw = conn.connection.dbapi_connection
    assert raw is not None
    dispatch = conn.dispatch
    cursor = raw.cursor()
    try:
        if dispatch.before_cursor_execute:
            dispatch.before_cursor_execute(conn, cursor, sql, parameters, None, many)
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, parameters)
        fetched = cursor.fetchall() if fetch else []
        rowcount = cursor.rowcount
        if dispatch.after_cursor_execute:
            dispatch.after_cursor_execute(conn, cursor, sql, parameters, None, many)
    except Exception as exc:
        cursor.close()
        if isinstance(exc, conn.dialect.loaded_dbapi.Error):
            conn._handle_dbapi_exception(exc, sql, parameters, cursor, None)  # noqa: SLF001 -- wraps, re-raises
        raise
    cursor.close()
    return fetched, rowcount


def _compile(statement: Any, dialect: Dialect, params: Mapping[str, Any]) -> _Plan | None:
    """The statement's plan for ``dialect`` and these parameter names, or None (see the module)."""
    dml = isinstance(statement, UpdateBase)
    compiled = statement.compile(dialect=dialect, column_keys=list(params) if dml else None)
    # IN lists (and parameters rendered into the SQL) are expanded per call, by SQLAlchemy's own
    # construct_expanded_state: still past the execution context.
    expanded = compiled if compiled.literal_execute_params or compiled.post_compile_params else None
    prefetch = {c.key: c for c in [*compiled.insert_prefetch, *compiled.update_prefetch]}
    defaults: dict[str, Callable[[], Any]] = {}
    for name, column in prefetch.items():
        if name in params:
            continue
        default = column.default
        if expanded is not None or default is None or not (default.is_scalar or default.is_callable):
            return None
        defaults[name] = (lambda value=default.arg: value) if default.is_scalar else (
            lambda arg=default.arg: arg(None))
    by_name = {name: bind for bind, name in compiled.bind_names.items()}
    names = compiled.positiontup if dialect.positional else list(dict.fromkeys(by_name))
    binds = []
    for name in names:
        bind = by_name[name]
        key = bind.key if bind.key in params or name not in params else name
        if key not in params and name not in defaults and bind.required:
            return None
        processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
        fixed = bind.callable() if bind.callable is not None else bind.value
        binds.append(_Bind(name, key, fixed, defaults.get(name), processor))
    columns = compiled._result_columns  # noqa: SLF001 -- the keys and types SQLAlchemy's own rows get
    returns = bool(columns) and (not dml or bool(compiled.effective_returning))
    row = collections.namedtuple("Row", [c.keyname for c in columns], rename=True) if returns else None  # type: ignore[misc]
    results = tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns) if returns else ()
    return _Plan(compiled.string, dialect.positional, tuple(binds), row, results, any(p is not None for p in results),
                 expanded)


def savepoints_on_cursor(engine: Engine) -> None:
    """The engine's SAVEPOINT, RELEASE and ROLLBACK TO run on the cursor (``run_sql``).

    Every command of a mail runs in a savepoint (a refused one is undone, its
    mail's progress kept), and SQLAlchemy's dialect emits each of the two
    statements a move needs as a Core statement: ~30 us apiece through the
    execution layer, about as much as a board's UPDATE (issue 25).  The SQL is
    still SQLAlchemy's, compiled once per savepoint name (``sa_savepoint_1``...)
    by the dialect; the connection's savepoint events fire as before (they
    are Connection's, not the dialect's).
    """
    dialect = engine.dialect
    texts: dict[tuple[type, str], str] = {}

    def emit(clause: type, connection: Connection, name: str) -> None:
        key = (clause, name)
        sql = texts.get(key)
        if sql is None:
            sql = texts[key] = str(clause(name).compile(dialect=dialect))
        run_sql(connection, sql)

    # Instance attributes in front of the class's methods: this engine's dialect only.
    dialect.do_savepoint = functools.partial(emit, SavepointClause)  # type: ignore[method-assign]
    dialect.do_release_savepoint = functools.partial(emit, ReleaseSavepointClause)  # type: ignore[method-assign]
    dialect.do_rollback_to_savepoint = functools.partial(emit, RollbackToSavepointClause)  # type: ignore[method-assign]
