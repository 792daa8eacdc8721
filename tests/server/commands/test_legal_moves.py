"""``GAME moves BOARD [FROM]`` and ``GAME why BOARD MOVE`` by mail, word for word, in all five games.

The positions are chosen so the legal moves can be worked out from the
rules in /work/shared/rules (the reasoning is beside each case), and the
expected replies are written out by hand.  A ``why`` of an illegal move must
give the very reason the server gives when that move is sent for real.
"""

from __future__ import annotations

import smtplib

import pytest

from server.commands.legal_moves import listing
from tests.client_replies import thunderbird_flowed
from tests.mailtools import Received
from tests.server.conftest import Running


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


class Reply:
    """A received reply's subject and its text with plain line ends."""

    def __init__(self, mail: Received) -> None:
        self.subject = mail.subject
        self.text = mail.text.replace("\r\n", "\n")


def one(mails: list[Received], to: str) -> Reply:
    """The reply: exactly one mail, to the asker alone."""
    assert [m.rcpt_tos for m in mails] == [[to]], [(m.rcpt_tos, m.subject) for m in mails]
    return Reply(mails[0])


def flat(text: str) -> str:
    return " ".join(text.split())


def refused_reason(running: Running, game: str, who: str, move: str) -> str:
    """The error a real move gets, flattened (the error mail indents and wraps it)."""
    user, password = who.split()
    err = one(running.mail(f"{user}@example.org", f"{game} move 101 {user} {password} {move}"), f"{user}@example.org")
    text = flat(err.text)
    return text.split("was not carried out: ", 1)[1].split(" Nothing was changed.")[0]


