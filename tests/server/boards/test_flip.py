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


def tri_d_rows(text: str) -> list[str]:
    """The rank digits down the left of Tri-D's seven grids, top to bottom."""
    return [line.split()[0] for line in text.replace("\r\n", "\n").split("\n")
            if line[:2].strip().isdigit() and line[2:4] == "  "]


def test_tri_d_black_sees_black_at_the_bottom_names_unchanged(sqlite_players: Running) -> None:
    """Tri-D (issue 26 item 8): Black's mail has rank 0 at the top and the files turned (e..z), the
    levels still highest first; the notation is the same (the squares keep their names)."""
    running = sqlite_players
    mine = {m.rcpt_tos[0]: m for m in running.mail(ALICE, "tridchess challenge alice bob")}
    white, black = mine[ALICE].text, mine[BOB].text
    assert tri_d_rows(white) == [str(r) for r in range(9, -1, -1)]
    assert tri_d_rows(black) == [str(r) for r in range(10)]
    assert "    zabcde  zabcde" in white and "    edcbaz  edcbaz" in black
    assert "      L6      B       L4      N       L2      W       L0" in black  # heights do not turn
    # Black's own pieces (lower case) are on the rows nearest the bottom of Black's board.
    rows = [line for line in black.splitlines() if line[:2].strip().isdigit() and line[2:4] == "  "]
    assert "rk  qr" in rows[-1] and "rk  qr" not in rows[0]  # rank 9, files e..z: r k . . q r
    assert "Boards: WQ=QL1 WK=KL1 BQ=QL6 BK=KL6" in black  # the pins keep their names
    pictures = {who: [p.get_payload(decode=True) for p in m.message.walk() if p.get_content_type() == "image/png"]
                for who, m in mine.items()}
    assert pictures[ALICE] and pictures[BOB] and pictures[ALICE] != pictures[BOB]
    # Black plays in the same notation; "flip off" gives White's view (the spec's decision 13) back.
    running.mail(ALICE, "tridchess move 101 alice apple1 b2W-b4W")
    running.mail(BOB, "flip bob banana2 off")
    moved = {m.rcpt_tos[0]: m for m in running.mail(BOB, "tridchess move 101 bob banana2 b7B-b5B")}
    assert "Last move: b7B-b5B" in moved[BOB].text
    assert tri_d_rows(moved[BOB].text) == [str(r) for r in range(9, -1, -1)]


def test_tri_d_picture_for_black_is_turned() -> None:
    """In the SVG Black's picture has a1W above and to the right of d4W (White's: below, left), and
    the side view has rank 9 on the left."""
    game = games.load_game("tridchess")
    state = game.start(game.parse_options([]), 2)
    for seat in (None, 0, 1):
        root = ElementTree.fromstring(to_svg(game.draw(state, seat, ["alice", "bob"])))
        squares = {e.get("data-at"): centre(e) for e in elements(root, "square")}
        a1, d4 = squares["a1W"], squares["d4W"]
        bars = {e.get("data-at"): centre(e) for e in elements(root, "side-main")}
        if seat == 1:
            assert a1[1] < d4[1] and a1[0] > d4[0], (a1, d4)
            assert bars["B"][0] < bars["W"][0]
        else:
            assert a1[1] > d4[1] and a1[0] < d4[0], (seat, a1, d4)
            assert bars["B"][0] > bars["W"][0]


@pytest.mark.parametrize("name, oriented", [("warpandweft", False), ("interweave", True)])
def test_a_move_draws_its_text_board_once_per_side(sqlite_players: Running, monkeypatch: pytest.MonkeyPatch,
                                                   name: str, oriented: bool) -> None:
    """Both players' board mails and the mover's result share one drawing per side (issue 25):
    a game that draws every seat alike is drawn once a move, a game that turns the board twice
    (each player's side); both mails still carry the board."""
    running = sqlite_players
    running.mail(ALICE, f"{name} challenge alice bob")
    game = games.load_game(name)
    calls: list[int | None] = []
    render = type(game).render

    def counted(self, state, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("seat"))
        return render(self, state, *args, **kwargs)

    monkeypatch.setattr(type(game), "render", counted)
    move = next(iter(game.legal_moves(game.start(game.parse_options([]), game.players))))
    out = running.mail(ALICE, f"{name} move 101 alice apple1 {move}")
    assert {m.rcpt_tos[0] for m in out} == {ALICE, BOB}
    assert len(calls) == (2 if oriented else 1), calls
    assert all(f"alice played {move}" in m.text for m in out)
