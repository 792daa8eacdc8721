"""The worker driven directly: a stored mail, ``Worker.process``, and the rows it leaves.

No listener and no relay: each mail is stored in a real SQLite file the way
the listener stores it (``server.mail.inbound.store``), the worker applies it,
and the test reads back the inbound row and the outbox, where every reply
waits rendered whole.  A test takes a fraction of a second, so these run
first when server/processes/worker.py is mutation-tested, and they check exactly
what the worker wrote: the results kept on the row, the replies, the log
lines an operator reads, the in-flight file and the set-aside path.

Expected texts come from the templates (templates/error.txt,
templates/shunted.txt) and the rules in server/mail/quota.py, worked by hand.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select, text

from server.core.config import Settings
from server.mail.inbound import store
from server.mail.replies import parse_rendered
from server.processes.worker import Worker
from server.store.database import Database
from server.store.model import Address, Inbound, Move, Outbox
from tests.mailtools import make_mail

ADDRESS = "pbmserv@games.test"
ALICE, BOB, ZED = "alice@example.org", "bob@example.org", "zed@example.org"
ERROR_TAIL = ('Nothing was changed. Send "help" for the commands, "help commands" for\n'
              "their syntax, or \"GAME help\" for a game's moves.\n")
NO_COMMAND = "Your mail held no command."


@dataclass
class Applied:
    """What one mail left behind: its inbound row (copied out) and the replies it queued."""

    id: int
    status: str
    error: str | None
    results: list[dict]
    tries: int
    commands_done: int
    replies: list[EmailMessage]

    def body(self, index: int = 0) -> str:
        """The plain-text part of reply ``index``, with the wire's CRLF read as newlines."""
        part = self.replies[index].get_body(preferencelist=("plain",))
        return part.get_content().replace("\r\n", "\n")  # type: ignore[union-attr]

    def to(self, address: str) -> EmailMessage:
        (mail,) = [m for m in self.replies if m["To"] == address]
        return mail


class Desk:
    """A database and a worker; mails go in one at a time and are applied at once."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    def last_outbox(self) -> int:
        with self.db.transaction() as s:
            return s.scalar(select(Outbox.id).order_by(Outbox.id.desc()).limit(1)) or 0

    def read(self, inbound_id: int, after: int = 0) -> Applied:
        with self.db.transaction() as s:
            row = s.get(Inbound, inbound_id)
            assert row is not None
            replies = [parse_rendered(o.message) for o in
                       s.scalars(select(Outbox).where(Outbox.id > after).order_by(Outbox.id))]
            return Applied(row.id, row.status, row.error, list(row.results), row.tries, row.commands_done,
                           replies)

    def store(self, raw: bytes, sender: str, to: str = ADDRESS) -> int:
        return store(self.db, raw, sender, [to], settings=self.settings)

    def mail(self, sender: str, subject: str, body: str = "", to: str = ADDRESS, worker: Worker | None = None,
             **headers: str) -> Applied:
        """Store one mail as the listener would and apply it; what it left behind."""
        raw = make_mail(sender, to, subject, body, **headers).as_bytes()
        before = self.last_outbox()
        inbound_id = self.store(raw, sender, to)
        (worker or Worker(self.db, self.settings)).process(inbound_id)
        return self.read(inbound_id, before)


@pytest.fixture
def desk(sqlite_url: str) -> Iterator[Desk]:
    db = Database(sqlite_url)
    db.upgrade()
    yield Desk(db, Settings(database_url=sqlite_url, addresses=[ADDRESS], address_proof="from"))
    db.dispose()


@pytest.fixture
def players(desk: Desk) -> Desk:
    """alice and bob have signed up from their own addresses (so both are confirmed)."""
    desk.mail(ALICE, "signup alice apple1")
    desk.mail(BOB, "signup bob banana2")
    return desk


def error_body(command: str, reason_lines: list[str]) -> str:
    """templates/error.txt filled in: the command and the reason indented by four spaces."""
    reason = "".join(f"    {line}\n" for line in reason_lines)
    return f"Your command\n\n    {command}\n\nwas not carried out:\n\n{reason}\n{ERROR_TAIL}"


# -- refusals -------------------------------------------------------------------


def test_an_unknown_command_is_a_pbmserv_error_quoting_the_line(desk: Desk) -> None:
    """A line naming no game has no title: the subject is the server's own, the line echoed indented."""
    done = desk.mail(ZED, "frobnicate")
    reason = "Unknown command 'frobnicate' Send 'help' for the commands, 'help games' for the games."
    assert (done.status, done.error, done.tries, done.commands_done) == ("done", None, 0, 1)
    assert done.results == [{"command": "frobnicate", "ok": False, "text": reason, "subject": "pbmserv Error",
                             "references": [], "pictures": []}]
    (reply,) = done.replies
    assert (reply["To"], reply["Subject"]) == (ZED, "pbmserv Error")
    # The reason wraps at 78 columns: "    ...'help games'" is 75 wide, " for" would make 79.
    assert done.body() == error_body("frobnicate", [
        "Unknown command 'frobnicate' Send 'help' for the commands, 'help games'", "for the games."])


