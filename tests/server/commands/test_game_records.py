"""Game records through the real server: the final mail's attachment, ``GAME record``,
``preview record`` and ``challenge --record`` reading one back (attached or in the body),
``pbmserv game export`` and the web download, all giving the same record.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import select

import games
from games.record import parse, replay
from server.store.model import Board, Move
from tests.mailtools import Received, send
from tests.server.conftest import ADDRESS, Running
from tests.server.web.webproc import web_server

ROOT = Path(__file__).resolve().parents[3]
GAME = "warpandweft"


def text(mail: Received) -> str:
    return mail.text.replace("\r\n", "\n")


def finished(r: Running) -> list[Received]:
    """Board 101 played to its end (alice resigns at move 5); the mails of the last move."""
    r.mail("alice@example.org", f"{GAME} challenge alice bob -size=2")
    for n, (who, move) in enumerate([("alice apple1", "C1"), ("bob banana2", "A1"), ("alice apple1", "E3"),
                                     ("bob banana2", "E1")], start=1):
        r.mail(f"{who.split()[0]}@example.org", f"{GAME} move {101} {who} {move}#{n}")
    return r.mail("alice@example.org", f"{GAME} resign 101 alice apple1")


def stored(r: Running) -> tuple[dict, list[tuple[int, str]], dict | None]:
    with r.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == GAME, Board.number == 101)).one()
        moves = [(m.seat, m.move) for m in s.scalars(select(Move).where(Move.board_id == board.id).order_by(Move.ply))]
        return board.state, moves, board.outcome


def test_the_final_mail_carries_the_record(players: Running) -> None:
    r = players
    last = finished(r)
    assert sorted(m.rcpt_tos[0] for m in last) == ["alice@example.org", "bob@example.org"]
    state, moves, outcome = stored(r)
    for mail in last:
        files = list(mail.message.iter_attachments())
        assert [(f.get_filename(), f.get_content_type()) for f in files] == [("warpandweft-101.pbmr.txt", "text/plain")]
        record = parse(files[0].get_content())
        # Who, what, how it ended: alice resigned, so bob (seat 2) wins; the rules alone did not end it.
        assert (record.tag("Game"), record.tag("Board"), record.seats) == (GAME, "101", ["alice", "bob"])
        assert (record.tag("Options"), record.tag("Result"), record.tag("Plies")) == ("-size=2 -threads", "0-1", "4")
        assert record.tag("Reason") == outcome["reason"]
        played = replay(games.load_game(GAME), record)
        assert played.moves == moves == [(0, "C1"), (1, "A1"), (0, "E3"), (1, "E1")]
        assert json.dumps(games.load_game(GAME).dump(played.final), sort_keys=True) == json.dumps(state, sort_keys=True)
        assert max(len(line) for line in text(mail).splitlines()) <= 78
    # An earlier board mail has no attachment.
    assert not [m for m in r.sink.messages if m.subject.startswith("Warp and Weft Board 101 bob")
                and list(m.message.iter_attachments())]


def test_record_by_mail_export_and_web_are_the_same(sqlite_players: Running, sqlite_url: str, tmp_path: Path) -> None:
    db_url = sqlite_url
    r = sqlite_players
    r.mail("carol@example.org", "signup carol cherry3")
    finished(r)
    reply = r.mail("carol@example.org", f"{GAME} record 101")
    assert [m.rcpt_tos for m in reply] == [["carol@example.org"]]
    assert reply[0].subject == "Warp and Weft Board 101 record"
    body = text(reply[0])
    assert body.startswith("The game record of Warp and Weft Board 101 (all 4 moves; the game is over),\n"
                           "attached and below the line.")
    mailed = body.split("-" * 40 + "\n", 1)[1]
    final = [m for m in r.sink.messages if m.subject == "Warp and Weft Board 101 Finished"][0]
    assert mailed == next(final.message.iter_attachments()).get_content().replace("\r\n", "\n")
    files = [(f.get_filename(), f.get_content().replace("\r\n", "\n")) for f in reply[0].message.iter_attachments()]
    assert files == [("warpandweft-101.pbmr.txt", mailed)]
    # The first moves only: no result yet.
    early_mail = r.mail("carol@example.org", f"{GAME} record 101#2")[0]
    early = parse(text(early_mail))
    assert ([e.move for e in early.entries], early.tag("Result")) == (["C1", "A1"], "*")
    assert [f.get_filename() for f in early_mail.message.iter_attachments()] == ["warpandweft-101-2.pbmr.txt"]
    # pbmserv game export, as the admin runs it.
    out = tmp_path / "board.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PBMSERV_ADDRESS": ADDRESS}
    done = subprocess.run([sys.executable, "-m", "server.cli", "--database-url", db_url, "game", "export", GAME,
                           "101", "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == mailed
    gone = subprocess.run([sys.executable, "-m", "server.cli", "--database-url", db_url, "game", "export", GAME,
                           "999"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert gone.returncode == 1 and "There is no Warp and Weft Board 999" in gone.stderr
    # The web page links the record; the download is the same text (no Site tag: the web
    # process does not know the mail address).
    with web_server(db_url) as base:
        with urllib.request.urlopen(base + f"/{GAME}/101", timeout=30) as page:
            assert f'href="/{GAME}/101/record"' in page.read().decode()
        with urllib.request.urlopen(base + f"/{GAME}/101/record", timeout=30) as resp:
            assert resp.headers["Content-Disposition"] == 'attachment; filename="warpandweft-101.pbmr.txt"'
            downloaded = resp.read().decode()
    assert downloaded == mailed.replace(f'[Site "{ADDRESS}"]\n', "")


def thunderbird_with_attachment(sender: str, subject: str, note: str, record: str) -> bytes:
    """What Thunderbird sends with a .txt attached: multipart/mixed, the file base64 with its name."""
    boundary = "------------Tb7mZ0aQe3sJ1x"
    payload = base64.encodebytes(record.encode()).decode()
    return (f"From: {sender}\r\nTo: {ADDRESS}\r\nSubject: {subject}\r\nMessage-ID: <{os.getpid()}.{len(record)}"
            f"@tb.example>\r\nMIME-Version: 1.0\r\nUser-Agent: Mozilla/5.0 Thunderbird/128.4.0\r\n"
            f'Content-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n'
            f"This is a multi-part message in MIME format.\r\n--{boundary}\r\n"
            "Content-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"
            f"{note}\r\n\r\n--{boundary}\r\n"
            'Content-Type: text/plain; charset=UTF-8; name="board.txt"\r\n'
            'Content-Disposition: attachment; filename="board.txt"\r\nContent-Transfer-Encoding: base64\r\n\r\n'
            f"{payload}\r\n--{boundary}--\r\n").encode()


RECORD = """[Record "pbmserv-record 1"]
[Game "warpandweft"]
[Options "-size=2 -threads"]
[Seat1 "alice"]
[Seat2 "bob"]
[Result "*"]

