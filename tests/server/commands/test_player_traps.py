"""Traps players met in real use: comments dropped, confirmations and boards missing,
error mails outside the board's thread."""

from __future__ import annotations

from tests.server.conftest import Running


def _to(mails: list, who: str) -> list:  # type: ignore[type-arg]
    return [m for m in mails if f"{who}@example.org" in m.rcpt_tos]


def _text(mail) -> str:  # type: ignore[no-untyped-def]
    return mail.text.replace("\r\n", "\n")


def test_resign_decline_and_signoff_carry_the_comment(sqlite_players: Running) -> None:
    run = sqlite_players
    run.mail("alice@example.org", "tictactoe challenge alice bob")
    mails = run.mail("bob@example.org", "tictactoe resign 101 bob banana2", "Not today, sorry.\n")
    [to_alice] = _to(mails, "alice")
    assert "removed" in _text(to_alice) and "bob writes:\n  Not today, sorry." in _text(to_alice)
    run.mail("alice@example.org", "tictactoe challenge alice bob")
    run.mail("alice@example.org", "tictactoe move 102 alice apple1 a1")
    run.mail("bob@example.org", "tictactoe move 102 bob banana2 b1")
    mails = run.mail("alice@example.org", "tictactoe resign 102 alice apple1", "You were better.\n-- \nA.")
    [to_bob] = _to(mails, "bob")
    assert "alice resigned" in _text(to_bob) and "alice writes:\n  You were better." in _text(to_bob)
    run.mail("alice@example.org", "tictactoe challenge alice bob")
    run.mail("alice@example.org", "tictactoe move 103 alice apple1 a1")
    mails = run.mail("bob@example.org", "signoff bob banana2", "Moving away, thanks for the games.")
    [to_alice] = _to(mails, "alice")
    assert "bob writes:\n  Moving away, thanks for the games." in _text(to_alice)
    # The confirmation arrives although a board mail goes to bob as well.
    assert "pbmserv: signed off" in [m.subject for m in _to(mails, "bob")]


def test_challenge_in_multiple_mode_gives_the_challenger_the_board(sqlite_players: Running) -> None:
    mails = sqlite_players.mail("alice@example.org", "multiple", "tictactoe challenge alice bob\nhelp games\n")
    [combined] = _to(mails, "alice")
    text = _text(combined)
    assert combined.subject == "pbmserv results"
    assert "Players: alice (X), bob (O)" in text and "a   b   c" in text  # the board itself
    [to_bob] = _to(mails, "bob")
    assert to_bob.subject.startswith("New Tic-Tac-Toe Board 101")


def test_error_mail_about_a_board_threads_with_it(sqlite_players: Running) -> None:
    run = sqlite_players
    [board] = _to(run.mail("alice@example.org", "tictactoe challenge alice bob"), "alice")
    root = board.message["References"].split()[0]
    for line in ("tictactoe move 101 alice wrongpw a1", "tictactoe move 101 bob banana2 a1",
                 "tictactoe move 101 alice apple1 z9"):
        [error] = run.mail("alice@example.org" if "alice" in line else "bob@example.org", line)
        assert error.subject == "Tic-Tac-Toe Board 101 Error" or error.subject.endswith("Board 101 Error")
        assert root in error.message["References"].split(), line