def test_warp_and_weft(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("alice@example.org", "warpandweft challenge alice bob -size=2")
    # Spec T3/T4: after C1, A1, patches, C3 Warp (alice) is Patching and owns only C1; the
    # free patches touching C1 are B2 and D2, and 'threads' is a legal switch (threads remain).
    for n, (who, move) in enumerate([("alice apple1", "C1"), ("bob banana2", "A1"),
                                     ("alice apple1", "patches"), ("bob banana2", "C3")], start=1):
        r.mail(f"{who.split()[0]}@example.org", f"warpandweft move 101 {who} {move}#{n}")
    reply = one(r.mail("carol@example.org", "warpandweft moves 101"), "carol@example.org")
    assert reply.subject == "Warp and Weft Board 101 moves"
    assert reply.text == (
        "Warp and Weft Board 101, move #5: alice (Warp) has 3 legal moves:\n"
        "\n"
        "  B2 D2 threads\n")
    reply = one(r.mail("bob@example.org", "warpandweft moves 101 D2"), "bob@example.org")
    assert reply.text == (
        "Warp and Weft Board 101, move #5: alice (Warp) has 1 legal move from D2:\n"
        "\n"
        "  D2\n")
    # F4 touches no Warp thread (spec T3): the same reason as the move refused for real.
    why = one(r.mail("bob@example.org", "warpandweft why 101 F4"), "bob@example.org")
    reason = refused_reason(r, "warpandweft", "alice apple1", "F4#5")
    assert flat(why.text) == f"F4 would be refused on Warp and Weft Board 101, move #5 (alice (Warp) to move): {reason}"
    why = one(r.mail("bob@example.org", "warpandweft why 101 b2"), "bob@example.org")
    assert why.text == ("b2 would be played on Warp and Weft Board 101, move #5: it is legal for alice\n"
                        "(Warp). It is written B2.\n")


def test_interweave(sqlite_players: Running) -> None:
    r = sqlite_players
    # White Kings on a1 and d4, Black Kings on g8 and h8, nothing else: a King steps one square
    # diagonally (rules 3.1) and captures only by leaping an orthogonal neighbour (none here).
    r.mail("alice@example.org", 'interweave challenge alice bob -position="6kk/8/8/8/3K4/8/8/K7 w - - 0 1"')
    reply = one(r.mail("bob@example.org", "interweave moves 101"), "bob@example.org")
    assert reply.text == (
        "Interweave Board 101, move #1: alice (White) has 5 legal moves, from 2 places:\n"
        "\n"
        "  a1  -b2\n"
        "  d4  -c3 -c5 -e3 -e5\n"
        "\n"
        "A move is its place and one of the endings beside it (e.g. a1-b2).\n")
    reply = one(r.mail("bob@example.org", "interweave moves 101 h8"), "bob@example.org")
    assert reply.text == (
        "Interweave Board 101, move #1: alice (White) has no legal move from h8 (5\n"
        "legal moves in all; 'interweave moves 101' lists them).\n")
    why = one(r.mail("bob@example.org", "interweave why 101 d4-d5"), "bob@example.org")
    reason = refused_reason(r, "interweave", "alice apple1", "d4-d5")
    assert flat(why.text) == f"d4-d5 would be refused on Interweave Board 101, move #1 (alice (White) to move): {reason}"


def test_weave_and_dungeon(sqlite_players: Running) -> None:
    r = sqlite_players
    # A White Circle on e5 with the two Stars on their thrones: a Circle moves 1 or 2 grid
    # squares orthogonally (rules 3.2), and all eight targets are empty.
    r.mail("alice@example.org", 'weavedungeon challenge alice bob -position="4k4/9/9/9/4C4/9/9/9/4K4 w - 1"')
    reply = one(r.mail("bob@example.org", "weavedungeon moves 101 e5"), "bob@example.org")
    assert reply.text == (
        "Weave & Dungeon Board 101, move #1: alice (White) has 8 legal moves from e5:\n"
        "\n"
        "  Ce5  -c5 -d5 -e3 -e4 -e6 -e7 -f5 -g5\n"
        "\n"
        "A move is its place and one of the endings beside it (e.g. Ce5-c5).\n")
    why = one(r.mail("bob@example.org", "weavedungeon why 101 Ce5-f6"), "bob@example.org")
    reason = refused_reason(r, "weavedungeon", "alice apple1", "Ce5-f6")
    assert flat(why.text) == (f"Ce5-f6 would be refused on Weave & Dungeon Board 101, move #1 "
                              f"(alice (White) to move): {reason}")


#: TriMac spec section 8, T3: the initial position, Red's moves by piece.
T3 = ("Ra1: Ra2 Rb2 · Ra3: Ra4 · Rb1: Rc4 Rd4 Re3 · Rb4: Ra4 Rb5 · Rc1: Rc2 Rd2 Re3 · Rc3: Rf2 Rg3 Rg5 · "
      "Rc5: Rb5 Rc6 Rd6 · Rd1: Rb3 · Re1: Rd2 · Re7: Rd7 Re8 · Rf1: Rf2 · "
      "Rf3: Rd3 Re2 Re3 Rf2 Rg2 Rg3 Rh3 · Rf4: Re2 Rg2 · "
      "Rf5: Rc2 Rd3 Rd5 Re4 Re5 Rg4 Rg5 Rh3 Rh5 Ri2 · Rf6: Rb3 Rb5 Rc2 Ri2 Rj3 Rj5 · "
      "Rf7: Rb5 Rd3 Rh3 Rj5 · Rf8: none · Rg1: Rh2 · Rg7: Rg8 Rh7 · Rh1: Rj3 · "
      "Ri1: Rg3 Rh2 Ri2 · Ri3: Re3 Re5 Rf2 · Ri5: Rh6 Ri6 Rj5 · Rj1: Rg3 Rh4 Ri4 · "
      "Rj4: Rj5 Rk4 · Rk1: Rj2 Rk2 · Rk3: Rk4")


def test_trimac(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("carol@example.org", "signup carol cherry3")
    r.mail("alice@example.org", "trimac challenge alice bob carol")
    # Spec T3, the initial position: Red has 72 legal moves; Ri5: Rh6 Ri6 Rj5; Rf8: none.
    reply = one(r.mail("carol@example.org", "trimac moves 101 Ri5"), "carol@example.org")
    assert reply.text == (
        "TriMac 3 Friends Board 101, move #1: alice (Red) has 3 legal moves from Ri5:\n"
        "\n"
        "  Ri5  -Rh6 -Ri6 -Rj5\n"
        "\n"
        "A move is its place and one of the endings beside it (e.g. Ri5-Rh6).\n")
    reply = one(r.mail("carol@example.org", "trimac moves 101 Rf8"), "carol@example.org")
    assert reply.text == (
        "TriMac 3 Friends Board 101, move #1: alice (Red) has no legal move from Rf8\n"
        "(72 legal moves in all; 'trimac moves 101' lists them).\n")
    whole = one(r.mail("carol@example.org", "trimac moves 101"), "carol@example.org")
    # Spec T3 by piece, copied from the spec (no capture at the start, so every ending is "-").
    by_piece = [part.split(":") for part in T3.split(" · ") if not part.endswith("none")]
    lines = [f"  {origin:<3}  " + " ".join("-" + to for to in targets.split()) for origin, targets in by_piece]
    assert len(lines) == 26 and sum(len(t.split()) for _, t in by_piece) == 72
    assert whole.text == (
        "TriMac 3 Friends Board 101, move #1: alice (Red) has 72 legal moves, from 26\n"
        "places:\n"
        "\n" + "\n".join(lines) + "\n"
        "\n"
        "A move is its place and one of the endings beside it (e.g. Ra1-Ra2).\n")
    why = one(r.mail("carol@example.org", "trimac why 101 Rf8-Rf9"), "carol@example.org")
    reason = refused_reason(r, "trimac", "alice apple1", "Rf8-Rf9")
    assert flat(why.text) == (f"Rf8-Rf9 would be refused on TriMac 3 Friends Board 101, move #1 "
                              f"(alice (Red) to move): {reason}")


def test_tridchess(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("alice@example.org", "tridchess challenge alice bob")
    # Rules 4.3: the pawn on a2W steps to a3W (P1), double-steps on its level to a4W (P2),
    # and goes forward and up to a3N (P4: the Neutral board holds rank 3 above W); nothing
    # stands above a2W for P3.
    reply = one(r.mail("bob@example.org", "tridchess moves 101 a2W"), "bob@example.org")
    assert reply.text == (
        "Tri-Dimensional Chess Board 101, move #1: alice (White) has 3 legal moves from\n"
        "a2W:\n"
        "\n"
        "  a2W  -a3N -a3W -a4W\n"
        "\n"
        "A move is its place and one of the endings beside it (e.g. a2W-a3N).\n")
    why = one(r.mail("bob@example.org", "tridchess why 101 a2W-a5W"), "bob@example.org")
    reason = refused_reason(r, "tridchess", "alice apple1", "a2W-a5W")
    assert flat(why.text) == (f"a2W-a5W would be refused on Tri-Dimensional Chess Board 101, move #1 "
                              f"(alice (White) to move): {reason}")
    why = one(r.mail("bob@example.org", "tridchess why 101 a2W-a4W#1"), "bob@example.org")
    assert why.text == ("a2W-a4W would be played on Tri-Dimensional Chess Board 101, move #1: it is\n"
                        "legal for alice (White).\n")


def test_a_finished_board_has_no_moves_and_usage(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("alice@example.org", "warpandweft challenge alice bob -size=2")
    r.mail("alice@example.org", "warpandweft move 101 alice apple1 C1#1")
    r.mail("bob@example.org", "warpandweft move 101 bob banana2 A1#2")
    r.mail("alice@example.org", "warpandweft resign 101 alice apple1")
    err = one(r.mail("carol@example.org", "warpandweft moves 101"), "carol@example.org")
    assert "Warp and Weft Board 101 has no moves to make. Game over: bob (Weft) wins" in flat(err.text)
    err = one(r.mail("carol@example.org", "warpandweft why 101"), "carol@example.org")
    assert "Usage: warpandweft why BOARD MOVE" in err.text


def test_moves_and_why_as_a_reply_to_the_board_mail(sqlite_players: Running) -> None:
    r = sqlite_players
    r.mail("alice@example.org", "warpandweft challenge alice bob -size=2")
    board = [m for m in r.sink.messages if m.rcpt_tos == ["alice@example.org"]][-1]
    to = str(board.message["Reply-To"])
    before = len(r.sink.messages)
    with smtplib.SMTP("127.0.0.1", r.port, timeout=30) as smtp:
        smtp.sendmail("alice@example.org", [to], thunderbird_flowed(board, "alice@example.org", "moves"))
    r.quiesce()
    reply = one(r.sink.messages[before:], "alice@example.org")
    # Thread-Primary, move 1: Warp may take any of its threads (spec 3.3); on a size-2 board
    # those are C1 G1 A3 E3 C5 G5 A7 E7 (spec T1/T2 name C1, E3, C5, E7 among them).
    assert reply.text == (
        "Warp and Weft Board 101, move #1: alice (Warp) has 8 legal moves:\n"
        "\n"
        "  A3 A7 C1 C5 E3 E7 G1 G5\n")
    before = len(r.sink.messages)
    with smtplib.SMTP("127.0.0.1", r.port, timeout=30) as smtp:
        smtp.sendmail("alice@example.org", [to], thunderbird_flowed(board, "alice@example.org", "why A1"))
    r.quiesce()
    reply = one(r.sink.messages[before:], "alice@example.org")
    # Spec 3.3 (and T2): A1 is a Weft thread, never Warp's.
    assert flat(reply.text).startswith("A1 would be refused on Warp and Weft Board 101, move #1 (alice (Warp) to move):")


def test_a_long_listing_is_cut_with_a_count() -> None:
    groups = [("Ra1", ["-Ra2", "-Rb2"]), ("Rb1", ["-Rc4"]), ("Rc1", ["-Rc2", "-Rd2", "-Re3"])]
    assert listing(groups, limit=1) == (["  Ra1  -Ra2 -Rb2"], 4, 2)
    placements = ("", [f"A{n}" for n in range(1, 60)])
    lines, left, places = listing([placements], limit=2)
    assert len(lines) == 2 and places == 0
    assert left == 59 - sum(len(line.split()) for line in lines) and left > 0
