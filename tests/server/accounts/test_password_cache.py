"""The in-memory cache of verified passwords must never accept what argon2 would refuse."""

from __future__ import annotations

from server.accounts.passwords import hash_password, verify_password


def test_cached_password_still_refuses_wrong_ones() -> None:
    stored = hash_password("apple1")
    assert verify_password(stored, "apple1")
    assert verify_password(stored, "apple1")  # now from the cache
    for wrong in ("apple2", "Apple1", "apple1 ", "", "apple"):
        assert not verify_password(stored, wrong)


def test_changed_password_invalidates_the_cached_one() -> None:
    old = hash_password("apple1")
    assert verify_password(old, "apple1")
    new = hash_password("cherry3")
    assert not verify_password(new, "apple1")
    assert verify_password(new, "cherry3")


def test_garbage_stored_hash_is_refused() -> None:
    assert not verify_password("not-a-hash", "apple1")
