"""Board pictures in mail: an inline PNG above the <pre> board, per user on or off.

Real server, real SMTP: the players mail commands with smtplib and the
tests read what the relay sink received, as a mail client would.
"""

from __future__ import annotations

import io
import random
import re
from email.message import EmailMessage

import pytest
from PIL import Image

import games
from tests.server.conftest import Running

GAMES = [g for g in games.available() if g.name != "tictactoe"]


def parts(msg: EmailMessage) -> dict[str, list[EmailMessage]]:
    out: dict[str, list[EmailMessage]] = {}
    for part in msg.walk():
        out.setdefault(part.get_content_type(), []).append(part)  # type: ignore[arg-type]
    return out


def picture_of(msg: EmailMessage) -> tuple[bytes, str]:
    """The inline PNG and the HTML that shows it; fails unless the HTML names it by cid."""
    found = parts(msg)
    assert "multipart/related" in found, f"no picture in {msg['Subject']}"
    (png_part,) = found["image/png"]
    (page,) = found["text/html"]
    html = page.get_content()
    cid = png_part["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html
    assert re.search(r'<img [^>]*alt="[^"]{10,}"', html)
    # the picture comes first, then the text board
    assert html.index("<img") < html.index("<pre")
    return png_part.get_content(), html


def first_legal(game: games.Game) -> str:
    state = game.start(game.parse_options([]), game.players)
    return random.Random(1).choice(game.legal_moves(state))


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_mails_a_picture_that_changes_with_the_move(players: Running, game: games.Game) -> None:
    names = "alice bob"
    if game.players == 3:
        players.mail("carol@example.org", "signup carol cherry3")
        names += " carol"
    new = players.mail("alice@example.org", f"{game.name} challenge {names}")
    assert len(new) == game.players
    before, _ = picture_of(new[0].message)
    image = Image.open(io.BytesIO(before))
    assert image.format == "PNG" and image.width >= 320
    assert len(before) <= 200_000
    # text/plain is the board text only: no trace of the picture
    assert "cid:" not in new[0].text and "<img" not in new[0].text
    moved = players.mail("alice@example.org", f"{game.name} move 101 alice apple1 {first_legal(game)}")
    after, _ = picture_of(moved[0].message)
    assert after != before
    seen = {m.rcpt_tos[0]: picture_of(m.message)[0] for m in moved}
    if game.oriented:  # Black's player sees the board from Black's side (issue 26): one picture per side
        assert seen["alice@example.org"] != seen["bob@example.org"]
    else:
        assert len(set(seen.values())) == 1


def test_pictures_off_for_one_player_only(players: Running) -> None:
    reply = players.mail("bob@example.org", "pictures bob banana2 off")
    assert "without pictures" in reply[0].text
    new = players.mail("alice@example.org", "interweave challenge alice bob")
    by_user = {m.rcpt_tos[0]: m.message for m in new}
    picture_of(by_user["alice@example.org"])
    assert "image/png" not in parts(by_user["bob@example.org"])
    assert "text/html" in parts(by_user["bob@example.org"])  # the <pre> board stays
    # show, asked by bob, comes without; asked by alice, with
    assert "image/png" not in parts(players.mail("bob@example.org", "interweave show 101")[0].message)
    picture_of(players.mail("alice@example.org", "interweave show 101")[0].message)
    players.mail("bob@example.org", "pictures bob banana2 on")
    picture_of(players.mail("bob@example.org", "interweave show 101")[0].message)


def test_wrong_password_changes_nothing(players: Running) -> None:
    reply = players.mail("bob@example.org", "pictures bob wrong off")
    assert "Wrong password" in reply[0].text and "wrong" not in reply[0].text.replace("Wrong", "")
    new = players.mail("alice@example.org", "interweave challenge alice bob")
    assert all("image/png" in parts(m.message) for m in new)


def test_preview_and_multiple_show_the_board_once(players: Running) -> None:
    players.mail("alice@example.org", "warpandweft challenge -size=2 alice bob")
    preview = players.mail("alice@example.org", "warpandweft preview 101 C1")
    png, _ = picture_of(preview[0].message)
    body = "warpandweft move 101 alice apple1 C1\nwarpandweft show 101\nend\n"
    combined = [m for m in players.mail("alice@example.org", "multiple", body) if "alice@" in m.rcpt_tos[0]]
    assert len(combined) == 1
    assert len(parts(combined[0].message).get("image/png", [])) == 1
    assert picture_of(combined[0].message)[0] == png  # after C1, as the preview showed


def test_web_url_links_the_board_page(players: Running) -> None:
    players.server.settings.web_url = "https://boards.example.org/"
    new = players.mail("alice@example.org", "interweave challenge alice bob")
    assert "On the web: https://boards.example.org/interweave/101" in new[0].text
    _, html = picture_of(new[0].message)
    assert '<a href="https://boards.example.org/interweave/101"><img' in html
    assert all(len(line) <= 78 for line in new[0].text.splitlines() if "On the web" in line)


def test_reminder_carries_the_picture(players: Running) -> None:
    from datetime import timedelta

    from tests.server.boards.test_timers import remind, turn_since

    players.mail("alice@example.org", "weavedungeon challenge alice bob")
    players.mail("alice@example.org", "weavedungeon move 101 alice apple1 Dc2-c3")
    since = turn_since(players, game="weavedungeon")
    _, mails = remind(players, since + timedelta(days=7.5))
    (reminder,) = mails
    assert reminder.subject == "Weave & Dungeon Board 101 Reminder"
    png, html = picture_of(reminder.message)
    assert "Black (bob) to move" in html


def test_cli_draw_writes_png_and_svg_and_user_pictures_switches(players: Running, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from server.processes.cli import main

    players.mail("alice@example.org", "tridchess challenge alice bob")
    players.mail("alice@example.org", "tridchess move 101 alice apple1 b2W-b4W")
    url = players.server.settings.database_url
    runner = CliRunner()
    out = runner.invoke(main, ["--database-url", url, "draw", "tridchess", "101#1", "--out", str(tmp_path / "b.png")])
    assert out.exit_code == 0, out.output
    image = Image.open(tmp_path / "b.png")
    assert image.format == "PNG" and image.width >= 320
    out = runner.invoke(main, ["--database-url", url, "draw", "warpandweft", "new", "--option", "-size=2",
                               "--moves", "C1 A1", "--out", str(tmp_path / "w.svg")])
    assert out.exit_code == 0, out.output
    svg = (tmp_path / "w.svg").read_text()
    assert svg.startswith("<svg") and 'class="last" data-at="A1"' in svg
    bad = runner.invoke(main, ["--database-url", url, "draw", "tridchess", "101#5", "--out", str(tmp_path / "x.png")])
    assert bad.exit_code != 0 and "only 1 moves" in bad.output and not (tmp_path / "x.png").exists()
    off = runner.invoke(main, ["--database-url", url, "user", "pictures", "bob", "off"])
    assert off.exit_code == 0 and "bob: pictures off" in off.output
    moved = players.mail("bob@example.org", "tridchess move 101 bob banana2 b7B-b5B")
    by_user = {m.rcpt_tos[0]: m.message for m in moved}
    assert "image/png" not in parts(by_user["bob@example.org"])
    picture_of(by_user["alice@example.org"])
