"""Secrets: passwords stored only as argon2 hashes, never in replies, logs or traces.

A real ``pbmserv serve`` process (logging at -v) and ``pbmserv process``
get mail full of passwords: sign-ups, right and wrong passwords, password
changes, unknown commands, multi-command mails, refusals.  Then everything
the server wrote is grepped for every password: every database column
(outbox mail decoded), every mail at the relay, the server's stderr and the
CLI's output.  ``inbound.raw`` (the player's own message, kept verbatim so a
crash cannot lose it) is the one place a password may be, by design.
"""

from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY

from sqlalchemy import select

from server.database import Database
from server.model import Inbound
from tests.mailtools import Sink, free_port
from tests.reliability.audit import wait_settled
from tests.reliability.secrets_scan import argon2_hashes, database_text, leaks, relay_text
from tests.reliability.serverproc import ADDRESS, ServerProcess, run_cli

PASSWORDS = {"alice": "Sekr1tAlice", "bob": "Sekr1tBob", "carol": "Sekr1tCarol", "new": "Sekr1tNewPw",
             "short": "Xq9"}


def mail(sender: str, subject: str, body: str = "", n: int = 0) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = f"<secret.{n}.{abs(hash(subject + body))}@clients.test>"
    msg.set_content(body or "\n")
    return msg.as_bytes(policy=SMTP_POLICY)


def script() -> list[tuple[str, str, str]]:
    a, b, c, new, short = PASSWORDS.values()
    return [
        ("alice@example.org", f"signup alice {a}", ""),
        ("bob@example.org", f"signup bob {b}", ""),
        ("carol@example.org", f"signup carol {short}", ""),            # refused: too short
        ("carol@example.org", f"signup carol {c} not-an-address", ""),  # refused: bad address
        ("alice@example.org", "tictactoe challenge alice bob", ""),
        ("alice@example.org", f"tictactoe move 101 alice {a} a1#1", f"my password is not here, {a[:3]}"),
        ("bob@example.org", f"tictactoe move 101 bob {a} b2", ""),      # wrong password
        ("bob@example.org", f"tictactoe move 101 bob {b} zz9", ""),     # illegal move
        ("bob@example.org", f"tictactoe move 101 alice {a} b2", ""),    # not alice's turn
        ("alice@example.org", f"frobnicate alice {a}", ""),            # unknown command
        ("alice@example.org", f"tictactoe frobnicate 101 alice {a}", ""),
        ("alice@example.org", "", f"tictactoe move 101 bob {b} b2#2\nchange password alice {a} {new}\n"
                                  f"tictactoe resign 101 alice {a}\nsignoff carol {c}\n"),
        ("alice@example.org", f"change password alice {a} {new}", ""),  # old one is wrong now
        ("alice@example.org", f"vacation alice {new} on", ""),
        ("alice@example.org", f"change address alice {new} alice@example.net", ""),
        ("bob@example.org", f"signoff bob {b}", ""),
    ]


def test_no_password_anywhere_the_server_writes(tmp_path, sink: Sink, procs: list[ServerProcess]) -> None:
    url = f"sqlite:///{tmp_path / 'secrets.db'}"
    server = ServerProcess(url, free_port(), sink.port, tmp_path / "serve.log")
    procs.append(server)
    server.start()
    try:
        for n, (sender, subject, body) in enumerate(script()):
            with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as smtp:
                smtp.sendmail(sender, [ADDRESS], mail(sender, subject, body, n))
            wait_settled(Database(url))  # in order: each command sees the last one's effect
    finally:
        server.stop()
    # The same through `pbmserv process`: its stdout and stderr are written too.
    cli_output = []
    for n, (sender, subject, body) in enumerate(script()[:6], start=100):
        done = run_cli(url, "process", "--sender", sender, stdin=mail(sender, subject.replace("alice", "dave")
                                                                      .replace("bob", "erin"), body, n),
                       relay_port=sink.port)
        assert done.returncode == 0, done.stderr.decode()
        cli_output.append(done.stdout.decode() + done.stderr.decode())

    db = Database(url)
    with db.transaction() as s:
        results = [r for row in s.scalars(select(Inbound)) for r in row.results]
    # The script did what it says, or the grep proves little.
    texts = " | ".join(r["text"] for r in results)
    for expected in ("Welcome to pbmserv, alice", "Wrong password for bob", "not a square", "It is not your move",
                     "Unknown command 'frobnicate'", "A password has 4-128 characters", "password of alice is changed"):
        assert expected in texts, expected
    assert sum(r["ok"] for r in results) >= 8 and sum(not r["ok"] for r in results) >= 6

    hashes = argon2_hashes(db)
    assert hashes and all(h.startswith("$argon2id$") for h in hashes), hashes
    assert len(set(hashes)) == len(hashes)  # salted

    sources = database_text(db)
    sources["relay"] = relay_text(sink.messages)
    sources["serve stderr"] = server.log()
    sources["process output"] = "\n".join(cli_output)
    assert "command from=" in sources["serve stderr"]  # the log is really there (-v)
    found = leaks(list(PASSWORDS.values()), sources)
    assert not found, "\n".join(f"{src}: {pw!r} in ...{ctx!r}..." for src, pw, ctx in found)
    # ...while the player's own messages, by design, still hold what they typed.
    with db.transaction() as s:
        raw = b"".join(s.scalars(select(Inbound.raw)))
    assert PASSWORDS["alice"].encode() in raw
    db.dispose()


def test_overlong_envelope_sender_is_refused_for_good_and_not_logged(db_url: str, sink: Sink, caplog) -> None:
    """RFC 5321 caps a path at 256 octets; PostgreSQL's column at 320.

    A longer MAIL FROM used to reach the INSERT, fail there (on PostgreSQL),
    get a 451 (so the sending MTA retried for days) and log the failed
    statement with its parameters: the raw message, password and all.
    """
    import logging

    from tests.server.conftest import start_server

    caplog.set_level(logging.INFO)
    server = start_server(db_url, sink)
    port = server.settings.listen_hostport[1]
    sender = "x" * 330 + "@example.org"
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.ehlo("mta.example")
            code, _ = smtp.mail(sender)
            if code == 250:
                smtp.rcpt(ADDRESS)
                code, _ = smtp.data(mail("alice@example.org", f"signup alice {PASSWORDS['alice']}"))
    finally:
        server.stop()
    assert code == 553
    assert PASSWORDS["alice"] not in caplog.text