1. C1
2. A1 {bob opens on the left}
3. E3
*
"""


def mailed(r: Running, raw: bytes, sender: str) -> list[Received]:
    before = len(r.sink.messages)
    send(r.port, raw, sender=sender, to=ADDRESS)
    r.quiesce()
    return r.sink.messages[before:]


def boards(r: Running) -> int:
    with r.db.transaction() as s:
        return len(s.scalars(select(Board)).all())


def test_preview_record_attached_or_in_the_body(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("carol@example.org", "signup carol cherry3")  # replies to a stranger are cut short
    reply = mailed(r, thunderbird_with_attachment("carol@example.org", f"{GAME} preview record", "Look!", RECORD),
                   "carol@example.org")
    assert [m.rcpt_tos for m in reply] == [["carol@example.org"]]
    body = text(reply[0])
    assert body.startswith("Preview of the Warp and Weft record (3 moves, alice vs bob). Nothing is\nstored;")
    # The position after each move: the start, then moves 1-3, each named with its player.
    heads = [line for line in body.splitlines() if line.startswith(("At the start", "After move"))]
    assert heads == ["At the start:", "After move 1, alice (Warp) C1:", "After move 2, bob (Weft) A1:",
                     "After move 3, alice (Warp) E3:"]
    assert body.rstrip().endswith("It would be bob (Weft)'s move.")
    # In the body, after a greeting, with #N: that one position.
    one = r.mail("carol@example.org", f"{GAME} preview record #2", "Hello,\n\n" + RECORD + "\n-- \ncarol\n")
    lines = text(one[0]).splitlines()
    assert [line for line in lines if line.startswith(("At the start", "After move"))] == [
        "After move 2, bob (Weft) A1:"]
    assert "It would be alice (Warp)'s move." in lines
    assert boards(r) == 0


def test_a_bad_record_is_refused_with_its_line_and_changes_nothing(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("carol@example.org", "signup carol cherry3")
    game = games.load_game(GAME)
    state = game.play(game.start(game.parse_options(["-size=2"]), 2), 0, "C1")
    with pytest.raises(games.IllegalMove) as rules:
        game.play(state, 1, "C1")
    bad = RECORD.replace("2. A1", "2. C1")
    err = r.mail("carol@example.org", f"{GAME} preview record", bad)
    assert err[0].subject == "Warp and Weft Error"
    said = " ".join(text(err[0]).split())
    assert f"The game record was not read: line 9: move 2 (C1) is refused: {rules.value}. Nothing was done." in said
    err = r.mail("alice@example.org", f"{GAME} challenge alice bob --record", bad)
    assert "line 9: move 2 (C1) is refused" in " ".join(text(err[0]).split())
    err = r.mail("alice@example.org", f"{GAME} preview record", "")
    assert ("The game record was not read: no record found: a record begins with tag lines such as [Record "
            '"pbmserv-record 1"]. Attach the record as a text file, or put it in the body of the mail.') in (
        " ".join(text(err[0]).split()))
    err = r.mail("alice@example.org", "interweave preview record", RECORD)
    assert "line 2: this is a record of 'warpandweft', not of interweave" in " ".join(text(err[0]).split())
    assert boards(r) == 0


def test_challenge_from_a_record_after_move_n(players: Running) -> None:
    r = players
    new = mailed(r, thunderbird_with_attachment("alice@example.org", f"{GAME} challenge alice bob --record=2",
                                                "Shall we play it on from here?", RECORD), "alice@example.org")
    assert sorted(m.rcpt_tos[0] for m in new) == ["alice@example.org", "bob@example.org"]
    assert new[0].subject == "New Warp and Weft Board 101 alice **"
    body = " ".join(text(new[0]).split())
    assert "It starts from a game record after move 2: its moves are this board's first." in body
    assert "Shall we play it on from here?" in body
    state, moves, _ = stored(r)
    assert moves == [(0, "C1"), (1, "A1")]
    game = games.load_game(GAME)
    expected = game.play(game.play(game.start(game.parse_options(["-size=2"]), 2), 0, "C1"), 1, "A1")
    assert state == json.loads(json.dumps(game.dump(expected)))
    # Play goes on at move #3.
    after = r.mail("alice@example.org", f"{GAME} move 101 alice apple1 E3#3")
    assert any(m.subject == "Warp and Weft Board 101 bob" for m in after)
    # Options come from the record; a finished record has no move to go on from.
    err = r.mail("alice@example.org", f"{GAME} challenge alice bob -size=3 --record", RECORD)
    assert "With --record the options are the record's: leave out -size=3" in " ".join(text(err[0]).split())
    won = RECORD.replace("[Result \"*\"]", "[Result \"0-1\"]\n[Reason \"alice resigned\"]").replace("\n*\n", "\n0-1\n")
    assert r.mail("alice@example.org", f"{GAME} challenge alice bob --record", won)[0].subject.startswith("New ")


def test_a_multiple_mail_that_ends_the_game_carries_the_record(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("alice@example.org", f"{GAME} challenge alice bob -size=2")
    r.mail("alice@example.org", f"{GAME} move 101 alice apple1 C1#1")
    r.mail("bob@example.org", f"{GAME} move 101 bob banana2 A1#2")
    out = r.mail("alice@example.org", "multiple", f"{GAME} move 101 alice apple1 E3#3\n"
                                                  f"{GAME} move 101 bob banana2 E1#4\n"
                                                  f"{GAME} resign 101 alice apple1\nend\n")
    combined = [m for m in out if m.rcpt_tos == ["alice@example.org"]]
    assert [m.subject for m in combined] == ["pbmserv results"]
    files = list(combined[0].message.iter_attachments())
    assert [f.get_filename() for f in files] == ["warpandweft-101.pbmr.txt"]
    record = parse(files[0].get_content())
    assert ([e.move for e in record.entries], record.tag("Result")) == (["C1", "A1", "E3", "E1"], "0-1")
    # bob's own mails: after E3, after E1 (his), and the final one with the record.
    bobs = [m for m in out if m.rcpt_tos == ["bob@example.org"]]
    assert [len(list(m.message.iter_attachments())) for m in bobs] == [0, 0, 1]