def test_a_stranger_sees_four_clipped_words_of_the_line_and_a_player_whole_words_to_60(players: Desk) -> None:
    """Anyone can set a Reply-To: a stranger's error echoes four words of at most 24 characters
    (server.mail.quota.quote_for_stranger); a player's echo keeps words up to ECHO_WORD = 60.

    The long words hold a colon, so they are not password-shaped (server/commands/masking.py) and stay visible."""
    long30, long70 = "x:" * 15, "y:" * 35
    line = f"frobnicate {long30} two six ten {long70}"
    stranger = players.mail(ZED, line)
    assert stranger.body().splitlines()[2] == f"    frobnicate {long30[:24]}... two six ..."
    player = players.mail(ALICE, line)
    assert player.body().splitlines()[2:4] == [f"    frobnicate {long30} two six ten", f"    {long70[:60]}..."]


def test_a_mail_without_a_command_gets_one_refusal(desk: Desk) -> None:
    """Empty Subject and body: body mode with no line; the result says so under the server's subject."""
    done = desk.mail(ZED, "", "")
    assert (done.status, done.commands_done) == ("done", 1)
    assert done.results == [{"command": "", "ok": False, "text": NO_COMMAND, "subject": "pbmserv Error",
                             "references": [], "pictures": []}]
    (reply,) = done.replies
    assert reply["Subject"] == "pbmserv Error"
    # Said plainly (issue 26), not as "Results of your 1 commands ... Refused: ...".
    assert done.body().startswith("Your mail held no command, so nothing was done.\n")


def test_a_refused_board_command_keeps_its_thread_in_a_combined_reply(players: Desk) -> None:
    """A refusal about a board carries the board's References root, into the combined reply too."""
    root = "<tictactoe.77.board@games.test>"
    done = players.mail(ALICE, "", "tictactoe show 77\nhelp\n")
    assert (done.status, done.commands_done, done.tries) == ("done", 2, 0)
    assert done.results[0] == {"command": "tictactoe show 77", "ok": False,
                               "text": "There is no Tic-Tac-Toe Board 77", "subject": "Tic-Tac-Toe Board 77 Error",
                               "references": [root], "pictures": []}
    assert [r["command"] for r in done.results] == ["tictactoe show 77", "help"]
    (reply,) = done.replies
    assert reply["Subject"] == "pbmserv results"
    assert done.body().startswith("Results of your 2 commands (1 done, 1 refused):\n")
    assert str(reply["References"]).split() == [root, str(reply["In-Reply-To"])]


def test_every_command_of_a_mail_is_applied_in_one_pass(desk: Desk) -> None:
    """process() applies the whole mail: no command is left for a retry (nor counted as a failure)."""
    done = desk.mail(ZED, "multiple", "help\nhelp games\nfrobnicate\n")
    assert (done.status, done.commands_done, done.tries, done.error) == ("done", 3, 0, None)
    (reply,) = done.replies
    assert done.body().startswith("Results of your 3 commands (2 done, 1 refused):\n")


