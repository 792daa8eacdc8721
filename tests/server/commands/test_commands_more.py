"""The rest of the command set by real mail: each command's effect and its refusals.

Every refusal is checked to change nothing stored (board, moves, pending
business, subscriptions, policy), and every reply's recipients are checked:
previews and submissions go to the sender only, chat to the board's people.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from server.store.model import Board, Move, Subscription, User
from tests.mailtools import Received
from tests.server.conftest import Running


def flat(text: str) -> str:
    return " ".join(text.split())


def stored(running: Running, number: int = 101) -> dict[str, Any]:
    """What a refused command must leave as it was."""
    with running.db.transaction() as s:
        b = s.scalars(select(Board).where(Board.game == "tictactoe", Board.number == number)).one()
        moves = [m.move for m in s.scalars(select(Move).where(Move.board_id == b.id).order_by(Move.ply))]
        subs = sorted((x.user_id, x.kind) for x in s.scalars(select(Subscription).where(Subscription.board_id == b.id)))
        return {"ply": b.ply, "to_move": b.to_move, "status": b.status, "pending": b.pending, "state": b.state,
                "moves": moves, "subs": subs}


def to(mails: list[Received], who: str) -> list[Received]:
    return [m for m in mails if m.rcpt_tos == [f"{who}@example.org"]]


def refused(running: Running, sender: str, subject: str, reason: str, body: str = "", number: int = 101) -> None:
    """The command is refused with ``reason``, to the sender only, and nothing changes."""
    before = stored(running, number)
    out = running.mail(f"{sender}@example.org", subject, body)
    assert len(out) == 1 and out[0].rcpt_tos == [f"{sender}@example.org"], [m.subject for m in out]
    assert out[0].subject.endswith("Error"), out[0].subject
    assert reason in flat(out[0].text), out[0].text
    assert stored(running, number) == before


def signup(running: Running, *names: str) -> None:
    for name in names:
        running.mail(f"{name}@example.org", f"signup {name} {name}pw1")
    running.sink.clear()


def test_queue_plays_when_the_turn_comes(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    # On your own turn, queue is move.
    out = players.mail("alice@example.org", "tictactoe queue 101 alice apple1 b2")
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 bob"} and len(out) == 2
    # Out of turn: stored, and only the sender hears of it.
    players.mail("alice@example.org", "tictactoe queue 101 alice apple1 c3")  # not yet: it is bob's turn
    out = players.mail("alice@example.org", "tictactoe queue 101 alice apple1 a3")
    assert len(out) == 1 and out[0].rcpt_tos == ["alice@example.org"]
    assert "It replaces your earlier queued move c3" in flat(out[0].text)
    assert stored(players)["pending"] == {"queue": {"0": {"move": "a3", "n": None}}}
    # bob moves: alice's queued move is played at once; both see it, and it is bob's move again.
    out = players.mail("bob@example.org", "tictactoe move 101 bob banana2 a1")
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 bob"}
    assert "bob played a1. alice's queued move a3 is played." in flat(to(out, "bob")[0].text)
    assert stored(players)["moves"] == ["b2", "a1", "a3"] and stored(players)["pending"] == {}
    # A queued move that is no longer legal is dropped and its owner told.
    players.mail("alice@example.org", "tictactoe queue 101 alice apple1 c1")
    out = players.mail("bob@example.org", "tictactoe move 101 bob banana2 c1")
    text = flat(to(out, "alice")[0].text)
    assert "Your queued move c1 is not legal now (c1 is already taken): it is not played" in text
    assert "It is alice (X)'s move (move #5)" in text
    assert "queued" not in to(out, "bob")[0].text  # the owner's business only
    assert stored(players)["pending"] == {} and stored(players)["to_move"] == 0
    # #N names the move it is for; a stale one is dropped.
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 c2")
    players.mail("alice@example.org", "tictactoe queue 101 alice apple1 b1#9")
    out = players.mail("bob@example.org", "tictactoe move 101 bob banana2 propose")  # a board mail meanwhile
    assert "Your queued move: b1 (played for you at move #9" in flat(to(out, "alice")[0].text)
    assert "b1" not in to(out, "bob")[0].text
    out = players.mail("bob@example.org", "tictactoe move 101 bob banana2 b3")
    assert ("Your queued move b1 was for move #9, but the board is at move #7: it is not played"
            in flat(to(out, "alice")[0].text))
    assert "queued" not in to(out, "bob")[0].text


def test_queue_refusals_and_cancel(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    refused(players, "bob", "tictactoe queue 101 bob banana2 a1#1", "#1 is not")
    refused(players, "bob", "tictactoe queue 101 bob banana2 resign", "resign cannot be queued")
    refused(players, "bob", "tictactoe queue 101 bob banana2", "No move given")
    refused(players, "bob", "tictactoe queue 101 bob wrong a1", "Wrong password for bob")
    refused(players, "bob", "tictactoe queue 101 bob banana2 cancel", "You have no queued move")
    players.mail("bob@example.org", "tictactoe queue 101 bob banana2 a1#2")
    out = players.mail("bob@example.org", "tictactoe queue 101 bob banana2 cancel")
    assert "Your queued move a1 on Tic-Tac-Toe Board 101 is cancelled." in out[0].text
    assert stored(players)["pending"] == {}
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    assert stored(players)["moves"] == ["b2"] and stored(players)["to_move"] == 1


def test_preview_is_for_the_sender_only_and_stores_nothing(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    before = stored(players)
    out = players.mail("dave@example.org", "tictactoe preview 101 a1 b1 c1 b3")
    assert len(out) == 1 and out[0].rcpt_tos == ["dave@example.org"]
    assert out[0].subject == "Tic-Tac-Toe Board 101 Preview"
    text = flat(out[0].text)
    assert ("Preview of Tic-Tac-Toe Board 101 from move #2: bob (O) a1, alice (X) b1, bob (O) c1, alice (X) b3. "
            "Nothing is stored") in text
    assert "The game would be over: alice (X) wins (three in a row)." in text
    assert stored(players) == before
    # From an earlier position, and the general form for a new board.
    past = players.mail("dave@example.org", "tictactoe preview 101#0 a1")[0].text
    assert "from move #1: alice (X) a1" in flat(past) and "It would be bob (O)'s move." in flat(past)
    new = players.mail("dave@example.org", "preview new tictactoe -swap a1 swap")[0]
    assert new.subject == "Tic-Tac-Toe Preview"
    assert "Preview of a new Tic-Tac-Toe board (-swap): X a1, X swap." in flat(new.text)
    same = players.mail("dave@example.org", "tictactoe preview new c3")[0]
    assert "Preview of a new Tic-Tac-Toe board: X c3." in flat(same.text)
    with players.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Board)) == 1
    # Refusals name the move that fails.
    refused(players, "dave", "tictactoe preview 101 a1 a1", "Preview: move 2 (a1) by alice (X) is refused: a1 is already taken")
    refused(players, "dave", "tictactoe preview 101#7 a1", "Board 101 has only 1 moves")
    refused(players, "dave", "tictactoe preview 101", "No moves to preview")
    refused(players, "dave", "tictactoe preview new -size=9 a1", "Unknown option -size=9")
    refused(players, "dave", "preview new nosuchgame a1", "Unknown game 'nosuchgame'")


def test_submit_then_confirm(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    out = players.mail("alice@example.org", "tictactoe submit 101 alice apple1 b2#1")
    assert len(out) == 1 and out[0].rcpt_tos == ["alice@example.org"]
    assert out[0].subject == "Tic-Tac-Toe Board 101 submitted"
    assert "b2 (move #1), NOT played yet. To play it send: tictactoe confirm 101 alice PASSWORD" in flat(out[0].text)
    assert " X " in out[0].text  # the board as it would be
    assert stored(players)["moves"] == [] and stored(players)["pending"] == {"submit": {"0": {"move": "b2", "ply": 0}}}
    refused(players, "bob", "tictactoe submit 101 bob banana2 a1", "It is not your move: waiting for alice")
    refused(players, "alice", "tictactoe submit 101 alice apple1 d9", "'d9' is not a square")
    refused(players, "bob", "tictactoe confirm 101 bob banana2", "You have no submitted move for move #1")
    out = players.mail("alice@example.org", "tictactoe confirm 101 alice apple1")
    assert {m.rcpt_tos[0] for m in out} == {"alice@example.org", "bob@example.org"}
    assert to(out, "bob")[0].text.startswith("alice played b2.")
    assert stored(players)["moves"] == ["b2"] and stored(players)["pending"] == {}
    refused(players, "alice", "tictactoe confirm 101 alice apple1", "You have no submitted move for move #2")


def test_chat_and_message(players: Running) -> None:
    signup(players, "carol")
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    out = players.mail("alice@example.org", "tictactoe chat 101 alice apple1", "Good luck!\n\n-- \nalice's sig")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org"]
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 chat from alice"}
    assert "alice writes:" in out[0].text and "Good luck!" in out[0].text and "sig" not in out[0].text
    refused(players, "carol", "tictactoe chat 101 carol carolpw1", "carol neither plays on nor watches", body="hi")
    refused(players, "bob", "tictactoe chat 101 bob banana2", "Nothing to send")
    # A watcher may chat too, and hears the players' chat.
    players.mail("carol@example.org", "tictactoe subscribe 101 carol carolpw1")
    out = players.mail("carol@example.org", "tictactoe chat 101 carol carolpw1", "Nice opening.")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org", "carol@example.org"]

    out = players.mail("alice@example.org", "message alice apple1 bob carol", "Tea at five?")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    note = to(out, "bob")[0]
    assert note.subject == "pbmserv message from alice" and "Tea at five?" in note.text
    assert "alice@example.org" not in note.text  # addresses stay private
    assert "Your message went to: bob, carol." in to(out, "alice")[0].text
    for subject, body, reason in [
        ("message alice apple1 bob nobody", "hi", "Unknown userid 'nobody'"),
        ("message alice apple1 bob", "", "Nothing to send"),
        ("message alice wrong bob", "hi", "Wrong password for alice"),
        ("message alice apple1", "hi", "Usage: message USERID PASSWORD TO"),
    ]:
        out = players.mail("alice@example.org", subject, body)
        assert len(out) == 1 and out[0].rcpt_tos == ["alice@example.org"] and reason in flat(out[0].text)


def test_subscribe_unsubscribe_and_notify(players: Running) -> None:
    signup(players, "carol", "dave")
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    out = players.mail("carol@example.org", "tictactoe subscribe 101 carol carolpw1")
    assert "carol now watches Tic-Tac-Toe Board 101" in flat(out[0].text)
    out = players.mail("dave@example.org", "tictactoe notify 101 dave davepw1")
    assert "dave will be told when Tic-Tac-Toe Board 101 ends." in out[0].text
    refused(players, "carol", "tictactoe subscribe 101 carol carolpw1", "carol already watches")
    refused(players, "alice", "tictactoe subscribe 101 alice apple1", "alice plays on Tic-Tac-Toe Board 101")
    refused(players, "carol", "tictactoe subscribe 999 carol carolpw1", "There is no Tic-Tac-Toe Board 999")
    # Watchers get every move mail (from no seat); notify subscribers do not.
    out = players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    assert "alice played b2." in to(out, "carol")[0].text
    out = players.mail("carol@example.org", "tictactoe unsubscribe 101 carol carolpw1")
    assert "carol no longer follows" in out[0].text
    refused(players, "carol", "tictactoe unsubscribe 101 carol carolpw1", "carol does not follow")
    out = players.mail("bob@example.org", "tictactoe move 101 bob banana2 a1")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org"]
    # The end reaches dave, once, with the final board.
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b1")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 a2")
    out = players.mail("alice@example.org", "tictactoe move 101 alice apple1 b3")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org", "dave@example.org"]
    assert to(out, "dave")[0].subject == "Tic-Tac-Toe Board 101 Finished"
    assert "Game over: alice (X) wins" in to(out, "dave")[0].text
    refused(players, "carol", "tictactoe subscribe 101 carol carolpw1", "Tic-Tac-Toe Board 101 is over")


def test_challenge_policy(players: Running) -> None:
    signup(players, "carol")
    out = players.mail("bob@example.org", "reject bob banana2")
    assert "bob refuses all challenges (in every game)." in out[0].text

    def count_boards() -> int:
        with players.db.transaction() as s:
            return s.scalar(select(func.count()).select_from(Board))

    out = players.mail("alice@example.org", "tictactoe challenge alice bob")
    assert len(out) == 1 and "bob does not accept Tic-Tac-Toe challenges" in flat(out[0].text) and count_boards() == 0
    # The policy holds for a challenge from bob's own address too: a From can be forged (issue 20).
    out = players.mail("bob@example.org", "tictactoe challenge bob alice")
    assert "bob does not accept Tic-Tac-Toe challenges" in flat(out[0].text) and count_boards() == 0
    out = players.mail("bob@example.org", "accept bob banana2")
    assert ("bob accepts challenges (in every game), at most 100 active boards (the default); "
            "bob has 0 active boards now.") in flat(out[0].text)
    players.mail("bob@example.org", "tictactoe challenge bob alice")
    assert count_boards() == 1
    out = players.mail("bob@example.org", "limit bob banana2 2")
    assert "at most 2 active boards" in out[0].text
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    assert count_boards() == 2
    out = players.mail("carol@example.org", "tictactoe challenge carol bob")
    assert "bob plays at most 2 boards at a time and has 2" in out[0].text and count_boards() == 2
    players.mail("bob@example.org", "limit bob banana2 none")
    players.mail("carol@example.org", "tictactoe challenge carol bob")
    assert count_boards() == 3
    for subject, reason in [("limit bob banana2 many", "'many': the limit is a number of boards"),
                            ("tictactoe limit bob banana2 -1", "the limit is a number"),
                            ("reject bob wrong", "Wrong password for bob"),
                            ("tictactoe accept bob", "Usage: tictactoe accept USERID PASSWORD")]:
        out = players.mail("bob@example.org", subject)
        assert len(out) == 1 and reason in flat(out[0].text) and out[0].subject.endswith("Error")
    with players.db.transaction() as s:
        bob = s.scalars(select(User).where(User.userid == "bob")).one()
        assert (bob.challenge_policy, bob.board_limit) == ("accept", None)


def test_votes_draw_and_undo(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 a1")
    out = players.mail("bob@example.org", "tictactoe move 101 bob banana2 undo")
    assert "bob proposes taking back the last move" in out[0].text
    refused(players, "bob", "tictactoe move 101 bob banana2 accept", "You already accept")
    out = players.mail("alice@example.org", "tictactoe move 101 alice apple1 accept")
    assert "the last move is taken back" in out[0].text
    assert stored(players)["moves"] == ["b2"] and stored(players)["to_move"] == 1
    # A move cancels a pending proposal; a reject cancels it too.
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 propose")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 c3")
    assert stored(players)["pending"] == {}
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 propose")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 reject")
    assert stored(players)["pending"] == {}
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 propose")
    out = players.mail("alice@example.org", "tictactoe move 101 alice apple1 accept")
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 Finished"}
    assert "Game over: a draw (draw by agreement)." in out[0].text


def test_history_standings_and_help(players: Running) -> None:
    assert "no finished games yet" in players.mail("dave@example.org", "tictactoe history")[0].text
    assert "no rated games yet; everyone starts at 1600" in players.mail("dave@example.org", "tictactoe standings")[0].text
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    for sender, move in [("alice", "b2"), ("bob", "a1"), ("alice", "b1"), ("bob", "c1"), ("alice", "b3")]:
        players.mail(f"{sender}@example.org", f"tictactoe move 101 {sender} {'apple1' if sender == 'alice' else 'banana2'} {move}")
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("bob@example.org", "tictactoe resign 102 bob banana2")
    history = players.mail("dave@example.org", "tictactoe history")[0].text
    lines = [line.strip() for line in history.splitlines()]
    assert any(line.endswith("102      0  removed (not rated)") for line in lines), history
    assert any(line.endswith("101      5  alice (three in a row)") for line in lines), history
    assert "alice vs bob" in history
    assert "alice" in players.mail("dave@example.org", "tictactoe history bob")[0].text
    table = players.mail("dave@example.org", "tictactoe ratings")[0].text
    rows = [line.split() for line in table.splitlines() if line.strip()[:1].isdigit()]
    # rank, player, rating, provisional, games, W, L, D, active boards, limit (no seeks: column empty)
    assert rows == [["1", "alice", "1824", "P", "1", "1", "0", "0", "0", "-"],
                    ["2", "bob", "1424", "P", "1", "0", "1", "0", "0", "-"]]
    # help commands lists every command, built from the command classes.  (To a
    # player: an address without an account gets short replies, issue 20.)
    text = players.mail("alice@example.org", "help commands")[0].text
    # Names are shown as chall[enge] (the part one must type); read them whole here.
    text = re.sub(r"(\w)\[(\w+)\]", r"\1\2", text).replace("|qmove|moveq|qboard|boardq", "")
    for usage in ["GAME queue BOARD USERID PASSWORD", "GAME preview BOARD[#N] MOVE", "GAME submit BOARD",
                  "GAME confirm BOARD", "GAME chat BOARD", "GAME subscribe BOARD", "GAME unsubscribe BOARD",
                  "GAME notify BOARD", "GAME accept USERID PASSWORD", "GAME reject USERID PASSWORD",
                  "GAME limit USERID PASSWORD [N|none|inf|all|accept|reject]", "GAME history", "GAME standings|ratings",
                  "message USERID PASSWORD TO", "digest USERID PASSWORD on|off", "preview new GAME",
                  "vacation USERID PASSWORD on|off"]:
        assert usage in text, usage
