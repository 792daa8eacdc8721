"""Reply to play (issue 15): a player moves by hitting Reply on the board mail.

Everything goes through the real listener (aiosmtpd on loopback, smtplib as
the client) and the relay sink; replies are built from the board mails the
server really sent, in the shapes real clients give them
(tests/client_replies.py).
"""

from __future__ import annotations

import base64
import logging
import re
import smtplib

import pytest
from sqlalchemy import func, select

from server.accounts.reply_address import FOOTER
from server.mail import tokens
from server.store.model import Board, Inbound, Move, Outbox, User
from tests.client_replies import SHAPES, gmail, iphone, outlook_html, thunderbird_flowed
from tests.mailtools import Received
from tests.server.conftest import ADDRESS, Running

ALICE, BOB = "alice@example.org", "bob@example.org"
TOKEN_ADDRESS = re.compile(r"^pbmserv\+([a-z2-7]{20,})@games\.test$")


def deliver(running: Running, raw: bytes, sender: str, to: str, envelope_from: str | None = None) -> list[Received]:
    """Mail ``raw`` to ``to`` through the listener; the new mails at the relay once all is settled."""
    before = len(running.sink.messages)
    with smtplib.SMTP("127.0.0.1", running.port, timeout=30) as smtp:
        smtp.sendmail(sender if envelope_from is None else envelope_from, [to], raw)
    running.quiesce()
    return running.sink.messages[before:]


def latest(running: Running, address: str) -> Received:
    """The last board mail (a mail with a Reply-To) to ``address``."""
    return [m for m in running.sink.messages if address in m.rcpt_tos and "Reply-To" in m.message][-1]


def reply_address(mail: Received) -> str:
    value = str(mail.message["Reply-To"])
    assert TOKEN_ADDRESS.match(value), value
    return value


def board_state(running: Running) -> tuple[int, str, int, int]:
    """(ply, status, moves stored, outbox rows): what must not change when a reply is refused."""
    with running.db.transaction() as s:
        board = s.scalars(select(Board)).one()
        moves = s.scalar(select(func.count()).select_from(Move))
        outbox = s.scalar(select(func.count()).select_from(Outbox))
        return board.ply, board.status, moves, outbox


def refused(running: Running, raw: bytes, sender: str, to: str) -> str:
    """Send; exactly one error reply to the sender and nothing else changes.  Returns its text."""
    before = board_state(running)
    new = deliver(running, raw, sender, to)
    assert [m.rcpt_tos for m in new] == [[sender]], [m.subject for m in new]
    after = board_state(running)
    assert after[:3] == before[:3] and after[3] == before[3] + 1
    assert "Error" in new[0].subject
    # An error about a board invites its player's corrected move (issue 26), nothing else.
    invited = new[0].message["Reply-To"]
    assert invited is None or (TOKEN_ADDRESS.match(str(invited)) and FOOTER in new[0].text)
    return " ".join(new[0].text.split())  # reasons are wrapped to 78 columns: compare words


@pytest.fixture
def board(sqlite_players: Running) -> Running:
    """tictactoe Board 101, alice (X) to move, both board mails at the relay (SQLite: the
    whole game below runs on PostgreSQL too; these checks do not depend on the database)."""
    sqlite_players.mail(ALICE, "tictactoe challenge alice bob", "Good luck!")
    return sqlite_players


