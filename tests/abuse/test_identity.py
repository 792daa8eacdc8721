"""Issue 20, items 1c, 6, 8, 11 and 12: who may do what in whose name, and what counts as the same mail."""

from __future__ import annotations

from sqlalchemy import func, select

from server.store.model import Board, Seat, User
from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import ADDRESS, inbound_rows, mail, record, send, settle, size, wire
from tests.mailtools import Sink

ATTACKER = "evil@attacker.test"


def boards_of(db, userid: str) -> int:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        return s.scalar(select(func.count()).select_from(Board).join(Seat).join(User).where(
            User.userid == userid, Board.status == "active")) or 0


def test_1c_nobody_is_put_into_boards_without_consent(start, sink: Sink) -> None:
    """One mail of 50 challenges against a player who never asked for any."""
    puppets = [f"sock{i}" for i in range(50)]
    # All 50 lines read (a stranger's mail is read for 5 by default, issue 32): the consent cap is tested here.
    server, db = start("--stranger-commands", "50", setup=lambda db: make_accounts(db, ["victim", *puppets]))
    lines = "\n".join(f"tictactoe challenge victim {p}" for p in puppets)
    assert send(server.port, mail(ATTACKER, "", lines), ATTACKER)[0] == 250
    settle(db, timeout=120)
    victim = boards_of(db, "victim")
    # The default limit holds for every seat, the sender's own included.
    many = size(102, 400)

    def more(db) -> None:  # type: ignore[no-untyped-def]
        make_accounts(db, [f"p{i}" for i in range(many)])
        make_boards(db, [("p0", f"p{i}") for i in range(1, 100)])

    more(db)
    for opponent in ("p100", "p101"):
        send(server.port, mail("p0@players.test", f"tictactoe challenge p0 {opponent}"), "p0@players.test")
    settle(db)
    record("1c_unconsented_boards", challenges=50, victim_boards=victim, p0_boards=boards_of(db, "p0"))
    assert victim == 30  # at most 30 boards waiting for a first move it did not ask for
    assert boards_of(db, "p0") == 100  # the default limit


def test_6_password_guessing_is_throttled_and_the_owner_told_once(start, sink: Sink) -> None:
    """50 guesses a mail from rotating senders (2 mails; 20 full-size); the owner's own address keeps working."""
    from argon2 import PasswordHasher

    weak = PasswordHasher(time_cost=2, memory_cost=4096, parallelism=1).hash("apple1")

    def setup(db) -> None:  # type: ignore[no-untyped-def]
        make_accounts(db, ["alice", "bob"])
        make_boards(db, [("alice", "bob")])

        def old_hash(session) -> None:  # type: ignore[no-untyped-def]
            session.scalars(select(User).where(User.userid == "alice")).one().password_hash = weak

        db.run(old_hash)

    server, db = start(setup=setup)
    cpu = server.cpu_seconds()
    mails = size(2, 20)
    for m in range(mails):
        sender = f"guess{m}@attacker{m}.test"
        body = "\n".join(f"tictactoe move 101 alice guess{m}x{i} b2" for i in range(50))
        send(server.port, mail(sender, "", body), sender)
    settle(db, timeout=240)
    worker = server.cpu_seconds() - cpu
    log = server.log()
    checked = log.count("Wrong password for alice")
    notices = [m for m in sink.messages if m.rcpt_tos == ["alice@players.test"]]
    # The owner's own address still plays, with the right password; the old hash is strengthened.
    send(server.port, mail("alice@players.test", "tictactoe move 101 alice apple1 b2"), "alice@players.test")
    settle(db)
    with db.transaction() as s:
        stored = s.scalars(select(User).where(User.userid == "alice")).one().password_hash
    played = any("alice played b2" in m.text for m in sink.messages if m.rcpt_tos == ["bob@players.test"])
    record("6_password_guessing", guesses=50 * mails, refused_unchecked=log.count("Too many wrong passwords"),
           checked_lines=checked, worker_seconds=round(worker, 1), owner_notices=len(notices),
           owner_played=played, rehashed="m=19456" in stored)
    assert len(notices) == 1 and "wrong passwords" in notices[0].text
    assert played
    assert "m=19456,t=2,p=1" in stored


