"""A claimed inbound row as plain values, read and written with one Core statement each.

The worker reads a claimed mail's row once and writes it back once per
command.  As an ORM object that cost ~0.46 ms a mail (the entity load and the
unit of work's flush); as a row and one UPDATE ~0.17 ms (issue 25).  Nothing
else in a command's transaction reads the row, so no identity map is needed:
:meth:`Taken.save` writes what the worker set, in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, select, update
from sqlalchemy.orm import Session

from server.store.model import Inbound
from server.store.queries import core

_TABLE = Inbound.__table__
#: The columns a worker reads, in :class:`Taken`'s order (all but the timestamps and size it never
#: looks at, and COPIED below); a caller's own select of them (the fair queue's) makes a Taken
#: with ``Taken.of``.
COLUMNS = tuple(_TABLE.c[name] for name in (
    "id", "mail_from", "rcpt_to", "sender", "known", "dedupe_key", "raw", "status", "tries", "commands_done",
    "results", "claimed_by", "claimed_until", "error", "done_at"))
_EARLIER = _TABLE.alias("earlier")
#: Whether an earlier row holds a copy of this mail (same Message-ID, sender and content: the
#: dedupe key) that was not shunted: asked with the row itself, not in a statement of its own (a
#: claim is on every mail's path: issue 25).  A correlated EXISTS on the key's index.
COPIED = (select(_EARLIER.c.id)
          .where(_EARLIER.c.dedupe_key == _TABLE.c.dedupe_key, _EARLIER.c.id < _TABLE.c.id,
                 _EARLIER.c.status != "shunted")
          .limit(1).exists().label("copied"))
COLUMNS = (*COLUMNS, COPIED)
#: One row by id, locked (FOR UPDATE: PostgreSQL; SQLite's write lock is already held).
_LOCKED = select(*COLUMNS).where(_TABLE.c.id == bindparam("id")).with_for_update()
#: What a worker changes: everything but the mail itself, which only ``slim`` shortens.
_CHANGED = ("status", "tries", "commands_done", "results", "claimed_by", "claimed_until", "error", "done_at")


def _save(names: tuple[str, ...]):  # type: ignore[no-untyped-def]
    return update(_TABLE).where(_TABLE.c.id == bindparam("row_id")).values({n: bindparam(n) for n in names})


#: The row's UPDATE: the worker's changes, and with them the mail when ``slim`` shortened it.
_SAVE = {False: _save(_CHANGED), True: _save((*_CHANGED, "raw"))}


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
    #: An earlier, not shunted row holds the same mail (COPIED): this one is a duplicate.
    copied: bool = False
    #: The mail as stored: ``save`` writes ``raw`` only once ``slim`` has replaced it.
    stored_raw: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.results = list(self.results or [])
        self.rcpt_to = list(self.rcpt_to or [])
        self.stored_raw = self.raw

    @classmethod
    def of(cls, row: Row[Any]) -> Taken:
        """The row of a select of ``COLUMNS``."""
        return cls(*row)

    @classmethod
    def lock(cls, session: Session, inbound_id: int) -> Taken | None:
        """The row ``inbound_id``, locked, in the caller's transaction; None if it is gone."""
        row = core(session, _LOCKED, {"id": inbound_id}).first()
        return cls.of(row) if row is not None else None

    def save(self, session: Session) -> None:
        """Write the worker's changes (and the shortened mail, if ``slim`` shortened it)."""
        slimmed = self.raw is not self.stored_raw
        values = {name: getattr(self, name) for name in (*_CHANGED, "raw") if name != "raw" or slimmed}
        core(session, _SAVE[slimmed], {"row_id": self.id, **values})
        self.stored_raw = self.raw
