"""Issue 20, items 2, 3, 9 and 10: the server as a spam relay, a reflector, a ping-pong partner.

"Recipients reached" is counted at the relay sink: every address outside
the attacker's own that received anything.
"""

from __future__ import annotations

from aiosmtpd.controller import Controller
from sqlalchemy import select

from server.store.model import Outbox
from tests.abuse.conftest import make_accounts
from tests.abuse.harness import inbound_rows, mail, record, send, settle, size, wait_for
from tests.mailtools import Sink, SinkHandler, free_port

ATTACKER = "spammer@attacker.test"


def victims_reached(sink: Sink) -> tuple[int, int]:
    """(mails to victims that were not a confirmation request, confirmation requests)."""
    other = confirmations = 0
    for m in sink.messages:
        for rcpt in m.rcpt_tos:
            if rcpt.endswith("@victims.test"):
                if "confirm" in m.subject.lower():
                    confirmations += 1
                else:
                    other += 1
    return other, confirmations


def test_2_signup_message_and_challenge_cannot_relay_spam(start, sink: Sink) -> None:
    """Accounts with 40 third-party addresses each, then one ``message`` and 50 challenges among them."""
    accounts, per = size(6, 45), 40
    # Every line of the attacker's mails read (a stranger's mail is read for 5 by default, issue 32).
    server, db = start("--stranger-commands", "100")
    lines = []
    for k in range(accounts):
        victims = " ".join(f"v{k}x{i}@victims.test" for i in range(per))
        lines.append(f"signup spam{k} pw{k}pw {victims}")
    assert send(server.port, mail(ATTACKER, "", "\n".join(lines)), ATTACKER)[0] == 250
    # Where 40 are refused, the attacker makes do with 3 (a userid already taken changes nothing).
    lines = [f"signup spam{k} pw{k}pw " + " ".join(f"v{k}x{i}@victims.test" for i in range(3))
             for k in range(accounts)]
    assert send(server.port, mail(ATTACKER, "", "\n".join(lines)), ATTACKER)[0] == 250
    settle(db, timeout=120)
    names = " ".join(f"spam{k}" for k in range(1, accounts))
    body = "Cheap watches at https://spam.example/"
    assert send(server.port, mail(ATTACKER, "message spam0 pw0pw " + names, body), ATTACKER)[0] == 250
    challenges = "\n".join(f"tictactoe challenge spam{k % accounts} spam{(k + 1) % accounts}" for k in range(50))
    assert send(server.port, mail(ATTACKER, "", challenges), ATTACKER)[0] == 250
    settle(db, timeout=120)
    other, confirmations = victims_reached(sink)
    # An account that has not played reaches at most 5 players a day by message and chat (issue 32;
    # 100 once it has played), however many mails it sends.
    rounds = 110 // (accounts - 1) + 1
    for _ in range(rounds):
        send(server.port, mail(ATTACKER, "message spam0 pw0pw " + names, body), ATTACKER)
    settle(db, timeout=120)
    with db.transaction() as s:
        from server.store.model import Inbound

        rows = s.scalars(select(Inbound).order_by(Inbound.id.desc()).limit(rounds)).all()
        results = [r for row in rows for r in row.results]
    capped = sum("today's limit" in r["text"] for r in results)
    record("2_spam_relay", accounts=accounts, addresses_each=per, victim_mails=other,
           confirmation_requests=confirmations, messages_refused_by_account_cap=capped)
    assert other == 0
    assert confirmations <= 3 * accounts  # at most 3 addresses an account, one confirmation each
    # The first message (to 5 players) went before; every later one is refused.
    assert capped == rounds and sum(r["ok"] for r in results) == 0


