"""Issue 32, item 3: a reply address is good only for what its mail invited.

Bob's reply address from the first board mail, used by another address,
once played bob's later move (``b2#2``) and resigned bob's game.  Replayed
here against a real server: the old address is refused for a later move
and for ``resign``; the current address is refused for ``resign`` from a
From that is not bob's; nothing on the board changes; then bob's own reply
from his own address still plays.
"""

from __future__ import annotations

import re

from sqlalchemy import func, select

from server.store.model import Board, Move
from tests.abuse.conftest import make_accounts
from tests.abuse.harness import mail, record, send, settle
from tests.mailtools import Sink

ATTACKER = "evil@attacker.test"
BOB = "bob@players.test"
TOKEN = re.compile(r"pbmserv\+[a-z2-7]+@games\.test")


def board_mails(sink: Sink, address: str) -> list[str]:
    """The reply addresses of the board mails ``address`` got, oldest first."""
    out = []
    for received in sink.to(address):
        reply_to = str(received.message.get("Reply-To") or "")
        if TOKEN.fullmatch(reply_to):
            out.append(reply_to)
    return out


def board_state(db) -> tuple[int, str, int]:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        board = s.scalars(select(Board)).one()
        return board.ply, board.status, s.scalar(select(func.count()).select_from(Move)) or 0


def test_reply_address_is_not_a_bearer_credential(start, sink: Sink) -> None:
    server, db = start(setup=lambda db: make_accounts(db, ["alice", "bob"]))
    assert send(server.port, mail("alice@players.test", "tictactoe challenge alice bob"), "alice@players.test")[0] == 250
    assert settle(db)
    [first] = board_mails(sink, BOB)
    assert send(server.port, mail("alice@players.test", "tictactoe move 101 alice secret1 a1"),
                "alice@players.test")[0] == 250
    assert settle(db)
    current = board_mails(sink, BOB)[-1]
    assert current != first
    before = board_state(db)
    assert before == (1, "active", 1)

    attacks = [(first, "b2#2"), (first, "resign"), (current, "resign"), (current, "move resign")]
    answers = []
    for to, line in attacks:
        sink.clear()
        assert send(server.port, mail(ATTACKER, "", line, to=to), ATTACKER, to=to)[0] == 250
        assert settle(db)
        replies = sink.to(ATTACKER)
        answers.append((line, [r.text.split("was not carried out")[-1][:200] for r in replies]))
        # The board, its moves and bob's opponent: untouched.
        assert board_state(db) == before, (line, answers[-1])
        assert not sink.to("alice@players.test"), (line, [m.subject for m in sink.to("alice@players.test")])
    record("32_3_token_scope", answers=answers)
    # Bob's own reply, from his own address, to the current mail: played.
    assert send(server.port, mail(BOB, "", "b2", to=current), BOB, to=current)[0] == 250
    assert settle(db)
    assert board_state(db) == (2, "active", 2)