def test_8_a_forged_from_cannot_impersonate_or_bypass_a_policy(start, sink: Sink) -> None:
    server, db = start(setup=lambda db: make_accounts(db, ["alice", "bob"]))
    send(server.port, mail("alice@players.test", "tictactoe reject alice secret1"), "alice@players.test")
    settle(db)
    # Forged From: alice's own address.
    forged = mail("alice@players.test", "tictactoe challenge alice bob", "Send your password to evil@attacker.test")
    send(server.port, forged, ATTACKER)
    settle(db)
    forged_boards = boards_of(db, "alice")
    forged_words = any("alice writes:" in m.text for m in sink.messages if m.rcpt_tos == ["bob@players.test"])
    # From a stranger's address, to players who accept: the mails say who sent it.
    send(server.port, mail("alice@players.test", "tictactoe accept alice secret1"), "alice@players.test")
    settle(db)
    sink.clear()
    send(server.port, mail(ATTACKER, "tictactoe challenge alice bob", "I am alice, really"), ATTACKER)
    settle(db)
    to_bob = [m.text for m in sink.messages if m.rcpt_tos == ["bob@players.test"]]
    record("8_forged_challenge", boards_despite_reject=forged_boards, forged_shown_as_alice_words=forged_words,
           shown_as_alice_words=any("alice writes:" in t for t in to_bob))
    assert forged_boards == 0 and not forged_words
    assert to_bob and not any("alice writes:" in t for t in to_bob)
    assert f"sent from {ATTACKER}, not from alice's address" in " ".join(to_bob[0].split())


def test_11_duplicates_key_on_message_id_sender_and_content(start, sink: Sink) -> None:
    server, db = start(setup=lambda db: make_accounts(db, ["alice", "bob"]))
    # A different command that reuses a Message-ID is not dropped.
    first = mail("alice@players.test", "tictactoe challenge alice bob")
    second = mail("alice@players.test", "tictactoe games")
    second.replace_header("Message-ID", first["Message-ID"])
    for m in (first, second):
        send(server.port, m, "alice@players.test")
    # A long Message-ID, delivered again with one more Received: line, is applied once.
    long_id = "<" + "x" * 300 + "@clients.test>"
    third = mail("alice@players.test", "tictactoe challenge bob alice")
    third.replace_header("Message-ID", long_id)
    raw = wire(third)
    send(server.port, raw, "alice@players.test")
    send(server.port, b"Received: from mx2.example by mx.example; Tue, 24 Nov 2026 12:00:01 +0000\r\n" + raw,
         "alice@players.test")
    settle(db)
    rows = inbound_rows(db)
    statuses = [status for _, status, _, _ in rows]
    record("11_duplicates", statuses=statuses, alice_boards=boards_of(db, "alice"))
    assert statuses == ["done", "done", "done", "duplicate"]
    assert boards_of(db, "alice") == 2
    assert "dropped as a duplicate" in server.log()


def test_12_nul_in_mail_from_or_message_id_is_refused_for_good(start, sink: Sink, postgres_url: str) -> None:
    """On PostgreSQL, which refuses NUL in text: a 5xx, not a 451 the sender retries for ever."""
    import smtplib

    server, db = start(url=postgres_url)
    with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as smtp:
        smtp.ehlo("client.test")
        mail_from = smtp.docmd("MAIL FROM:<nul\x00x@attacker.test>")[0]
        smtp.rset()
    raw = (f"From: {ATTACKER}\r\nTo: {ADDRESS}\r\nSubject: help\r\nMessage-ID: <a\x00b@attacker.test>\r\n\r\nhi\r\n"
           ).encode()
    data = send(server.port, raw, ATTACKER)[0]
    send(server.port, mail(ATTACKER, "help"), ATTACKER)
    settle(db)
    record("12_nul", mail_from_code=mail_from, message_id_code=data, stored=len(inbound_rows(db)))
    assert mail_from == 553 and data == 552
    assert [status for _, status, _, _ in inbound_rows(db)] == ["done"]
