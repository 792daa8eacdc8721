"""Engine, transactions and schema upgrades for SQLite and PostgreSQL.

SQLite (the embedded default) runs in WAL mode with a busy timeout, and every
transaction starts with ``BEGIN IMMEDIATE``: the write lock is taken up front,
so two commands never both read a board and then race to write it.  On
PostgreSQL the board row is locked with ``SELECT ... FOR UPDATE`` and queue
rows are claimed with ``SKIP LOCKED``; several servers can share one database.
"""

from __future__ import annotations

import fcntl
import itertools
import logging
import os
import socket
import struct
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from server.store import light_flush, prepared
from server.store.resources import migrations_dir

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)
T = TypeVar("T")


class Database:
    """One engine and its session factory."""

    def __init__(self, url: str, busy_timeout: float = 30.0) -> None:
        self.url = url
        self.engine = make_engine(url, busy_timeout)
        self.busy_timeout = busy_timeout
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        hold_what_is_loaded(self.sessions)
        light_flush.install(self.sessions)
        #: SQLite has one writer at a time, and every transaction here takes the
        #: write lock (BEGIN IMMEDIATE).  Threads of this process queue for it
        #: on this lock, woken the moment it is free; left to SQLite, a
        #: waiting connection polls with sleeps of 1, 2, 5, 10 ... 100 ms
        #: (its busy handler), which left pbmserv serve idle 60% of the time
        #: under load.  Other processes (pbmserv remind, process) still meet
        #: the busy timeout.  Reentrant, as a transaction never nests another.
        self._sqlite_lock = threading.RLock() if self.engine.dialect.name == "sqlite" else None
        #: The same queue across processes (``serve --workers N`` forks workers
        #: and a deliverer): an flock on a file beside the database, which
        #: the kernel hands to the next waiter at once and drops if its
        #: holder dies.  None for in-memory databases.
        self._file_lock = _FileLock(self.engine.url.database) if self._sqlite_lock is not None else None
        #: SQLite's automatic WAL checkpoint is off on this engine's connections: a thread of
        #: ``serve``'s does it (store.checkpoints; ``checkpoint_in_background``).
        self.background_checkpoints = False
        #: A SQLite file (not in memory): the only kind with a write-ahead log to checkpoint.
        self._wal = self._file_lock is not None and self._file_lock.path is not None
        if self._wal:
            @event.listens_for(self.engine, "connect")
            def _checkpoints(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
                if self.background_checkpoints:
                    dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

    def hand_over_to_me(self) -> None:
        """This process's transactions claim the write lock's next turn after a short wait
        (the deliverer's: see _FileLock).  Nothing to do on PostgreSQL (row locks, no one lock)."""
        if self._file_lock is not None:
            self._file_lock.may_claim = True

    def checkpoint_in_background(self) -> bool:
        """No WAL checkpoint inside a commit on this engine's connections from now on (a SQLite
        file only; False otherwise): the caller runs ``store.checkpoints.Checkpointer``.  Pooled
        connections are closed, so every connection made from now on has it off."""
        if not self._wal:
            return False
        self.background_checkpoints = True
        self.engine.dispose()
        return True

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def transaction(self, durable: bool = False) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on error.

        ``durable``: the commit returns only once it is on disk, power cut
        included.  PostgreSQL always does that.  SQLite runs with
        ``synchronous=NORMAL`` (WAL): a commit survives a crash of the process
        but may be lost with the last few on a power cut; a durable
        transaction switches its connection to ``FULL`` for that one commit,
        which also syncs every commit before it.  The listener stores mail
        durably (a 250 must mean "on disk"); everything after that is
        re-done from the stored mail if lost, so it does not pay the fsync.
        """
        if self._sqlite_lock is None:
            with self.sessions() as session, session.begin():
                yield session
            return
        with self._write_turn():
            if not durable:
                with self.sessions() as session, session.begin():
                    yield session
                return
            with self._durable_session() as session:
                yield session

    @contextmanager
    def connection(self, durable: bool = False) -> Iterator[Connection]:
        """A Core connection in one transaction, no Session: committed on success, rolled back on error.

        What :meth:`transaction` is (the same write turn, ``durable`` the
        same), for work that runs many times a second and needs no ORM
        objects: the listener's store and the deliverer's claim (issue 25).
        A Session and its transaction machinery cost 0.1-0.2 ms a
        transaction more than the connection's own; a caller that needs a
        Session now and then binds one to this connection (``Session(bind=conn)``
        joins its transaction).  Its hot statements run on the driver's
        cursor as ``store.prepared`` plans them (``store.queries.core``).
        """
        if self._sqlite_lock is None:
            with self.engine.connect() as conn, conn.begin():
                yield conn
            return
        with self._write_turn(), self.engine.connect() as conn, _synchronous_full(conn, durable), conn.begin():
            yield conn

    @contextmanager
    def write_turn(self) -> Iterator[None]:
        """SQLite: no writer of this server runs meanwhile (its processes queue for the same turn).
        The checkpointer finishes the log under it, so that the next writer starts it over."""
        with self._write_turn():
            yield

    @contextmanager
    def _write_turn(self) -> Iterator[None]:
        """SQLite: this thread's turn at the write lock (the process's lock, then the lock file).

        Bounded like SQLite's own wait: past it, go on and let SQLite's busy
        timeout decide (an error the caller retries), never hang for ever.
        """
        assert self._sqlite_lock is not None
        locked = self._sqlite_lock.acquire(timeout=self.busy_timeout)
        file_locked = locked and self._file_lock is not None and self._file_lock.acquire(self.busy_timeout)
        try:
            yield
        finally:
            if file_locked:
                self._file_lock.release()  # type: ignore[union-attr]
            if locked:
                self._sqlite_lock.release()

    def run_connection(self, work: Callable[[Connection], T], attempts: int = 5, durable: bool = False) -> T:
        """:meth:`run` on a Core connection (:meth:`connection`): retried on lock conflicts and races."""
        return self._retrying(lambda: self.connection(durable), work, attempts)

    def peek(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` as a read, outside the write lock: is there anything to do at all?

        The worker, deliverer and computer loops wake (or poll) far more
        often than there is work for them: every stored mail wakes every
        worker, and each woken loop used to open a write transaction (on
        SQLite ``BEGIN IMMEDIATE`` and the lock file) only to find nothing.
        Those empty claims were a quarter of the statements per move and
        kept the write lock busy for the one process that had work
        (issue 25).  A peek is a plain read: on SQLite a deferred ``BEGIN``
        (WAL readers never wait for the writer), on PostgreSQL an ordinary
        transaction; it is rolled back, and a caller that finds work still
        claims it in a real transaction, where the answer is checked again.
        ``work`` gets a Core connection, not a Session: a peek runs many times
        a second and needs no ORM objects.
        """
        with self.engine.connect().execution_options(pbmserv_read=True) as conn:
            return work(conn)

    @contextmanager
    def _durable_session(self) -> Iterator[Session]:
        with (self.engine.connect() as conn, _synchronous_full(conn, True), self.sessions(bind=conn) as session,
              session.begin()):
            yield session

    def run(self, work: Callable[[Session], T], attempts: int = 5, durable: bool = False) -> T:
        """Run ``work`` in a transaction, retrying on lock conflicts and races.

        A serialization failure, deadlock, busy SQLite or a lost race for a
        unique key (two challenges taking the same board number) leaves
        nothing behind, so running the whole unit again is safe.
        """
        return self._retrying(lambda: self.transaction(durable), work, attempts)

    @staticmethod
    def _retrying(begin: Callable[[], Any], work: Callable[[Any], T], attempts: int) -> T:
        """``work`` in what ``begin()`` opens (one transaction), again after a retryable failure."""
        for attempt in range(1, attempts + 1):
            try:
                with begin() as opened:
                    return work(opened)
            except (OperationalError, IntegrityError, DBAPIError) as exc:
                if attempt == attempts or not _retryable(exc):
                    raise
                log.info("transaction retry %d after %s", attempt, type(exc.orig).__name__)
                time.sleep(0.02 * attempt)
        raise AssertionError("unreachable")

    def upgrade(self) -> None:
        upgrade_schema(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()


def hold_what_is_loaded(maker: sessionmaker) -> None:
    """Sessions of ``maker`` keep every object they load until they end.

    SQLAlchemy's identity map holds objects weakly: a user loaded to check a
    reply token and dropped was loaded again by the next ``session.get`` a
    few lines later (five user SELECTs in one move by reply: issue 25).
    A session here lasts one transaction, so holding its objects costs no
    more memory than the transaction already had at its peak.  (SQLAlchemy's
    documented "strong reference session" recipe.)
    """

    @event.listens_for(maker, "pending_to_persistent")
    @event.listens_for(maker, "deleted_to_persistent")
    @event.listens_for(maker, "detached_to_persistent")
    @event.listens_for(maker, "loaded_as_persistent")
    def hold(session: Session, instance: object) -> None:
        session.info.setdefault(_HELD, set()).add(instance)

    @event.listens_for(maker, "persistent_to_detached")
    @event.listens_for(maker, "persistent_to_deleted")
    @event.listens_for(maker, "persistent_to_transient")
    def let_go(session: Session, instance: object) -> None:
        session.info.get(_HELD, set()).discard(instance)


#: session.info key of the objects a session holds (hold_what_is_loaded).
_HELD = "pbmserv_held"


class Backoff:
    """Pauses that double while the database keeps failing the same work (a full disk, an outage).

    A worker that took a message and could not commit it tries again; at
    once, it tried 618 times in 24 s on a full disk.  ``pause`` sleeps
    ``first``, then twice that, up to ``cap``; ``recovered`` starts over.
    """

    def __init__(self, first: float = 0.05, cap: float = 5.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.first, self.cap, self.sleep = first, cap, sleep
        self.failures = 0

    def pause(self) -> float:
        delay = min(self.cap, self.first * 2 ** min(self.failures, 30))
        self.failures += 1
        self.sleep(delay)
        return delay

    def recovered(self) -> None:
        self.failures = 0


class _FileLock:
    """An exclusive flock on ``DATABASE-pbmserv.lock``, waited for at most a deadline, never for ever in vain.

    Per process, opened lazily (after a fork the child opens its own: an
    inherited descriptor would share the parent's lock).  Only pbmserv
    takes it; SQLite's own locking still guards against everything else.

    Why a hand-over (issue 32, item 10): waiters poll the flock, and a worker
    that released it and asked again at once nearly always won, so the
    deliverer waited 18 s behind a burst of commands.  A process that may
    claim (``may_claim``: the deliverer, see server.mail.outbox) and has
    waited ``PATIENCE`` claims the next turn: it writes its id into the lock
    file (under a byte-range lock held for one read and write), and every
    other process leaves the flock alone until it has taken it.  So delivery
    never waits much longer than ``PATIENCE`` plus the holder ahead of it,
    while the workers and the listener take the lock as before, whoever
    asks first.  (Turns for everyone -- strict tickets, or a claim by any
    waiter -- made every hand-over wait for the next process in line to be
    scheduled, and on a loaded machine halved the throughput.)  A claimant
    that dies leaves a claim nobody takes: after ``STALE`` seconds with the
    flock free, it is cleared.
    """

    #: Seconds a claiming process polls like the others before it claims the next turn.
    PATIENCE = 0.01
    #: Seconds a claim may stand, with the flock free, before others clear it.
    STALE = 0.05
    _CLAIM = struct.Struct("<Qd")  # claimant's id (0: none), when it claimed (CLOCK_MONOTONIC, system-wide)
    _ids = itertools.count(1)

    def __init__(self, database: str | None) -> None:
        memory = not database or database == ":memory:" or database.startswith("file::memory:")
        self.path = None if memory else database + "-pbmserv.lock"
        self.fd: int | None = None
        self.pid = 0
        #: Whether this process claims the next turn after PATIENCE (the deliverer).
        self.may_claim = False

    def acquire(self, timeout: float) -> bool:
        if self.path is None:
            return False
        if self.fd is None or self.pid != os.getpid():
            try:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                self.path = None  # a read-only directory: SQLite's busy timeout alone decides
                return False
            self.pid = os.getpid()
        me = (os.getpid() << 24) | (next(self._ids) & 0xFFFFFF)
        # The kernel has no timed flock: try, then sleep briefly (at most 2 ms,
        # unlike SQLite's busy handler's 100) until it is free or the deadline passes.
        start = now = time.monotonic()
        deadline = start + timeout
        pause = 0.0002
        while True:
            claimant, since = self._read()
            if claimant and claimant != me and now - since >= self.STALE:
                claimant = self._clear(claimant)  # its claimant died or gave up: passed over
            if claimant in (0, me):
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    if claimant == me:
                        self._clear(me)
                    return True
                except BlockingIOError:
                    if claimant == 0 and self.may_claim and now - start >= self.PATIENCE:
                        self._claim(me, now)
            if now >= deadline:
                self._clear(me)
                return False  # go on: SQLite's busy timeout decides (an error the caller retries)
            # Everyone else leaves the lock alone for a claimant, so it looks often.
            time.sleep(0.0002 if claimant == me else pause)
            pause = min(pause * 2, 0.002)
            now = time.monotonic()

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    def _claim(self, me: int, now: float) -> None:
        with self._counters():
            if self._read()[0] == 0:
                os.pwrite(self.fd, self._CLAIM.pack(me, now), 0)  # type: ignore[arg-type]

    def _clear(self, claimant: int) -> int:
        """Clear ``claimant``'s claim if it still stands; the claimant after that (0: none)."""
        with self._counters():
            current = self._read()[0]
            if current == claimant:
                os.pwrite(self.fd, self._CLAIM.pack(0, 0.0), 0)  # type: ignore[arg-type]
                return 0
            return current

    @contextmanager
    def _counters(self) -> Iterator[None]:
        """The claim's own lock: a byte-range lock on it, held for one read and write."""
        assert self.fd is not None
        fcntl.lockf(self.fd, fcntl.LOCK_EX, self._CLAIM.size, 0)
        try:
            yield
        finally:
            fcntl.lockf(self.fd, fcntl.LOCK_UN, self._CLAIM.size, 0)

    def _read(self) -> tuple[int, float]:
        assert self.fd is not None
        data = os.pread(self.fd, self._CLAIM.size, 0)
        return self._CLAIM.unpack(data) if len(data) == self._CLAIM.size else (0, 0.0)


@contextmanager
def _synchronous_full(conn: Connection, durable: bool) -> Iterator[None]:
    """SQLite: ``durable`` commits on this connection wait for the disk (``synchronous=FULL``) until the end.

    Set outside SQLAlchemy's transaction (SQLite refuses this PRAGMA inside one), so before it begins.
    """
    if not durable:
        yield
        return
    raw = conn.connection.driver_connection
    raw.execute("PRAGMA synchronous=FULL")  # type: ignore[union-attr]
    try:
        yield
    finally:
        raw.execute("PRAGMA synchronous=NORMAL")  # type: ignore[union-attr]


def _retryable(exc: DBAPIError) -> bool:
    if isinstance(exc, IntegrityError):
        return True
    code = getattr(exc.orig, "sqlstate", None)
    if code in ("40001", "40P01", "55P03"):
        return True
    message = str(exc.orig).lower()
    return "database is locked" in message or "busy" in message


def make_engine(url: str, busy_timeout: float = 30.0) -> Engine:
    """The engine; ``hide_parameters`` because a failed INSERT of inbound mail would
    otherwise log the raw message (a player's password with it) as a parameter."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": busy_timeout, "check_same_thread": False},
                               hide_parameters=True)
        _sqlite_setup(engine, busy_timeout)
    else:
        engine = create_engine(url, pool_pre_ping=True, hide_parameters=True,
                               connect_args=_postgres_timeouts(busy_timeout))
        _HangGuard(engine, 2 * busy_timeout)
    prepared.savepoints_on_cursor(engine)
    return engine


def _postgres_timeouts(busy_timeout: float) -> dict[str, int]:
    """libpq's own bounds on a connection that stops answering (issue 32, item 1).

    A hung network (a firewall or NAT that lost its state: no reset, no
    close) once held the listener's store thread on its socket for good.
    ``connect_timeout`` bounds a handshake, TCP keepalives and
    ``tcp_user_timeout`` end a connection whose peer is gone; what the
    kernel cannot see (a proxy that ACKs and forwards nothing) is cut by
    :class:`_HangGuard`.
    """
    limit = 2 * busy_timeout
    return {"connect_timeout": max(2, round(limit)), "keepalives": 1, "keepalives_idle": 30,
            "keepalives_interval": 10, "keepalives_count": 3, "tcp_user_timeout": int(limit * 1000)}


class _HangGuard:
    """Cuts a PostgreSQL connection whose one statement (or ping) has gone unanswered for ``limit`` seconds.

    psycopg has no read timeout, and PostgreSQL's own timeouts cannot help
    when the query never reaches it.  A thread looks at every connection of
    the engine a few times a ``limit``: one that stays busy in the same
    statement (libpq's ``PQTRANS_ACTIVE``, and no new statement since) for
    ``limit`` is shut down under its owner, whose wait then fails with a
    disconnect: SQLAlchemy drops that connection, the transaction fails
    (the listener has answered 451 already) and the next one connects anew.
    A statement that is merely slow is cut as well at that bound (twice
    ``--busy-timeout``: a minute by default); lock waits end sooner.  The
    server side of a cut transaction is ended by
    ``idle_in_transaction_session_timeout`` (set per connection), so its
    locks do not outlive it for long.
    """

    ACTIVE = 1  # libpq's PQTRANS_ACTIVE: a command is in progress

    def __init__(self, engine: Engine, limit: float) -> None:
        self.limit = limit
        self.connections: weakref.WeakSet = weakref.WeakSet()
        #: Per connection: how many statements it began (a new one is progress).
        self.begun: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        #: Per connection: (statements begun, when first seen busy with that one).
        self.busy: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        idle_limit = int(max(60.0, 5 * limit) * 1000)

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            with self.lock:  # watched from here: the SET below may hang too
                self.connections.add(dbapi_connection)
                self._start()
            with dbapi_connection.cursor() as cursor:
                cursor.execute(f"SET idle_in_transaction_session_timeout = {idle_limit}")
            dbapi_connection.commit()

        @event.listens_for(engine, "before_cursor_execute")
        def _begin(conn, _cursor, _statement, _parameters, _context, _many) -> None:  # type: ignore[no-untyped-def]
            dbapi_connection = conn.connection.dbapi_connection
            if dbapi_connection is not None:
                self.begun[dbapi_connection] = self.begun.get(dbapi_connection, 0) + 1

    def _start(self) -> None:
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name="pbmserv-db-guard", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(max(0.1, self.limit / 8))
            try:
                self.check(time.monotonic())
            except Exception:  # the guard never dies of one odd connection
                log.exception("database connection guard")

    def check(self, now: float) -> None:
        with self.lock:
            connections = list(self.connections)
        for connection in connections:
            try:
                active = not connection.closed and connection.pgconn.transaction_status == self.ACTIVE
            except Exception:
                active = False
            if not active:
                self.busy.pop(connection, None)
                continue
            begun = self.begun.get(connection, 0)
            seen = self.busy.get(connection)
            if seen is None or seen[0] != begun:
                self.busy[connection] = (begun, now)
            elif now - seen[1] >= self.limit:
                self.busy.pop(connection, None)
                self.cut(connection, now - seen[1])

    def cut(self, connection, waited: float) -> None:  # type: ignore[no-untyped-def]
        log.error("a database connection has not answered for %.0f s; cutting it (a hung network?)", waited)
        try:
            with socket.socket(fileno=os.dup(connection.pgconn.socket)) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError as exc:
            log.warning("could not cut the hung database connection: %s", exc)


def _sqlite_setup(engine: Engine, busy_timeout: float) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy, not pysqlite, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:  # type: ignore[no-untyped-def]
        # A peek (Database.peek) only reads: a deferred BEGIN takes no write lock.  Given to sqlite3
        # directly: through exec_driver_sql SQLAlchemy's execution layer cost ~30 us a transaction.
        # (store.prepared.run_sql: the cursor events fired, a busy database's error SQLAlchemy's own).
        prepared.run_sql(conn, "BEGIN" if conn.get_execution_options().get("pbmserv_read") else "BEGIN IMMEDIATE")


def alembic_config(engine: Engine | None = None) -> Config:
    from alembic.config import Config  # imported on use: it is slow, and most runs are up to date

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    if engine is not None:
        url = engine.url.render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def current_revision(engine: Engine) -> str | None:
    """The schema's Alembic revision, None where there is no schema yet."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade_schema(engine: Engine) -> None:
    """Create or upgrade the schema to the newest revision (idempotent).

    On PostgreSQL an advisory lock keeps two servers starting together from
    migrating at once.
    """
    from alembic import command as alembic_command

    config = alembic_config(engine)
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_lock(724137)"))
            conn.commit()
        try:
            config.attributes["connection"] = conn
            alembic_command.upgrade(config, "head")
            conn.commit()
        finally:
            if engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_unlock(724137)"))
                conn.commit()


def worker_name() -> str:
    """``host:pid``: the name a process writes into the rows it claims (inbound and outbox),
    so a claim left by a dead process on this host can be recognised and taken back."""
    return f"{socket.gethostname()}:{os.getpid()}"
