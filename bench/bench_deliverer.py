"""The deliverer's CPU per move, in one process: ``Deliverer.run_once`` against a real relay (issue 25).

Each move queues two mails of a board mail's size (one transaction, as a
worker does), then calls ``run_once`` until it returns 0, as the delivery
loop of ``serve`` does, and counts the thread CPU (``time.thread_time``) of
those calls alone: no PNG (the mails have no pictures to draw), no queueing,
no relay (an aiosmtpd sink in another process).  A few milliseconds pass
between moves, as between the moves of ``bench_throughput.py``.

    python3 bench/bench_deliverer.py [--moves 400] [--parts] [--profile FILE] [--once] [--submission]

``--parts``: the CPU of claim, mark, peek, connect and send apiece;
``--profile``: a cProfile (thread CPU) of the measured moves;
``--once``: one ``run_once`` a move, as a delivery loop that knew the batch
took every due row would call it (what the second peek costs);
``--submission``: a provider's submission server (STARTTLS, AUTH) as the relay.
Run it from two worktrees in turn to compare them: it imports the tree it is in.
"""

from __future__ import annotations

import argparse
import base64
import cProfile
import gc
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PASSWORD = "bench-secret"


def sink(port: Any, ready: Any, tls: tuple[str, str] | None) -> None:
    """A relay that takes everything (in its own process: its CPU is not the deliverer's);
    with ``tls`` (certificate, key) a provider's submission server: STARTTLS and login required."""
    if tls:
        from tests.server.mail.submission import Submission

        server = Submission(Path(tls[0]), Path(tls[1]), "club", PASSWORD)
        server.start()
        port.value = server.port
    else:
        from aiosmtpd.controller import Controller

        class Taker:
            async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
                return "250 OK"

        Controller(Taker(), hostname="127.0.0.1", port=port.value).start()
    ready.set()
    while True:
        time.sleep(3600)


def board_mail(size: int) -> bytes:
    """A mail of a board mail's size with its picture in (Warp and Weft's: about 26 KB)."""
    text = b"A line of the board and of the move's text, as in a board mail.\r\n" * 40
    blob = base64.encodebytes(os.urandom(max(0, size - len(text) - 400) * 3 // 4)).replace(b"\n", b"\r\n")
    return (b"From: pbmserv@games.test\r\nTo: alice@example.org\r\nSubject: board\r\n"
            b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
            b"--b\r\nContent-Type: text/plain\r\n\r\n" + text +
            b"--b\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\n" + blob + b"--b--\r\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--size", type=int, default=26_000, help="bytes a mail")
    parser.add_argument("--gap", type=float, default=0.005, help="seconds between moves")
    parser.add_argument("--parts", action="store_true")
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--submission", action="store_true",
                        help="a provider's port 587 (STARTTLS and AUTH) instead of a plain relay")
    args = parser.parse_args()

    from server.core.config import Settings
    from server.mail import outbox
    from server.mail.replies import _INSERT_OUTBOX
    from server.store.database import Database
    from tests.mailtools import free_port

    port = multiprocessing.Value("i", free_port())
    ready = multiprocessing.Event()
    folder = Path(tempfile.mkdtemp())
    tls = None
    if args.submission:
        from tests.server.mail.dovecot import make_certificate

        tls = tuple(str(p) for p in make_certificate(folder))
        os.environ["SSL_CERT_FILE"] = tls[0]
        os.environ["PBMSERV_RELAY_PASSWORD"] = PASSWORD
    relay = multiprocessing.Process(target=sink, args=(port, ready, tls), daemon=True)
    relay.start()
    ready.wait(10)
    address = f"smtp://club@127.0.0.1:{port.value}" if tls else f"127.0.0.1:{port.value}"
    url = f"sqlite:///{folder}/deliverer.db"
    db = Database(url)
    db.upgrade()
    settings = Settings(database_url=url, addresses=["pbmserv@games.test"], relay=address)
    deliverer = outbox.Deliverer(db, settings, "bench")
    parts: Counter[str] = Counter()

    def timed(owner: Any, name: str, label: str) -> None:
        original: Callable[..., Any] = getattr(owner, name)

        def wrapper(*a: Any, **k: Any) -> Any:
            began = time.thread_time()
            try:
                return original(*a, **k)
            finally:
                parts[label] += time.thread_time() - began

        setattr(owner, name, wrapper)

    if args.parts:
        for owner, name in ((deliverer, "claim"), (deliverer, "_mark_sent"), (db, "peek"),
                            (outbox.submission, "connect"), (deliverer, "_send")):
            timed(owner, name, name.strip("_"))
    message = board_mail(args.size)
    gc.collect()
    gc.freeze()  # as serve does before it forks (tune_gc)

    def move() -> float:
        with db.transaction() as session:
            for who in ("alice@example.org", "bob@example.org"):
                session.execute(_INSERT_OUTBOX, dict(envelope_from=settings.sender_address, recipients=[who],
                                                      subject="board", message=message, status="pending",
                                                      pictures=None, stranger=False))
        began = time.thread_time()
        while deliverer.run_once() and not args.once:
            pass
        return time.thread_time() - began

    for _ in range(args.warmup):
        move()
    parts.clear()
    profiler = cProfile.Profile(time.thread_time) if args.profile else None
    if profiler:
        profiler.enable()
    total = 0.0
    for _ in range(args.moves):
        total += move()
        time.sleep(args.gap)
    if profiler:
        profiler.disable()
        profiler.dump_stats(str(args.profile))
    relay.kill()
    print(f"{ROOT.name}: deliverer {total / args.moves * 1000:.2f} ms thread CPU a move "
          f"({args.moves} moves of two {len(message) // 1000} KB mails{' over STARTTLS and AUTH' if tls else ''}; "
          f"load {os.getloadavg()[0]:.1f})")
    for label, seconds in parts.most_common():
        print(f"  {label}: {seconds / args.moves * 1000:.2f} ms")


if __name__ == "__main__":
    main()