def test_a_whole_game_by_plain_replies_from_four_clients(players: Running, caplog) -> None:  # type: ignore[no-untyped-def]
    """On SQLite and PostgreSQL: every move a plain Reply, the move typed above the quote."""
    caplog.set_level(logging.DEBUG, logger="pbmserv")  # the server's own lines (the relay sink logs mail.log)
    running = players
    running.mail(ALICE, "tictactoe challenge alice bob", "Good luck!")
    plays = [  # (player, client, what they type above the quote)
        (ALICE, thunderbird_flowed, "a1\nCorner first, as always. This line is long enough that Thunderbird "
                                    "soft-wraps it with format=flowed before it goes out."),
        (BOB, outlook_html, "b1\n\nNice try."),
        (ALICE, gmail, "a2"),
        (BOB, iphone, "b2"),
        (ALICE, outlook_html, "a3#5\nThree in a column."),
    ]
    seen_tokens: dict[str, set[str]] = {ALICE: set(), BOB: set()}
    for number, (player, client, typed) in enumerate(plays, start=1):
        mail = latest(running, player)
        to = reply_address(mail)
        seen_tokens[player].add(TOKEN_ADDRESS.match(to).group(1))  # type: ignore[union-attr]
        assert FOOTER in mail.text and "Reply-To" in mail.message
        new = deliver(running, client(mail, player, typed), player, to)
        assert sorted(r for m in new for r in m.rcpt_tos) == [ALICE, BOB], [m.subject for m in new]
        move = typed.split("\n")[0].split("#")[0]
        other = BOB if player == ALICE else ALICE
        theirs = next(m for m in new if other in m.rcpt_tos)
        assert f"{player.split('@')[0]} played {move}." in theirs.text, theirs.text
        # The comment is what the player wrote, not the quote or the client's furniture.
        comment = typed.partition("\n")[2].strip()
        if comment:
            assert f"{player.split('@')[0]} writes:" in theirs.text
            words = theirs.text.split(f"{player.split('@')[0]} writes:")[1]
            assert " ".join(comment.split()) in " ".join(words.split())
            # Not the quote, nor the client's furniture (issue 14's body reading): Outlook's
            # unquoted From:/Sent: block, Gmail's wrapped attribution, "Sent from my iPhone".
            for furniture in ("wrote:", "Sent from", "From: pbmserv", "Alice, on the train", "Sent:", "> "):
                assert furniture not in words, (client.__name__, furniture, words)
        with running.db.transaction() as s:
            assert s.scalars(select(Board)).one().ply == number
    final = [m for m in running.sink.messages[-2:]]
    assert all("Finished" in m.subject for m in final)
    assert all(m.message["Reply-To"] is None for m in final)  # nothing to play on a finished board
    assert "Game over: alice (X) wins" in final[0].text
    with running.db.transaction() as s:
        assert [m.move for m in s.scalars(select(Move).order_by(Move.ply))] == ["a1", "b1", "a2", "b2", "a3"]
    # A token appears only in its owner's mail: never in the other player's, never in a log line.
    everything = {ALICE: "", BOB: ""}
    for m in running.sink.messages:
        for rcpt in m.rcpt_tos:
            everything[rcpt] += m.raw.decode("ascii", "replace").lower()
    for owner, mine in seen_tokens.items():
        other = BOB if owner == ALICE else ALICE
        assert mine and not any(t in everything[other] for t in mine)
        logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("pbmserv")).lower()
        assert not any(t in logged for t in mine)
    assert "command from=" in logged


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_body_without_a_line_of_the_players_reads_the_subject(sqlite_players: Running, shape: str) -> None:
    """Nothing typed above the quote (only the client's furniture): the edited subject is the command."""
    running = sqlite_players
    running.mail(ALICE, "tictactoe challenge alice bob")
    mail = latest(running, ALICE)
    raw = SHAPES[shape](mail, ALICE, "")
    raw = re.sub(rb"Subject: (Re|RE): New Tic-Tac-Toe Board 101 alice", rb"Subject: \1: New Tic-Tac-Toe Board 101 b2", raw)
    new = deliver(running, raw, ALICE, reply_address(mail))
    assert any("alice played b2." in m.text for m in new), [m.text for m in new]


def test_every_board_mail_has_its_own_reply_address(board: Running) -> None:
    alice, bob = latest(board, ALICE), latest(board, BOB)
    assert reply_address(alice) != reply_address(bob)
    assert reply_address(alice).lower() not in bob.raw.decode().lower()
    # show, by a player from their own address: their reply address; by anyone else: none.
    shown = board.mail(BOB, "tictactoe show 101")
    assert len(shown) == 1 and TOKEN_ADDRESS.match(str(shown[0].message["Reply-To"]))
    stranger = board.mail("carol@example.org", "tictactoe show 101")
    assert stranger[0].message["Reply-To"] is None and FOOTER not in stranger[0].text


