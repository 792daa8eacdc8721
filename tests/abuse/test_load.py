"""Issue 20, items 1, 4, 5 and 7: mail that takes the server down or stalls everyone.

Each test is the attack, against a real ``pbmserv serve`` process, with its
cost measured from outside (/proc, the relay, the clock) and then the
assertion that it was defeated.
"""

from __future__ import annotations

import smtplib
import socket
import threading
import time

import pytest

from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import (
    ADDRESS,
    FULL,
    inbound_rows,
    mail,
    record,
    send,
    settle,
    size,
    wait_for,
    wire,
)
from tests.mailtools import Sink


def test_1a_one_small_mail_of_all_show_is_bounded(start, sink: Sink) -> None:
    """50 x ``all show sock0`` (a puppet in 150 boards; 1,500 full-size) in one 1 KB mail."""
    n = size(150, 1500)

    def setup(db) -> None:  # type: ignore[no-untyped-def]
        make_accounts(db, ["evil", "sock0", *[f"sock{i}" for i in range(1, n + 1)]])
        make_boards(db, [("sock0", f"sock{i}") for i in range(1, n + 1)])

    server, db = start(setup=setup)
    cpu = server.cpu_seconds()
    body = "\n".join(["all show sock0"] * 50)
    assert send(server.port, mail("evil@players.test", "", body), "evil@players.test")[0] == 250
    settled = settle(db, timeout=size(240, 1800))
    worker = server.cpu_seconds() - cpu
    replies = [m for m in sink.messages if m.rcpt_tos == ["evil@players.test"]]
    reply_bytes = sum(len(m.raw) for m in replies)
    record("1a_all_show_bomb", boards=n, worker_seconds=round(worker, 1), peak_rss_mb=round(server.peak_rss_mb()),
           reply_bytes=reply_bytes, settled=settled)
    assert settled and len(replies) == 1
    assert reply_bytes < 400_000, reply_bytes  # two parts (text and <pre>) of at most 100 KB each, QP-encoded
    assert "[... the rest is cut" in replies[0].text
    # On its own, the command says how to ask for the rest.
    assert send(server.port, mail("evil@players.test", "all show sock0"), "evil@players.test")[0] == 250
    settle(db, timeout=60)
    alone = [m for m in sink.messages if m.rcpt_tos == ["evil@players.test"]][-1]
    flat = " ".join(alone.text.split())
    assert f"... and {n - 10} more" in flat and "all show sock0 page 2" in flat
    assert worker < 30, worker


@pytest.mark.parametrize("workers", ["0", "2"])
def test_1b_a_mail_that_kills_the_server_is_set_aside_after_three_deaths(start, sink: Sink, workers: str) -> None:
    """A mail whose handling SIGKILLs the process (as the OOM killer does): no crash loop.

    With worker processes (``--workers 2``) the worker dies and is replaced;
    with none (``--workers 0``) the whole server dies and is restarted, as
    systemd's Restart= would.
    """
    server, db = start("--workers", workers, setup=lambda db: make_accounts(db, ["victim"]))
    assert send(server.port, mail("victim@players.test", "crashgame help"), "victim@players.test")[0] == 250
    deaths = 0
    for _ in range(size(8, 30)):
        if not wait_for(lambda: not server.alive, 4):
            break  # it stayed up: the mail is no longer taken
        deaths += 1
        server.start()  # systemd's Restart=on-failure
    settle(db, timeout=20)
    deaths += server.log().count("died (exit code -9)")  # worker processes replaced by the supervisor
    rows = inbound_rows(db)
    notices = [m for m in sink.messages if m.rcpt_tos == ["victim@players.test"]]
    record("1b_killer_mail", workers=workers, deaths=deaths, status=rows[0][1], tries=rows[0][2],
           notices=len(notices))
    assert 3 <= deaths <= 4 and server.alive  # two worker processes may both have it once
    assert rows[0][1] == "shunted"
    assert len(notices) == 1 and "could not be processed" in notices[0].text
    # And the server goes on serving.
    assert send(server.port, mail("victim@players.test", "help"), "victim@players.test")[0] == 250
    assert wait_for(lambda: len([m for m in sink.messages if m.rcpt_tos == ["victim@players.test"]]) == 2, 20)


