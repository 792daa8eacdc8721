"""End-to-end throughput and latency of ``pbmserv serve``, next to a bare aiosmtpd sink.

Run: ``python bench/bench_throughput.py`` (both databases; ``--db sqlite`` or
``--db postgres`` for one).  What is measured, all in the same run:

* ceiling: a bare aiosmtpd sink in its own process that answers 250 to
  everything, fed by the same client threads with the same mails, one SMTP
  connection per message.  That is the most this stack can take in.
* peak: ``pbmserv serve`` in its own process (exactly what an admin runs)
  with a real SQLite file or a fresh PostgreSQL schema, fed move mails
  (``GAME move BOARD USER PASSWORD MOVE#N``) on many boards by the same
  clients, one connection per message.  A command counts once it is
  committed, applied by the rules, and its reply (plus the other player's
  board mail) has reached the relay sink.  Rate = commands / seconds from
  the first send to the last reply.
* latency at half the peak rate (open loop: sends on a fixed schedule):
  from the end of DATA (the client has sent the final ``.``) to the reply
  carrying ``In-Reply-To: <that message>`` arriving at the relay; p50/p99.

* CPU per command: user + system time of every server process (``serve``
  and the worker and delivery processes it forks, found with psutil) over
  the peak run, against the sink's CPU per message.
* scale-out (PostgreSQL): the same peak run against two ``serve``
  processes on the one database, clients alternating between them.

Knobs (flag or env): --clients/BENCH_CLIENTS (8), --commands/BENCH_COMMANDS
(600 for the peak run), --latency-commands/BENCH_LATENCY_COMMANDS (300),
--boards/BENCH_BOARDS (64), --cold (no warm-up round), --warmup/BENCH_WARMUP
(5 moves per player first), --workers/BENCH_WORKERS (serve --workers; default
the server's), --no-pictures/BENCH_PICTURES=0 (players turned board pictures
off), --no-scaleout/BENCH_SCALEOUT=0, --game/BENCH_GAME (interweave),
--postgres-url/PBMSERV_BENCH_POSTGRES_URL (postgresql://postgres@127.0.0.1:5432/test),
--profile (py-spy of every server process; top frames per part printed).
Moves go by reply by default (issue 25): the client answers the board mail's
personal Reply-To with the move on the first line, no password, as players
play now; ``--password``/BENCH_PASSWORD=1 sends the full command with the
password instead (the old path).  A board is free for its next move once
the mover's reply and the next player's board mail (with their new reply
address) have reached the relay.  The CPU per command is printed per
process (listener, each worker, the deliverer) with the load average.
Targets (issue 25): server CPU per move <= 6 ms; peak >= 0.20 of the sink
(SQLite), >= 0.15 (PostgreSQL); p99 < 100 ms at half the peak.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import re
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aiosmtpd.controller import Controller  # noqa: E402
from sqlalchemy import create_engine, insert, select, text  # noqa: E402

import games  # noqa: E402
from server.accounts.passwords import hash_password  # noqa: E402
from server.store.database import Database  # noqa: E402
from server.store.model import Address, Board, Seat, User  # noqa: E402

ADDRESS = "pbmserv@bench.test"
PASSWORD = "bench-pw1"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
_IRT = re.compile(rb"^In-Reply-To:\s*(<[^>\r\n]+>)", re.MULTILINE | re.IGNORECASE)
_SUBJECT = re.compile(rb"^Subject:([^\r\n]*)", re.MULTILINE | re.IGNORECASE)
_REPLY_TO = re.compile(rb"^Reply-To:\s*([^\s]+)", re.MULTILINE | re.IGNORECASE)
_BOARD_NO = re.compile(rb"Board (\d+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen | None = None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


# -- databases ---------------------------------------------------------------
class BenchDatabase:
    """A fresh SQLite file or a fresh PostgreSQL schema, removed afterwards."""

    def __init__(self, kind: str, postgres_url: str, workdir: Path) -> None:
        self.kind = kind
        self._admin = None
        if kind == "sqlite":
            self.url = f"sqlite:///{workdir / ('bench-' + uuid.uuid4().hex[:8] + '.db')}"
        else:
            self.schema = "bench_" + uuid.uuid4().hex[:10]
            base = postgres_url.replace("postgresql://", "postgresql+psycopg://", 1)
            self._admin = create_engine(base, isolation_level="AUTOCOMMIT")
            with self._admin.connect() as conn:
                conn.execute(text(f"CREATE SCHEMA {self.schema}"))
            sep = "&" if "?" in postgres_url else "?"
            self.url = f"{postgres_url}{sep}options=-csearch_path%3D{self.schema}"
        self.db = Database(self.url)
        self.db.upgrade()

    def close(self) -> None:
        self.db.dispose()
        if self._admin is not None:
            with self._admin.connect() as conn:
                conn.execute(text(f"DROP SCHEMA {self.schema} CASCADE"))
            self._admin.dispose()


@dataclass
class BenchBoard:
    """One board the clients play on, mirrored locally to pick legal moves."""

    number: int
    users: list[str]
    state: Any
    ply: int = 0
    #: Reply path: each player's latest reply address (from the board mails at the relay).
    reply_to: dict[str, str] = field(default_factory=dict)
    #: (the move mail's Message-ID, its reply seen, the next player's new reply address seen)
    waiting: list[Any] = field(default_factory=list)


def populate(db: Database, game: games.Game, count: int, rng: random.Random, start_number: int = 101,
             prefix: str = "p", own_hashes: bool = True) -> list[BenchBoard]:
    """``count`` boards of ``game``, each with its own players, inserted in bulk.

    Every board starts from the game's initial position.  With ``own_hashes``
    every player gets a password hash of their own (own salt), as after real
    signups, so a player's first move pays the full argon2 verify; without
    it (bulk fill of 100k boards) players share one hash, and the caller
    gives the players it measures their own (see :func:`rehash`).
    """
    options = game.parse_options([])
    state = game.start(options, game.players)
    dumped = game.dump(state)
    pw_hash = hash_password(PASSWORD)
    out: list[BenchBoard] = []
    chunk = 2000
    with db.engine.begin() as conn:
        user_id = conn.execute(text("SELECT COALESCE(MAX(id), 0) FROM users")).scalar_one() + 1
        board_id = conn.execute(text("SELECT COALESCE(MAX(id), 0) FROM boards")).scalar_one() + 1
        for first in range(0, count, chunk):
            users, addrs, boards, seats = [], [], [], []
            for i in range(first, min(count, first + chunk)):
                names = [f"{prefix}{i}s{s}" for s in range(game.players)]
                for seat, name in enumerate(names):
                    users.append({"id": user_id, "userid": name, "active": True,
                                  "password_hash": hash_password(PASSWORD) if own_hashes else pw_hash,
                                  "vacation": False, "digest": False, "challenge_policy": "accept"})
                    addrs.append({"user_id": user_id, "address": f"{name}@clients.test"})
                    seats.append({"board_id": board_id, "seat": seat, "user_id": user_id})
                    user_id += 1
                boards.append({"id": board_id, "game": game.name, "number": start_number + i, "options": options,
                               "state": dumped, "ply": 0, "to_move": game.to_move(state), "status": "active",
                               "pending": {}, "nagtime": 7.0, "forfeittime": 21.0, "reminders_sent": 0})
                out.append(BenchBoard(start_number + i, names, state))
                board_id += 1
            conn.execute(insert(User), users)
            conn.execute(insert(Address), addrs)
            conn.execute(insert(Board), boards)
            conn.execute(insert(Seat), seats)
        if db.engine.dialect.name == "postgresql":
            for table in ("users", "addresses", "boards", "seats"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                  f"(SELECT MAX(id) FROM {table}))"))
    return out


def rehash(db: Database, boards: list[BenchBoard]) -> None:
    """Give the players of ``boards`` password hashes of their own (own salts)."""
    with db.engine.begin() as conn:
        for board in boards:
            for name in board.users:
                conn.execute(text("UPDATE users SET password_hash = :h WHERE userid = :u"),
                             {"h": hash_password(PASSWORD), "u": name})


def first_reply_addresses(db: Database, boards: list[BenchBoard]) -> None:
    """Each player's reply address as the first board mail would have carried it (the boards are
    inserted in bulk, so no board mail went out); later ones come from the relay."""
    from server.accounts.reply_address import reply_address
    from server.core.config import Settings

    settings = Settings(addresses=[ADDRESS])
    by_number = {b.number: b for b in boards}
    with db.transaction() as session:
        for board in session.scalars(select(Board).where(Board.number.in_(list(by_number)))):
            bench = by_number[board.number]
            for seat in board.seats:
                address = reply_address(session, settings, seat.user, board)
                if address:
                    bench.reply_to[seat.user.userid] = address


# -- the mails -----------------------------------------------------------------
#: How the moves are sent: "reply" (Reply on the board mail, the move on the first line, no
#: password: how players play now) or "password" (the full command in the subject).
MODE = {"path": "reply"}


def move_mail(game: games.Game, board: BenchBoard, rng: random.Random) -> tuple[str, str, bytes, str] | None:
    """(sender, message-id, bytes, envelope recipient) of the next random legal move; None once over."""
    seat = game.to_move(board.state)
    if seat is None:
        return None
    move = rng.choice(game.legal_moves(board.state))
    board.state = game.play(board.state, seat, move)
    board.ply += 1
    user = board.users[seat]
    sender = f"{user}@clients.test"
    msgid = f"<{uuid.uuid4().hex}@clients.test>"
    msg = EmailMessage()
    msg["From"] = sender
    msg["Message-ID"] = msgid
    reply_to = board.reply_to.get(user)
    if MODE["path"] == "reply" and reply_to:
        # What a mail client sends: Re: subject, the move typed above the quoted board mail.
        msg["To"] = reply_to
        msg["Subject"] = f"Re: {game.title} Board {board.number} {user}"
        msg.set_content(f"{move}\n\nOn Friday, pbmserv wrote:\n> It is {user}'s move (move #{board.ply}).\n"
                        f"> Reply with your move on the first line, or use the move command and password.\n")
        return sender, msgid, msg.as_bytes(policy=SMTP_POLICY), reply_to
    msg["To"] = ADDRESS
    msg["Subject"] = f"{game.name} move {board.number} {user} {PASSWORD} {move}#{board.ply}"
    msg.set_content("Good luck!\n")
    return sender, msgid, msg.as_bytes(policy=SMTP_POLICY), ADDRESS


def send_timed(port: int, sender: str, rcpt: str, data: bytes) -> float:
    """One connection, one message; returns the monotonic time DATA ended (the final dot sent)."""
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.bench.test", timeout=60) as smtp:
        smtp.ehlo()
        smtp.mail(sender)
        code, resp = smtp.rcpt(rcpt)
        if code != 250:
            raise RuntimeError(f"RCPT refused: {code} {resp!r}")
        code, resp = smtp.docmd("DATA")
        if code != 354:
            raise RuntimeError(f"DATA refused: {code} {resp!r}")
        quoted = re.sub(rb"(?m)^\.", b"..", data)
        if not quoted.endswith(b"\r\n"):
            quoted += b"\r\n"
        smtp.send(quoted + b".\r\n")
        ended = time.monotonic()
        code, resp = smtp.getreply()
        if code != 250:
            raise RuntimeError(f"DATA answered {code} {resp!r}")
        return ended


# -- the relay sink (where pbmserv delivers its replies) -----------------------
@dataclass
class RelaySink:
    """Records when each reply (by In-Reply-To) reaches the relay and frees its board."""

    waiting: dict[str, BenchBoard] = field(default_factory=dict)
    arrived: dict[str, float] = field(default_factory=dict)
    free: queue.Queue = field(default_factory=queue.Queue)
    errors: list[str] = field(default_factory=list)
    delivered: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    #: Reply path: board number -> board, to note each player's new reply address.
    boards: dict[int, BenchBoard] = field(default_factory=dict)

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        now = time.monotonic()
        raw = envelope.original_content or b""
        m = _IRT.search(raw)
        subject = _SUBJECT.search(raw)
        reply_to, number = _REPLY_TO.search(raw), _BOARD_NO.search(subject.group(1)) if subject else None
        free = None
        with self.lock:
            self.delivered += 1
            if reply_to and number and int(number.group(1)) in self.boards:
                # A board mail: its Reply-To is the recipient's address for their next move.
                board = self.boards[int(number.group(1))]
                user = envelope.rcpt_tos[0].split("@")[0]
                board.reply_to[user] = reply_to.group(1).decode()
                if board.waiting and user == self.to_move(board):
                    board.waiting[2] = True
                    free = board if board.waiting[1] else None
            board = self.waiting.pop(m.group(1).decode(), None) if m else None
            if board is not None:
                self.arrived[m.group(1).decode()] = now  # type: ignore[union-attr]
                if subject and b"Error" in subject.group(1):
                    self.errors.append(subject.group(1).decode(errors="replace").strip())
                elif not board.waiting or board.waiting[2]:
                    free = board
                else:
                    board.waiting[1] = True
            if free is not None:
                free.waiting = []
        if free is not None:
            self.free.put(free)
        return "250 OK"

    game: Any = None

    def to_move(self, board: BenchBoard) -> str | None:
        seat = self.game.to_move(board.state) if self.game is not None else None
        return None if seat is None else board.users[seat]


class NullHandler:
    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        return "250 OK"


def sink_process(port: int) -> subprocess.Popen:
    """A bare aiosmtpd sink in its own process: the ceiling, as pbmserv also gets a process."""
    here = str(Path(__file__).parent)
    code = (
        f"import sys, threading; sys.path.insert(0, {here!r})\n"
        "from aiosmtpd.controller import Controller\n"
        "from bench_throughput import NullHandler\n"
        f"c = Controller(NullHandler(), hostname='127.0.0.1', port={port}, server_hostname='sink.bench.test')\n"
        "c.start()\n"
        "threading.Event().wait()\n"
    )
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def server_process(url: str, port: int, relay_port: int, log_path: Path, workers: int | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "from server.cli import main; main()", "--database-url", url,
           "--address", ADDRESS, "--relay", f"127.0.0.1:{relay_port}", "--listen", f"127.0.0.1:{port}",
           "--rate-limit", "1000000", "serve"]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    log = open(log_path, "ab")  # noqa: SIM115 - handed to the child
    return subprocess.Popen(cmd, stdout=log, stderr=log, cwd=str(ROOT))


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# -- load generators -------------------------------------------------------------
def ceiling_rate(clients: int, total: int, game: games.Game, boards: list[BenchBoard]) -> tuple[float, float]:
    """Messages/s a bare aiosmtpd sink accepts from ``clients`` threads, and its CPU seconds per message."""
    port = free_port()
    proc = sink_process(port)
    try:
        wait_port(port, proc)
        rng = random.Random(7)
        mails = []
        for i in range(total):  # the same kind of mail, built before the clock starts
            board = BenchBoard(boards[i % len(boards)].number, boards[i % len(boards)].users,
                               boards[i % len(boards)].state)
            mail = move_mail(game, board, rng)
            assert mail is not None
            mails.append(mail)
        todo: queue.Queue = queue.Queue()
        for mail in mails:
            todo.put(mail)

        def client() -> None:
            while True:
                try:
                    sender, _, data, rcpt = todo.get_nowait()
                except queue.Empty:
                    return
                send_timed(port, sender, rcpt, data)

        cpu_before = cpu_seconds(proc.pid)
        start = time.monotonic()
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        return total / elapsed, (cpu_seconds(proc.pid) - cpu_before) / total
    finally:
        stop(proc)


@dataclass
class Run:
    sent: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def drive(ports: list[int], sink: RelaySink, game: games.Game, clients: int, total: int, rate: float | None,
          rng: random.Random) -> tuple[Run, float]:
    """Send ``total`` move mails; closed loop (as fast as boards free up) or at ``rate``/s.

    Returns the run and the seconds from the first send to the last reply.
    """
    run = Run()
    counter = iter(range(total))
    counter_lock = threading.Lock()
    start = time.monotonic()

    def client() -> None:
        while True:
            with counter_lock:
                k = next(counter, None)
            if k is None:
                return
            if rate is not None:
                delay = start + k / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            while True:
                try:
                    board = sink.free.get(timeout=60)
                except queue.Empty:
                    run.failures.append("no board came free within 60 s")
                    return
                with counter_lock:
                    mail = move_mail(game, board, rng)
                if mail is not None:
                    break  # a finished game retires its board
            sender, msgid, data, rcpt = mail
            with sink.lock:
                sink.waiting[msgid] = board
                if rcpt != ADDRESS and game.to_move(board.state) is not None:
                    # Reply path: the board is free once the reply is back and the next
                    # player's new reply address has arrived (the two board mails).
                    board.waiting = [msgid, False, False]
            try:
                run.sent[msgid] = send_timed(ports[k % len(ports)], sender, rcpt, data)
            except (OSError, smtplib.SMTPException, RuntimeError) as exc:
                run.failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with sink.lock:
            if all(m in sink.arrived for m in run.sent):
                break
        time.sleep(0.01)
    with sink.lock:
        missing = [m for m in run.sent if m not in sink.arrived]
        last = max((sink.arrived[m] for m in run.sent if m in sink.arrived), default=time.monotonic())
    if missing:
        run.failures.append(f"{len(missing)} replies never reached the relay")
    return run, last - start


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TreeCpu:
    """CPU seconds of a process and all its descendants (``serve --workers N`` forks).

    Children are remembered once seen, so one that has exited still counts
    with its last reading (psutil when installed, else the parent alone).
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.seen: dict[int, float] = {}

    def pids(self) -> list[int]:
        try:
            import psutil
        except ImportError:
            return [self.pid]
        try:
            return [self.pid] + [c.pid for c in psutil.Process(self.pid).children(recursive=True)]
        except psutil.Error:
            return [self.pid]

    def total(self) -> float:
        for pid in self.pids():
            now = cpu_seconds(pid)
            if now:
                self.seen[pid] = now
        return sum(self.seen.values())

    def split(self) -> dict[int, float]:
        self.total()
        return dict(self.seen)