def test_2_an_address_gets_nothing_but_one_confirmation_until_it_confirms(start, sink: Sink) -> None:
    server, db = start(setup=lambda db: make_accounts(db, ["bob"]))
    code = send(server.port, mail(ATTACKER, "signup mal pw1pw v1@victims.test"), ATTACKER)[0]
    assert code == 250
    settle(db)
    # Many accounts naming the same address: still one confirmation request a day.
    for k in range(3):
        send(server.port, mail(ATTACKER, f"signup mal{k} pw1pw v1@victims.test"), ATTACKER)
    send(server.port, mail(ATTACKER, "tictactoe challenge mal bob"), ATTACKER)
    settle(db)
    to_victim = [m for m in sink.messages if "v1@victims.test" in m.rcpt_tos]
    record("2_confirmation_only", mails_to_unconfirmed_address=len(to_victim))
    assert len(to_victim) == 1 and "confirm" in to_victim[0].subject.lower()
    # Confirming is a reply to that mail (its Reply-To holds the token).
    reply_to = str(to_victim[0].message["Reply-To"])
    assert "+" in reply_to
    reply = mail("v1@victims.test", "Re: " + to_victim[0].subject, "yes", to=reply_to)
    assert send(server.port, reply, "v1@victims.test", to=reply_to)[0] == 250
    settle(db)
    with db.transaction() as s:
        from server.store.model import Inbound

        confirming = s.scalars(select(Inbound).order_by(Inbound.id.desc())).first()
        # Carrying a genuine token, the reply was served with the known senders (fair queue).
        assert confirming.known and confirming.status == "done"
    send(server.port, mail("bob@players.test", "tictactoe challenge bob mal"), "bob@players.test")
    settle(db)
    later = [m for m in sink.messages if "v1@victims.test" in m.rcpt_tos]
    assert any("Tic-Tac-Toe Board" in m.subject for m in later), [m.subject for m in later]


def test_3_one_bad_address_does_not_block_delivery(start, tmp_path) -> None:
    """A non-ASCII recipient through a relay without SMTPUTF8, among eight good replies."""
    handler = SinkHandler()
    relay = Controller(handler, hostname="127.0.0.1", port=free_port(), enable_SMTPUTF8=False)
    relay.start()
    try:
        server, db = start("--relay", f"127.0.0.1:{relay.port}")
        refusal = send(server.port, mail(ATTACKER, "signup joe pw1pw jöe@example.org"), ATTACKER)[0]
        settle(db, timeout=30)
        server.stop()

        def work(session) -> None:  # type: ignore[no-untyped-def]
            session.add(Outbox(envelope_from="pbmserv@games.test", recipients=["jöe@example.org"], subject="x",
                               message=b"Subject: x\r\n\r\nx\r\n", status="pending"))
            for i in range(8):
                session.add(Outbox(envelope_from="pbmserv@games.test", recipients=[f"p{i}@players.test"],
                                   subject="y", message=b"Subject: y\r\n\r\ny\r\n", status="pending"))

        db.run(work)
        server.start()
        delivered = wait_for(lambda: len([m for m in handler.messages if m.rcpt_tos[0].startswith("p")]) == 8, 30)
        with db.transaction() as s:
            bad = s.scalars(select(Outbox).where(Outbox.subject == "x")).one()
            bad_status, bad_error = bad.status, bad.last_error
        status = server.cli("status").stdout
        deliver = server.cli("deliver")
        record("3_bad_address", signup_reply_code=refusal, good_delivered=delivered, bad_status=bad_status,
               status_line=[line for line in status.splitlines() if "delivery error" in line],
               deliver_traceback="Traceback" in deliver.stderr)
        assert delivered
        assert bad_status == "failed" and "UnicodeEncodeError" in (bad_error or "")
        assert "UnicodeEncodeError" in status
        assert "Traceback" not in deliver.stderr and deliver.returncode == 0
    finally:
        relay.stop()


def test_3_addresses_are_checked_on_the_way_in(start, sink: Sink) -> None:
    server, db = start()
    for address in ["jöe@example.org", "nul\x01@example.org", "esc\x1b@example.org", "del\x7f@example.org"]:
        send(server.port, mail(ATTACKER, f"signup u{len(address)} pw1pw {address}"), ATTACKER)
    settle(db)
    rows = inbound_rows(db)
    with db.transaction() as s:
        from server.store.model import Address

        stored = [a.address for a in s.scalars(select(Address))]
    record("3_addresses_in", stored=stored)
    assert stored == [] and all(status == "done" for _, status, _, _ in rows)