def test_mail_from_our_own_address_is_not_answered(desk: Desk) -> None:
    """Our address is configured in any case; a mail from it (a loop) is stored and left unanswered."""
    desk.settings.addresses = [ADDRESS.upper()]
    done = desk.mail(ADDRESS, "help")
    assert (done.status, done.error, done.replies) == ("ignored", "mail from our own address", [])


# -- what the operator reads --------------------------------------------------


def test_the_log_says_why_a_mail_was_dropped_or_not_answered(desk: Desk, caplog: pytest.LogCaptureFixture) -> None:
    raw = make_mail(ALICE, ADDRESS, "help").as_bytes()
    first = desk.store(raw, ALICE)
    again = desk.store(raw, ALICE)
    with caplog.at_level(logging.INFO, logger="pbmserv.worker"):
        Worker(desk.db, desk.settings).drain()
    with desk.db.transaction() as s:
        key = s.get(Inbound, again).dedupe_key  # type: ignore[union-attr]
    assert [desk.read(i).status for i in (first, again)] == ["done", "duplicate"]
    reason = f"same Message-ID, sender and content as an earlier one ({key[:40]})"
    assert desk.read(again).error == reason
    assert f"inbound {again} from '{ALICE}' dropped as a duplicate: {reason}" in caplog.messages
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="pbmserv.worker"):
        quiet = desk.mail(ALICE, "help", X_Ack="no")
    assert (quiet.status, quiet.error, quiet.replies) == ("ignored", "X-Ack: no", [])
    assert caplog.messages == [f"inbound {quiet.id} from '{ALICE}' not answered: X-Ack: no"]


# -- the in-flight file and the set-aside path --------------------------------------


def test_the_inflight_file_names_the_message_while_it_is_applied(desk: Desk, tmp_path: Path) -> None:
    seen: list[str] = []
    inflight = tmp_path / "inflight"
    worker = Worker(desk.db, desk.settings, on_claim=lambda i: seen.append(inflight.read_text()))
    worker.inflight = inflight
    done = desk.mail(ALICE, "help", worker=worker)
    assert seen == [str(done.id)] and not inflight.exists()