#: Which part of the server a stack belongs to, by a frame in it.
ROLES = [("_deliver_loop", "deliverer"), ("_work_loop", "workers"), ("ComputerPlayer.loop", "computer"),
         ("GroupCommit._run", "store thread"), ("supervise", "supervisor")]


def top_frames(path: Path, count: int = 12) -> str:
    """The functions with the most samples (self time), per process, from py-spy's raw output.

    Each line of the raw (collapsed) format is ``frame;frame;...;leaf N``;
    stacks are grouped by the part of the server they belong to (ROLES).
    A frame's inclusive share counts every stack it appears in once.
    """
    from collections import Counter, defaultdict

    own: dict[str, Counter] = defaultdict(Counter)
    incl: dict[str, Counter] = defaultdict(Counter)
    totals: Counter = Counter()
    for line in path.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        frames = [f for f in stack.split(";") if not f.startswith(("process ", "thread "))] or ["?"]
        # py-spy names forked children after their parent, so the part is told by its frames.
        proc = next((role for key, role in ROLES if key in stack), "listener (event loop)")
        samples = int(n)
        totals[proc] += samples
        own[proc][frames[-1]] += samples
        for f in set(frames):
            incl[proc][f] += samples
    out = []
    grand = sum(totals.values()) or 1
    for proc, total in totals.most_common():
        out.append(f"  {proc}: {total} samples ({total / grand:.0%} of all)")
        out.append("    self time:")
        for frame, n in own[proc].most_common(count):
            out.append(f"    {n / total:6.1%}  {frame[:110]}")
        out.append("    inclusive (pbmserv frames and libraries):")
        shown = 0
        for frame, n in incl[proc].most_common():
            if any(k in frame for k in ("(server/", "(sqlalchemy/", "(aiosmtpd/", "(smtplib", "(psycopg/",
                                        "(games/", "(email/", "(argon2")):
                out.append(f"    {n / total:6.1%}  {frame[:110]}")
                shown += 1
                if shown == count:
                    break
    return "\n".join(out)


