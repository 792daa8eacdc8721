"""Issue 32, item 12: sessions kept alive with NOOP cannot lock players out.

The idle timeout restarts on every command: 200 connections from 10
addresses, each sending NOOP before the timeout, held every place of the
listener, and a player got 421 for as long as the attacker liked.  Replayed
with the places and the timeouts scaled down by flags (40 places, 4 per
address, a 2 s idle timeout; ``PBMSERV_ABUSE_FULL=1``: 200, 20, the default
60 s): ten attacker addresses in 127.0.0.0/24 keep NOOP-ing while a player
in another /24 (127.0.1.1) connects.  Afterwards the attacker's sessions
must have been closed (by the lifetime bound or the NOOP count), never
held for ever.
"""

from __future__ import annotations

import smtplib
import socket
import threading
import time

from tests.abuse.conftest import make_accounts
from tests.abuse.harness import ADDRESS, mail, record, size, wait_for, wire
from tests.mailtools import Sink

PLACES = size(40, 200)
PER_PEER = PLACES // 10
IDLE = size(2, 60)


class Squatter(threading.Thread):
    """One attacker connection: NOOP at half the idle timeout until the server closes it or time is up."""

    def __init__(self, port: int, source: str, until: float) -> None:
        super().__init__(daemon=True)
        self.port, self.source, self.until = port, source, until
        self.admitted = False
        self.closed_at: float | None = None
        self.noops = 0

    def run(self) -> None:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=IDLE * 2,
                                          source_address=(self.source, 0)) as conn:
                reader = conn.makefile("rb")
                self.admitted = reader.readline().startswith(b"220")
                if not self.admitted:
                    return
                conn.sendall(b"EHLO squatter.test\r\n")
                while time.monotonic() < self.until:
                    line = reader.readline()
                    while line.startswith(b"250-"):
                        line = reader.readline()
                    if not line or line.startswith(b"421"):
                        self.closed_at = time.monotonic()
                        return
                    time.sleep(IDLE / 2)
                    conn.sendall(b"NOOP\r\n")
                    self.noops += 1
        except OSError:
            self.closed_at = time.monotonic()


def test_noop_sessions_cannot_hold_every_place(start, sink: Sink) -> None:
    server, db = start("--max-connections", str(PLACES), "--max-connections-per-peer", str(PER_PEER),
                       "--max-connections-per-network", str(PLACES // 4), "--idle-timeout", str(IDLE),
                       "--max-session-seconds", str(IDLE * 3), "--max-idle-commands", "20",
                       setup=lambda db: make_accounts(db, ["alice"]))
    began = time.monotonic()
    attack_for = IDLE * 6
    squatters = [Squatter(server.port, f"127.0.0.{2 + i % 10}", began + attack_for) for i in range(PLACES)]
    for s in squatters:
        s.start()
    time.sleep(IDLE)  # every place the attacker can get is taken and kept alive
    player = []
    for _ in range(3):
        try:
            with smtplib.SMTP("127.0.0.1", server.port, timeout=10, source_address=("127.0.1.1", 0)) as smtp:
                smtp.ehlo("player.test")
                smtp.sendmail("alice@players.test", [ADDRESS], wire(mail("alice@players.test", "help")))
            player.append(250)
        except smtplib.SMTPException as exc:
            player.append(getattr(exc, "smtp_code", type(exc).__name__))
        time.sleep(IDLE / 2)
    for s in squatters:
        s.join(timeout=attack_for + IDLE * 4)
    admitted = [s for s in squatters if s.admitted]
    held_to_the_end = [s for s in admitted if s.closed_at is None]
    answered = wait_for(lambda: bool(sink.to("alice@players.test")), 20)
    record("32_12_noop_sessions", places=PLACES, attacker_admitted=len(admitted), player=player,
           held_whole_attack=len(held_to_the_end), attack_seconds=attack_for,
           closed_after=sorted(round(s.closed_at - began, 1) for s in admitted if s.closed_at)[-1:])
    assert player == [250, 250, 250], player
    assert answered
    assert len(admitted) <= PLACES // 4
    assert held_to_the_end == [], f"{len(held_to_the_end)} sessions NOOP-ed through the whole attack"


def test_commands_without_mail_are_bounded_but_transactions_are_not(start, sink: Sink) -> None:
    """21 NOOPs in a row: 421.  A session that sends mail between its commands is not cut off."""
    server, db = start("--max-idle-commands", "20", setup=lambda db: make_accounts(db, ["alice"]))
    with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as smtp:
        smtp.ehlo("client.test")
        for _ in range(5):  # 5 messages with 3 NOOPs each: the count starts again with every transaction
            for _ in range(3):
                assert smtp.noop()[0] == 250
            smtp.sendmail("alice@players.test", [ADDRESS], wire(mail("alice@players.test", "help")))
    codes = []
    with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as smtp:
        smtp.ehlo("client.test")
        try:
            for _ in range(25):
                codes.append(smtp.noop()[0])
        except smtplib.SMTPServerDisconnected:
            codes.append("disconnected")
    record("32_12_idle_commands", codes=codes)
    # EHLO and 19 NOOPs are the 20 allowed; the 21st command is answered 421 and the session closed.
    assert codes[:19] == [250] * 19 and codes[19] == 421, codes
    assert wait_for(lambda: len(sink.to("alice@players.test")) == 5, 30)
