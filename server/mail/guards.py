"""Cheap checks at the front door, before anything is stored or parsed.

Each guard is a small pure function or object the listener (and ``pbmserv
process``) calls, so that a hostile mail is refused for the price of a scan
of its header block: never after the stdlib parser has spent minutes on it,
never after it has reached PostgreSQL (which refuses NUL in text), and never
by running the host out of file descriptors.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import re
import threading
import time
from collections import Counter
from typing import Any

#: The header block of a message, one header field with its folded lines,
#: and a field the server reads (From, Reply-To, Subject, ...).  Reading an
#: address header costs about 40 ms a KB (a 1 MB folded From: took 122 s);
#: fields nobody reads are only split off, which is cheap.  Real clients stay
#: far below these (a long References of a year-old thread is a few KB).
MAX_HEADER_BLOCK = 256 * 1024
MAX_HEADER_FIELD = 32 * 1024
MAX_READ_FIELD = 4 * 1024
#: The fields server.mail.parse reads (lower-case).
READ_FIELDS = frozenset({b"from", b"reply-to", b"sender", b"subject", b"message-id", b"in-reply-to",
                         b"auto-submitted", b"precedence", b"x-loop", b"x-ack", b"content-type",
                         b"x-autoreply", b"x-autorespond", b"return-path"})

_FIELD_START = re.compile(rb"\n(?=[^ \t\r\n])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MESSAGE_ID = re.compile(rb"^message-id[ \t]*:(.*)", re.IGNORECASE | re.DOTALL)

log = logging.getLogger("pbmserv.guards")


def header_block(raw: bytes) -> bytes:
    """The bytes before the first empty line (the whole message if there is none)."""
    ends = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    return raw[: min(ends)] if ends else raw


def header_fields(head: bytes) -> list[bytes]:
    """One entry per field, folded lines included (a linear scan, no parsing)."""
    starts = [0, *(m.start() + 1 for m in _FIELD_START.finditer(head))]
    return [head[a:b] for a, b in zip(starts, [*starts[1:], len(head)], strict=True)]


def header_problem(raw: bytes, block: bool = True) -> str | None:
    """Why the headers of ``raw`` must not be parsed, or None.

    A header block over MAX_HEADER_BLOCK, one field over MAX_HEADER_FIELD or
    a field the server reads over MAX_READ_FIELD is refused whole; so is a NUL in the Message-ID (it made PostgreSQL
    fail the INSERT: a permanent 451 loop).  ``block=False`` leaves out the
    block's size (the parser reads only the first fields of a long block).
    """
    head = header_block(raw[: MAX_HEADER_BLOCK + 4] if block else raw)
    if block and len(head) >= MAX_HEADER_BLOCK:
        return f"header block longer than {MAX_HEADER_BLOCK // 1024} KB"
    for field in header_fields(head):
        if len(field) > MAX_HEADER_FIELD:
            return f"a header field longer than {MAX_HEADER_FIELD // 1024} KB"
        if len(field) > MAX_READ_FIELD and field.partition(b":")[0].strip().lower() in READ_FIELDS:
            return f"a {field.partition(b':')[0].decode('ascii', 'replace')[:40]} field longer than " \
                   f"{MAX_READ_FIELD // 1024} KB"
        if b"\x00" in field and _MESSAGE_ID.match(field):
            return "NUL character in the Message-ID"
    return None


def path_problem(address: str) -> str | None:
    """Why a MAIL FROM path is refused: control characters (NUL, ESC, DEL, ...)."""
    if _CONTROL.search(address):
        return "control character in the address"
    return None


@functools.lru_cache(maxsize=4096)
def network_of(peer: str) -> str:
    """The /24 of an IPv4 peer, the /64 of an IPv6 one (what one attacker usually holds); else the peer.

    Cached: ``ipaddress`` took 10 us a call, twice a connection, and the
    peers that connect are mostly the same few MTAs.
    """
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return peer
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


class ConnectionGate:
    """At most ``total`` connections at once, ``per_peer`` from one address and
    ``per_network`` from one /24 (IPv4) or /64 (IPv6).

    About a thousand idle connections used to exhaust the process's file
    descriptors and lock every player out; beyond the caps a connection is
    answered 421 and closed at once.  The per-peer cap alone did not help:
    ten addresses of one network took all 200 places (issue 32).
    """

    def __init__(self, total: int, per_peer: int, per_network: int | None = None) -> None:
        self.total = total
        self.per_peer = per_peer
        self.per_network = per_network
        self.open: Counter[str] = Counter()
        self.networks: Counter[str] = Counter()
        self.lock = threading.Lock()

    def admit(self, peer: str) -> bool:
        network = network_of(peer)
        with self.lock:
            if sum(self.open.values()) >= self.total or self.open[peer] >= self.per_peer:
                return False
            if self.per_network is not None and self.networks[network] >= self.per_network:
                return False
            self.open[peer] += 1
            self.networks[network] += 1
            return True

    def release(self, peer: str) -> None:
        network = network_of(peer)
        with self.lock:
            self.open[peer] -= 1
            if self.open[peer] <= 0:
                del self.open[peer]
            self.networks[network] -= 1
            if self.networks[network] <= 0:
                del self.networks[network]


class SessionBounds:
    """A session's lifetime and its commands outside a mail transaction, bounded.

    The idle timeout restarts on every command, so a client sending NOOP
    every 25 s held its place for ever: 200 such sessions from 10 addresses
    locked everyone else out (issue 32).  A session that is past
    ``lifetime`` seconds, or has sent ``idle_commands`` commands in a row
    without starting a mail transaction, is answered 421 and closed; never
    inside a transaction, so no message is cut off before its answer.
    """

    def __init__(self, lifetime: float, idle_commands: int) -> None:
        self.lifetime = lifetime
        self.idle_commands = idle_commands
        self.started = time.monotonic()
        self.idle_count = 0

    def over(self, data: bytes, in_transaction: bool) -> str | None:
        """Why the session must end now that ``data`` arrived, or None."""
        if in_transaction:
            self.idle_count = 0
            return None
        self.idle_count += max(1, data.count(b"\n"))
        if self.idle_count > self.idle_commands:
            return f"too many commands without mail ({self.idle_commands})"
        if time.monotonic() - self.started > self.lifetime:
            return f"session older than {self.lifetime:g} s"
        return None


class QuietErrors:
    """An event-loop exception handler that logs the same trouble at most once a minute.

    When accept() fails (EMFILE), asyncio retries and logs every time: 2.2 MB
    of log a second.  The first error is logged whole; repeats are counted
    and summed up in one line a minute.
    """

    REPEAT_SECONDS = 60.0

    def __init__(self) -> None:
        self.last: dict[str, float] = {}
        self.suppressed: Counter[str] = Counter()

    def __call__(self, loop: Any, context: dict[str, Any]) -> None:
        message = str(context.get("message", "event loop error"))
        key = message.split(":")[0][:80]
        now = time.monotonic()
        last = self.last.get(key)
        if last is not None and now - last < self.REPEAT_SECONDS:
            self.suppressed[key] += 1
            return
        self.last[key] = now
        repeats = self.suppressed.pop(key, 0)
        extra = f" ({repeats} more like it in the last minute)" if repeats else ""
        exc = context.get("exception")
        log.error("%s%s: %s", message, extra, exc if exc is not None else "", exc_info=False)
