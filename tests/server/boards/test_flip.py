"""Each player sees the board from their own side (issue 26, item 8): ``flip on|off``.

By mail through the real server: Black's player of Interweave and Weave &
Dungeon gets the text board and the picture turned (rank 1 at the top);
``flip USERID PASSWORD off`` gives them White's view again.  The pictures
are checked in the SVG the game draws for that seat.
"""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

import games
from server.pictures.draw_svg import to_svg
from tests.games.svgread import centre, elements
from tests.server.conftest import Running

ALICE, BOB = "alice@example.org", "bob@example.org"


def file_line(text: str) -> str:
    """The first line of the board that lists the files."""
    return next(line.split() for line in text.replace("\r\n", "\n").split("\n")
                if line.split()[:3] in (["a", "b", "c"], ["h", "g", "f"], ["i", "h", "g"]))  # type: ignore[return-value]


@pytest.mark.parametrize("name, first, last", [("interweave", "a", "h"), ("weavedungeon", "a", "i")])
def test_black_sees_black_at_the_bottom_until_flip_off(sqlite_players: Running, name: str, first: str,
                                                        last: str) -> None:
    running = sqlite_players
    new = running.mail(ALICE, f"{name} challenge alice bob")
    mine = {m.rcpt_tos[0]: m for m in new}
    assert file_line(mine[ALICE].text)[0] == first  # White: a on the left, rank 8/9 at the top
    assert file_line(mine[BOB].text)[0] == last  # Black: turned
    black_rows = [line for line in mine[BOB].text.splitlines() if line.strip()[:1].isdigit()]
    assert black_rows[0].split()[0] == "1"  # rank 1 at the top for Black
    pictures = {who: [p for p in m.message.walk() if p.get_content_type() == "image/png"]
                for who, m in mine.items()}
    assert pictures[ALICE] and pictures[BOB]
    assert pictures[ALICE][0].get_payload(decode=True) != pictures[BOB][0].get_payload(decode=True)
    (reply,) = running.mail(BOB, "flip bob banana2 off")
    assert "first player's side" in reply.text
    game = games.load_game(name)
    move = game.legal_moves(game.start(game.parse_options([]), 2))[0]
    new = {m.rcpt_tos[0]: m for m in running.mail(ALICE, f"{name} move 101 alice apple1 {move}")}
    assert file_line(new[BOB].text)[0] == first
    same = [[p.get_payload(decode=True) for p in m.message.walk() if p.get_content_type() == "image/png"]
            for m in (new[ALICE], new[BOB])]
    assert same[0] == same[1]
    (reply,) = running.mail(BOB, "flip bob banana2 on")
    assert "own side" in reply.text


@pytest.mark.parametrize("name, low, high", [("interweave", "a1", "h8"), ("weavedungeon", "a1", "i9")])
def test_the_picture_for_black_has_rank_one_at_the_top(name: str, low: str, high: str) -> None:
    game = games.load_game(name)
    state = game.start(game.parse_options([]), 2)
    for seat, top, bottom in ((0, high, low), (1, low, high)):
        root = ElementTree.fromstring(to_svg(game.draw(state, seat, ["alice", "bob"])))
        at = {e.get("data-at"): centre(e) for e in elements(root, "piece")}
        # y grows downwards: the far corner is above and to the right of the near one, from either side
        assert at[top][1] < at[bottom][1] and at[top][0] > at[bottom][0], (seat, at[top], at[bottom])


def test_trimac_draws_each_players_army_nearest() -> None:
    game = games.load_game("trimac")
    state = game.start(game.parse_options([]), 3)
    for seat, general in ((None, "Rf1"), (0, "Rf1"), (1, "Bf1"), (2, "Gf1")):
        root = ElementTree.fromstring(to_svg(game.draw(state, seat, ["alice", "bob", "carol"])))
        at = {e.get("data-at"): centre(e) for e in elements(root, "piece")}
        assert max(at, key=lambda name: at[name][1]) == general, seat  # the lowest piece: own General
