"""Issue 32, item 11: ``²`` and every character where ``isdigit()`` is true but ``int()`` fails.

Each of these lines once crashed the worker three times and set the mail
aside; with a valid move on the line before, the move was played and the
opponent told, but the mover only heard "could not be processed ... set
aside".  Now each is refused as a line, the mail is handled (never set
aside), and the mover hears the result of the move.
"""

from __future__ import annotations

from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import inbound_rows, mail, record, send, settle
from tests.mailtools import Sink

ALICE = "alice@players.test"
#: One line per parser that trusted isdigit(): options, positions, pages, board numbers, limits.
LINES = [
    "warpandweft challenge alice bob -size=²",
    "trimac challenge alice bob carol -game=²",
    "interweave challenge alice bob -position=srlkklrs/pppppppp/²/8/8/8/PPPPPPPP/SRLKKLRS_w_-_-_0_1",
    "weavedungeon challenge alice bob -position=pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP_w_-_²",
    "list page ²",
    "tictactoe games alice page ²",
    "tictactoe show ²",
    "tictactoe show ²#1",
    "tictactoe move ² alice secret1 a1",
    "tictactoe limit alice secret1 ²",
    "limit alice secret1 ³",
]


def setup(db) -> None:  # type: ignore[no-untyped-def]
    make_accounts(db, ["alice", "bob", "carol"])
    make_boards(db, [("alice", "bob")])


def test_non_ascii_digits_are_refused_line_by_line(start, sink: Sink) -> None:
    server, db = start(setup=setup)
    for line in LINES:
        assert send(server.port, mail(ALICE, line), ALICE)[0] == 250
    # A move, then a line that crashed the worker: the move's result must reach the mover.
    assert send(server.port, mail(ALICE, "", "tictactoe move 101 alice secret1 a1\ntictactoe show ²"), ALICE)[0] == 250
    assert settle(db, timeout=90)
    rows = inbound_rows(db)
    statuses = [status for _, status, _, _ in rows]
    replies = sink.to(ALICE)
    record("32_11_digits", statuses=statuses, set_aside=statuses.count("shunted"), replies=len(replies))
    assert statuses == ["done"] * (len(LINES) + 1), [(s, (e or "")[-200:]) for _, s, _, e in rows]
    assert len(replies) == len(LINES) + 1
    assert not any("set aside" in r.text for r in replies)
    # Refused by the parsers themselves, not only by the worker's safety net for unexpected errors.
    assert not any("met an error in the server" in r.text for r in replies), [r.text for r in replies]
    last = replies[-1].text
    assert "alice played a1" in last and "Refused" in last, last
    assert any("alice played a1" in r.text for r in sink.to("bob@players.test"))
