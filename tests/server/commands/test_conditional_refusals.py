"""``GAME conditional``: every refusal word for word, and that a refused tree leaves nothing stored.

Tic-Tac-Toe (tests/tictactoe.py) keeps the positions small enough to reason
about by hand: alice (X) moves first on board 101, so bob's tree begins
with her move.  Then: list and clear, a tree beside the queued move, the
tree cleared by a take-back and by a resignation, and the reply form.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from server.store.model import Board
from tests.client_replies import iphone
from tests.mailtools import send
from tests.server.commands.test_commands_more import flat, refused, stored, to
from tests.server.conftest import Running

BOB = "tictactoe conditional 101 bob banana2"
HEAD = "Your conditional moves are refused, and nothing of this mail is stored."


def board_101(players: Running) -> Running:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.sink.clear()
    return players


def test_each_bad_tree_is_refused_word_for_word_and_nothing_is_kept(players: Running) -> None:
    run = board_101(players)
    # One good tree first: a refused mail must leave it exactly as it was.
    out = run.mail("bob@example.org", BOB, "a1 b2 c3 b1")
    assert "Your conditional moves (1 line) are stored." in flat(out[0].text)
    cases = [
        ("a1 b2 a1 c3", "Line 1: a1 b2 a1 c3 a1 is not legal after a1 b2: a1 is already taken."),
        ("a1 z9", "Line 1: a1 z9 z9 is not legal after a1: 'z9' is not a square: use a1..c3."),
        ("q7 b2", "Line 1: q7 b2 q7 is not legal now: 'q7' is not a square: use a1..c3."),
        ("a1 b2\na1 c3", "Line 2: a1 c3 After a1 your answer is b2 on an earlier line and c3 here: give one "
                         "answer to each position."),
        ("a1 b2 c3", "Line 1: a1 b2 c3 It ends with c3, which is not your move: end every line with your "
                     "answer."),
        ("a1 resign", "Line 1: a1 resign resign cannot be a conditional move (resign is not a move of the "
                      "game: send it with the move command)."),
        ("a1 swap", "Line 1: a1 swap swap cannot be a conditional move (a swap changes sides, and that "
                    "clears conditional moves)."),
        ("a1 b1 a2 b2 a3 c3", "Line 1: a1 b1 a2 b2 a3 c3 The game is over after a1 b1 a2 b2 a3, so c3 "
                              "cannot follow."),
        ("a1 b1 c1 a2 b2 c2 a3 b3 c3 a1 b1 c1 a2", "Line 1: a1 b1 c1 a2 b2 c2 a3 b3 c3 a1 b1 c1 a2 It has 13 "
                                                   "moves; a line holds at most 12."),
        ("\n".join(["a1 b2"] * 21), "Line 21: a1 b2 A tree holds at most 20 lines; this one has 21."),
        ("b2 a1\nif then", "Line 2: if then It holds no move."),
    ]
    for body, reason in cases:
        refused(run, "bob", BOB, f"{HEAD} {reason}", body)
    # The good tree is still there, unchanged.
    assert stored(run)["pending"] == {"conditional": {"1": {"a1": {"b2": {"c3": {"b1": {}}}}}}}


def test_refusals_about_the_command(players: Running) -> None:
    run = board_101(players)
    run.mail("carol@example.org", "signup carol cherry3")
    refused(run, "alice", "tictactoe conditional 101 alice apple1", "It is your move on Tic-Tac-Toe Board 101: "
            "play it first; conditional moves answer the others' moves", "b1 a2")
    refused(run, "bob", BOB, "No conditional moves given: tictactoe conditional BOARD USERID PASSWORD "
            "[list | clear], the branches one a line in the body. See 'help conditional'.")
    refused(run, "bob", f"{BOB} clear", "You have no conditional moves on Tic-Tac-Toe Board 101")
    refused(run, "bob", "tictactoe conditional 101 bob wrong", "Wrong password for bob", "a1 b2")
    refused(run, "carol", "tictactoe conditional 101 carol cherry3", "carol is not playing on Tic-Tac-Toe "
            "Board 101", "a1 b2")
    refused(run, "bob", "tictactoe conditional 999 bob banana2", "There is no Tic-Tac-Toe Board 999", "a1 b2")


def test_list_clear_friendly_form_and_the_queued_move(players: Running) -> None:
    run = board_101(players)
    # "if ... then ..." and a branch on the subject line itself; the answer is bob's board, to bob alone.
    out = run.mail("bob@example.org", f"{BOB} if a1 then b2", "if c3 then b2\n")
    assert [m.rcpt_tos for m in out] == [["bob@example.org"]]
    assert out[0].subject == "Tic-Tac-Toe Board 101 conditional"
    text = out[0].text.replace("\r\n", "\n")
    assert "Your conditional moves (2 lines) are stored." in text
    assert "\n  a1 b2\n  c3 b2\n" in text and "Moves:" not in text and "No moves yet." in text
    # list: the board with the tree; a queued move replaces the tree, a tree the queued move.
    out = run.mail("bob@example.org", f"{BOB} list")
    assert "Your conditional moves are below." in flat(out[0].text) and "  a1 b2" in out[0].text
    out = run.mail("bob@example.org", "tictactoe queue 101 bob banana2 c1")
    assert "You have the following move queued on Tic-Tac-Toe Board 101: c1." in flat(out[0].text)
    assert "It replaces your conditional moves." in flat(out[0].text)
    assert "Your queued move: c1" in flat(out[0].text) and "Your conditional moves" not in out[0].text
    out = run.mail("bob@example.org", BOB, "a1 b2")
    assert "Your conditional moves (1 line) are stored. They replace your queued move c1." in flat(out[0].text)
    assert stored(run)["pending"] == {"conditional": {"1": {"a1": {"b2": {}}}}}
    out = run.mail("bob@example.org", BOB, "a2 b2")
    assert "They replace your earlier ones." in flat(out[0].text)
    out = run.mail("bob@example.org", f"{BOB} clear")
    assert "Your conditional moves are cleared." in flat(out[0].text)
    assert stored(run)["pending"] == {}
    out = run.mail("bob@example.org", f"{BOB} list")
    assert "You have no conditional moves on this board." in flat(out[0].text)


def test_take_back_and_resignation_clear_the_trees(players: Running) -> None:
    run = board_101(players)
    run.mail("alice@example.org", "tictactoe move 101 alice apple1 a1#1")
    run.mail("bob@example.org", "tictactoe move 101 bob banana2 b2#2")
    run.mail("alice@example.org", "tictactoe move 101 alice apple1 c3#3")
    run.mail("alice@example.org", "tictactoe conditional 101 alice apple1", "b1 c1")
    run.mail("bob@example.org", "tictactoe move 101 bob banana2 undo")
    out = run.mail("alice@example.org", "tictactoe move 101 alice apple1 accept")
    assert "Your conditional moves are cleared: a move was taken back." in flat(to(out, "alice")[0].text)
    assert "conditional" not in to(out, "bob")[0].text
    with run.db.transaction() as s:
        assert s.scalars(select(Board)).one().pending == {}
    # Resigning (on one's turn) ends the game; the trees go with it.
    out = run.mail("bob@example.org", BOB, "c3 b1")
    assert "Your conditional moves (1 line) are stored." in flat(out[0].text)
    out = run.mail("alice@example.org", "tictactoe resign 101 alice apple1")
    assert "Your conditional moves are cleared: alice resigned." in flat(to(out, "bob")[0].text)
    assert "Game over" in to(out, "bob")[0].text and "conditional" not in to(out, "alice")[0].text
    with run.db.transaction() as s:
        board = s.scalars(select(Board)).one()
        assert board.status == "finished" and "conditional" not in board.pending


def test_trees_never_reach_the_log(players: Running, caplog: pytest.LogCaptureFixture) -> None:
    run = board_101(players)
    with caplog.at_level(logging.INFO):  # (DEBUG is aiosmtpd dumping every mail, passwords too)
        run.mail("bob@example.org", f"{BOB} if a1 then b2", "c3 b1\n")
        run.mail("bob@example.org", BOB, "a1 b2 a1 c3")  # refused: the reason names the line, to bob only
        run.mail("alice@example.org", "tictactoe move 101 alice apple1 c3#1")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "tictactoe conditional 101 bob ******** (4 private words)" in logged  # the line is logged, cut
    for secret in ("if a1 then b2", "c3 b1", "a1 b2 a1 c3", "a1 b2"):
        assert secret not in logged


def test_a_tree_by_reply_in_the_friendly_form(players: Running) -> None:
    """Hitting Reply on the board mail: "if a1 then b2" on the first line, one more branch below it."""
    new = players.mail("alice@example.org", "tictactoe challenge alice bob")
    board_mail = to(new, "bob")[0]
    raw = iphone(board_mail, "bob@example.org", "if a1 then b2\nif c3 then b1")
    before = len(players.sink.messages)
    send(players.port, raw, sender="bob@example.org", to=str(board_mail.message["Reply-To"]))
    players.quiesce()
    out = players.sink.messages[before:]
    assert [m.rcpt_tos for m in out] == [["bob@example.org"]]
    assert "Your conditional moves (2 lines) are stored." in flat(out[0].text)
    assert stored(players)["pending"] == {"conditional": {"1": {"a1": {"b2": {}}, "c3": {"b1": {}}}}}
    mails = players.mail("alice@example.org", "tictactoe move 101 alice apple1 c3#1")
    assert "alice played c3. bob's conditional move b1 is played." in flat(to(mails, "alice")[0].text)


def test_queue_answers_with_the_board_and_marks_the_move_auto(players: Running) -> None:
    """Issue 26 item 11: as the original, 'queue' mails the board back ("You have the following
    move queued"), and the move played for its owner is marked (auto) in the move list."""
    run = board_101(players)
    out = run.mail("bob@example.org", "tictactoe queue 101 bob banana2 b2")
    assert [m.rcpt_tos for m in out] == [["bob@example.org"]]
    assert out[0].subject == "Tic-Tac-Toe Board 101 queue"
    text = out[0].text.replace("\r\n", "\n")
    assert "You have the following move queued on Tic-Tac-Toe Board 101: b2." in flat(text)
    assert "It is alice (X)'s move (move #1)." in text and "\n 1  . | . | . \n" in text  # the board
    mails = run.mail("alice@example.org", "tictactoe move 101 alice apple1 a1#1")
    for mail in mails:
        lines = [ln.rstrip() for ln in mail.text.replace("\r\n", "\n").split("\n")]
        assert "     1. alice            a1" in lines and "     2. bob              b2 (auto)" in lines


def test_a_watcher_never_sees_the_tree(players: Running) -> None:
    run = board_101(players)
    run.mail("carol@example.org", "signup carol cherry3")
    run.mail("carol@example.org", "tictactoe subscribe 101 carol cherry3")
    # In one 'multiple' mail, the branch on the command line itself.
    out = run.mail("bob@example.org", "multiple", f"{BOB} a1 b2 c3 b1\nend\n")
    assert "Your conditional moves (1 line) are stored." in flat(out[0].text)
    mails = run.mail("alice@example.org", "tictactoe move 101 alice apple1 a1#1")
    carol = to(mails, "carol")[0].text
    assert "alice played a1. bob's conditional move b2 is played." in flat(carol)
    assert "Your conditional moves" not in carol and "c3 b1" not in carol
    assert "Your conditional moves" in to(mails, "bob")[0].text and "  c3 b1" in to(mails, "bob")[0].text
    assert "Your conditional moves" not in to(mails, "alice")[0].text
