"""Command latency with 1k vs 100k stored boards (does anything scan the tables?).

Run: ``python bench/bench_storage.py``.  For each size a fresh database is
filled in bulk: N active boards with their players, plus a mail history of
``--history`` handled inbound messages and sent outbox rows per board
(received and sent over the last 30 days), as a server that has run for a
while would have.  Then ``--moves`` move mails, each on a different board,
go the real way minus the network: ``server.mail.inbound.store`` (what the
listener does before its 250, rate-limit check included) and
``Worker.run_once`` (claim, parse, authenticate, rules, board mails into the
outbox, one transaction per command).  Each measured player has a password
hash of their own and moves once, so every command pays a cold argon2
verify.  Printed: median and p90 of both, and the ratio big/small (target
of issue 10: < 2x).

Knobs: --sizes/BENCH_SIZES ("1000,100000"), --moves/BENCH_MOVES (150),
--history/BENCH_HISTORY (2), --db/BENCH_DB (sqlite|postgres|both; sqlite),
--game/BENCH_GAME (interweave), --postgres-url/PBMSERV_BENCH_POSTGRES_URL.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_throughput import (  # noqa: E402
    ADDRESS,
    DEFAULT_PG,
    BenchDatabase,
    move_mail,
    percentile,
    populate,
    rehash,
)
from sqlalchemy import insert  # noqa: E402

import games  # noqa: E402
from server.core.config import Settings  # noqa: E402
from server.mail.inbound import store  # noqa: E402
from server.processes.worker import Worker  # noqa: E402
from server.store.database import Database  # noqa: E402
from server.store.model import Inbound, Outbox, utcnow  # noqa: E402


def add_history(db: Database, boards: list, per_board: int, rng: random.Random) -> None:
    """Handled inbound mail and sent replies, spread over the last 30 days."""
    now = utcnow()
    raw = b"From: x@clients.test\r\nSubject: old move\r\n\r\nold\r\n"
    chunk = 5000
    rows_in, rows_out = [], []
    with db.engine.begin() as conn:
        for i, board in enumerate(boards):
            for k in range(per_board):
                when = now - timedelta(seconds=rng.uniform(3600, 30 * 86400))
                sender = f"{board.users[k % len(board.users)]}@clients.test"
                rows_in.append({"received_at": when, "mail_from": sender, "rcpt_to": [ADDRESS],
                                "dedupe_key": f"<old.{i}.{k}@clients.test>", "raw": raw, "status": "done",
                                "tries": 0, "commands_done": 1, "results": [], "done_at": when})
                rows_out.append({"created_at": when, "envelope_from": ADDRESS, "recipients": [sender],
                                 "subject": "old reply", "message": raw, "status": "sent", "tries": 1,
                                 "next_attempt": when, "sent_at": when})
            if len(rows_in) >= chunk:
                conn.execute(insert(Inbound), rows_in)
                conn.execute(insert(Outbox), rows_out)
                rows_in, rows_out = [], []
        if rows_in:
            conn.execute(insert(Inbound), rows_in)
            conn.execute(insert(Outbox), rows_out)


def measure(kind: str, size: int, args: argparse.Namespace, game: games.Game, workdir: Path) -> dict[str, list[float]]:
    bdb = BenchDatabase(kind, args.postgres_url, workdir)
    rng = random.Random(size)
    try:
        started = time.perf_counter()
        boards = populate(bdb.db, game, size, rng, own_hashes=False)
        add_history(bdb.db, boards, args.history, rng)
        if kind == "postgres":
            with bdb.db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("ANALYZE")
        filled = time.perf_counter() - started
        settings = Settings(database_url=bdb.url, addresses=[ADDRESS])
        worker = Worker(bdb.db, settings)
        chosen = rng.sample(boards, min(args.moves + 10, len(boards)))
        rehash(bdb.db, chosen)  # each measured move pays a cold argon2 verify, as a first move would
        store_ms, work_ms = [], []
        for i, board in enumerate(chosen):
            mail = move_mail(game, board, rng)
            assert mail is not None
            sender, _, data = mail
            t0 = time.perf_counter()
            store(bdb.db, data, sender, [ADDRESS], settings.rate_limit)
            t1 = time.perf_counter()
            if not worker.run_once():
                raise RuntimeError("the worker found nothing to do")
            t2 = time.perf_counter()
            if i >= 10:  # the first few warm caches and connections
                store_ms.append((t1 - t0) * 1000)
                work_ms.append((t2 - t1) * 1000)
        with bdb.db.transaction() as session:
            from sqlalchemy import func, select

            refused = session.scalar(select(func.count()).select_from(Outbox)
                                     .where(Outbox.status == "pending", Outbox.subject.like("%Error%")))
        if refused:
            raise RuntimeError(f"{refused} moves were refused: the benchmark is out of step with the rules")
        print(f"{kind:<9} {size:>7} boards (+{args.history * size} inbound and outbox rows; filled in {filled:.0f} s): "
              f"store median {statistics.median(store_ms):6.2f} ms p90 {percentile(store_ms, 90):6.2f} | "
              f"worker median {statistics.median(work_ms):6.2f} ms p90 {percentile(work_ms, 90):6.2f}")
        return {"store": store_ms, "work": work_ms}
    finally:
        bdb.close()


def main(argv: list[str] | None = None) -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=env("BENCH_SIZES", "1000,100000"))
    parser.add_argument("--moves", type=int, default=int(env("BENCH_MOVES", "150")))
    parser.add_argument("--history", type=int, default=int(env("BENCH_HISTORY", "2")))
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default=env("BENCH_DB", "sqlite"))
    parser.add_argument("--game", default=env("BENCH_GAME", "interweave"))
    parser.add_argument("--postgres-url", default=env("PBMSERV_BENCH_POSTGRES_URL", DEFAULT_PG))
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    game = games.load_game(args.game)
    workdir = Path(tempfile.mkdtemp(prefix="pbmserv-bench-storage-"))
    print(f"game {game.name}; {args.moves} moves by mail per size, each on another board, "
          f"through inbound.store + Worker.run_once")
    missed = False
    for kind in (["sqlite", "postgres"] if args.db == "both" else [args.db]):
        results = {size: measure(kind, size, args, game, workdir) for size in sizes}
        small, big = results[sizes[0]], results[sizes[-1]]
        for part in ("store", "work"):
            ratio = statistics.median(big[part]) / statistics.median(small[part])
            missed |= ratio >= 2
            print(f"{kind:<9} {part:<5} median {sizes[-1]} / {sizes[0]} boards = {ratio:.2f}x (target < 2x)")
        total = [s + w for s, w in zip(big["store"], big["work"], strict=True)]
        total_small = [s + w for s, w in zip(small["store"], small["work"], strict=True)]
        print(f"{kind:<9} whole command median {statistics.median(total_small):.2f} ms -> "
              f"{statistics.median(total):.2f} ms = {statistics.median(total) / statistics.median(total_small):.2f}x")
    for p in workdir.glob("*"):
        p.unlink()
    workdir.rmdir()
    print("targets: " + ("MISSED (see above)" if missed else "all met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
