"""Plain column updates of loaded rows, written without the unit of work.

A move changes one row the ORM loaded (the board: its state, ply, player
to move and turn clock).  Flushing that one UPDATE through SQLAlchemy's unit
of work cost 0.45-0.55 ms a move on a 2-core VM (issue 25: a tenth of the
worker's CPU), nearly all of it the machinery -- the flush context, the
dependency sort, per-mapper action lists -- not the statement (~40 us).

``install(maker)`` hooks the sessions' ``before_flush``: every dirty object
whose pending changes are plain column values of a simple mapped table is
written with one Core ``UPDATE ... WHERE pk = ?`` (a statement built once per
table, run as ``store.prepared`` plans it for each set of columns) and marked as
flushed.  Whatever is not that simple -- new or deleted objects, relationship or collection changes, SQL
expressions as values, version counters, ``onupdate`` columns, mapper
update events, a changed primary key, inheritance -- is left to the unit of
work in the same flush, exactly as before.  So the outcome is the ORM's: the
same rows, the same values (the column types process them in both paths),
in the same transaction, at the same moment (autoflush or commit).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Mapper, Session, UOWTransaction, attributes, sessionmaker
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.sql import ClauseElement, Update

from server.store import prepared

#: table -> its UPDATE by primary key, built once (the parameters given name the columns SET).
_STATEMENTS: dict[Any, Update] = {}
#: mapper -> whether its rows can take the light path at all (see _simple).
_SIMPLE: dict[Mapper[Any], bool] = {}
#: The primary key's bind parameter (named so no column's name can clash).
_PK = "light_flush_pk"


def install(maker: sessionmaker[Session]) -> None:
    """Sessions of ``maker`` write plain column updates without the unit of work (see the module)."""

    from sqlalchemy import event

    @event.listens_for(maker, "before_flush")
    def _light(session: Session, _context: UOWTransaction, objects: Any) -> None:
        if objects is None:  # a flush of named objects is left whole to the unit of work
            write_plain_updates(session)


def _simple(mapper: Mapper[Any]) -> bool:
    """Whether rows of ``mapper`` can ever be updated past the unit of work."""
    known = _SIMPLE.get(mapper)
    if known is None:
        table = mapper.local_table
        known = (mapper.inherits is None and not mapper.polymorphic_map
                 and mapper.persist_selectable is table and mapper.version_id_col is None
                 and len(mapper.primary_key) == 1 and not mapper.dispatch.before_update
                 and not mapper.dispatch.after_update
                 and not any(c.onupdate is not None or c.server_onupdate is not None for c in table.columns))
        _SIMPLE[mapper] = known
    return known


def write_plain_updates(session: Session) -> int:
    """Write the dirty objects that are plain column updates (Core), mark them flushed; how many."""
    if session._new or session._deleted:  # noqa: SLF001 -- inserts and deletes order with updates: all to the UOW
        return 0
    written = 0
    for state in list(session.identity_map._modified):  # noqa: SLF001 -- the dirty states (Session._dirty_states)
        if not state.modified or state.key is None or state.deleted or state.expired:
            continue
        mapper = state.mapper
        if not _simple(mapper):
            continue
        values = _changed_columns(mapper, state)
        if values is None:
            continue
        if values:
            [pk] = mapper.primary_key_from_instance(state.obj())
            statement = _STATEMENTS.get(mapper.local_table)
            if statement is None:
                [pk_column] = mapper.primary_key
                statement = _STATEMENTS[mapper.local_table] = update(mapper.local_table).where(
                    pk_column == bindparam(_PK))
            result = prepared.execute(session, statement, {**values, _PK: pk})
            if result.rowcount != 1:  # what the unit of work says of a row gone under it
                raise StaleDataError(f"UPDATE of {mapper.local_table.name} row {pk} matched "
                                     f"{result.rowcount} rows, expected 1")
        # Flushed: as the unit of work ends a flush (UOWTransaction.finalize_flush_changes).
        state._commit_all(state.dict, session.identity_map)  # noqa: SLF001
        written += 1
    return written


def _changed_columns(mapper: Mapper[Any], state: Any) -> dict[str, Any] | None:
    """Column name -> new value of what changed, or None when the unit of work must write it.

    What the unit of work compares (persistence._collect_update_commands):
    a value equal to the loaded one is not written.
    """
    values: dict[str, Any] = {}
    props = mapper.column_attrs
    for key, old in state.committed_state.items():
        prop = props.get(key)
        if prop is None or len(prop.columns) != 1:
            return None  # a relationship or a composite changed
        column = prop.columns[0]
        if column.table is not mapper.local_table or column.primary_key:
            return None
        value = state.dict.get(key, attributes.NO_VALUE)
        if value is attributes.NO_VALUE or isinstance(value, ClauseElement) or hasattr(value, "__clause_element__"):
            return None
        if old is not attributes.NO_VALUE and state.manager[key].impl.is_equal(value, old) is True:
            continue
        values[column.key] = value
    return values
