"""CPU per incoming mail of the listener alone, next to a bare aiosmtpd sink (issue 25).

Run: ``python bench/bench_listener.py [--mails 1000] [--rounds 3] [--clients 4] [--profile]``.

The listener of ``pbmserv serve`` (its aiosmtpd session, the handler's
guards, the store thread's group commit on a real SQLite file with
``synchronous=FULL``, the workers' wake-up) runs in a process of its own,
set up as ``serve`` sets it up (settings, ``tune_gc``); no worker or
deliverer runs, so what is measured is the listener's own CPU per mail,
without the write lock's contention.  The clients (this process) send
move-like replies of players with accounts, one SMTP connection per mail,
as ``bench_throughput.py`` does.  Rounds alternate listener and sink; each
prints the process's CPU (user + system, psutil) per mail and its split by
thread (event loop, store thread).  ``--profile`` records the listener
with py-spy (CPU samples only) and prints its top frames.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from email.message import EmailMessage
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

ADDRESS = "pbmserv@bench.test"


def serve_listener(url: str, port: int) -> None:
    """The child: the listener as ``serve`` builds it, until killed."""
    import multiprocessing

    from server.core.config import Settings
    from server.mail.listener import InboundHandler, Listener
    from server.processes.serve import Signal, tune_gc
    from server.store.database import Database

    settings = Settings(database_url=url, addresses=[ADDRESS], listen=f"127.0.0.1:{port}", rate_limit=1000000)
    db = Database(url, settings.busy_timeout)
    ready = Signal(multiprocessing.get_context("fork"))
    listener = Listener(InboundHandler(db, settings, ready.set), settings)
    tune_gc()
    listener.start()
    threading.Event().wait()


def serve_sink(port: int, uvloop: bool = False) -> None:
    """The child: aiosmtpd's bare sink (what bench_throughput calls the ceiling), on asyncio's loop or uvloop's."""
    import asyncio

    from aiosmtpd.controller import Controller
    from bench_throughput import NullHandler

    loop = __import__("uvloop").new_event_loop() if uvloop else asyncio.new_event_loop()
    Controller(NullHandler(), loop=loop, hostname="127.0.0.1", port=port, server_hostname="sink.bench.test").start()
    threading.Event().wait()


def mails(count: int, users: list[str], rng: random.Random) -> list[tuple[str, str, bytes]]:
    """(sender, recipient, bytes) of ``count`` replies like a player's move by reply."""
    from bench_throughput import SMTP_POLICY

    out = []
    for i in range(count):
        user = rng.choice(users)
        msg = EmailMessage()
        msg["From"] = f"{user}@clients.test"
        msg["Message-ID"] = f"<{rng.getrandbits(64):x}.{i}@clients.test>"
        rcpt = f"pbmserv+{rng.getrandbits(80):x}@bench.test"
        msg["To"] = rcpt
        msg["Subject"] = f"Re: Warp and Weft Board {100 + i % 24} {user}"
        msg.set_content(f"a{i % 7}b{i % 5}\n\nOn Friday, pbmserv wrote:\n> It is {user}'s move (move #{i}).\n"
                        "> Reply with your move on the first line, or use the move command and password.\n")
        out.append((f"{user}@clients.test", rcpt, msg.as_bytes(policy=SMTP_POLICY)))
    return out


def send_all(port: int, batch: list[tuple[str, str, bytes]], clients: int) -> None:
    from bench_throughput import send_timed

    it = iter(batch)
    lock = threading.Lock()

    def client() -> None:
        while True:
            with lock:
                item = next(it, None)
            if item is None:
                return
            send_timed(port, *item)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def thread_cpu(proc: psutil.Process) -> dict[int, float]:
    return {t.id: t.user_time + t.system_time for t in proc.threads()}


def measure(kind: str, port: int, proc: subprocess.Popen, batch: list, clients: int) -> str:
    ps = psutil.Process(proc.pid)
    send_all(port, batch[:50], clients)  # warm-up: imports, caches, the connection pool
    before, threads_before = ps.cpu_times(), thread_cpu(ps)
    send_all(port, batch[50:], clients)
    after, threads_after = ps.cpu_times(), thread_cpu(ps)
    n = len(batch) - 50
    total = (after.user + after.system - before.user - before.system) / n * 1000
    per_thread = sorted(((threads_after[t] - threads_before.get(t, 0.0)) / n * 1000 for t in threads_after),
                        reverse=True)
    split = " / ".join(f"{ms:.2f}" for ms in per_thread if ms >= 0.01)
    return f"{kind:8s} {total:5.2f} ms a mail (threads: {split}; load {os.getloadavg()[0]:.2f})"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(kind: str, url: str) -> tuple[int, subprocess.Popen]:
    from bench_throughput import wait_port

    port = free_port()
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_listener as b; "
    code += (f"b.serve_listener({url!r}, {port})" if kind == "listener" else
             f"b.serve_sink({port}, uvloop={kind == 'sink-uv'})")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=str(ROOT))
    wait_port(port, proc)
    return port, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--profile", action="store_true", help="py-spy the listener (last round)")
    parser.add_argument("--kinds", default="listener,sink",
                        help="what each round runs, in order: listener, sink, sink-uv (the sink on uvloop, if installed)")
    args = parser.parse_args()

    from bench_throughput import populate

    import games
    from server.store.database import Database

    work = Path(tempfile.mkdtemp(prefix="pbmserv-bench-listener-"))
    url = f"sqlite:///{work / 'bench.db'}"
    db = Database(url)
    db.upgrade()
    rng = random.Random(25)
    game = games.load_game("warpandweft")
    boards = populate(db, game, 24, rng, own_hashes=False)
    db.dispose()
    users = [u for b in boards for u in b.users]
    print(f"python {sys.version.split()[0]}, {args.mails} mails a round, {args.clients} clients, "
          f"one connection a mail; {work}")
    for r in range(args.rounds):
        for kind in args.kinds.split(","):
            port, proc = start(kind, url)
            spy = None
            if args.profile and kind == "listener" and r == args.rounds - 1:
                spy = subprocess.Popen(["py-spy", "record", "--pid", str(proc.pid), "--rate", "500", "--format",
                                        "raw", "-o", str(work / "profile.txt")],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1)
            try:
                print(measure(kind, port, proc, mails(args.mails + 50, users, rng), args.clients), flush=True)
            finally:
                if spy is not None:
                    spy.send_signal(signal.SIGINT)
                    spy.wait(timeout=30)
                proc.kill()
                proc.wait()
    if args.profile:
        from bench_throughput import top_frames

        print(top_frames(work / "profile.txt", 25))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
