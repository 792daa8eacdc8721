"""Scale-out: two ``pbmserv serve`` processes, one PostgreSQL, racing moves on the same boards.

Each round, for every active board, three mails race for the same turn: two
different legal moves from the player to move (``#N``-guarded) and one from
the opponent, each to a randomly chosen server, all sent at once from
several client processes.  Both servers' workers take mail from the shared
queue (``FOR UPDATE SKIP LOCKED``), so the race is real.  After every round:
exactly one move applied per board, each loser told why ("It is not your
move" or "received as move #N").  At the end: every mail applied once, one
reply each, every outbox row sent once (one claim, one delivery: the relay
saw each Message-ID once), and every board replays to its state.

``PBMSERV_SCALEOUT_BOARDS`` (default 12) sets the number of boards.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections import Counter

import pytest
from sqlalchemy import select

from server.mail.dedupe import message_id_of
from server.store.database import Database
from server.store.model import Board, Inbound, Outbox
from tests.mailtools import Sink, free_port
from tests.reliability.audit import audit_boards, audit_inbound, audit_replies, header, wait_settled
from tests.reliability.clients import Job, Report, run_jobs
from tests.reliability.conftest import make_boards, make_players, password_of
from tests.reliability.serverproc import ServerProcess
from tests.reliability.test_crash import message
from tests.tictactoe import GAME as TICTACTOE

#: What the loser of a race is told (the last: the winning move ended the game).
LOSER_REASONS = ("It is not your move", "received as move #", "is finished: Game over")


def active_boards(db: Database) -> dict[int, Board]:
    with db.transaction() as s:
        return {b.number: b for b in s.scalars(select(Board).where(Board.status == "active"))}


@pytest.mark.postgres
@pytest.mark.slow
def test_two_servers_one_postgres_racing_moves(tmp_path, sink: Sink, postgres_url: str,
                                               procs: list[ServerProcess]) -> None:
    n_boards = int(os.environ.get("PBMSERV_SCALEOUT_BOARDS", "12"))
    rng = random.Random(int(os.environ.get("PBMSERV_SCALEOUT_SEED", str(random.randrange(1 << 30)))))
    db = Database(postgres_url)
    db.upgrade()
    names = make_players(db, 2 * n_boards)
    pairs = {n: p for n, p in zip(make_boards(postgres_url, [(names[2 * i], names[2 * i + 1])
                                                               for i in range(n_boards)]), [
        (names[2 * i], names[2 * i + 1]) for i in range(n_boards)], strict=True)}
    servers = [ServerProcess(postgres_url, free_port(), sink.port, tmp_path / f"serve{i}.log") for i in range(2)]
    procs.extend(servers)
    for server in servers:
        server.start()
    accepted: set[str] = set()
    commands: dict[str, int] = {}
    races = 0
    told: Counter[str] = Counter()
    ctx = multiprocessing.get_context("spawn")
    try:
        with ctx.Pool(6) as pool:
            for _round in range(9):
                boards = active_boards(db)
                if not boards:
                    break
                round_jobs: dict[int, list[tuple[Job, bool]]] = {}
                for number, board in boards.items():
                    state = TICTACTOE.load(board.state)
                    legal = TICTACTOE.legal_moves(state)
                    mover = pairs[number][board.to_move]
                    other = pairs[number][1 - board.to_move]
                    ply = board.ply + 1
                    picks = rng.sample(legal, min(2, len(legal)))
                    entries = [(mover, sq, True) for sq in picks] + [(other, rng.choice(legal), False)]
                    round_jobs[number] = []
                    for k, (user, square, by_mover) in enumerate(entries):
                        mid = f"<race.{number}.{ply}.{k}@clients.test>"
                        subject = f"tictactoe move {number} {user} {password_of(user)} {square}#{ply}"
                        job = Job(f"{user}@players.test", message(f"{user}@players.test", subject, mid), mid)
                        round_jobs[number].append((job, by_mover))
                        commands[mid] = 1
                jobs = [j for entries in round_jobs.values() for j, _ in entries]
                rng.shuffle(jobs)
                pending = [pool.apply_async(run_jobs, (rng.choice(servers).port, [job])) for job in jobs]
                reports: list[Report] = [p.get(timeout=120) for p in pending]
                accepted |= {mid for r in reports for mid in r.accepted}
                assert len(accepted) == len(commands), "a racing mail was not accepted"
                wait_settled(db, timeout=60)
                with db.transaction() as s:
                    rows = {message_id_of(r.raw): r for r in s.scalars(select(Inbound))}
                    plies = {b.number: b.ply for b in s.scalars(select(Board))}
                for number, entries in round_jobs.items():
                    results = [rows[job.message_id].results[0] for job, _ in entries]
                    won = [r for r in results if r["ok"]]
                    assert len(won) == 1, (number, results)
                    assert plies[number] == boards[number].ply + 1
                    for (_job, by_mover), r in zip(entries, results, strict=True):
                        if not r["ok"]:
                            reason = next((x for x in LOSER_REASONS if x in r["text"]), None)
                            assert reason, r["text"]
                            told[reason] += 1
                        else:
                            assert by_mover, "the opponent's move was applied"
                    races += 1
    finally:
        for server in servers:
            server.stop()

    done, figures = audit_inbound(db, accepted, commands)
    figures.values.update(audit_replies(db, sink, accepted).values)
    figures.values.update(audit_boards(db).values)
    with db.transaction() as s:
        out = list(s.scalars(select(Outbox)))
        inbound_by = Counter(r.claimed_by.rsplit(":", 1)[1] for r in s.scalars(select(Inbound)) if r.claimed_by)
        outbox_by = Counter(r.claimed_by.rsplit(":", 1)[1] for r in out if r.claimed_by)
    # The losers' error mails say why, to the loser.
    errors = {header(o.message, "In-Reply-To"): o for o in out if o.subject.endswith("Error")}
    for mid, row in done.items():
        if not row.results[0]["ok"]:
            assert mid in errors and errors[mid].recipients == [f"{row.mail_from}"], mid
    assert all(o.tries == 1 for o in out), "an outbox row was delivered by more than one claim"
    figures.add(races=races, losers_told=sum(told.values()), servers=len(servers),
                inbound_per_server=len(inbound_by), outbox_per_server=len(outbox_by))
    print(f"\nscale-out: {figures}; losers told {dict(told)}; "
          f"inbound by pid {dict(inbound_by)}, outbox by pid {dict(outbox_by)}")
    assert figures.values["lost"] == figures.values["doubled"] == 0
    assert figures.values["relay_redelivered"] == 0 and figures.values["replies_doubled"] == 0
    assert len(inbound_by) == 2, "only one server's worker took mail: no race happened"
    db.dispose()


@pytest.mark.postgres
def test_reminders_from_two_hosts_at_once_never_double(postgres_url: str) -> None:
    """``pbmserv remind`` run by cron on two hosts at the same moment: one reminder per board and period."""
    import subprocess
    from datetime import UTC, datetime, timedelta

    from tests.reliability.serverproc import ROOT, cli_args, env

    db = Database(postgres_url)
    db.upgrade()
    names = make_players(db, 16)
    numbers = make_boards(postgres_url, [(names[i], names[i + 1]) for i in range(0, 16, 2)])
    sent = Counter[str]()
    for days in (8, 8, 15):  # period 1 twice (both hosts, then both again), then period 2
        now = (datetime.now(UTC) + timedelta(days=days)).isoformat()
        procs = [subprocess.Popen(cli_args(postgres_url, "remind", "--now", now), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=ROOT, env=env()) for _ in range(2)]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode()
    with db.transaction() as s:
        for row in s.scalars(select(Outbox).where(Outbox.subject.like("%Reminder"))):
            sent[row.subject] += 1
    assert set(sent) == {f"Tic-Tac-Toe Board {n} Reminder" for n in numbers}, sent
    assert set(sent.values()) == {2}, sent  # periods 1 and 2, each exactly once per board
    db.dispose()
