"""After-the-fact checks of a server's stored state against what clients sent.

Every test that hammers a server ends here: each message answered 250 was
applied exactly once, each got exactly one reply queued, every queued reply
reached the relay, and every board replays from its move list to its state.
Each check returns the figures the test reports.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from email.policy import compat32

from sqlalchemy import func, select

import games
from server.boards import boards
from server.mail.dedupe import message_id_of
from server.store.database import Database
from server.store.model import Board, Inbound, Move, Outbox
from tests.mailtools import Sink

_HEADERS = BytesHeaderParser(policy=compat32)


def header(raw: bytes, name: str) -> str:
    value = _HEADERS.parsebytes(raw).get(name)
    return "" if value is None else str(value).strip()


@dataclass
class Figures:
    """The counts a reliability test reports (printed with ``-s``, asserted on)."""

    values: dict[str, int] = field(default_factory=dict)

    def add(self, **counts: int) -> None:
        self.values.update(counts)

    def __str__(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())


def pending_work(db: Database) -> int:
    """Inbound messages not yet handled plus replies not yet sent."""
    with db.transaction() as s:
        busy = s.scalar(select(func.count()).select_from(Inbound).where(Inbound.status == "new"))
        busy += s.scalar(select(func.count()).select_from(Outbox).where(Outbox.status == "pending"))
    return busy


def wait_settled(db: Database, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while (left := pending_work(db)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == 0, f"{left} messages/replies still pending after {timeout}s"


def audit_inbound(db: Database, accepted: set[str], commands_of: dict[str, int]) -> tuple[dict[str, Inbound], Figures]:
    """Each accepted Message-ID: one row done (its commands each applied once), the rest duplicates."""
    with db.transaction() as s:
        rows = list(s.scalars(select(Inbound).order_by(Inbound.id)))
    by_mid: dict[str, list[Inbound]] = defaultdict(list)
    for row in rows:
        assert row.status in ("done", "duplicate", "ignored"), f"inbound {row.id} left {row.status}: {row.error}"
        by_mid[message_id_of(row.raw)].append(row)
    done: dict[str, Inbound] = {}
    lost = doubled = 0
    for mid in accepted:
        finished = [r for r in by_mid.get(mid, []) if r.status == "done"]
        lost += not finished
        doubled += len(finished) > 1
        if finished:
            row = finished[0]
            assert row.commands_done == len(row.results) == commands_of[mid], (mid, row.commands_done, row.results)
            done[mid] = row
    unknown = set(by_mid) - set(commands_of)
    assert not unknown, f"stored messages nobody sent: {sorted(unknown)[:5]}"
    figures = Figures()
    figures.add(accepted=len(accepted), stored_rows=len(rows), lost=lost, doubled=doubled,
                duplicates_stored=sum(r.status == "duplicate" for r in rows))
    return done, figures


def audit_replies(db: Database, sink: Sink, accepted: set[str]) -> Figures:
    """One reply queued per accepted message; every queued mail reached the relay (at least once)."""
    with db.transaction() as s:
        out = list(s.scalars(select(Outbox).order_by(Outbox.id)))
    not_sent = [(r.id, r.status, r.last_error) for r in out if r.status != "sent"]
    assert not not_sent, f"replies not delivered: {not_sent[:5]}"
    replies = Counter(header(r.message, "In-Reply-To") for r in out)
    at_relay = Counter(header(m.raw, "Message-ID") for m in sink.messages)
    undelivered = [r.id for r in out if at_relay[header(r.message, "Message-ID")] == 0]
    unanswered = [mid for mid in accepted if replies[mid] == 0]
    answered_twice = [mid for mid in accepted if replies[mid] > 1]
    figures = Figures()
    figures.add(outbox_rows=len(out), relay_received=sum(at_relay.values()),
                relay_redelivered=sum(n - 1 for n in at_relay.values() if n > 1),
                replies_missing=len(unanswered), replies_doubled=len(answered_twice),
                undelivered=len(undelivered))
    return figures


def audit_boards(db: Database) -> Figures:
    """Moves numbered 1..ply without gaps; replaying them gives the stored state."""
    bad = []
    with db.transaction() as s:
        all_boards = list(s.scalars(select(Board).order_by(Board.id)))
        for board in all_boards:
            moves = boards.moves_of(s, board)
            if [m.ply for m in moves] != list(range(1, board.ply + 1)):
                bad.append((board.number, "plies", [m.ply for m in moves], board.ply))
                continue
            game = games.load_game(board.game)
            state = boards.replay(game, board, moves)
            if game.dump(state) != board.state:
                bad.append((board.number, "state", game.dump(state), board.state))
        move_count = s.scalar(select(func.count()).select_from(Move))
    assert not bad, f"boards that do not replay: {bad[:3]}"
    figures = Figures()
    figures.add(boards=len(all_boards), moves=move_count, replay_mismatches=len(bad))
    return figures
