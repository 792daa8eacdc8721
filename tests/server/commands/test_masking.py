"""Passwords are masked by content: mangled lines never echo them, in replies or logs."""

from __future__ import annotations

import logging

import pytest

from server.commands.masking import scrub
from tests.server.conftest import Running

MANGLED = [
    "warpandweft move alice apple1 C1",  # no board number
    "warpandweft move 101 apple1 C1",  # no userid
    "warpandweft move 101 alice C1 apple1",  # password and move swapped
    "warpandweft moev 101 alice apple1 C1",  # unknown verb
    "warpandwft move 101 alice apple1 C1",  # unknown game
    "warpandweft resign alice apple1",
    "warpandweft chat 101 apple1",
    "warpandweft challenge alice bob apple1",
    "warpandweft queue alice apple1 C1",
    "Warp and Weft Board 101 apple1 C1",  # edited subject without the userid
    "vacation apple1 on",
    "vacation alice on apple1",
    "vacation carol on 314159",  # a password that looks like a number
    "signoff apple1",
    "change password alice apple1",
    "change password apple1 newpass9 alice",
    "message apple1 bob",
    "all show alice apple1",
    "help apple1",
    "apple1",
]


def test_mangled_lines_never_show_the_password(sqlite_players: Running, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    players = sqlite_players
    players.mail("carol@example.org", "signup carol 314159")
    players.mail("alice@example.org", "warpandweft challenge alice bob -size=2")
    replies = []
    for line in MANGLED:
        got = players.mail("alice@example.org", line)
        assert got, line
        replies += got
    replies += players.mail("alice@example.org", "multiple", "\n".join(MANGLED[:12]))
    for mail in replies:
        text = mail.text + mail.message.get_body(preferencelist=("html",)).get_content()  # type: ignore[union-attr]
        for secret in ("apple1", "314159"):
            assert secret not in text, (mail.subject, text)
    assert sum("********" in m.text for m in replies) >= len(MANGLED) - 2
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "cmd=" in logged
    for secret in ("apple1", "314159"):
        assert secret not in logged


def test_reasons_keep_what_is_not_secret(sqlite_players: Running) -> None:
    players = sqlite_players
    players.mail("alice@example.org", "warpandweft challenge alice bob -size=2")
    [reply] = players.mail("alice@example.org", "warpandweft move 101 alice apple1 Z9")
    assert "warpandweft move 101 alice ******** Z9" in reply.text and "Z9" in reply.text.split("carried out")[1]
    [reply] = players.mail("alice@example.org", "warpandweft move 101 alice wrongpw C1")
    assert "Wrong password for alice" in reply.text and "wrongpw" not in reply.text


def test_scrub_replaces_whole_words_only() -> None:
    assert scrub("'pw1x' is not a board; pw1xy stays", {"pw1x"}) == "'********' is not a board; pw1xy stays"