def test_4_a_flood_from_rotating_senders_does_not_delay_a_player(start, sink: Sink) -> None:
    """Rotating MAIL FROMs, 50 commands a mail; a player's ``show`` sent 3 s in is answered within 10 s."""
    seconds = size(8, 60)

    def setup(db) -> None:  # type: ignore[no-untyped-def]
        make_accounts(db, ["alice", "bob"])
        make_boards(db, [("alice", "bob")])

    # A small backlog bound, so the bounded flood of the default run reaches it too.
    server, db = start("--unknown-backlog", str(size(20, 200)), "--unknown-per-minute", str(size(60, 300)),
                       setup=setup)
    stop = threading.Event()
    codes: dict[int, int] = {}
    errors: list[str] = []
    lock = threading.Lock()
    body = "\n".join(["tictactoe games"] * 50)

    def flood(worker: int) -> None:
        n = 0
        while not stop.is_set():
            try:
                with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as smtp:
                    smtp.ehlo("flood.test")
                    for _ in range(50):
                        if stop.is_set():
                            break
                        n += 1
                        sender = f"r{worker}x{n}@flood{n % 97}.test"
                        smtp.mail(sender)
                        smtp.rcpt(ADDRESS)
                        code, _ = smtp.data(wire(mail(sender, "", body)))
                        with lock:
                            codes[code] = codes.get(code, 0) + 1
            except (OSError, smtplib.SMTPException) as exc:
                with lock:
                    errors.append(repr(exc))
                time.sleep(0.1)

    threads = [threading.Thread(target=flood, args=(i,), daemon=True) for i in range(2)]
    for t in threads:
        t.start()
    time.sleep(3)
    sent = time.monotonic()
    assert send(server.port, mail("alice@players.test", "tictactoe show 101"), "alice@players.test")[0] == 250
    answered = wait_for(lambda: any(m.rcpt_tos == ["alice@players.test"] for m in sink.messages),
                        size(60, 600), 0.05)
    latency = time.monotonic() - sent
    time.sleep(max(0.0, seconds - 3 - latency))
    stop.set()
    for t in threads:
        t.join(timeout=60)
    record("4_flood_latency", flood_errors=errors[:3], flood_seconds=seconds, accepted=codes.get(250, 0), refused_450=codes.get(450, 0),
           honest_latency_s=round(latency, 2) if answered else f">{latency:.0f}")
    assert answered and latency < 10, latency
    # The strangers' backlog filled and they were asked to come back later (at full size the flood
    # this machine manages may stay within the real bound of 200; the latency is what counts).
    assert codes.get(450, 0) > 0 or FULL


def _folded_field(name: str, kb: int) -> bytes:
    words = ["w@example.org,"] * (kb * 1024 // 16)
    return (f"{name}: " + "\r\n ".join(words) + "\r\n").encode()


def test_5_long_headers_are_refused_before_parsing(start, sink: Sink) -> None:
    """A folded From: and a Subject: of 128 KB each (1 MB full-size): no worker time."""
    kb = size(128, 1024)
    server, db = start("--max-size", str(4 * 1024 * 1024), setup=lambda db: make_accounts(db, ["alice"]))
    cpu = server.cpu_seconds()
    codes = []
    for field in (_folded_field("From", kb), b"Subject: " + b"\r\n help" * (kb * 1024 // 7) + b"\r\n"):
        raw = (field + f"To: {ADDRESS}\r\nMessage-ID: <h{len(codes)}@clients.test>\r\n".encode()
               + (b"From: alice@players.test\r\n" if not field.startswith(b"From") else b"")
               + b"\r\nhelp\r\n")
        codes.append(send(server.port, raw, "alice@players.test")[0])
    settle(db, timeout=size(120, 600))
    worker = server.cpu_seconds() - cpu
    record("5_long_headers", kb=kb, codes=codes, worker_seconds=round(worker, 2), stored=len(inbound_rows(db)))
    assert codes == [552, 552]
    assert inbound_rows(db) == []
    assert worker < 3, worker


def test_7_idle_connections_cannot_lock_players_out(start, sink: Sink) -> None:
    """Hundreds of idle connections against a 1,024-descriptor limit; a player still gets in, the log stays small."""
    n = size(300, 1100)
    server, db = start("--idle-timeout", "2", nofile=256 if not FULL else 1024,
                       setup=lambda db: make_accounts(db, ["alice"]))
    log_before = len(server.log())
    idle: list[socket.socket] = []
    greetings: dict[str, int] = {}
    for _ in range(n):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", server.port))
            first = s.recv(3).decode() or "eof"
        except OSError:
            first = "error"
        greetings[first] = greetings.get(first, 0) + 1
        idle.append(s)
    time.sleep(1.0)
    # The player connects from another address (a second loopback address).
    started = time.monotonic()
    try:
        with smtplib.SMTP("127.0.0.1", server.port, timeout=10, source_address=("127.0.0.2", 0)) as smtp:
            smtp.sendmail("alice@players.test", [ADDRESS], wire(mail("alice@players.test", "help")))
        player = "250"
    except (OSError, smtplib.SMTPException) as exc:
        player = type(exc).__name__
    got_in = time.monotonic() - started
    log_growth = len(server.log()) - log_before
    # The idle timeout closes what the attacker holds open.
    time.sleep(2.5)
    closed = 0
    for s in idle:
        s.settimeout(0.05)
        try:
            while s.recv(4096):
                pass
            closed += 1  # EOF: the server closed it
        except OSError:
            pass
        s.close()
    answered = wait_for(lambda: any(m.rcpt_tos == ["alice@players.test"] for m in sink.messages), 20)
    record("7_idle_connections", connections=n, greetings=greetings, player=player,
           player_connect_s=round(got_in, 2), log_bytes_during=log_growth, closed_after_idle=closed,
           player_answered=answered)
    assert player == "250" and answered
    # The per-peer cap (20; a few more once the idle timeout frees slots while the attack opens them).
    assert greetings.get("421", 0) >= n - 20 * (2 if FULL else 1)
    assert log_growth < 20_000, log_growth
    assert closed == n