def test_reply_commands_other_than_moves(board: Running) -> None:
    running = board
    alice = latest(running, ALICE)
    bob = latest(running, BOB)
    to_alice, to_bob = reply_address(alice), reply_address(bob)
    # chat: the rest of the body is the chat, to both players
    new = deliver(running, gmail(bob, BOB, "chat Hello Alice!\nTake your time."), BOB, to_bob)
    chat = [m for m in new if ALICE in m.rcpt_tos][0]
    assert "chat from bob" in chat.subject and "Hello Alice!" in chat.text and "Take your time." in chat.text
    # queue out of turn, then it is played for bob after alice's move
    new = deliver(running, iphone(bob, BOB, "queue c3"), BOB, to_bob)
    assert "queued" in new[0].text
    # preview: for the sender only, nothing stored
    new = deliver(running, thunderbird_flowed(alice, ALICE, "preview b2 a1"), ALICE, to_alice)
    assert [m.rcpt_tos for m in new] == [[ALICE]] and "Preview" in new[0].subject or "preview" in new[0].text.lower()
    # show: the board, with alice's reply address again
    new = deliver(running, gmail(alice, ALICE, "show"), ALICE, to_alice)
    assert [m.rcpt_tos for m in new] == [[ALICE]] and TOKEN_ADDRESS.match(str(new[0].message["Reply-To"]))
    # the move (with "move" typed out of habit), then bob's queued move is played
    new = deliver(running, gmail(alice, ALICE, "move b2"), ALICE, to_alice)
    assert any("bob's queued move c3 is played" in m.text for m in new)
    # propose a draw by reply, reject it by reply
    alice = latest(running, ALICE)
    deliver(running, outlook_html(alice, ALICE, "propose"), ALICE, reply_address(alice))
    bob = latest(running, BOB)
    assert "proposes a draw" in bob.text
    deliver(running, thunderbird_flowed(bob, BOB, "reject"), BOB, reply_address(bob))
    # a full command typed in a reply is that command, password and all
    new = deliver(running, gmail(latest(running, ALICE), ALICE, "tictactoe move 101 alice apple1 a3"),
                  ALICE, reply_address(latest(running, ALICE)))
    assert any("alice played a3." in m.text for m in new)
    # resign by reply
    bob = latest(running, BOB)
    deliver(running, iphone(bob, BOB, "resign"), BOB, reply_address(bob))
    with running.db.transaction() as s:
        assert s.scalars(select(Board)).one().status == "finished"


# -- abuse: each refused with a clear error and nothing changed ------------------------------

def test_tampered_and_unknown_tokens_say_the_same_and_nothing_about_users(board: Running) -> None:
    mail = latest(board, ALICE)
    to = reply_address(mail)
    token = TOKEN_ADDRESS.match(to).group(1)  # type: ignore[union-attr]
    flipped = token[:5] + ("a" if token[5] != "a" else "b") + token[6:]
    texts = [refused(board, gmail(mail, ALICE, "b2"), ALICE, f"pbmserv+{flipped}@games.test")]
    made_up = base64.b32encode(bytes([1, 1, 1, 0]) + bytes(15)).decode().rstrip("=").lower()
    texts.append(refused(board, gmail(mail, ALICE, "b2"), ALICE, f"pbmserv+{made_up}@games.test"))
    texts.append(refused(board, gmail(mail, ALICE, "b2"), ALICE, "pbmserv+hello@games.test"))
    reasons = [t.split("Refused:")[-1] if "Refused:" in t else t for t in texts]
    assert all("not valid" in r for r in reasons)
    assert len({re.sub(r"\s+", " ", r) for r in reasons}) == 1, reasons  # no oracle: one answer
    for t in texts:
        assert "alice" not in t.lower().replace(ALICE, "") and "bob" not in t.lower()


def test_a_token_cannot_be_turned_into_another_board_or_user(board: Running) -> None:
    """The fields are under the tag: splicing bob's id or another board into alice's token fails;
    and a proven identity is good for its own board and player only."""
    running = board
    running.mail(ALICE, "tictactoe challenge bob alice")  # Board 102
    mail = [m for m in running.sink.messages if ALICE in m.rcpt_tos and "Board 101" in m.subject][-1]
    token = TOKEN_ADDRESS.match(reply_address(mail)).group(1)  # type: ignore[union-attr]
    raw = base64.b32decode(token.upper() + "=" * (-len(token) % 8))
    with running.db.transaction() as s:
        ids = {u.userid: u.id for u in s.scalars(select(User))}
        boards = {b.number: b.id for b in s.scalars(select(Board))}
    assert raw[1] == ids["alice"] and raw[2] == boards[101]  # small ids: one byte each
    for spliced in (bytes([1, ids["bob"]]) + raw[2:], raw[:2] + bytes([boards[102]]) + raw[3:]):
        forged = base64.b32encode(spliced).decode().rstrip("=").lower()
        before = board_state_all(running)
        text = refused_any(running, gmail(mail, ALICE, "b2"), ALICE, f"pbmserv+{forged}@games.test")
        assert "not valid" in text and board_state_all(running) == before

    from server.accounts.reply_address import PROVEN, Identity
    from server.commands import Context, Request, dispatch
    from server.commands.base import CommandError

    with running.db.transaction() as s:
        alice = s.scalars(select(User).where(User.userid == "alice")).one()
        request = Request(words=[], line="", sender=ALICE, identity=Identity(alice.id, boards[101]))
        ctx = Context(session=s, settings=running.server.settings, request=request, now=running_now())
        for words in (["tictactoe", "move", "102", "alice", PROVEN, "a1"],   # another board
                      ["tictactoe", "move", "101", "bob", PROVEN, "a1"]):    # another player
            with pytest.raises(CommandError, match="good only for its own player and board"):
                dispatch(ctx, words)


