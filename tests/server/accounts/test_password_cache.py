"""The in-memory cache of verified passwords must never accept what argon2 would refuse."""

from __future__ import annotations

import pytest

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


def _verify_in_child(stored: str, password: str, results) -> None:  # type: ignore[no-untyped-def]
    results.put(verify_password(stored, password))


def _count_argon2(monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    from server.accounts import passwords

    calls: list[str] = []
    real = passwords._hasher

    class Counted:
        """The real argon2 hasher, counting its verifies."""

        def verify(self, stored: str, password: str) -> bool:
            calls.append(password)
            return real.verify(stored, password)

        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(real, name)

    monkeypatch.setattr(passwords, "_hasher", Counted())
    return calls


def test_a_password_verified_in_one_forked_worker_is_known_to_the_others(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """serve forks its workers after importing this module: one argon2 per player per start, not per worker."""
    import multiprocessing

    stored = hash_password("quince7")
    ctx = multiprocessing.get_context("fork")  # as serve does
    results = ctx.Queue()
    child = ctx.Process(target=_verify_in_child, args=(stored, "quince7", results))
    child.start()
    assert results.get(timeout=60) is True
    child.join(timeout=60)
    calls = _count_argon2(monkeypatch)
    assert verify_password(stored, "quince7")  # another process verified it: no argon2 here
    assert calls == []
    # ... and a wrong password still pays argon2, every time (no oracle)
    for _ in range(2):
        assert not verify_password(stored, "quince8")
    assert calls == ["quince8", "quince8"]


def test_a_sibling_worker_sees_it_too(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import multiprocessing

    stored = hash_password("medlar5")
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    first = ctx.Process(target=_verify_in_child, args=(stored, "medlar5", results))
    first.start()
    assert results.get(timeout=60) is True
    first.join(timeout=60)

    def sibling(out) -> None:  # type: ignore[no-untyped-def]
        calls = _count_argon2(pytest.MonkeyPatch())
        out.put((verify_password(stored, "medlar5"), len(calls)))

    second = ctx.Process(target=sibling, args=(results,))
    second.start()
    assert results.get(timeout=60) == (True, 0)
    second.join(timeout=60)