AUTO_REPLIES = {
    "X-Autoreply": {"X_Autoreply": "yes"},
    "X-Autorespond": {"X_Autorespond": "Out of office"},
    "Precedence: auto_reply": {"Precedence": "auto_reply"},
}
SUBJECTS = ["Out of office: help", "Automatic reply: help", "Abwesenheitsnotiz: help"]


def test_9_auto_responders_get_no_answer_and_a_robot_is_capped(start, sink: Sink) -> None:
    server, db = start()
    for headers in AUTO_REPLIES.values():
        send(server.port, mail("robot@elsewhere.test", "help", **headers), "robot@elsewhere.test")
    for subject in SUBJECTS:
        send(server.port, mail("robot@elsewhere.test", subject), "robot@elsewhere.test")
    report = (b"From: postmaster@elsewhere.test\r\nTo: pbmserv@games.test\r\nSubject: Delivery report\r\n"
              b"From: robot@elsewhere.test\r\nMessage-ID: <rep@elsewhere.test>\r\nMIME-Version: 1.0\r\n"
              b"Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n--b\r\n"
              b"Content-Type: text/plain\r\n\r\nhelp\r\n--b--\r\n")
    send(server.port, report.replace(b"From: postmaster@elsewhere.test\r\n", b""), "robot@elsewhere.test")
    settle(db)
    answered_markers = len(sink.messages)
    # A robot with no marker at all: ping-pong until the daily cap.
    rounds = size(30, 300)
    for i in range(rounds):
        send(server.port, mail("pingpong@elsewhere.test", f"tictactoe show {i}"), "pingpong@elsewhere.test")
    settle(db, timeout=120)
    pong = len([m for m in sink.messages if m.rcpt_tos == ["pingpong@elsewhere.test"]])
    record("9_auto_responders", marked_answered=answered_markers, pingpong_rounds=rounds, pingpong_replies=pong)
    assert answered_markers == 0
    assert pong == 10


def test_10_reflection_to_a_third_party_is_short_and_capped(start, sink: Sink) -> None:
    server, db = start()
    junk = "BUY-CHEAP-WATCHES-" * 55  # about 1,000 characters of attacker text
    send(server.port, mail(ATTACKER, "help", Reply_To="victim@victims.test"), ATTACKER)
    send(server.port, mail(ATTACKER, f"tictactoe {junk}", Reply_To="victim@victims.test"), ATTACKER)
    settle(db)
    first = [m for m in sink.messages if m.rcpt_tos == ["victim@victims.test"]]
    sizes = [len(m.raw) for m in first]
    quoted = max(m.text.count("BUY-CHEAP-WATCHES") for m in first)
    for _ in range(size(20, 100)):
        send(server.port, mail(ATTACKER, "help", Reply_To="victim@victims.test"), ATTACKER)
    settle(db, timeout=120)
    total = len([m for m in sink.messages if m.rcpt_tos == ["victim@victims.test"]])
    record("10_reflection", reply_bytes=sizes, attacker_words_quoted=quoted, replies_to_victim=total)
    # The attacker's text is short; the help is the server's own fixed text, sent whole to anyone
    # (issue 26: the stranger cap is for attacker-chosen text), and it holds nothing of the attacker's.
    chosen = [m for m in first if "help" not in m.subject]
    assert chosen and max(len(m.text) for m in chosen) < 1500
    assert all("BUY-CHEAP" not in m.text and len(m.text) < 4000 for m in first if "help" in m.subject)
    assert quoted <= 2  # the command's first words and the reason, each clipped to 24 columns
    assert total == 10


def test_13_deploy_files() -> None:
    """Postfix refuses bare newlines (smuggling); the unit raises the descriptor limit; the README says what to expose."""
    from tests.abuse.harness import ROOT

    main_cf = (ROOT / "deploy/postfix/main.cf").read_text()
    unit = (ROOT / "deploy/pbmserv.service").read_text()
    readme = (ROOT / "deploy/README.md").read_text()
    assert "\nsmtpd_forbid_bare_newline = normal" in main_cf
    assert "\nLimitNOFILE=" in unit
    assert "## What to expose where" in readme and "loopback only" in readme
    assert "smtpd_forbid_bare_newline" in readme