def running_now():  # type: ignore[no-untyped-def]
    from server.store.model import utcnow

    return utcnow()


def board_state_all(running: Running) -> list[tuple[int, int, str]]:
    with running.db.transaction() as s:
        return [(b.number, b.ply, b.status) for b in s.scalars(select(Board).order_by(Board.number))]


def refused_any(running: Running, raw: bytes, sender: str, to: str) -> str:
    new = deliver(running, raw, sender, to)
    assert [m.rcpt_tos for m in new] == [[sender]] and "Error" in new[0].subject
    return " ".join(new[0].text.split())  # reasons are wrapped to 78 columns: compare words


def test_password_change_and_signoff_revoke_every_token(board: Running) -> None:
    running = board
    old = latest(running, ALICE)
    running.mail(ALICE, "change password alice apple1 cherry3")
    text = refused(running, gmail(old, ALICE, "b2"), ALICE, reply_address(old))
    assert "no longer works" in text and "latest board mail" in text
    # The next board mail carries a new address, which works.
    deliver(running, gmail(latest(running, BOB), BOB, "show"), BOB, reply_address(latest(running, BOB)))
    fresh = running.mail(ALICE, "tictactoe show 101")[0]
    assert reply_address(fresh) != reply_address(old)
    new = deliver(running, iphone(fresh, ALICE, "b2"), ALICE, reply_address(fresh))
    assert any("alice played b2." in m.text for m in new)
    # signoff: bob's addresses stop working too
    bob_mail = latest(running, BOB)
    running.mail(BOB, "signoff bob banana2")
    with running.db.transaction() as s:
        status = s.scalars(select(Board)).one().status
    new = deliver(running, gmail(bob_mail, BOB, "c3"), BOB, reply_address(bob_mail))
    assert len(new) == 1 and "no longer works" in new[0].text
    with running.db.transaction() as s:
        assert s.scalars(select(Board)).one().status == status


def test_out_of_turn_and_stale_replies(board: Running) -> None:
    running = board
    bob = latest(running, BOB)
    text = refused(running, gmail(bob, BOB, "b2"), BOB, reply_address(bob))
    assert "It is not your move: waiting for alice" in text
    first = latest(running, ALICE)
    deliver(running, gmail(first, ALICE, "a1"), ALICE, reply_address(first))
    deliver(running, gmail(latest(running, BOB), BOB, "b1"), BOB, reply_address(latest(running, BOB)))
    # alice answers the first board mail again: it showed move #1, the board is at #3
    text = refused(running, iphone(first, ALICE, "a2"), ALICE, reply_address(first))
    assert "board is at move #3" in text and "latest board mail" in text
    # an explicit #N is checked the usual way
    text = refused(running, iphone(latest(running, ALICE), ALICE, "a2#7"), ALICE, reply_address(latest(running, ALICE)))
    assert "received as move #7" in text


def test_the_same_reply_twice_is_played_once(board: Running) -> None:
    running = board
    mail = latest(running, ALICE)
    raw = thunderbird_flowed(mail, ALICE, "a1")
    deliver(running, raw, ALICE, reply_address(mail))
    before = board_state(running)
    assert deliver(running, raw, ALICE, reply_address(mail)) == []  # same Message-ID: not applied
    assert board_state(running) == before
    # Re-sent by a client under a new Message-ID: the move it carries is for move #1.
    again = raw.replace(b"Message-ID: <reply.", b"Message-ID: <resent.")
    text = refused(running, again, ALICE, reply_address(mail))
    assert "This same move, a1, was already played as move #1" in text  # (issue 26: not only "stale")


def test_auto_replies_and_bounces_to_a_reply_address_are_never_answered_or_played(board: Running) -> None:
    running = board
    mail = latest(running, ALICE)
    to = reply_address(mail)
    before = board_state(running)
    vacation = gmail(mail, ALICE, "a1").replace(b"MIME-Version:", b"Auto-Submitted: auto-replied\r\nMIME-Version:", 1)
    assert deliver(running, vacation, ALICE, to) == []
    bounce = (f"From: Mail Delivery System <MAILER-DAEMON@example.org>\r\nTo: {to}\r\n"
              "Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce.1@example.org>\r\n"
              "Auto-Submitted: auto-replied\r\nContent-Type: text/plain\r\n\r\na1\r\n").encode()
    assert deliver(running, bounce, ALICE, to, envelope_from="") == []
    assert board_state(running) == before
    with running.db.transaction() as s:
        assert [r.status for r in s.scalars(select(Inbound).order_by(Inbound.id))][-2:] == ["ignored", "ignored"]


