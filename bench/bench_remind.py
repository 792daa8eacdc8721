"""``pbmserv remind`` over many stored boards: how long does a cron run take?

Run: ``python bench/bench_remind.py``.  A fresh database is filled in bulk
with N active boards (default 100,000) of the tiny test game between 1,000
players, whose clocks are spread so that most boards are within their nag
time, about 10% are due a reminder, about 2% are past their forfeit time
(those have two moves stored, so the forfeit is a real finish with ratings),
1% of players are on vacation and 10% take a digest.  Then:

1. a dry run (plan only, nothing written);
2. the real run (reminders, digests and forfeits, mail into the outbox);
3. the same run again at the same moment: it must send nothing (idempotence).

Printed: boards checked, what was done, seconds per phase, boards checked per
second.  Figures only; nothing here is asserted as a timing.

Knobs: BENCH_REMIND_BOARDS (100000), BENCH_REMIND_DB (sqlite|postgres;
sqlite), PBMSERV_BENCH_POSTGRES_URL (postgresql://postgres@127.0.0.1:5432/test;
a schema of its own is created and dropped).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, func, insert, select, text  # noqa: E402

import games  # noqa: E402
from server.boards.timers import Reminders  # noqa: E402
from server.core.config import Settings  # noqa: E402
from server.store.database import Database  # noqa: E402
from server.store.model import Address, Board, Move, Outbox, Reminder, Seat, User, utcnow  # noqa: E402
from tests.tictactoe import GAME as TICTACTOE  # noqa: E402

BOARDS = int(os.environ.get("BENCH_REMIND_BOARDS", "100000"))
WHICH = os.environ.get("BENCH_REMIND_DB", "sqlite")
PG = os.environ.get("PBMSERV_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
USERS = 1000
CHUNK = 5000


def populate(db: Database, n: int, now, rng: random.Random) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Users, boards, seats (and moves for the boards about to forfeit), inserted in bulk."""
    counts = {"fresh": 0, "nag": 0, "forfeit": 0}
    fresh_state = TICTACTOE.dump(TICTACTOE.start({}, 2))
    played = TICTACTOE.dump(TICTACTOE.play(TICTACTOE.play(TICTACTOE.start({}, 2), 0, "b2"), 1, "a1"))
    with db.engine.begin() as conn:
        conn.execute(insert(User), [
            {"id": i + 1, "userid": f"p{i:04d}", "password_hash": "x", "active": True,
             "vacation": i % 100 == 0, "digest": i % 10 == 1, "challenge_policy": "accept", "created_at": now}
            for i in range(USERS)])
        conn.execute(insert(Address), [{"user_id": i + 1, "address": f"p{i:04d}@players.test"} for i in range(USERS)])
        boards, seats, moves = [], [], []
        for b in range(1, n + 1):
            roll = rng.random()
            if roll < 0.02:
                kind, waited = "forfeit", rng.uniform(21.0, 30.0)
            elif roll < 0.12:
                kind, waited = "nag", rng.uniform(7.0, 20.9)
            else:
                kind, waited = "fresh", rng.uniform(0.0, 6.9)
            counts[kind] += 1
            ply = 2 if kind == "forfeit" else 0
            boards.append({"id": b, "game": "tictactoe", "number": 100 + b, "options": {},
                           "state": played if ply else fresh_state, "ply": ply, "to_move": 0, "status": "active",
                           "pending": {}, "nagtime": 7.0, "forfeittime": 21.0, "created_at": now,
                           "turn_since": now - timedelta(days=waited), "reminders_sent": 0})
            first, second = rng.sample(range(1, USERS + 1), 2)
            seats += [{"board_id": b, "seat": 0, "user_id": first}, {"board_id": b, "seat": 1, "user_id": second}]
            if ply:
                moves += [{"board_id": b, "ply": 1, "seat": 0, "move": "b2", "played_at": now},
                          {"board_id": b, "ply": 2, "seat": 1, "move": "a1", "played_at": now}]
            if len(boards) >= CHUNK:
                conn.execute(insert(Board), boards)
                conn.execute(insert(Seat), seats)
                boards, seats = [], []
        if boards:
            conn.execute(insert(Board), boards)
            conn.execute(insert(Seat), seats)
        if moves:
            conn.execute(insert(Move), moves)
    return counts


def run(url: str) -> None:
    games.register(TICTACTOE)
    db = Database(url)
    db.upgrade()
    settings = Settings(database_url=url, addresses=["pbmserv@bench.test"])
    now = utcnow()
    started = time.perf_counter()
    expected = populate(db, BOARDS, now, random.Random(7))
    print(f"{WHICH}: {BOARDS} boards stored in {time.perf_counter() - started:.1f} s "
          f"(clocks: {expected['fresh']} fresh, {expected['nag']} past nag time, "
          f"{expected['forfeit']} past forfeit time)")

    reminders = Reminders(db, settings, now)
    t0 = time.perf_counter()
    checked, due = reminders.plan()
    t_plan = time.perf_counter() - t0
    dry = reminders.execute(checked, due, dry_run=True)
    print(f"  plan (one query over every active board): {t_plan:.2f} s, {checked / t_plan:,.0f} boards/s; "
          f"{len(due)} due")
    print(f"  dry run: {dry.line()}")

    t0 = time.perf_counter()
    summary = reminders.run()
    t_run = time.perf_counter() - t0
    print(f"  real run: {t_run:.2f} s ({checked / t_run:,.0f} boards checked/s, "
          f"{(summary.reminded + summary.forfeited) / max(t_run, 1e-9):,.0f} boards acted on/s)")
    print(f"    {summary.line()}")

    t0 = time.perf_counter()
    again = Reminders(db, settings, now).run()
    t_again = time.perf_counter() - t0
    print(f"  same moment again: {t_again:.2f} s; {again.line()}")
    with db.transaction() as s:
        rows = s.scalar(select(func.count()).select_from(Reminder))
        queued = s.scalar(select(func.count()).select_from(Outbox))
    print(f"  stored: {rows} reminder rows, {queued} mails in the outbox")
    if again.reminded or again.forfeited or again.mails:
        print("  ERROR: the second run at the same moment did something", file=sys.stderr)
        sys.exit(1)
    db.dispose()


def main() -> None:
    if WHICH == "postgres":
        schema = "bench_" + uuid.uuid4().hex[:10]
        base = PG.replace("postgresql://", "postgresql+psycopg://", 1)
        admin = create_engine(base, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        try:
            run(f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}")
        finally:
            with admin.connect() as conn:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
            admin.dispose()
    else:
        with tempfile.TemporaryDirectory() as tmp:
            run(f"sqlite:///{Path(tmp) / 'bench.db'}")


if __name__ == "__main__":
    main()
