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

from server.store.database import Database
from server.store.model import Inbound
from tests.mailtools import Sink, free_port
from tests.reliability.audit import wait_settled
from tests.reliability.secrets_scan import (
    argon2_hashes,
    database_text,
    leaks,
    relay_text,
    reply_tokens,
    token_leaks,
)
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


def reply(board_mail, sender: str, typed: str, n: int) -> bytes:  # type: ignore[no-untyped-def]
    """A plain Reply to a board mail (to its Reply-To), the move typed above the quote."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(board_mail.message["Reply-To"])
    msg["Subject"] = "Re: " + board_mail.subject
    msg["Message-ID"] = f"<token.{n}@clients.test>"
    msg["In-Reply-To"] = str(board_mail.message["Message-ID"])
    quoted = "\n".join("> " + line for line in board_mail.text.splitlines())
    msg.set_content(f"{typed}\n\nOn Wednesday, pbmserv wrote:\n{quoted}\n")
    return msg.as_bytes(policy=SMTP_POLICY)


def test_no_reply_token_anywhere_but_its_owners_mail(tmp_path, sink: Sink, procs: list[ServerProcess]) -> None:
    """Reply tokens (issue 15) under the same grep as passwords, with ``serve -vv``.

    At -vv aiosmtpd logs the SMTP dialogue, RCPT TO:<pbmserv+TOKEN@...>
    included: the log filter must mask it.  A token may be in its owner's
    own mail and in what the player sent us (``inbound.raw`` and the
    envelope ``inbound.rcpt_to``); nowhere else: not in a log line, not in
    a reply to anyone else, not in any other column.
    """
    url = f"sqlite:///{tmp_path / 'tokens.db'}"
    server = ServerProcess(url, free_port(), sink.port, tmp_path / "serve.log", "-v")  # -vv
    procs.append(server)
    server.start()
    db = Database(url)
    alice, bob = "alice@example.org", "bob@example.org"

    def send(sender: str, raw: bytes, to: str = ADDRESS) -> None:
        with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as smtp:
            smtp.sendmail(sender, [to], raw)
        wait_settled(db)

    def board_mail(to: str):  # type: ignore[no-untyped-def]
        return [m for m in sink.messages if to in m.rcpt_tos and m.message["Reply-To"] is not None][-1]

    try:
        for n, (sender, subject) in enumerate([(alice, "signup alice Sekr1tAlice"), (bob, "signup bob Sekr1tBob"),
                                               (alice, "tictactoe challenge alice bob")]):
            send(sender, mail(sender, subject, n=n))
        first = board_mail(alice)
        send(alice, reply(first, alice, "a1", 1), str(first.message["Reply-To"]))              # played
        send(bob, reply(board_mail(bob), bob, "zz9", 2), str(board_mail(bob).message["Reply-To"]))  # illegal
        send(alice, reply(first, alice, "b2", 3), str(first.message["Reply-To"]))              # stale, not turn
        token = str(first.message["Reply-To"])
        send(alice, reply(first, alice, "b2", 4), token.replace("+", "+x", 1))                 # tampered
        send(bob, reply(board_mail(bob), bob, "chat hi alice", 5), str(board_mail(bob).message["Reply-To"]))
        send(bob, reply(board_mail(bob), bob, "b1", 6), str(board_mail(bob).message["Reply-To"]))
        send(alice, mail(alice, "change password alice Sekr1tAlice Sekr1tNewPw", n=7))
        send(alice, reply(board_mail(alice), alice, "c3", 8), str(board_mail(alice).message["Reply-To"]))  # revoked
        send(bob, mail(bob, "tictactoe show 101", n=9))
    finally:
        server.stop()
    rotate = run_cli(url, "secret", "rotate")
    assert rotate.returncode == 0, rotate.stderr.decode()
    # The same through `pbmserv process`, the recipient from the MTA's environment.
    last = board_mail(bob)
    done = run_cli(url, "process", "--sender", bob, "--recipient", str(last.message["Reply-To"]),
                   stdin=reply(last, bob, "c1", 10), relay_port=sink.port)
    assert done.returncode == 0, done.stderr.decode()

    with db.transaction() as s:
        results = [r for row in s.scalars(select(Inbound).order_by(Inbound.id)) for r in row.results]
    texts = " | ".join(r["text"] for r in results)
    for expected in ("alice played a1", "not a square", "board is at move #2", "not valid", "chat",
                     "bob played b1", "no longer works"):
        assert expected in texts, expected  # the script did what it says
    assert "no longer works" in results[-1]["text"]  # rotated: bob's last address is revoked too

    tokens = reply_tokens(sink.messages)
    assert len(tokens) >= 6, tokens
    # The player's own message as it came, envelope included, is where a token may be.
    own_mail = (("inbound", "raw"), ("inbound", "rcpt_to"))
    sources = {name: body for name, body in database_text(db, own_mail).items() if name != "outbox"}
    sources["serve stderr"] = server.log()
    sources["process output"] = done.stdout.decode() + done.stderr.decode() + rotate.stdout.decode()
    assert "RCPT" in sources["serve stderr"].upper() and "pbmserv+***@" in sources["serve stderr"]  # -vv, masked
    found = token_leaks(tokens, sources, sink.messages)
    assert not found, "\n".join(f"{src}: {tok!r} in ...{ctx!r}..." for src, tok, ctx in found)
    db.dispose()
