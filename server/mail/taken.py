"""A claimed inbound row as plain values, read and written with one Core statement each.

The worker reads a claimed mail's row once and writes it back once per
command.  As an ORM object that cost ~0.46 ms a mail (the entity load and the
unit of work's flush); as a row and one UPDATE ~0.17 ms (issue 25).  Nothing
else in a command's transaction reads the row, so no identity map is needed:
:meth:`Taken.save` writes what the worker set, in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, select, update
from sqlalchemy.orm import Session

from server.store.model import Inbound
from server.store.queries import core

_TABLE = Inbound.__table__
#: The columns a worker reads (all but the timestamps and size it never looks at).
_COLUMNS = [_TABLE.c[name] for name in (
    "id", "mail_from", "rcpt_to", "sender", "known", "dedupe_key", "raw", "status", "tries", "commands_done",
    "results", "claimed_by", "claimed_until", "error", "done_at")]
#: One row by id, locked (FOR UPDATE: PostgreSQL; SQLite's write lock is already held).
_LOCKED = select(*_COLUMNS).where(_TABLE.c.id == bindparam("id")).with_for_update()
#: What a worker changes: everything but the mail itself, which only ``slim`` shortens (its own UPDATE).
_CHANGED = ("status", "tries", "commands_done", "results", "claimed_by", "claimed_until", "error", "done_at")
_SAVE = (update(_TABLE).where(_TABLE.c.id == bindparam("row_id"))
         .values({name: bindparam(name) for name in _CHANGED}))
_SAVE_SLIM = (update(_TABLE).where(_TABLE.c.id == bindparam("row_id"))
              .values({name: bindparam(name) for name in (*_CHANGED, "raw")}))


@dataclass
class Taken:
    """An inbound row claimed by a worker (the attributes of :class:`Inbound` it uses)."""

    id: int
    mail_from: str
    rcpt_to: list[Any]
    sender: str
    known: bool
    dedupe_key: str
    raw: bytes
    status: str
    tries: int
    commands_done: int
    results: list[Any]
    claimed_by: str | None
    claimed_until: datetime | None
    error: str | None
    done_at: datetime | None

    @classmethod
    def of(cls, row: Row[Any]) -> Taken:
        taken = cls(*row)
        taken.results = list(taken.results or [])
        taken.rcpt_to = list(taken.rcpt_to or [])
        taken._raw = taken.raw  # type: ignore[attr-defined]
        return taken

    def save(self, session: Session) -> None:
        """Write the worker's changes (and the shortened mail, if ``slim`` shortened it)."""
        values = {name: getattr(self, name) for name in _CHANGED}
        if self.raw is not self._raw:  # type: ignore[attr-defined]
            core(session, _SAVE_SLIM, {"row_id": self.id, **values, "raw": self.raw})
            self._raw = self.raw  # type: ignore[attr-defined]
        else:
            core(session, _SAVE, {"row_id": self.id, **values})


def columns() -> list[Any]:
    """The columns :meth:`Taken.of` expects, in order (for a caller's own select)."""
    return list(_COLUMNS)


def lock(session: Session, inbound_id: int) -> Taken | None:
    """The row ``inbound_id``, locked, in the caller's transaction; None if it is gone."""
    row = core(session, _LOCKED, {"id": inbound_id}).first()
    return Taken.of(row) if row is not None else None
