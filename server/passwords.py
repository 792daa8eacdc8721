"""Password hashing: argon2id, never stored or logged in clear.

The cost is tuned down from argon2-cffi's interactive default so one verify
takes a few milliseconds: every move mail carries a password, and a busy
server verifies thousands an hour.  It is still far beyond what a stolen
database would let anyone brute-force cheaply.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher(time_cost=2, memory_cost=4096, parallelism=1)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Constant-time check (argon2 compares digests in constant time)."""
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False
