"""Password hashing: argon2id, never stored or logged in clear.

The cost is OWASP's minimum for argon2id (19 MiB, t=2, p=1): tens of
milliseconds a verify.  A move mail with a password would pay that every
time; the cache below makes it once per player per server start.

The verified-password cache is shared by every process ``serve`` forks
(issue 25: each worker process had its own, so a player paid argon2 once
per worker).  It is an anonymous shared memory map, made when this module
is imported -- in ``serve``'s process, before it forks -- so the workers
inherit the same pages; a process started on its own gets a cache of its
own.  Each entry is a keyed BLAKE2b digest of (stored hash, password) under
a key drawn at random at start and held only in the server's memory.

What it gives away, and what it does not:

* The database holds argon2 hashes only, as before; nothing of the cache
  is ever written to disk or to a file another process could open.
* A copy of the cache alone (a core dump of the map, say) is 32-byte MACs
  under an unknown key: nothing to test guesses against.  With the key as
  well (all of a server process's memory), guesses could be tested at
  BLAKE2 speed against the passwords that verified since the start -- but
  whoever reads that memory also reads those passwords in clear from the
  mail the process handles.
* It is never an oracle: an entry can only say "this exact password for
  this exact stored hash verified before".  A wrong password finds no
  entry and always pays the full argon2 verify; a changed password changes
  the stored hash, so the old entries match nothing.  A slot torn by two
  processes writing at once matches nothing either (argon2 again).

Layout: ``_BUCKETS`` buckets of ``_WAYS`` 32-byte slots; the stored hash
picks the bucket (keyed, so no one can aim at another player's bucket), a
new entry takes the slot after the bucket's last written one.
"""

from __future__ import annotations

import hashlib
import hmac
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: OWASP's minimum for argon2id: 19 MiB, two passes, one lane (about 20-30 ms
#: here).  Hashes made with the old 4 MiB cost are re-made on the next login.
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)

_DIGEST = 32
_WAYS = 4
#: 16,384 buckets of 4: 2 MiB, room for tens of thousands of players before evictions matter.
_BUCKETS = 1 << 14
_KEY = os.urandom(32)
#: One byte per bucket after the slots: which slot the bucket wrote last.
_shared = mmap.mmap(-1, _BUCKETS * (_WAYS * _DIGEST + 1))
_NEXT = _BUCKETS * _WAYS * _DIGEST


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def needs_rehash(stored: str) -> bool:
    """True for a hash made with weaker parameters than ours (re-hash it at the next login)."""
    try:
        return _hasher.check_needs_rehash(stored)
    except InvalidHashError:
        return False


def _entry(stored: str, password: str) -> bytes:
    data = stored.encode("utf-8") + b"\x00" + password.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, key=_KEY, digest_size=_DIGEST, person=b"pbm-verified").digest()


def _bucket(stored: str) -> int:
    pick = hashlib.blake2b(stored.encode("utf-8"), key=_KEY, digest_size=8, person=b"pbm-bucket").digest()
    return int.from_bytes(pick, "big") % _BUCKETS


def _known(bucket: int, entry: bytes) -> bool:
    base = bucket * _WAYS * _DIGEST
    found = False
    for way in range(_WAYS):  # every slot compared, in constant time each
        start = base + way * _DIGEST
        found |= hmac.compare_digest(_shared[start:start + _DIGEST], entry)
    return found


def _remember(bucket: int, entry: bytes) -> None:
    way = (_shared[_NEXT + bucket] + 1) % _WAYS
    start = bucket * _WAYS * _DIGEST + way * _DIGEST
    _shared[start:start + _DIGEST] = entry
    _shared[_NEXT + bucket] = way


class PasswordPending(BaseException):
    """A password check met inside a transaction that runs with :func:`checked_outside`.

    argon2 takes tens of milliseconds; run under the SQLite write lock (or a
    board row's lock on PostgreSQL) it held every other writer up (issue 32,
    item 4).  So the worker's transactions do not run it: the check raises
    this instead (a BaseException, so no command's error handling turns it
    into a refusal), the transaction rolls back (nothing of it stays), the
    worker calls :meth:`settle` with no transaction open, and runs the same
    step again, which now finds the verdict for this very stored hash and
    password.  A wrong password pays argon2 once, outside the lock, like a
    right one the cache has not seen; the answer is the same as before.
    """

    def __init__(self, stored: str, password: str) -> None:
        super().__init__("a password to check outside the transaction")
        self.stored = stored
        self._password = password

    def settle(self) -> None:
        """argon2 now (the caller holds no lock), its verdict kept for this worker's next try."""
        decided = _decided.get()
        verdict = _verify(self.stored, self._password)
        if decided is not None:
            decided[_entry(self.stored, self._password)] = verdict

    def __repr__(self) -> str:  # never the password
        return "PasswordPending()"


#: Verdicts reached outside the transaction (keyed by the cache's MAC, not the password), or None:
#: checks are made where they are asked for (everywhere but the worker).
_decided: ContextVar[dict[bytes, bool] | None] = ContextVar("pbmserv_passwords_decided", default=None)


@contextmanager
def checked_outside() -> Iterator[None]:
    """Within this, a password check the shared cache cannot answer raises PasswordPending."""
    token = _decided.set({})
    try:
        yield
    finally:
        _decided.reset(token)


@contextmanager
def checked_inline() -> Iterator[None]:
    """Checks are made where they are asked for again (the worker's last resort, see worker.py)."""
    token = _decided.set(None)
    try:
        yield
    finally:
        _decided.reset(token)


def verify_password(stored: str, password: str) -> bool:
    """Constant-time check (argon2 and hmac.compare_digest compare in constant time)."""
    entry, bucket = _entry(stored, password), _bucket(stored)
    if _known(bucket, entry):
        return True
    decided = _decided.get()
    if decided is not None:
        if entry in decided:
            return decided[entry]
        raise PasswordPending(stored, password)
    return _verify(stored, password)


def _verify(stored: str, password: str) -> bool:
    try:
        ok = _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False
    if ok:
        _remember(_bucket(stored), _entry(stored, password))
    return ok
