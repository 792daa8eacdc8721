"""Password hashing: argon2id, never stored or logged in clear.

The cost is OWASP's minimum for argon2id (19 MiB, t=2, p=1): tens of
milliseconds a verify.  Every move mail carries a password, so the cache
below keeps a player's next move at microseconds.

A password that verified once is remembered in memory as a keyed BLAKE2b
digest (the key is random per process and never stored), tied to the stored
hash it matched, so a player's next move costs microseconds instead of an
argon2 run (15% of the server's samples under bench/bench_throughput.py).
This weakens nothing that matters: the database still holds only argon2
hashes; the digests exist only in the memory of the process that reads
every password in clear from the mail anyway; a changed password changes
the stored hash, so the old entry no longer matches; and a wrong password
is never cached, so guessing by mail still pays the full argon2 cost.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections import OrderedDict

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: OWASP's minimum for argon2id: 19 MiB, two passes, one lane (about 20-30 ms
#: here).  Hashes made with the old 4 MiB cost are re-made on the next login.
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)

#: Stored hashes whose password verified recently, newest last.
_CACHE_SIZE = 10_000
_KEY = os.urandom(32)
_verified: OrderedDict[str, bytes] = OrderedDict()
_lock = threading.Lock()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def needs_rehash(stored: str) -> bool:
    """True for a hash made with weaker parameters than ours (re-hash it at the next login)."""
    try:
        return _hasher.check_needs_rehash(stored)
    except InvalidHashError:
        return False


def _digest(password: str) -> bytes:
    return hashlib.blake2b(password.encode("utf-8"), key=_KEY, digest_size=32).digest()


def verify_password(stored: str, password: str) -> bool:
    """Constant-time check (argon2 and hmac.compare_digest compare in constant time)."""
    digest = _digest(password)
    with _lock:
        known = _verified.get(stored)
    if known is not None and hmac.compare_digest(known, digest):
        return True
    try:
        ok = _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False
    if ok:
        with _lock:
            _verified[stored] = digest
            _verified.move_to_end(stored)
            while len(_verified) > _CACHE_SIZE:
                _verified.popitem(last=False)
    return ok
