"""Which stored message a worker takes next: a fair queue, not first-in-first-out.

A flood from rotating senders once put 11,168 mails ahead of a player's
``show``, answered 4 min 17 s later.  So:

- mail from known senders (``Inbound.known``: the From address belongs to
  an account, or a valid reply token came with it) is taken before mail
  from strangers;
- within a tier, senders take turns (round-robin over the oldest waiting
  mail of each sender), so one busy account cannot starve another;
- strangers share a budget of mails a minute, the server's: each of its N
  worker processes has a token bucket of 1/N of it (once each had the
  whole budget: 2 workers handled 650-700 strangers' mails a minute
  against a budget of 300, issue 32); beyond it
  their mail waits, and the listener answers 450 once their backlog is
  over its bound (server/mail/inbound.py).

The turn order lives in the worker's memory: after a restart everyone
starts even, which is as fair as anything.  Correctness never rests on it:
claims still lock the row (``SKIP LOCKED`` on PostgreSQL).
"""

from __future__ import annotations

import itertools
import time
from datetime import datetime

from sqlalchemy import Connection, bindparam, false, func, or_, select
from sqlalchemy.orm import Session

from server.mail.taken import COLUMNS, Taken
from server.store.model import Inbound
from server.store.queries import core

#: A message a worker may take at ``now``: new, and not under another worker's lease.
_CLAIMABLE = (Inbound.status == "new",
              or_(Inbound.claimed_until.is_(None), Inbound.claimed_until < bindparam("now")))
#: Is any message claimable in a tier?  Built once: this runs at every wake-up of every worker.
_WAITING = select(Inbound.id).where(*_CLAIMABLE, Inbound.known == bindparam("known")).limit(1)
#: Each waiting sender's oldest claimable message in a tier and how many it has, oldest first (built once).
_HEADS = (select(Inbound.sender, func.min(Inbound.id), func.count())
          .where(*_CLAIMABLE, Inbound.known == bindparam("known"))
          .group_by(Inbound.sender)
          .order_by(func.min(Inbound.id))
          .limit(bindparam("heads")))
#: The players' tier's heads, each row also saying whether a stranger's message is claimable (an
#: uncorrelated subquery: evaluated once, not per row).  A worker that takes the players' last
#: message needs to know, and asking in the same statement saves one a move (issue 25).
_KNOWN_HEADS = _HEADS.add_columns(
    select(Inbound.id).where(*_CLAIMABLE, Inbound.known == false()).limit(1).exists().label("strangers"))
#: One message, locked, if still claimable (another worker may have taken it meanwhile): as
#: plain values (server/mail/taken.py), not an ORM object.
_TAKE = select(*COLUMNS).where(Inbound.id == bindparam("id"), *_CLAIMABLE).with_for_update(skip_locked=True)


class TokenBucket:
    """``rate`` tokens a minute, at most ``rate`` saved up."""

    def __init__(self, per_minute: float) -> None:
        self.capacity = max(1.0, float(per_minute))
        # Starts nearly empty: a restart (or a new worker process) gives strangers no big burst.
        self.tokens = min(self.capacity, 5.0)
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.capacity / 60.0)
        self.stamp = now

    def available(self) -> bool:
        self._refill()
        return self.tokens >= 1.0

    def take(self) -> None:
        self._refill()
        self.tokens -= 1.0


class FairQueue:
    """Picks the next inbound row for one worker (see the module docstring)."""

    #: Heads looked at per tier and claim; beyond that, the oldest senders go first.
    MAX_HEADS = 500

    def __init__(self, unknown_per_minute: float) -> None:
        #: After a pick: whether another message was claimable besides the one taken (either tier).
        #: A worker that knows there is none waits for its wake-up instead of asking (``waiting``).
        self.more = True
        self.turn = itertools.count()
        self.served: dict[str, int] = {}
        self.strangers = TokenBucket(unknown_per_minute)

    def waiting(self, conn: Connection, now: datetime) -> bool:
        """Whether ``pick`` could take anything now (a read: see Database.peek)."""
        for known in (True, False):
            if not known and not self.strangers.available():
                return False
            if conn.execute(_WAITING, {"now": now, "known": known}).first() is not None:
                return True
        return False

    def pick(self, session: Session, now: datetime) -> Taken | None:
        """The row to claim, locked; None when nothing may be taken now (and ``more`` set)."""
        self.more = True
        for known in (True, False):
            if not known and not self.strangers.available():
                self.more = False
                return None
            row, waiting, strangers = self._pick_tier(session, now, known)
            if row is not None:
                # More to do: another in this tier, or (taken from the players') a stranger's the
                # bucket lets through -- asked with the heads, not in a read transaction before the next claim.
                self.more = waiting > 1 or (known and strangers and self.strangers.available())
                if not known:
                    self.strangers.take()
                self.served[row.sender] = next(self.turn)
                if len(self.served) > 10 * self.MAX_HEADS:
                    self._forget()
                return row
        self.more = False
        return None

    def _pick_tier(self, session: Session, now: datetime, known: bool) -> tuple[Taken | None, int, bool]:
        """The row taken from one tier, how many were claimable in it (up to MAX_HEADS senders),
        and (players' tier) whether a stranger's message was claimable too."""
        # On the connection: nothing of the inbound table waits in the session (server.store.queries.core).
        heads = core(session, _KNOWN_HEADS if known else _HEADS,
                     {"now": now, "known": known, "heads": self.MAX_HEADS}).all()
        waiting = sum(h[2] for h in heads) if len(heads) < self.MAX_HEADS else self.MAX_HEADS + 1
        strangers = bool(heads[0][3]) if known and heads else False
        # Senders served longest ago (or never) first; among those, the oldest mail.
        order = sorted(heads, key=lambda h: (self.served.get(h[0], -1), h[1]))
        for head in order[:20]:
            row = core(session, _TAKE, {"id": head[1], "now": now}).first()
            if row is not None:
                return Taken.of(row), waiting, strangers
        return None, waiting, strangers

    def _forget(self) -> None:
        """Keep the turn table small: drop the senders served longest ago."""
        keep = sorted(self.served.items(), key=lambda kv: kv[1])[-self.MAX_HEADS:]
        self.served = dict(keep)