def test_a_confirmation_token_is_not_a_reply_address(board: Running) -> None:
    running = board
    mail = latest(running, ALICE)
    with running.db.transaction() as s:
        alice = s.scalars(select(User).where(User.userid == "alice")).one()
        confirm = tokens.issue(s, "confirm", (alice.id, 1, 0), alice.password_hash)
    text = refused(running, gmail(mail, ALICE, "a1"), ALICE, f"pbmserv+{confirm}@games.test")
    assert "not for moves" in text


def test_rate_limit_applies_to_reply_addresses(sqlite_url: str, sink) -> None:  # type: ignore[no-untyped-def]
    from tests.server.conftest import start_server

    server = start_server(sqlite_url, sink, rate_limit=3)
    try:
        port = server.settings.listen_hostport[1]
        codes = []
        for n in range(4):
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
                smtp.ehlo()
                smtp.mail(ALICE)
                smtp.rcpt("pbmserv+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@games.test")
                codes.append(smtp.data(f"From: {ALICE}\r\nSubject: x\r\nMessage-ID: <r{n}@x>\r\n\r\na1\r\n".encode())[0])
    finally:
        server.stop()
    assert codes == [250, 250, 250, 450]


def test_the_listener_refuses_other_addresses_still(board: Running) -> None:
    with smtplib.SMTP("127.0.0.1", board.port, timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail(ALICE)
        assert smtp.rcpt("pbmserv+x@evil.test")[0] == 550
        assert smtp.rcpt("other+x@games.test")[0] == 550
        assert smtp.rcpt("pbmserv+x@games.test")[0] == 250
        assert smtp.rcpt(ADDRESS)[0] == 250


def test_reminders_and_digests_carry_reply_addresses_that_work(board: Running) -> None:
    """A reminder is a board mail: its Reply-To plays.  A digest of several boards names each
    board's address in its body (one Reply-To cannot serve them all), and each one plays."""
    from datetime import timedelta

    from tests.server.boards.test_timers import remind, turn_since

    running = board
    running.mail(BOB, "tictactoe challenge alice bob")  # Board 102, alice to move there too
    running.mail(ALICE, "digest alice apple1 on")
    _, sent = remind(running, turn_since(running, 102) + timedelta(days=7.5))
    digest = [m for m in sent if ALICE in m.rcpt_tos]
    assert len(digest) == 1 and digest[0].message["Reply-To"] is None
    assert all(len(line) <= 78 for line in digest[0].text.splitlines())
    listed = re.findall(r"Board (\d+): waiting.*\n\s+your move, by mail to: (pbmserv\+[a-z2-7]+@games\.test)",
                        digest[0].text)
    assert [n for n, _ in listed] == ["101", "102"], digest[0].text
    new = deliver(running, gmail(digest[0], ALICE, "a1"), ALICE, listed[0][1])
    assert any("alice played a1." in m.text and "Board 101" in m.subject for m in new)

    _, sent = remind(running, turn_since(running, 101) + timedelta(days=7.5))
    reminder = [m for m in sent if BOB in m.rcpt_tos]
    assert len(reminder) == 1 and "Reminder" in reminder[0].subject and FOOTER in reminder[0].text
    new = deliver(running, iphone(reminder[0], BOB, "b1"), BOB, reply_address(reminder[0]))
    assert any("bob played b1." in m.text for m in new)


def test_a_move_by_reply_writes_its_board_once_and_its_move_once(board: Running) -> None:
    """One UPDATE of the board and one INSERT of the move per move by reply: the move's INSERT
    must not flush the board's change early, to be written again with the rest (issue 25)."""
    from sqlalchemy import event

    running = board
    seen: list[str] = []

    def note(conn, cursor, statement, params, context, many):  # type: ignore[no-untyped-def]
        seen.append(" ".join(statement.split()[:3]).upper())

    event.listen(running.db.engine, "before_cursor_execute", note)
    try:
        mail = latest(running, ALICE)
        deliver(running, thunderbird_flowed(mail, ALICE, "a1"), ALICE, reply_address(mail))
    finally:
        event.remove(running.db.engine, "before_cursor_execute", note)
    assert board_state(running)[0] == 1
    assert seen.count("UPDATE BOARDS SET") == 1, seen
    assert seen.count("INSERT INTO MOVES") == 1, seen
