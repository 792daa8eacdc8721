"""Traps of the reply path (issue 26, items 1-6): what cost newcomers their moves.

Every mail goes through the real listener and relay sink, built from the
board (or error) mail the server really sent, in the shapes real clients
give replies (tests/client_replies.py).
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

import games
from server.store.model import Board, Move
from tests.client_replies import SHAPES, gmail, iphone, outlook_html, thunderbird_flowed
from tests.server.accounts.test_reply_play import (
    ALICE,
    BOB,
    TOKEN_ADDRESS,
    deliver,
    latest,
    refused,
    reply_address,
)
from tests.server.conftest import Running


def first_moves(name: str, count: int) -> list[str]:
    """A legal opening of ``count`` moves, worked out with the plugin alone."""
    game = games.load_game(name)
    state = game.start(game.parse_options([]), game.players)
    out = []
    for _ in range(count):
        move = game.legal_moves(state)[0]
        state = game.play(state, game.to_move(state), move)
        out.append(move)
    return out


def with_subject(raw: bytes, subject: str) -> bytes:
    """The reply with its Subject edited by the player (the client's "Re:"/"RE:" kept)."""
    return re.sub(rb"Subject: (Re|RE): [^\r\n]*", lambda m: b"Subject: " + m.group(1) + b": " + subject.encode(), raw)


def ply(running: Running, game: str = "interweave") -> int:
    with running.db.transaction() as s:
        return s.scalars(select(Board).where(Board.game == game)).one().ply


@pytest.fixture
def interweave(sqlite_players: Running) -> Running:
    sqlite_players.mail(ALICE, "interweave challenge alice bob")
    return sqlite_players


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_interweave_move_typed_into_the_reply_subject_is_played(interweave: Running, shape: str) -> None:
    """Item 1: the game's title is its command word too; the subject is still a reply, not a password command."""
    move = first_moves("interweave", 1)[0]
    mail = latest(interweave, ALICE)
    raw = with_subject(SHAPES[shape](mail, ALICE, ""), f"Interweave Board 101 alice {move}#1")
    new = deliver(interweave, raw, ALICE, reply_address(mail))
    assert any(f"alice played {move}." in m.text for m in new), [m.text for m in new]
    assert not any("Wrong password" in m.text for m in new)
    assert ply(interweave) == 1


@pytest.mark.parametrize("typed", ["", "Best wishes,"])
def test_empty_or_signature_only_reply_to_interweave_gets_the_reply_help(interweave: Running, typed: str) -> None:
    """Item 1: the helpful "No move found" (as TriMac's board gets), not the password usage text.

    On a board mail after the first ("Interweave Board 101 bob", no "New" before the title)."""
    interweave.mail(ALICE, f"interweave move 101 alice apple1 {first_moves('interweave', 1)[0]}")
    mail = latest(interweave, BOB)
    assert mail.subject == "Interweave Board 101 bob"
    raw = thunderbird_flowed(mail, BOB, "")
    if typed:  # a signature only: Thunderbird puts it under "-- "
        raw = raw.replace(b"\r\n\r\n-- \r\n", b"\r\n\r\n-- \r\n" + typed.encode() + b"\r\n", 1)
    text = refused(interweave, raw, BOB, reply_address(mail))
    assert "No move found: type your move on the first line" in text, text
    assert "Usage" not in text and "PASSWORD" not in text


def test_an_error_mail_about_a_board_is_replied_to_with_the_move(sqlite_players: Running) -> None:
    """Item 2: the error mail carries the player's own reply address; Reply + the move plays it."""
    running = sqlite_players
    running.mail(ALICE, "warpandweft challenge alice bob")
    first, second = first_moves("warpandweft", 2)
    running.mail(ALICE, f"warpandweft move 101 alice apple1 {first}")
    # bob claims the same point by the password path: refused, and the error invites a reply
    errors = running.mail(BOB, f"warpandweft move 101 bob banana2 {first}")
    assert len(errors) == 1 and "Error" in errors[0].subject
    assert TOKEN_ADDRESS.match(str(errors[0].message["Reply-To"])), errors[0].message["Reply-To"]
    assert reply_address(errors[0]) != reply_address(latest(running, ALICE))  # bob's own, not alice's
    new = deliver(running, gmail(errors[0], BOB, second), BOB, reply_address(errors[0]))
    assert any(f"bob played {second}." in m.text for m in new), [m.text for m in new]
    # "It is not your move" by reply: that error carries the address too, and nothing is played
    bob_mail = latest(running, BOB)
    err = deliver(running, iphone(bob_mail, BOB, "A5"), BOB, reply_address(bob_mail))
    assert "It is not your move" in err[0].text and TOKEN_ADDRESS.match(str(err[0].message["Reply-To"]))
    # A stranger's error about the board carries none (a token goes to its player only).
    stranger = running.mail("carol@example.org", f"warpandweft move 101 bob banana2 {second}")
    assert stranger[0].message["Reply-To"] is None


def test_password_in_a_reply_subject_is_ignored_and_said(sqlite_players: Running) -> None:
    """Item 3: a (wrong) password in the subject: the move is played, and the player is told it was not needed."""
    running = sqlite_players
    running.mail(ALICE, "warpandweft challenge alice bob")
    first, second = first_moves("warpandweft", 2)
    mail = latest(running, ALICE)
    raw = with_subject(outlook_html(mail, ALICE, ""), f"Warp and Weft Board 101 alice aple1 {first}#1")
    new = deliver(running, raw, ALICE, reply_address(mail))
    mine = [m for m in new if ALICE in m.rcpt_tos][0]
    theirs = [m for m in new if BOB in m.rcpt_tos][0]
    assert f"alice played {first}." in mine.text
    assert "password in your reply was not needed and was ignored" in " ".join(mine.text.split())
    assert "not needed" not in theirs.text and "aple1" not in mine.raw.decode() + theirs.raw.decode()
    # The user id twice and the real password: played, the repetition said, the password not echoed.
    mail = latest(running, BOB)
    raw = with_subject(gmail(mail, BOB, ""), f"Warp and Weft Board 101 bob bob banana2 {second}#2")
    new = deliver(running, raw, BOB, reply_address(mail))
    mine = [m for m in new if BOB in m.rcpt_tos][0]
    assert f"bob played {second}." in mine.text
    assert "named you (bob) more than once" in " ".join(mine.text.split())
    assert all("banana2" not in m.raw.decode() for m in new)


def test_a_subject_naming_another_board_says_which_board_the_address_is_for(sqlite_players: Running) -> None:
    """Item 3: Board 102 in the subject sent to Board 101's reply address."""
    running = sqlite_players
    running.mail(ALICE, "warpandweft challenge alice bob")
    running.mail(ALICE, "warpandweft challenge alice bob")
    mail = [m for m in running.sink.to(ALICE) if "Board 101" in m.subject][-1]
    raw = with_subject(iphone(mail, ALICE, ""), "Warp and Weft Board 102 alice C1")
    new = deliver(running, raw, ALICE, reply_address(mail))
    assert [m.rcpt_tos for m in new] == [[ALICE]]
    text = " ".join(new[0].text.split())
    assert "This reply address is for Warp and Weft Board 101, but your subject names Board 102" in text
    assert "is not a Warp and Weft move" not in text
    # quoted as typed (item 4), not "(a reply to a board mail)": the address was proven
    assert text.startswith("Your command Warp and Weft Board 102 alice C1 was not carried out")
    with running.db.transaction() as s:
        assert s.scalars(select(Move)).all() == []


def test_a_refused_reply_quotes_what_the_player_wrote(sqlite_players: Running) -> None:
    """Item 4: the quote is the player's text, not a rewritten command with a mask they never typed."""
    running = sqlite_players
    running.mail(ALICE, "warpandweft challenge alice bob")
    mail = latest(running, ALICE)
    new = deliver(running, gmail(mail, ALICE, "E1"), ALICE, reply_address(mail))
    body = new[0].text
    assert "E1" in body and "********" not in body and "warpandweft move" not in body, body
    new = deliver(running, thunderbird_flowed(mail, ALICE, "Best regards,"), ALICE, reply_address(mail))
    quoted = new[0].text.replace("\r\n", "\n").split("was not carried out")[0]
    assert "    Best regards,\n" in quoted and "#1" not in quoted
    # A password typed where the move goes is still never quoted back.
    new = deliver(running, gmail(mail, ALICE, "apple1 E1"), ALICE, reply_address(mail))
    assert "apple1" not in new[0].raw.decode()


def test_a_reply_sent_twice_says_the_move_was_already_played(sqlite_players: Running) -> None:
    """Item 5: the second copy (a new Message-ID) names the move number it was played as."""
    running = sqlite_players
    running.mail(ALICE, "warpandweft challenge alice bob")
    first = first_moves("warpandweft", 1)[0]
    mail = latest(running, ALICE)
    raw = iphone(mail, ALICE, first)
    deliver(running, raw, ALICE, reply_address(mail))
    again = raw.replace(b"Message-ID: <reply.", b"Message-ID: <again.")
    text = refused(running, again, ALICE, reply_address(mail))
    assert f"This same move, {first}, was already played as move #1" in text, text
    assert text.startswith(f"Your command {first} was not carried out"), text
    # A different stale move still gets the stale-mail answer.
    text = refused(running, iphone(mail, ALICE, "K1"), ALICE, reply_address(mail))
    assert "board is at move #2" in text and "already played" not in text
    with running.db.transaction() as s:
        assert len(s.scalars(select(Move)).all()) == 1


@pytest.mark.parametrize("subject", ["", "multiple"])
def test_an_empty_mail_is_told_plainly_it_held_no_command(sqlite_players: Running, subject: str) -> None:
    """Item 6: not "Results of your 1 commands ... Refused: ...", but what was wrong and what to send."""
    new = sqlite_players.mail("someone@example.net", subject, "\n")
    assert len(new) == 1
    text = new[0].text
    assert text.startswith("Your mail held no command"), text
    assert "Results of your" not in text and "Refused" not in text
    assert "Subject" in text and "help" in text
    assert all(len(line) <= 78 for line in text.splitlines())


