"""A game by mail end to end: real SMTP in, real database, real relay out."""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import Board, Inbound, Move, User
from tests.server.conftest import Running


def board_row(running: Running, number: int = 101) -> Board:
    with running.db.transaction() as s:
        return s.scalars(select(Board).where(Board.game == "tictactoe", Board.number == number)).one()


def test_signup_answers_and_stores_only_a_hash(running: Running) -> None:
    replies = running.mail("alice@example.org", "signup alice apple1")
    assert len(replies) == 1
    assert replies[0].rcpt_tos == ["alice@example.org"]
    assert "Welcome to pbmserv, alice" in replies[0].text
    assert "apple1" not in replies[0].raw.decode()
    with running.db.transaction() as s:
        user = s.scalars(select(User)).one()
        assert user.userid == "alice" and "apple1" not in user.password_hash
        assert user.password_hash.startswith("$argon2")


def test_reply_headers(running: Running) -> None:
    reply = running.mail("alice@example.org", "help")[0]
    msg = reply.message
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["X-Loop"] == "pbmserv@games.test"
    assert msg["In-Reply-To"] and msg["In-Reply-To"] in msg["References"]
    assert msg.get_body(preferencelist=("html",)) is not None
    assert "<pre" in msg.get_body(preferencelist=("html",)).get_content()


def test_challenge_moves_and_finish(players: Running) -> None:
    new = players.mail("carol@example.org", "tictactoe challenge alice bob", "Good luck both!")
    # Both players get the new board; the challenger (not a player) an acknowledgement.
    assert sorted(m.rcpt_tos[0] for m in new) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    # " **" marks a board mail that carries a comment, as pbmserv did.
    assert {m.subject for m in new} == {"New Tic-Tac-Toe Board 101 alice **"}
    ack = next(m for m in new if m.rcpt_tos == ["carol@example.org"])
    # carol's address belongs to no player of the board: the mails say who sent it (issue 20, item 8).
    assert ("was started by a challenge sent from carol@example.org, not from alice's address"
            in " ".join(ack.text.split()))
    new = [m for m in new if m is not ack]
    assert "The challenge mail (from carol@example.org, not a player) writes:" in new[0].text
    assert "Good luck both!" in new[0].text
    roots = {m.message["References"] for m in new}
    assert len(roots) == 1

    out = players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2#1")
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 bob"}
    assert len(out) == 2
    text = next(m for m in out if m.rcpt_tos == ["bob@example.org"]).text
    assert text.startswith("alice played b2.")
    assert "It is bob (O)'s move" in text
    assert " X " in text
    assert next(m for m in out if m.rcpt_tos == ["bob@example.org"]).message["References"] in roots

    players.mail("bob@example.org", "Re: tictactoe move 101 bob banana2 a1")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b1")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 c1#4")
    end = players.mail("alice@example.org", "tictactoe move 101 alice apple1 b3")
    assert {m.subject for m in end} == {"Tic-Tac-Toe Board 101 Finished"}
    assert "Game over: alice (X) wins (three in a row)." in end[0].text
    # The finished board mail carries the whole move list.
    for ply, move in enumerate(["b2", "a1", "b1", "c1", "b3"], start=1):
        assert f"{ply}. " in end[0].text and move in end[0].text
    row = board_row(players)
    assert row.status == "finished" and row.outcome["winners"] == [0]


def test_show_and_games(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    shown = players.mail("dave@example.org", "tictactoe show 101")
    assert len(shown) == 1 and shown[0].rcpt_tos == ["dave@example.org"]
    assert shown[0].subject == "Tic-Tac-Toe Board 101 bob"
    past = players.mail("dave@example.org", "tictactoe show 101#0")[0].text
    assert "after move #0" in past and " X " not in past.split("a   b   c")[0].split("No moves yet.")[1]
    table = players.mail("dave@example.org", "tictactoe games alice")[0].text
    assert "101" in table and "bob to move" in table and "alice, bob" in table


def test_multiple_mode_one_combined_reply(players: Running) -> None:
    body = "tictactoe challenge alice bob\ntictactoe move 101 alice apple1 a1\nfrobnicate\nend\nignored line"
    out = players.mail("alice@example.org", "", body)
    to_alice = [m for m in out if m.rcpt_tos == ["alice@example.org"]]
    assert len(to_alice) == 1
    text = to_alice[0].text
    assert "Results of your 3 commands (2 done, 1 refused)" in text
    assert "tictactoe move 101 alice ******** a1" in text and "apple1" not in text
    assert "Unknown command 'frobnicate'" in text
    assert any(m.rcpt_tos == ["bob@example.org"] for m in out)


def test_resign_before_first_move_removes_board(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    out = players.mail("bob@example.org", "tictactoe resign 101 bob banana2")
    assert {m.rcpt_tos[0] for m in out} == {"alice@example.org", "bob@example.org"}
    assert "is removed" in out[0].text
    assert board_row(players).status == "removed"


def test_resign_out_of_turn_is_queued_and_withdrawable(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 a1")
    players.mail("bob@example.org", "tictactoe move 101 bob banana2 b1")
    queued = players.mail("alice@example.org", "tictactoe move 101 bob banana2 resign")
    # alice's mail carries bob's password: anyone knowing it acts as bob.
    assert "recorded" in queued[0].text
    withdrawn = players.mail("bob@example.org", "tictactoe resign 101 bob banana2")
    assert "withdrawn" in withdrawn[0].text
    players.mail("bob@example.org", "tictactoe resign 101 bob banana2")
    done = players.mail("alice@example.org", "tictactoe move 101 alice apple1 a2")
    assert {m.subject for m in done} == {"Tic-Tac-Toe Board 101 Finished"}
    assert "bob's resignation takes effect" in done[0].text
    assert board_row(players).outcome["winners"] == [0]


def test_duplicate_message_is_not_applied_twice(players: Running) -> None:
    from tests.mailtools import make_mail, send

    players.mail("alice@example.org", "tictactoe challenge alice bob")
    msg = make_mail("alice@example.org", "pbmserv@games.test", "tictactoe move 101 alice apple1 a1")
    send(players.port, msg, sender="alice@example.org", to="pbmserv@games.test")
    send(players.port, msg, sender="alice@example.org", to="pbmserv@games.test")
    players.quiesce()
    with players.db.transaction() as s:
        assert len(s.scalars(select(Move)).all()) == 1
        statuses = sorted(r.status for r in s.scalars(select(Inbound)))
    assert statuses.count("duplicate") == 1