def child_roles(pid: int) -> dict[int, str]:
    """Which child of ``serve`` is which: each names itself (``pbm-worker-0``, ``pbm-deliver``,
    ``pbm-computer``: prctl PR_SET_NAME, what ``ps`` shows)."""
    try:
        import psutil

        children = psutil.Process(pid).children()
        return {c.pid: c.name().removeprefix("pbm-").replace("worker-", "worker ")
                .replace("deliver", "deliverer") for c in children}
    except Exception:  # psutil missing or the process gone: plain pids then
        return {}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Measured:
    """What one configuration of servers did in the peak and latency runs."""

    peak: float
    server_cpu: float  # seconds per command, all server processes
    per_proc: dict[str, float]  # label -> seconds per command
    bench_cpu: float
    half: float
    latencies: list[float]
    failures: list[str]
    load_before: str
    load_after: str


def loadavg() -> str:
    path = Path("/proc/loadavg")
    return path.read_text().split()[0] if path.exists() else "?"


def measure_servers(kind: str, bdb: BenchDatabase, boards: list[BenchBoard], servers: int,
                    args: argparse.Namespace, game: games.Game, workdir: Path, rng: random.Random,
                    tag: str) -> Measured:
    """Start ``servers`` serve processes on one database, warm up, then the peak and latency runs."""
    sink = RelaySink()
    sink.game = game
    sink.boards = {b.number: b for b in boards}
    relay = Controller(sink, hostname="127.0.0.1", port=free_port(), server_hostname="relay.bench.test")
    relay.start()
    for b in boards:
        sink.free.put(b)
    ports = [free_port() for _ in range(servers)]
    procs = [server_process(bdb.url, port, relay.port, workdir / f"serve-{tag}-{i}.log", args.workers)
             for i, port in enumerate(ports)]
    spy = None
    try:
        for port, proc in zip(ports, procs, strict=True):
            wait_port(port, proc)
        if args.profile:
            spy = subprocess.Popen(["py-spy", "record", "--pid", str(procs[0].pid), "--rate", "250", "--format",
                                    "raw", "--subprocesses", "--nonblocking", "-o", str(workdir / f"profile-{tag}.txt")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        # Warm-up: imports, connection pools, page cache, and every player's
        # first verify (a long-running server has seen its players' passwords;
        # --cold skips this, and then most commands pay a full argon2 verify).
        # Each worker process keeps its own cache of verified passwords, so
        # every player moves several times (--warmup rounds) to reach all.
        warm = 10 if args.cold else args.warmup * len(boards) * game.players * servers
        if MODE["path"] == "reply" and not args.cold:
            warm = len(boards) * game.players * servers  # no passwords to verify: one round warms the caches
        drive(ports, sink, game, args.clients, warm, None, rng)
        trees = [TreeCpu(proc.pid) for proc in procs]
        before = [tree.split() for tree in trees]
        own_before = time.process_time()
        load_before = loadavg()
        run, seconds = drive(ports, sink, game, args.clients, args.commands, None, rng)
        after = [tree.split() for tree in trees]
        load_after = loadavg()
        n = max(1, len(run.sent))
        per_proc: dict[str, float] = {}
        for i, (b, a, proc) in enumerate(zip(before, after, procs, strict=True)):
            roles = child_roles(proc.pid)
            for pid in a:
                role = "listener" if pid == proc.pid else roles.get(pid, f"child {pid}")
                per_proc[f"serve{i} {role}"] = (a[pid] - b.get(pid, 0.0)) / n
        bench_cpu = (time.process_time() - own_before) / n
        peak = len(run.sent) / seconds
        half = args.latency_rate or peak / 2
        lat_run, _ = drive(ports, sink, game, args.clients, args.latency_commands, half, rng)
    finally:
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=30)
            profile = workdir / f"profile-{tag}.txt"
            print(f"  [{tag}] py-spy profile of the server processes (collapsed stacks): {profile}")
            if profile.exists():
                print(top_frames(profile))
        for proc in procs:
            stop(proc)
        relay.stop()
    latencies = [(sink.arrived[m] - t0) * 1000 for m, t0 in lat_run.sent.items() if m in sink.arrived]
    return Measured(peak, sum(per_proc.values()), per_proc, bench_cpu, half, latencies,
                    run.failures + lat_run.failures + sink.errors, load_before, load_after)


def bench_backend(kind: str, args: argparse.Namespace, game: games.Game, workdir: Path) -> dict[str, float]:
    bdb = BenchDatabase(kind, args.postgres_url, workdir)
    rng = random.Random(11)
    try:
        boards = populate(bdb.db, game, args.boards, rng)
        first_reply_addresses(bdb.db, boards)
        if not args.pictures:
            with bdb.db.engine.begin() as conn:
                conn.execute(text("UPDATE users SET pictures = :off"), {"off": False})
        ceiling, sink_cpu = ceiling_rate(args.clients, args.commands, game, boards)
        m = measure_servers(kind, bdb, boards, 1, args, game, workdir, rng, kind)
        for problem in sorted(set(m.failures))[:5]:
            print(f"  [{kind}] problem: {problem}")
        target = 20 if kind == "sqlite" else 15
        result = {"ceiling": ceiling, "peak": m.peak, "ratio": m.peak / ceiling, "half": m.half,
                  "p50": percentile(m.latencies, 50), "p99": percentile(m.latencies, 99),
                  "cpu_ratio": m.server_cpu / sink_cpu if sink_cpu else float("inf"), "errors": len(m.failures),
                  "cpu_ms": m.server_cpu * 1000}
        print(f"{kind:<9} ceiling (bare aiosmtpd sink) {ceiling:7.1f} msg/s | pbmserv {m.peak:6.1f} cmd/s "
              f"= {result['ratio']:.0%} of ceiling (target >= {target}%)")
        split = ", ".join(f"{label} {sec * 1000:.1f}" for label, sec in m.per_proc.items())
        print(f"{kind:<9} CPU per message: bare sink {sink_cpu * 1000:.2f} ms, pbmserv (all {len(m.per_proc)} "
              f"processes) {m.server_cpu * 1000:.1f} ms per command (target <= 6 ms) = {result['cpu_ratio']:.1f}x the sink "
              f"[{split} ms]; clients + relay sink (this process) {m.bench_cpu * 1000:.1f} ms")
        print(f"{kind:<9} {os.cpu_count()} CPUs, load average {m.load_before} before / {m.load_after} after the "
              f"peak run (/proc/loadavg, 1 min)")
        print(f"{kind:<9} latency end of DATA -> reply at relay, at {m.half:.1f} cmd/s "
              f"({'half peak' if not args.latency_rate else 'fixed rate'}): "
              f"p50 {result['p50']:.1f} ms  p99 {result['p99']:.1f} ms (target p99 < 100 ms)"
              f"  [{len(m.latencies)} samples, {result['errors']} errors; logs in {workdir}]")
        if kind == "postgres" and args.scaleout:
            two = measure_servers(kind, bdb, boards, 2, args, game, workdir, rng, "postgres-2x")
            listeners = sum(v for k, v in two.per_proc.items() if "listener" in k)
            print(f"{kind:<9} scale-out: two serve processes {two.peak:6.1f} cmd/s vs one {m.peak:6.1f} = "
                  f"{two.peak / m.peak:.2f}x (target >= 1.6x with the cores; {os.cpu_count()} CPUs here); "
                  f"CPU per command {two.server_cpu * 1000:.1f} ms (listeners {listeners * 1000:.1f}, "
                  f"workers + deliverers {(two.server_cpu - listeners) * 1000:.1f}); load average "
                  f"{two.load_before} / {two.load_after}; {len(two.failures)} errors")
            result["scaleout"] = two.peak / m.peak
        return result
    finally:
        bdb.close()


def main(argv: list[str] | None = None) -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default=env("BENCH_DB", "both"))
    parser.add_argument("--clients", type=int, default=int(env("BENCH_CLIENTS", "8")))
    parser.add_argument("--commands", type=int, default=int(env("BENCH_COMMANDS", "600")))
    parser.add_argument("--latency-commands", type=int, default=int(env("BENCH_LATENCY_COMMANDS", "300")))
    parser.add_argument("--latency-rate", type=float, default=float(env("BENCH_LATENCY_RATE", "0")),
                        help="commands/s for the latency run (default: half the measured peak)")
    parser.add_argument("--boards", type=int, default=int(env("BENCH_BOARDS", "64")))
    parser.add_argument("--cold", action="store_true",
                        help="no warm-up round: players' first moves (argon2 verifies) fall in the measured run")
    parser.add_argument("--workers", type=int, default=int(env("BENCH_WORKERS", "-1")),
                        help="serve --workers N (default: the server's default, the number of cores)")
    parser.add_argument("--warmup", type=int, default=int(env("BENCH_WARMUP", "5")),
                        help="warm-up moves per player before the measured runs")
    parser.add_argument("--scaleout", action=argparse.BooleanOptionalAction, default=env("BENCH_SCALEOUT", "1") == "1",
                        help="PostgreSQL: also run two serve processes on the one database")
    parser.add_argument("--pictures", action=argparse.BooleanOptionalAction, default=env("BENCH_PICTURES", "1") == "1",
                        help="board pictures in the mails (the users' default); --no-pictures turns them off")
    parser.add_argument("--game", default=env("BENCH_GAME", "interweave"))
    parser.add_argument("--password", action="store_true", default=env("BENCH_PASSWORD", "0") == "1",
                        help="moves as full commands with the password (the old path); default: by reply")
    parser.add_argument("--postgres-url", default=env("PBMSERV_BENCH_POSTGRES_URL", DEFAULT_PG))
    parser.add_argument("--profile", action="store_true",
                        help="record the server process with py-spy (pip install py-spy) into the work directory")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (server logs)")
    args = parser.parse_args(argv)
    if args.workers < 0:
        args.workers = None
    MODE["path"] = "password" if args.password else "reply"
    game = games.load_game(args.game)
    print(f"game {game.name}, moves by {MODE['path']}, {args.clients} clients, {args.boards} boards, {args.commands} commands "
          f"(+{args.latency_commands} for latency), one SMTP connection per message, {os.cpu_count()} CPUs")
    workdir = Path(tempfile.mkdtemp(prefix="pbmserv-bench-"))
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    failed = False
    for kind in kinds:
        result = bench_backend(kind, args, game, workdir)
        target = 0.2 if kind == "sqlite" else 0.15
        failed |= (result["ratio"] < target or result["p99"] >= 100 or result["errors"] > 0
                   or result["cpu_ms"] > 6)
    if not args.keep:
        for p in sorted(workdir.glob("*"), reverse=True):
            if p.suffix in (".log", ".txt"):
                continue
            p.unlink()
    print("targets: " + ("MISSED (see above)" if failed else "all met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
