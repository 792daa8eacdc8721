"""TriMac's board mail lets a player name any point without the help page (issue 26 item 9).

The text board is spec §6.2's, byte for byte (test T25 holds it), so it gets
no labels.  Under it, the board mail carries §6.3's coordinate key: the same
layout, each point showing its file and rank, with one line saying which
block is which lattice (Gj5: j5 in the upper-right block).  It is on by
default, for the newcomer who has not found the help page; ``coordinates
USERID PASSWORD off`` drops it for that player alone.  By mail through the
real server; the move after turning it off is a Gmail-shaped Reply.
"""

from __future__ import annotations

import games
from server.store.model import Board
from tests.client_replies import gmail
from tests.mailtools import send
from tests.server.conftest import Running

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
#: The key's first two rows (§6.3): Blue's a1 and Green's k1, then b1 a2 / k2 j1.
KEY_TOP = "               a1                    k1\n            b1    a2              k2    j1\n"
#: The board's first map row (§6.2): the same columns hold Blue's and Green's Rooks.
BOARD_TOP = "               bR                    gR\n"


def text_of(mail) -> str:  # type: ignore[no-untyped-def]
    return mail.text.replace("\r\n", "\n")


def test_trimac_board_mail_carries_the_coordinate_key_until_turned_off(sqlite_players: Running) -> None:
    p = sqlite_players
    p.mail(CAROL, "signup carol cherry3")
    new = {m.rcpt_tos[0]: m for m in p.mail(ALICE, "trimac challenge alice bob carol")}
    for who in (ALICE, BOB, CAROL):
        text = text_of(new[who])
        assert BOARD_TOP in text and KEY_TOP in text, who
        # Under the piece lists, named, with the lattice letters explained.
        assert text.index("Green : K Gf1") < text.index("Coordinate key") < text.index(KEY_TOP)
        assert "e.g. Gj5" in text and "coordinates USERID PASSWORD off" in " ".join(text.split())
        assert max(len(line) for line in text.split("\n")) <= 78
    (said,) = p.mail(BOB, "coordinates bob banana2 off")
    assert "without the coordinate key" in said.text
    # Red (alice) moves; bob's mail is the board alone now, alice's and carol's still have the key.
    game = games.load_game("trimac")
    with p.db.transaction() as s:
        state = game.load(s.query(Board).one().state)
    move = game.legal_moves(state)[0]
    send(p.port, gmail(new[ALICE], ALICE, move), sender=ALICE, to=str(new[ALICE].message["Reply-To"]))
    p.quiesce()
    moved = {m.rcpt_tos[0]: m for m in p.sink.messages[len(new) + 1:]}
    assert sorted(moved) == [ALICE, BOB, CAROL]
    assert move in text_of(moved[BOB]) and BOARD_TOP.replace("bR", "bR") in text_of(moved[BOB])
    assert "Coordinate key" not in text_of(moved[BOB]) and KEY_TOP not in text_of(moved[BOB])
    assert KEY_TOP in text_of(moved[ALICE]) and KEY_TOP in text_of(moved[CAROL])


def test_games_without_a_key_mail_none(sqlite_players: Running) -> None:
    new = sqlite_players.mail(ALICE, "interweave challenge alice bob")
    assert all("Coordinate key" not in text_of(m) for m in new)
