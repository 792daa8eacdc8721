"""How much mail the server sends, to whom: the outbound side of abuse.

- Per recipient and day (Mailman's autoresponse limit, the last defence
  against robot ping-pong): an address that belongs to no account gets at
  most ``replies_per_stranger_day`` replies, an account's address at most
  ``replies_per_recipient_day``; beyond that, nothing until tomorrow.
- Replies to strangers are short (STRANGER_CHARS): anyone can set a
  Reply-To, and a 3.5 KB help or an error quoting 1,000 characters of their
  text made the server a reflector.
- At most ``outbound_per_hour`` mails an hour leave for players and
  ``outbound_strangers_per_hour`` for strangers (two pools: strangers
  cannot spend the players'); beyond it mail waits (nothing is lost) and
  ``pbmserv status`` alerts.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta

from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.pictures.cache import wanted_by
from server.store.model import Outbox, ReplyQuota
from server.store.queries import core, owner_of

log = logging.getLogger("pbmserv.quota")

#: Characters of a reply to an address that belongs to no account.
STRANGER_CHARS = 1300
STRANGER_NOTE = "\n[... cut: replies to an address without an account are short.]\n"
#: Words of a command quoted back to a stranger.
STRANGER_WORDS = 4


def is_stranger(session: Session, address: str) -> bool:
    """True when ``address`` is no confirmed address of an active account."""
    return owner_of(session, address, active_only=False) is None  # a closed account's mail is not a stranger's


def pictures_for(session: Session, address: str) -> bool:
    """Whether a reply to ``address`` carries board pictures: never a stranger's (short replies,
    no images), nor a player's who turned them off.  Asked *before* drawing: nothing is drawn
    that the reply would drop (issue 32: a stranger's ``show`` lines were drawn for nothing)."""
    return not is_stranger(session, address) and wanted_by(session, [address])


def clip_words(text: str, width: int = 24) -> str:
    """``text`` with every word longer than ``width`` cut (and marked with "...")."""
    return " ".join(w if len(w) <= width else w[:width] + "..." for w in text.split(" "))


def quote_for_stranger(shown: str) -> str:
    """The first words of a command, each clipped, for an error reply to a stranger."""
    words = shown.split()
    more = " ..." if len(words) > STRANGER_WORDS else ""
    return clip_words(" ".join(words[:STRANGER_WORDS])) + more


def short_for_stranger(body: str) -> str:
    return body if len(body) <= STRANGER_CHARS else body[:STRANGER_CHARS] + STRANGER_NOTE


def _upsert(insert):  # type: ignore[no-untyped-def]
    table = ReplyQuota.__table__
    return (insert(table)
            .values(address=bindparam("address"), day=bindparam("day"), count=bindparam("amount"))
            .on_conflict_do_update(index_elements=["address", "day"],
                                   set_={"count": table.c.count + bindparam("amount")})
            .returning(table.c.count))  # RETURNING: SQLite >= 3.35, PostgreSQL


#: The count's upsert per dialect, built once: two run for every board mail (a statement
#: built per call cost more than running it: issue 25).
_COUNT = {"postgresql": _upsert(pg_insert), "sqlite": _upsert(sqlite_insert)}


def _count_one(session: Session, address: str, day: date, amount: int = 1) -> int:
    """Add ``amount`` to the day's count for ``address``; the new count (one statement, race-free)."""
    stmt = _COUNT[session.get_bind().dialect.name]
    return core(session, stmt, {"address": address, "day": day, "amount": amount}).scalar() or 0


#: Players one account may reach by ``message`` and ``chat`` in a day ...
ACCOUNT_RECIPIENTS_DAY = 100
#: ... an account that has not played yet (three fresh accounts once sent one player 120 messages) ...
NEW_ACCOUNT_RECIPIENTS_DAY = 5
#: ... all accounts mailing from one address together ...
ADDRESS_RECIPIENTS_DAY = 100
#: ... and ``message``s one player receives in a day, from everyone.
MESSAGES_TO_USER_DAY = 30


def spend(session: Session, key: str, count: int, cap: int, refusal: str, now: datetime) -> None:
    """Count ``count`` against the day's ``cap`` for ``key``; CommandError(refusal) past it.

    The refusal rolls the count back with the command, so a refused mail costs nothing.
    """
    from server.core.errors import CommandError

    if _count_one(session, key[:320], now.date(), count) > cap:
        raise CommandError(refusal)


def spend_recipients(session: Session, userid: str, count: int, now: datetime, new: bool = False) -> None:
    """Count ``count`` recipients against the account's daily cap (``new``: one that has not played)."""
    cap = NEW_ACCOUNT_RECIPIENTS_DAY if new else ACCOUNT_RECIPIENTS_DAY
    spend(session, f"recipients-of:{userid}", count, cap,
          f"{userid} has reached today's limit of {cap} recipients for message and chat"
          + (" (an account that has not played yet)" if new else "") + "; try again tomorrow", now)


def count_today(session: Session, key: str, now: datetime) -> int:
    """Count ``key`` once more today; how often it has been counted today, this time included."""
    return _count_one(session, key[:320], now.date())


def once_a_day(session: Session, key: str, now: datetime) -> bool:
    """True the first time ``key`` is counted on a day (a confirmation request per mailbox)."""
    return count_today(session, key, now) == 1


def _upsert_rows(insert, rows: int):  # type: ignore[no-untyped-def]
    table = ReplyQuota.__table__
    stmt = insert(table).values([{"address": bindparam(f"address_{i}"), "day": bindparam("day"),
                                  "count": bindparam(f"amount_{i}")} for i in range(rows)])
    return (stmt.on_conflict_do_update(index_elements=["address", "day"],
                                       set_={"count": table.c.count + stmt.excluded.count})
            .returning(table.c.address, table.c.count))


#: The counts' upsert for several addresses at once, per dialect and number of addresses, built
#: when first asked (a move's two board mails: one statement, not two: issue 25).
_COUNT_ROWS: dict[tuple[str, int], object] = {}


def _count_many(session: Session, amounts: dict[str, int], day: date) -> dict[str, int]:
    """Add each address's amount to its count for ``day`` in one statement; the new counts.

    The keys must be distinct (PostgreSQL refuses to update one row twice in a statement),
    which the caller's dict makes so.  RETURNING gives its rows in no promised order: they
    are matched by address.
    """
    if len(amounts) == 1:
        [(address, amount)] = amounts.items()
        return {address: _count_one(session, address, day, amount)}
    dialect = session.get_bind().dialect.name
    key = (dialect, len(amounts))
    stmt = _COUNT_ROWS.get(key)
    if stmt is None:
        stmt = _COUNT_ROWS[key] = _upsert_rows(pg_insert if dialect == "postgresql" else sqlite_insert,
                                               len(amounts))
    params: dict[str, object] = {"day": day}
    for i, (address, amount) in enumerate(amounts.items()):
        params[f"address_{i}"], params[f"amount_{i}"] = address, amount
    return {row[0]: row[1] for row in core(session, stmt, params).all()}  # type: ignore[arg-type]


def admit_each(session: Session, settings: Settings, mails: list[list[str]],
               now: datetime) -> list[tuple[list[str], bool]]:
    """For each mail, its recipients still under their daily cap (counted), and whether all of
    them are strangers; the recipients of all the mails counted in one statement.

    Each address is counted once per mail it is on, as if the mails were
    admitted one after the other: an address on ``k`` mails has its count
    raised by ``k``, and its ``i``-th mail sees the count after ``i`` of
    them (so a cap crossed inside the batch drops the later mails only).
    """
    amounts: dict[str, int] = {}
    for recipients in mails:
        for address in recipients:
            key = address.lower()[:320]
            amounts[key] = amounts.get(key, 0) + 1
    counts = _count_many(session, amounts, now.date()) if amounts else {}
    seen: dict[str, int] = {}
    stranger_of: dict[str, bool] = {}
    out: list[tuple[list[str], bool]] = []
    for recipients in mails:
        kept: list[str] = []
        strangers = 0
        for address in recipients:
            key = address.lower()[:320]
            if key not in stranger_of:
                stranger_of[key] = is_stranger(session, key)
            stranger = stranger_of[key]
            strangers += stranger
            seen[key] = seen.get(key, 0) + 1
            count = (counts.get(key) or 0) - amounts[key] + seen[key]
            cap = settings.replies_per_stranger_day if stranger else settings.replies_per_recipient_day
            if count > cap:
                log.warning("reply to %s dropped: more than %d replies today", address, cap)
                continue
            kept.append(address)
        out.append((kept, bool(recipients) and strangers == len(recipients)))
    return out


def sent_last_hour(session: Session, now: datetime, stranger: bool | None = None) -> int:
    """Mails sent in the last hour: all, or one pool's (players' ``False``, strangers' ``True``)."""
    query = select(func.count()).select_from(Outbox).where(Outbox.sent_at >= now - timedelta(hours=1))
    if stranger is not None:
        query = query.where(Outbox.stranger.is_(stranger))
    return session.scalar(query) or 0


def outbound_room(session: Session, settings: Settings, now: datetime) -> tuple[int, int]:
    """Mails that may still leave this hour: (players' pool, strangers' pool); 0: that pool waits.

    Separate pools (issue 32): rotating stranger sign-ups once spent the
    one budget of 5,000 and alice's board mails then waited behind 650
    replies to strangers.  Players' mail never waits for strangers'.
    """
    players = settings.outbound_per_hour - sent_last_hour(session, now, stranger=False)
    strangers = settings.outbound_strangers_per_hour - sent_last_hour(session, now, stranger=True)
    return max(0, players), max(0, strangers)
