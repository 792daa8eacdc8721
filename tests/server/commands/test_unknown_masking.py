"""What an unknown command's error quotes back (issue 26, item 18).

Hiding every word after an unknown one (``fetch.2 ********``) told the
sender nothing; a password typed in a password's place is still hidden.
"""

from __future__ import annotations

from tests.server.conftest import Running


def quoted(running: Running, sender: str, subject: str) -> str:
    (reply,) = running.mail(sender, subject)
    text = reply.text.replace("\r\n", "\n")
    return text.split("Your command\n\n", 1)[1].split("\n\nwas not carried out", 1)[0].strip()


def test_unknown_command_words_are_quoted_as_typed(sqlite_players: Running) -> None:
    assert quoted(sqlite_players, "alice@example.org", "fetch.2 something else here") == \
        "fetch.2 something else here"
    assert quoted(sqlite_players, "carol@example.org", "fetch.2 the board please") == "fetch.2 the board please"


def test_passwords_in_an_unknown_command_are_still_hidden(sqlite_players: Running) -> None:
    # after a userid, in the slot of the command it resembles, or the sender's own password anywhere
    assert quoted(sqlite_players, "alice@example.org", "fecth alice apple1") == "fecth alice ********"
    assert quoted(sqlite_players, "dave@example.org", "singup dave secret77 dave@example.org") == \
        "singup dave ******** dave@example.org"
    assert quoted(sqlite_players, "alice@example.org", "warpandweft mvoee 101 alice apple1 C1") == \
        "warpandweft mvoee 101 alice ******** C1"
    assert quoted(sqlite_players, "alice@example.org", "fetch.2 apple1") == "fetch.2 ********"
