"""The core command set of commands.md: help, accounts, list, all show."""

from __future__ import annotations

from sqlalchemy import select

from server.accounts.passwords import verify_password
from server.store.model import Board, User
from tests.mailtools import make_mail, send
from tests.server.conftest import Running


def test_help_topics(running: Running) -> None:
    general = running.mail("zed@example.org", "help")[0]
    assert general.subject == "pbmserv help" and "signup USERID PASSWORD" in general.text
    # An address without an account gets short replies (issue 20): the rest is read as a player.
    running.mail("zed@example.org", "signup zed zedpw1")
    commands = running.mail("zed@example.org", "help commands")[0].text
    for usage in ("signu[p] USERID PASSWORD [ADDRESS ...]", "GAME mov[e]|board|mvoe BOARD USERID PASSWORD MOVE[#N]",
                  "GAME chall[enge] USER1 USER2 [USER3]", "GAME sho[w] [board] BOARD[#N]", "all show USERID [next|active]"):
        assert usage in commands
    listing = running.mail("zed@example.org", "help games")[0].text
    for word in ("warpandweft", "interweave", "weavedungeon", "trimac", "tridchess", "tictactoe"):
        assert word in listing
    assert "Tic-Tac-Toe: three in a row wins" in running.mail("zed@example.org", "help tictactoe")[0].text
    assert "Tic-Tac-Toe: three in a row wins" in running.mail("zed@example.org", "TTT help")[0].text


def test_change_password_and_address(players: Running) -> None:
    out = players.mail("alice@example.org", "change password alice apple1 pear44")
    assert "The password of alice is changed" in out[0].text and "pear44" not in out[0].raw.decode()
    with players.db.transaction() as s:
        alice = s.scalars(select(User).where(User.userid == "alice")).one()
        assert verify_password(alice.password_hash, "pear44") and not verify_password(alice.password_hash, "apple1")
    moved = players.mail("alice@example.org", "change address alice pear44 alice@new.example alice2@new.example")
    assert "Waiting for confirmation" in moved[-1].text
    # Each new address gets one confirmation mail and nothing else until it replies (issue 20).
    requests = [m for m in moved if m.subject == "pbmserv: confirm mail for alice?"]
    assert sorted(m.rcpt_tos[0] for m in requests) == ["alice2@new.example", "alice@new.example"]
    for request in requests:
        address, token_address = request.rcpt_tos[0], str(request.message["Reply-To"])
        send(players.port, make_mail(address, token_address, "Re: " + request.subject, "yes"), sender=address,
             to=token_address)
        players.quiesce()
    players.mail("bob@example.org", "tictactoe challenge alice bob")
    to_alice = [m for m in players.sink.messages if "alice@new.example" in m.rcpt_tos]
    assert to_alice and to_alice[-1].rcpt_tos == ["alice@new.example", "alice2@new.example"]


def test_signup_with_other_addresses_and_case_insensitive_userids(running: Running) -> None:
    out = running.mail("x@example.org", "SIGNUP Alice apple1 a1@example.org")
    # a1 is not where the signup came from: it gets one confirmation request, and confirms by replying.
    request = next(m for m in out if m.rcpt_tos == ["a1@example.org"])
    assert request.subject == "pbmserv: confirm mail for alice?"
    token_address = str(request.message["Reply-To"])
    send(running.port, make_mail("a1@example.org", token_address, "Re: confirm", "yes"), sender="a1@example.org",
         to=token_address)
    running.quiesce()
    running.mail("y@example.org", "signup bob banana2")
    running.sink.clear()
    out = running.mail("y@example.org", "tictactoe challenge ALICE Bob")
    assert sorted(r for m in out for r in m.rcpt_tos) == ["a1@example.org", "y@example.org"]


def test_signoff_resigns_running_games(players: Running) -> None:
    players.mail("bob@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 a1")
    players.mail("bob@example.org", "tictactoe challenge bob alice")
    out = players.mail("alice@example.org", "signoff alice apple1")
    to_bob = [m for m in out if m.rcpt_tos == ["bob@example.org"]]
    assert {m.subject for m in to_bob} == {"Tic-Tac-Toe Board 101 Finished", "Tic-Tac-Toe Board 102 Finished"}
    with players.db.transaction() as s:
        b101, b102 = s.scalars(select(Board).order_by(Board.number)).all()
        assert b101.status == "finished" and b101.outcome["winners"] == [1]
        assert b102.status == "removed"  # alice had not moved there
        assert not s.scalars(select(User).where(User.userid == "alice")).one().active
    again = players.mail("alice@example.org", "tictactoe challenge alice bob")
    assert "Unknown userid 'alice'" in again[0].text


def test_list_and_all_show(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob")
    players.mail("alice@example.org", "tictactoe challenge bob alice")
    players.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    listing = players.mail("zed@example.org", "list tictactoe")[0].text
    assert "101" in listing and "102" in listing and "bob to move" in listing
    everything = players.mail("zed@example.org", "all show bob")[0].text
    assert everything.count("Tic-Tac-Toe Board") == 2
    mine = players.mail("zed@example.org", "all show alice next")[0].text
    assert mine.count("Tic-Tac-Toe Board") == 0 and "alice has no boards where it is their move." in mine
    bobs = players.mail("zed@example.org", "all show bob next")[0].text
    assert bobs.count("Tic-Tac-Toe Board") == 2


def test_swap_and_move_aliases(players: Running) -> None:
    players.mail("alice@example.org", "tictactoe challenge alice bob -swap")
    players.mail("alice@example.org", "tictactoe mvoe 101 alice apple1 a1")
    out = players.mail("bob@example.org", "tictactoe swap 101 bob banana2")
    assert "bob played swap." in out[0].text and "It is alice (O)'s move" in out[0].text
    out = players.mail("alice@example.org", "tictactoe board 101 alice apple1 c3#3")
    assert out[0].subject == "Tic-Tac-Toe Board 101 bob"
