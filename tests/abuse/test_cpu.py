"""Issue 32, item 4 (in part): the CPU one mail may cost.

One 1-2 KB stranger mail once cost 12-64 s of server CPU (50 costly
lines), and an honest player's ``show`` waited seconds behind five of
them.  Replayed: a stranger's 50-line mail is read for its first 5 lines
(``--stranger-commands``); a player's 50-line mail stops at its CPU budget
(``--mail-cpu-seconds``, scaled down here so the test runs in seconds), the
rest of its lines refused, and what was done is answered.  Server CPU
seconds are recorded as figures, not asserted.
"""

from __future__ import annotations

from sqlalchemy import select

from server.store.model import Inbound
from tests.abuse.conftest import make_accounts, make_boards
from tests.abuse.harness import mail, record, send, settle
from tests.mailtools import Sink

ALICE = "alice@players.test"
STRANGER = "someone@strangers.test"


def setup(db) -> None:  # type: ignore[no-untyped-def]
    make_accounts(db, ["alice", "bob"])
    make_boards(db, [("alice", "bob")] * 10)


def last_results(db) -> list[dict]:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        row = s.scalars(select(Inbound).order_by(Inbound.id.desc()).limit(1)).one()
        assert row.status == "done", (row.status, row.error)
        return list(row.results)


def test_a_strangers_mail_is_read_for_a_few_lines(start, sink: Sink) -> None:
    server, db = start(setup=setup)
    body = "\n".join(f"tictactoe show {101 + i % 10}" for i in range(50))
    cpu = server.cpu_seconds()
    assert send(server.port, mail(STRANGER, "", body), STRANGER)[0] == 250
    assert settle(db, timeout=120)
    results = last_results(db)
    [reply] = sink.to(STRANGER)
    record("32_4_stranger_lines", lines=50, carried_out=len(results),
           server_cpu_s=round(server.cpu_seconds() - cpu, 2))
    assert len(results) == 5, len(results)
    assert "Unprocessed: only the first 5 commands" in reply.text, reply.text


def test_a_players_mail_stops_at_its_cpu_budget_and_answers_what_was_done(start, sink: Sink) -> None:
    # 50 shows of a tic-tac-toe board cost about 0.15 s now (issue 25 made them cheaper): a budget
    # far below that, so the cut comes whatever the machine.
    server, db = start("--mail-cpu-seconds", "0.02", setup=setup)
    body = "\n".join(f"tictactoe show {101 + i % 10}" for i in range(50))
    cpu = server.cpu_seconds()
    assert send(server.port, mail(ALICE, "", body), ALICE)[0] == 250
    assert settle(db, timeout=120)
    results = last_results(db)
    done = sum(r["ok"] for r in results)
    refused = [r for r in results if not r["ok"]]
    [reply] = sink.to(ALICE)
    record("32_4_mail_cpu_budget", lines=50, done=done, refused=len(refused),
           server_cpu_s=round(server.cpu_seconds() - cpu, 2))
    assert 1 <= done < 50, done
    assert len(results) == 50 and all("used up its share" in r["text"] for r in refused)
    assert f"({done} done, {50 - done} refused)" in reply.text, reply.text[:300]


def test_nothing_is_drawn_for_a_strangers_reply(start, sink: Sink) -> None:
    """A stranger's reply carries no pictures, so none is drawn: the step results hold none."""
    import games
    from server.boards import boards
    from server.store.model import User

    def warp_boards(db) -> None:  # type: ignore[no-untyped-def]
        make_accounts(db, ["alice", "bob"])
        game = games.load_game("warpandweft")

        def work(session) -> None:  # type: ignore[no-untyped-def]
            users = {u.userid: u for u in session.scalars(select(User))}
            for _ in range(3):
                boards.create_board(session, game, [users["alice"], users["bob"]], game.parse_options([]), 7.0, 21.0)

        db.run(work)

    server, db = start(setup=warp_boards)
    for sender in (STRANGER, ALICE):
        assert send(server.port, mail(sender, "warpandweft show 101 102 103"), sender)[0] == 250
        assert settle(db, timeout=60)
    with db.transaction() as s:
        rows = s.scalars(select(Inbound).order_by(Inbound.id)).all()
        drawn = {row.sender: sum(len(r.get("pictures", [])) for r in row.results) for row in rows}
    record("32_4_stranger_pictures", drawn=drawn)
    assert drawn[ALICE] == 3, drawn  # a player's reply carries the three pictures ...
    assert drawn[STRANGER] == 0, drawn  # ... a stranger's none, so none is drawn
