"""The IMAP receiver: mail read from a provider's mailbox instead of an MX.

Most people who would run a server for their club have a mailbox with IMAP
and no port 25.  This thread logs in to that mailbox, waits with IDLE where
the server offers it (polling every ``imap_poll`` seconds where it does
not), and hands each new message to the listener's own store thread
(:class:`server.mail.inbound.GroupCommit`): the same size cap, header
guards, throttles, fair-queue classification and dedupe key as mail that
came over SMTP.

Only after a message's commit is it flagged (``\\Seen`` and ``$Pbmserv``),
moved to a folder or deleted (``--imap-done``).  A crash between the two
leaves it unflagged: it is stored again on the next look and the worker
drops the second copy as a duplicate (same Message-ID, sender and content),
so nothing is lost and nothing applied twice.  ``imap_state.last_uid`` is
the UID up to which every message is known finished; the next look starts
after it, so a reader who opens the mailbox and marks mail read hides
nothing from us.  The first look at a folder (no state yet, or a changed
UIDVALIDITY) takes only unseen mail, so an old mailbox's history is not
replayed as commands.

The client library is IMAPClient: maintained, synchronous (this is one
thread, like the deliverer), with IDLE, STARTTLS, UID commands, MOVE and a
logger that redacts LOGIN.  aioimaplib would have put a second event loop
beside aiosmtpd's for no gain at one mailbox.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from email.utils import getaddresses, parseaddr

from imapclient import IMAPClient
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail.credentials import Endpoint, parse_imap
from server.mail.guards import header_block, header_fields, header_problem, path_problem
from server.mail.imap_login import Done, connect, describe, folder_name
from server.mail.inbound import RateLimited
from server.store.database import Database
from server.store.model import ImapState, utcnow

log = logging.getLogger("pbmserv.imap")
#: Our keyword on a stored message (where the server keeps keywords: PERMANENTFLAGS has ``\*``).
KEYWORD = b"$Pbmserv"
#: ... and on one refused (over the size cap, broken header): left in the folder for the admin to find.
REFUSED = b"$PbmservRefused"
SEEN = b"\\Seen"
DELETED = b"\\Deleted"
#: Header fields that may name the address a message was delivered to (a reply address among them).
RECIPIENT_FIELDS = (b"delivered-to", b"x-original-to", b"envelope-to", b"to", b"cc")
#: RFC 5321's limit on a reverse-path (as the listener's MAIL FROM check).
MAX_PATH = 256
#: Seconds a message the throttles refused (450 on SMTP) waits before it is tried again.
DEFER_SECONDS = 60.0
#: IMAP servers drop an IDLE after 30 minutes (RFC 2177): renew well before.
MAX_IDLE = 25 * 60


def envelope_of(raw: bytes, settings: Settings) -> tuple[str, list[str]]:
    """The envelope a mailbox message came with, read back from its header.

    The sender is the Return-Path the delivering MTA wrote (``<>`` for a
    bounce, which is then never answered), else the From address.  The
    recipients are those of our addresses the header names (Delivered-To,
    To, Cc, ...): a reply address ``pbmserv+TOKEN@...`` must reach the
    worker as it would over SMTP; none named means our first address.
    """
    fields: dict[bytes, list[str]] = {}
    for item in header_fields(header_block(raw)):
        name, _, value = item.partition(b":")
        text = value.decode("utf-8", "replace").replace("\r", "").replace("\n", " ").strip()
        fields.setdefault(name.strip().lower(), []).append(text)
    if fields.get(b"return-path"):
        path = fields[b"return-path"][0].strip()
        sender = "" if path.replace(" ", "") == "<>" else parseaddr(path)[1]
    else:
        sender = parseaddr(fields.get(b"from", [""])[0])[1]
    if len(sender) > MAX_PATH or path_problem(sender):
        sender = ""
    recipients: list[str] = []
    for name in RECIPIENT_FIELDS:
        for _, address in getaddresses(fields.get(name, [])):
            if address and settings.is_ours(address) and address.lower() not in {r.lower() for r in recipients}:
                recipients.append(address)
    return sender, recipients or [settings.address]


class ImapReceiver:
    """One mailbox folder, watched by one thread until :meth:`stop`.

    ``submit`` is the listener's store thread (``GroupCommit.submit``): its
    future resolves once the message is committed.
    """

    def __init__(self, db: Database, settings: Settings,
                 submit: Callable[[bytes, str, list[str]], Future]) -> None:
        self.db = db
        self.settings = settings
        self.submit = submit
        self.endpoint: Endpoint = parse_imap(settings.imap or "")
        self.done = Done.parse(settings.imap_done)
        self.mailbox = str(self.endpoint)
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        #: UID -> monotonic time before which a throttled message is not tried again.
        self.deferred: dict[int, float] = {}
        self.last_error = ""

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="pbmserv-imap", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=15)
            self._set_state("stopped")  # status must not show a stopped server as connected

    def run(self) -> None:
        """Connect, watch, and on any failure wait (1 s, doubling up to ``imap_backoff_max``) and reconnect."""
        backoff = 1.0
        while not self.stopping.is_set():
            client: IMAPClient | None = None
            try:
                client = self.connect()
                backoff = 1.0
                self._recovered()
                self.watch(client)
            except Exception as exc:  # the loop must outlive any failure; each is recorded
                self._failed(exc)
            finally:
                if client is not None:
                    with contextlib.suppress(Exception):
                        client.logout()
            if self.stopping.wait(backoff):
                return
            backoff = min(backoff * 2, self.settings.imap_backoff_max)

    # -- the connection ------------------------------------------------------

    def connect(self, timeout: float = 30.0) -> IMAPClient:
        return connect(self.endpoint, self.done, timeout)

    # -- watching the folder ---------------------------------------------------

    def watch(self, client: IMAPClient) -> None:
        """Look, then wait for news (IDLE) or the poll interval, until stopped or the connection breaks."""
        selected = client.select_folder(self.endpoint.folder)
        uidvalidity = int(selected.get(b"UIDVALIDITY", 0))
        keywords = b"\\*" in set(selected.get(b"PERMANENTFLAGS", ()))
        idle = client.has_capability("IDLE")
        self._set_state("idle" if idle else "polling")
        log.info("IMAP %s: watching (%s)", self.mailbox, "IDLE" if idle else f"polled every {self.settings.imap_poll:g} s")
        while not self.stopping.is_set():
            self.sweep(client, uidvalidity, keywords)
            if idle:
                self._idle(client)
            else:
                self.stopping.wait(self._wait_limit())
                client.noop()

    def _wait_limit(self) -> float:
        """How long to wait for news: the poll interval, or less when a deferred message is due sooner."""
        limit = self.settings.imap_poll
        if self.deferred:
            limit = min(limit, max(0.1, min(self.deferred.values()) - time.monotonic()))
        return limit

    def _idle(self, client: IMAPClient) -> None:
        """IDLE until the server says something, the wait is over or we are stopped (checked each second)."""
        client.idle()
        try:
            deadline = time.monotonic() + min(self._wait_limit(), MAX_IDLE)
            quick = 0
            while not self.stopping.is_set() and time.monotonic() < deadline:
                started = time.monotonic()
                responses = client.idle_check(timeout=1)
                # IMAPClient reads EOF as "no responses", at once and every time: the server has
                # gone away.  (Once can be a TLS record without data, a session ticket.)
                quick = quick + 1 if not responses and time.monotonic() - started < 0.5 else 0
                if quick >= 3:
                    raise ConnectionError("the server closed the connection")
                if any(isinstance(r, tuple) and len(r) > 1 and r[1] in (b"EXISTS", b"RECENT") for r in responses):
                    return
                if any(isinstance(r, tuple) and r[:1] == (b"BYE",) for r in responses):
                    raise ConnectionError("the server closed the connection")
        finally:
            client.idle_done()

    def sweep(self, client: IMAPClient, uidvalidity: int, keywords: bool) -> int:
        """Store every message new since ``last_uid``; the number stored."""
        last_uid, known = self._bookkeeping(uidvalidity)
        everything = sorted(u for u in client.search(["UID", f"{last_uid + 1}:*", "NOT", "DELETED"]) if u > last_uid)
        if not everything:
            if not known:
                self._advance(uidvalidity, last_uid, 0)
            return 0
        # The first look takes unseen mail only; what it leaves counts as finished.
        uids = everything if known else sorted(set(client.search(["UNSEEN"])) & set(everything))
        finished: set[int] = set(everything) - set(uids)
        meta = client.fetch(uids, [b"RFC822.SIZE", b"FLAGS"]) if uids else {}
        stored = 0
        now = time.monotonic()
        for uid in uids:
            if self.stopping.is_set():
                break
            if uid not in meta:  # gone meanwhile (another client moved it)
                finished.add(uid)
                continue
            if self.deferred.get(uid, 0) > now:
                continue
            if {KEYWORD, REFUSED} & set(meta[uid].get(b"FLAGS", ())):
                # Flagged only after its commit: stored already, the bookkeeping lagged behind (a crash).
                finished.add(uid)
                continue
            outcome = self._take(client, uid, int(meta[uid].get(b"RFC822.SIZE", 0)), keywords)
            if outcome != "deferred":
                finished.add(uid)
                self.deferred.pop(uid, None)
                stored += outcome == "stored"
        new_last = last_uid
        for uid in everything:  # the bookkeeping moves only over an unbroken run of finished messages
            if uid not in finished:
                break
            new_last = uid
        self._advance(uidvalidity, new_last, stored)
        return stored

    def _take(self, client: IMAPClient, uid: int, size: int, keywords: bool) -> str:
        """One message: "stored", "refused" (kept in the folder, flagged, logged) or "deferred"."""
        if size > self.settings.max_size:
            log.warning("IMAP %s: message UID %d of %d bytes is over the limit of %d; left in the folder",
                        self.mailbox, uid, size, self.settings.max_size)
            self._finish(client, uid, keywords, refused=True)
            return "refused"
        data = client.fetch([uid], [b"BODY.PEEK[]"]).get(uid, {})
        raw = bytes(data.get(b"BODY[]") or b"")
        if (problem := header_problem(raw)) is not None:
            log.warning("IMAP %s: message UID %d refused: %s; left in the folder", self.mailbox, uid, problem)
            self._finish(client, uid, keywords, refused=True)
            return "refused"
        sender, recipients = envelope_of(raw, self.settings)
        try:
            # The listener's store thread: answered once the message's commit is on disk.
            self.submit(raw, sender, recipients).result(timeout=120)
        except RateLimited as exc:
            log.warning("IMAP %s: message UID %d from %r waits: %s (%s)", self.mailbox, uid, sender,
                        type(exc).__name__, "too much mail from unknown senders" if "Backlog" in type(exc).__name__
                        else f"over {self.settings.rate_limit} messages this hour")
            self.deferred[uid] = time.monotonic() + DEFER_SECONDS
            return "deferred"
        self._finish(client, uid, keywords)
        return "stored"

    def _finish(self, client: IMAPClient, uid: int, keywords: bool, refused: bool = False) -> None:
        """After the commit: flag, move or delete (a refused message is only flagged, for the admin to see)."""
        flags = [SEEN, REFUSED if refused else KEYWORD] if keywords else [SEEN]
        if refused or self.done.action == "flag":
            client.add_flags([uid], flags)
        elif self.done.action == "move":
            target = folder_name(client, self.done.folder)
            if client.has_capability("MOVE"):
                client.move([uid], target)
            else:
                client.copy([uid], target)
                self._expunge(client, uid, flags)
        else:
            self._expunge(client, uid, flags)

    @staticmethod
    def _expunge(client: IMAPClient, uid: int, flags: list[bytes]) -> None:
        client.add_flags([uid], [*flags, DELETED])
        if client.has_capability("UIDPLUS"):
            client.uid_expunge([uid])
        else:
            client.expunge()

    # -- what status shows, kept in the database -----------------------------------------

    def _bookkeeping(self, uidvalidity: int) -> tuple[int, bool]:
        """(last finished UID, whether a look at this folder with this UIDVALIDITY was completed)."""

        def work(session: Session) -> tuple[int, bool]:
            row = self._row(session)
            if row.uidvalidity == uidvalidity:
                return row.last_uid, True
            if row.uidvalidity:
                log.warning("IMAP %s: UIDVALIDITY changed (%d -> %d): taking unseen mail only",
                            self.mailbox, row.uidvalidity, uidvalidity)
            self.deferred.clear()
            return 0, False

        return self.db.run(work)

    def _advance(self, uidvalidity: int, last_uid: int, stored: int) -> None:
        """After a look: ``last_uid`` moves on; the UIDVALIDITY is noted only now, so a first look that
        crashed halfway is done again as a first look (unseen mail only), not as a replay of the folder."""

        def work(session: Session) -> None:
            row = self._row(session)
            if row.uidvalidity != uidvalidity:
                row.uidvalidity, row.last_uid = uidvalidity, last_uid
            else:
                row.last_uid = max(row.last_uid, last_uid)
            row.stored += stored

        self.db.run(work)

    def _set_state(self, state: str, error: str | None = None) -> None:
        def work(session: Session) -> None:
            row = self._row(session)
            if row.state != state:
                row.state, row.since = state, utcnow()
            if error is not None:
                row.last_error, row.last_error_at = error[:1000], utcnow()

        try:
            self.db.run(work)
        except Exception:
            log.exception("IMAP %s: cannot record the state %r", self.mailbox, state)

    def _row(self, session: Session) -> ImapState:
        row = session.get(ImapState, self.mailbox, with_for_update=True)
        if row is None:
            row = ImapState(mailbox=self.mailbox, uidvalidity=0, last_uid=0, state="connecting",
                            since=utcnow(), stored=0)
            session.add(row)
            session.flush()
        return row

    def _failed(self, exc: BaseException) -> None:
        text = describe(self.endpoint, exc)
        if text != self.last_error:  # one line per distinct trouble, not one per retry
            log.error("IMAP %s", text)
            self.last_error = text
        self._set_state("disconnected", text)

    def _recovered(self) -> None:
        if self.last_error:
            log.warning("IMAP %s: connected again", self.mailbox)
            self.last_error = ""