def test_an_unwritable_inflight_file_costs_one_warning_per_mail(desk: Desk, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """The mail is applied all the same; clearing a file that was never written is no second warning."""
    worker = Worker(desk.db, desk.settings)
    worker.inflight = tmp_path / "no such directory" / "inflight"
    with caplog.at_level(logging.WARNING, logger="pbmserv.worker"):
        done = desk.mail(ALICE, "help", worker=worker)
    assert done.status == "done" and len(done.replies) == 1
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert caplog.records[0].getMessage().startswith("cannot write ")


def crash_three_times(desk: Desk, inbound_id: int, inflight: Path) -> list[tuple[str, int]]:
    """Three restarts, each finding ``inbound_id`` left in flight by a process that died."""
    seen = []
    for _ in range(3):
        inflight.write_text(f"{inbound_id}\n")
        worker = Worker(desk.db, desk.settings)
        worker.inflight = inflight
        worker.count_crashed()
        assert not inflight.exists()
        row = desk.read(inbound_id)
        seen.append((row.status, row.tries))
    return seen


def test_a_mail_that_kills_the_process_three_times_is_set_aside_and_its_sender_told(desk: Desk,
                                                                                    tmp_path: Path) -> None:
    sent = make_mail(ALICE, ADDRESS, "help")
    inbound_id = desk.store(sent.as_bytes(), ALICE)
    assert crash_three_times(desk, inbound_id, tmp_path / "inflight") == [("new", 1), ("new", 2), ("shunted", 3)]
    done = desk.read(inbound_id)
    assert done.error is not None and "the server process died" in done.error
    (notice,) = done.replies
    assert (notice["To"], notice["Subject"]) == (ALICE, "pbmserv Error")
    assert notice["In-Reply-To"] == sent["Message-ID"]  # threads under the mail it is about
    assert done.body() == (
        'Your message "help" could not be processed: it failed 3 times\n'
        "with an internal error. It has been set aside for the server's admin, who\n"
        "has been told. Nothing in it was applied after the point where it failed.\n")
    assert Worker(desk.db, desk.settings).run_once() is False  # set aside: never taken again


def test_a_mail_set_aside_and_sent_again_is_applied_not_dropped_as_a_duplicate(desk: Desk,
                                                                                tmp_path: Path) -> None:
    """The set-aside notice tells the sender it was not applied: the same mail sent again (same
    Message-ID, sender and content) is a new try, not a copy of one applied."""
    sent = make_mail(ALICE, ADDRESS, "help")
    first = desk.store(sent.as_bytes(), ALICE)
    assert crash_three_times(desk, first, tmp_path / "inflight")[-1] == ("shunted", 3)
    again = desk.store(sent.as_bytes(), ALICE)
    Worker(desk.db, desk.settings).process(again)
    applied = desk.read(again)
    assert (applied.status, applied.error) == ("done", None)
    # ... while a copy of a mail that was applied is dropped.
    copy = desk.store(sent.as_bytes(), ALICE)
    Worker(desk.db, desk.settings).process(copy)
    assert desk.read(copy).status == "duplicate"


def test_a_set_aside_notice_that_cannot_be_queued_does_not_stop_the_set_aside(
        desk: Desk, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The outbox refuses every insert (a real SQLite trigger): the mail is set aside all the same,
    and the log says the notice was lost."""
    with desk.db.transaction() as s:
        s.execute(text("CREATE TRIGGER outbox_full BEFORE INSERT ON outbox "
                       "BEGIN SELECT RAISE(ABORT, 'outbox full'); END"))
    inbound_id = desk.store(make_mail(ALICE, ADDRESS, "help").as_bytes(), ALICE)
    with caplog.at_level(logging.ERROR, logger="pbmserv.worker"):
        assert crash_three_times(desk, inbound_id, tmp_path / "inflight")[-1] == ("shunted", 3)
    assert desk.read(inbound_id).replies == []
    lost = [r for r in caplog.records if r.getMessage() == f"inbound {inbound_id}: cannot compose the set-aside notice"]
    assert len(lost) == 1 and lost[0].exc_info is not None and "outbox full" in str(lost[0].exc_info[1])


# -- address confirmation and reply addresses -----------------------------------------


def test_a_reply_to_a_confirmation_mail_confirms_the_address(desk: Desk) -> None:
    """A second address named at signup gets one mail; a reply to its tagged address confirms it."""
    signup = desk.mail(ALICE, "signup alice apple1 alice@example.org a1@example.org")
    request = signup.to("a1@example.org")
    assert request["Subject"] == "pbmserv: confirm mail for alice?"
    token_address = str(request["Reply-To"])
    done = desk.mail("a1@example.org", "Re: " + str(request["Subject"]), "yes", to=token_address)
    text = "Confirmed: the mail of alice now comes to a1@example.org.\n"
    assert (done.status, done.error, done.tries) == ("done", None, 0)
    assert done.results == [{"command": "(address confirmation)", "ok": True, "text": text,
                             "subject": "pbmserv: a1@example.org confirmed", "references": []}]
    (reply,) = done.replies
    assert (reply["To"], reply["Subject"], done.body()) == ("a1@example.org", "pbmserv: a1@example.org confirmed",
                                                            text)
    with desk.db.transaction() as s:
        assert s.scalars(select(Address.confirmed).where(Address.address == "a1@example.org")).one() is True


@pytest.fixture
def board(players: Desk) -> tuple[Desk, EmailMessage]:
    """Tic-Tac-Toe Board 101, alice (X) to move; her board mail (with its reply address)."""
    new = players.mail(BOB, "tictactoe challenge alice bob")
    mail = new.to(ALICE)
    assert mail["Subject"] == "New Tic-Tac-Toe Board 101 alice" and mail["Reply-To"]
    return players, mail


def moves(desk: Desk) -> list[str]:
    with desk.db.transaction() as s:
        return list(s.scalars(select(Move.move).order_by(Move.id)))


def test_a_reply_with_a_move_plays_it_for_the_player_the_address_names(board: tuple[Desk, EmailMessage]) -> None:
    desk, mail = board
    done = desk.mail(ALICE, "Re: " + str(mail["Subject"]), "b2", to=str(mail["Reply-To"]))
    assert [r["ok"] for r in done.results] == [True]
    assert moves(desk) == ["b2"]
    assert {m["Subject"] for m in done.replies} == {"Tic-Tac-Toe Board 101 bob"}


def test_a_whole_command_mailed_to_a_reply_address_is_that_command(board: tuple[Desk, EmailMessage]) -> None:
    """Typed out in full (password and all), a reply is taken as if mailed to the bare address."""
    desk, mail = board
    done = desk.mail(ALICE, "Re: " + str(mail["Subject"]), "tictactoe move 101 alice apple1 b2",
                     to=str(mail["Reply-To"]))
    assert [(r["command"], r["ok"]) for r in done.results] == [("tictactoe move 101 alice ******** b2", True)]
    assert moves(desk) == ["b2"]


def test_a_refused_reply_is_an_error_about_its_board(board: tuple[Desk, EmailMessage]) -> None:
    """The reply names no game or board; the refusal does, and the subject says which."""
    desk, mail = board
    desk.mail(ALICE, "tictactoe move 101 alice apple1 b2")
    desk.mail(BOB, "tictactoe move 101 bob banana2 a1")
    stale = desk.mail(ALICE, "Re: " + str(mail["Subject"]), "c3", to=str(mail["Reply-To"]))
    (reply,) = stale.replies
    assert (reply["To"], reply["Subject"]) == (ALICE, "Tic-Tac-Toe Board 101 Error")
    assert stale.results[0]["subject"] == "Tic-Tac-Toe Board 101 Error"
    assert stale.results[0]["references"] == ["<tictactoe.101.board@games.test>"]
    assert stale.results[0]["text"].startswith("You replied to the Tic-Tac-Toe Board 101 mail of move #1, but the "
                                               "board is at move #3 now: c3 was not played.")
    assert moves(desk) == ["b2", "a1"]


def test_the_set_aside_notice_masks_the_password_in_the_subject_it_quotes(players: Desk, tmp_path: Path) -> None:
    """The notice quotes the Subject back (without "Re:"); its password is shown as ********,
    as in every other reply (it used to go out in clear)."""
    before = players.last_outbox()
    inbound_id = players.store(make_mail(ALICE, ADDRESS, "Re: tictactoe move 101 alice apple1 b2").as_bytes(), ALICE)
    assert crash_three_times(players, inbound_id, tmp_path / "inflight")[-1] == ("shunted", 3)
    done = players.read(inbound_id, before)
    (notice,) = done.replies
    assert notice["To"] == ALICE and "apple1" not in done.body()
    assert " ".join(done.body().split()).startswith(
        'Your message "tictactoe move 101 alice ******** b2" could not be processed: it failed 3 times')


def test_the_set_aside_notice_quotes_at_most_200_characters_of_the_subject(desk: Desk, tmp_path: Path) -> None:
    """A long Subject is cut at 200 characters in the notice (one word here, so no wrapping moves the cut)."""
    subject = "help " + "x:" * 150
    inbound_id = desk.store(make_mail(ALICE, ADDRESS, subject).as_bytes(), ALICE)
    assert crash_three_times(desk, inbound_id, tmp_path / "inflight")[-1] == ("shunted", 3)
    body = " ".join(desk.read(inbound_id).body().split())
    assert body.startswith(f'Your message "{subject[:200]}" could not be processed')


def test_an_error_reply_threads_under_the_mail_it_answers(desk: Desk) -> None:
    sent = make_mail(ZED, ADDRESS, "frobnicate")
    inbound_id = desk.store(sent.as_bytes(), ZED)
    Worker(desk.db, desk.settings).process(inbound_id)
    (reply,) = desk.read(inbound_id).replies
    assert reply["Subject"] == "pbmserv Error" and reply["In-Reply-To"] == sent["Message-ID"]


def test_a_reply_to_a_forged_address_is_not_quoted_back(board: tuple[Desk, EmailMessage]) -> None:
    """Until its address is checked a reply may hold anything (a password): the refusal does not echo it."""
    desk, mail = board
    local, _, domain = str(mail["Reply-To"]).partition("@")
    forged = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    done = desk.mail(ALICE, "Re: " + str(mail["Subject"]), "b2 apple1", to=forged)
    (reply,) = done.replies
    body = done.body()
    assert body.startswith("Your command\n\n    (a reply to a board mail)\n\nwas not carried out:\n")
    assert "apple1" not in body and "b2" not in body.split("was not carried out")[0]
    assert moves(desk) == []


def test_a_worker_asks_whether_mail_waits_only_when_its_last_claim_saw_none(players: Desk,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim that saw more mail waiting is followed by the next claim at once; only after one that
    saw none does the worker ask first ("anything to do?", a read transaction a move: issue 25)."""
    worker = Worker(players.db, players.settings)
    peeks: list[object] = []
    peek = players.db.peek
    monkeypatch.setattr(players.db, "peek", lambda work: peeks.append(work) or peek(work))
    for sender in (ALICE, BOB, ALICE):
        players.store(make_mail(sender, ADDRESS, "help").as_bytes(), sender)
    assert [worker.run_once() for _ in range(3)] == [True, True, True]
    assert [worker.more_waiting, len(peeks)] == [False, 0]  # three claims, and the last saw nothing else
    assert worker.run_once() is False and len(peeks) == 1  # now it asks, and nothing waits
    players.store(make_mail(BOB, ADDRESS, "help").as_bytes(), BOB)
    assert worker.run_once() is True and len(peeks) == 2 and worker.more_waiting is False


def test_a_players_claim_sees_a_strangers_mail_waiting(players: Desk) -> None:
    """The players' tier is taken first; a stranger's mail behind it still counts as more to do."""
    worker = Worker(players.db, players.settings)
    players.store(make_mail("stranger@elsewhere.test", ADDRESS, "help").as_bytes(), "stranger@elsewhere.test")
    players.store(make_mail(ALICE, ADDRESS, "help").as_bytes(), ALICE)
    assert worker.run_once() is True and worker.more_waiting is True  # alice's, first
    assert worker.run_once() is True and worker.more_waiting is False  # the stranger's, last


def test_a_worker_told_of_new_mail_claims_without_asking(players: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve``'s only worker, woken by a stored mail, claims at once (issue 25: the "anything to
    do?" read was a transaction a move); told of mail a claim already took, it finds nothing and
    changes nothing."""
    worker = Worker(players.db, players.settings)
    peeks: list[object] = []
    peek = players.db.peek
    monkeypatch.setattr(players.db, "peek", lambda work: peeks.append(work) or peek(work))
    worker.more_waiting = False  # as after a claim that saw nothing else waiting
    players.store(make_mail(ALICE, ADDRESS, "help").as_bytes(), ALICE)
    assert worker.run_once(told=True) is True and peeks == []
    with players.db.transaction() as session:
        before = session.execute(text("SELECT id, status FROM inbound ORDER BY id")).all()
    assert worker.run_once(told=True) is False and peeks == []  # a stale wake-up: nothing to take
    with players.db.transaction() as session:
        assert session.execute(text("SELECT id, status FROM inbound ORDER BY id")).all() == before
    assert worker.run_once() is False and len(peeks) == 1  # not told: it asks first


def test_serves_only_worker_does_not_ask_before_claiming_a_stored_mail(sqlite_url: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: each mail to a one-worker ``serve`` is claimed without a peek before it."""
    from server.mail.fairqueue import FairQueue
    from server.processes.serve import Server
    from tests.mailtools import Sink, free_port, send

    asked: list[bool] = []
    waiting = FairQueue.waiting
    monkeypatch.setattr(FairQueue, "waiting", lambda self, *a: asked.append(True) or waiting(self, *a))
    sink = Sink().start()
    settings = Settings(database_url=sqlite_url, addresses=[ADDRESS], listen=f"127.0.0.1:{free_port()}",
                        relay=f"127.0.0.1:{sink.port}", poll_interval=30.0, address_proof="from")
    server = Server(settings)
    server.start()
    try:
        for count in (1, 2, 3):
            send(settings.listen_hostport[1], make_mail(ALICE, ADDRESS, "help"), sender=ALICE, to=ADDRESS)
            sink.wait_for(count)
        assert asked == []
    finally:
        server.stop()
        sink.stop()
