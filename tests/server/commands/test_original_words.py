"""The original pbmserv's forms that were refused or half-done (issue 26, item 15)."""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import Board
from tests.server.conftest import Running

ALICE, BOB = "alice@example.org", "bob@example.org"


def flat(text: str) -> str:
    return " ".join(text.split())


def boards(running: Running) -> int:
    with running.db.transaction() as s:
        return len(s.scalars(select(Board)).all())


def test_show_sends_the_boards_there_and_names_the_ones_not(sqlite_players: Running) -> None:
    running = sqlite_players
    running.mail(ALICE, "warpandweft challenge alice bob")
    (reply,) = running.mail("carol@example.org", "warpandweft show 101 999")
    text = flat(reply.text)
    assert "There is no Warp and Weft Board 999." in text
    assert "Warp and Weft Board 101" in text and "No moves yet." in text
    assert "Error" not in reply.subject
    # past its end, with #N: said too; and when nothing at all is there, one refusal names every board
    (reply,) = running.mail("carol@example.org", "warpandweft show 101#5 101")
    assert "Board 101 has only 0 moves; #5 is not one." in flat(reply.text)
    (reply,) = running.mail("carol@example.org", "warpandweft show 998 999")
    assert reply.subject.endswith("Error")
    assert "There is no Warp and Weft Board 998. There is no Warp and Weft Board 999" in flat(reply.text)


def test_a_challenge_names_every_problem_at_once(sqlite_players: Running) -> None:
    running = sqlite_players
    running.mail("carol@example.org", "signup carol cherry3")
    running.mail("carol@example.org", "warpandweft reject carol cherry3")
    running.mail(BOB, "warpandweft limit bob banana2 0")
    (reply,) = running.mail(ALICE, "warpandweft challenge alice zed")
    assert "Unknown userid 'zed'" in flat(reply.text)  # one problem: said as it always was
    (reply,) = running.mail(ALICE, "warpandweft challenge zed yan")
    text = flat(reply.text)
    assert "Unknown userid 'zed'" in text and "Unknown userid 'yan'" in text
    (reply,) = running.mail(ALICE, "warpandweft challenge bob carol")
    text = flat(reply.text)
    assert "This Warp and Weft challenge cannot start:" in text
    assert "bob plays at most 0 Warp and Weft boards at a time and has 0" in text
    assert "carol does not accept Warp and Weft challenges" in text
    assert boards(running) == 0


def test_preview_new_takes_the_number_of_players(sqlite_players: Running) -> None:
    running = sqlite_players
    (reply,) = running.mail(ALICE, "trimac preview new 3 Ra1-Ra2")
    assert "Preview of a new TriMac 3 Friends board: " in flat(reply.text) and "Error" not in reply.subject
    (reply,) = running.mail(ALICE, "preview new warpandweft 2 C1")
    assert "Preview of a new Warp and Weft board: " in flat(reply.text)
    (reply,) = running.mail(ALICE, "warpandweft preview new 3 C1")
    assert "Warp and Weft is played by 2 players, not 3" in flat(reply.text)


def test_limit_takes_the_original_words(sqlite_players: Running) -> None:
    running = sqlite_players
    (reply,) = running.mail(BOB, "warpandweft limit bob banana2 reject")
    assert "bob refuses Warp and Weft challenges" in flat(reply.text)
    (reply,) = running.mail(ALICE, "warpandweft challenge alice bob")
    assert "bob does not accept Warp and Weft challenges" in flat(reply.text)
    (reply,) = running.mail(BOB, "warpandweft limit bob banana2 accept")
    assert "bob accepts Warp and Weft challenges" in flat(reply.text)
    (reply,) = running.mail(BOB, "warpandweft limit bob banana2 2")
    assert "at most 2 active boards" in flat(reply.text)
    for word in ("inf", "all"):
        (reply,) = running.mail(BOB, f"warpandweft limit bob banana2 {word}")
        assert "no limit of its own" in flat(reply.text), word
    # account-wide: accept/reject as those commands, inf as none
    (reply,) = running.mail(BOB, "limit bob banana2 reject")
    assert "bob refuses all challenges (in every game)." in flat(reply.text)
    (reply,) = running.mail(BOB, "limit bob banana2 accept")
    assert "refuses" not in flat(reply.text)
    (reply,) = running.mail(BOB, "limit bob banana2 inf")
    assert "Error" not in reply.subject
    assert len(running.mail(ALICE, "warpandweft challenge alice bob")) == 2  # both board mails: it started
