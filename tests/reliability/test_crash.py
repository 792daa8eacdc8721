"""Crash safety: SIGKILL ``pbmserv serve`` again and again under load; nothing lost, nothing doubled.

Several client processes drive commands (mostly moves, some refusals, some
multi-command mails) at a real ``pbmserv serve`` process over SMTP, retrying
like an MTA until they get a 250.  The test kills the server with SIGKILL at
random moments and restarts it.  Afterwards every 250 must have been applied
exactly once with exactly one reply queued, every queued reply must have
reached the relay, no move may be stored twice, and every board must replay
from its move list to its stored state.

``PBMSERV_CRASH_COMMANDS`` (default 1000) sets the number of messages,
``PBMSERV_CRASH_KILLS`` (default 6, at least 5) the kills while clients
send, ``PBMSERV_CRASH_SEED`` fixes the random kill moments.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY

import pytest
from sqlalchemy import select

from server.store.database import Database
from server.store.model import Board, Move
from tests.mailtools import Sink, free_port
from tests.reliability.audit import (
    audit_boards,
    audit_inbound,
    audit_replies,
    pending_work,
    wait_settled,
)
from tests.reliability.clients import Job, Report, run_jobs
from tests.reliability.conftest import make_boards, make_players, password_of
from tests.reliability.serverproc import ADDRESS, ServerProcess

#: A tic-tac-toe game that fills the board: nine moves, every one legal in order.
DRAW = ["a1", "b2", "a2", "a3", "c1", "b1", "b3", "c2", "c3"]
CLIENTS = 4
MIN_KILLS = 5
PLAYERS = 20


def message(sender: str, subject: str, mid: str, body: str = "") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = mid
    msg.set_content(body or "\n")
    return msg.as_bytes(policy=SMTP_POLICY)  # CRLF, as on the wire


def plan(numbers: list[int], pairs: list[tuple[str, str]], messages: int) -> tuple[list[list[Job]], dict, dict]:
    """Per client: its jobs in sending order; per Message-ID: command count; per move: (board, ply, square).

    Each board gets its nine moves (``#N``-guarded) and one extra message: a
    refused move (wrong password), a ``show``, or a two-command mail.  A
    client sends round by round over its boards, so consecutive moves of one
    board are far apart in the stream.
    """
    per_client: list[list[Job]] = [[] for _ in range(CLIENTS)]
    commands_of: dict[str, int] = {}
    moves: dict[str, tuple[int, int, str]] = {}
    count = 0
    for rnd in range(10):
        for index, (number, (first, second)) in enumerate(zip(numbers, pairs, strict=True)):
            if count == messages:
                break
            mid = f"<crash.{number}.{rnd}@clients.test>"
            if rnd < 9:
                ply = rnd + 1
                user = first if rnd % 2 == 0 else second
                subject = f"tictactoe move {number} {user} {password_of(user)} {DRAW[rnd]}#{ply}"
                raw = message(f"{user}@players.test", subject, mid)
                moves[mid] = (number, ply, DRAW[rnd])
                commands_of[mid] = 1
            elif index % 3 == 0:
                raw = message(f"{first}@players.test", f"tictactoe move {number} {first} wrong{first} a1", mid)
                commands_of[mid] = 1
            elif index % 3 == 1:
                raw = message(f"watch{index}@players.test", f"tictactoe show {number}", mid)
                commands_of[mid] = 1
            else:
                raw = message(f"watch{index}@players.test", "", mid, f"help\ntictactoe show {number}\n")
                commands_of[mid] = 2
            per_client[index % CLIENTS].append(Job(f"{first}@players.test", raw, mid))
            count += 1
    return per_client, commands_of, moves


@pytest.mark.slow
def test_sigkill_under_load_loses_and_doubles_nothing(tmp_path, sink: Sink, procs: list[ServerProcess]) -> None:
    messages = int(os.environ.get("PBMSERV_CRASH_COMMANDS", "1000"))
    seed = int(os.environ.get("PBMSERV_CRASH_SEED", str(random.randrange(1 << 30))))
    kills_wanted = max(MIN_KILLS, int(os.environ.get("PBMSERV_CRASH_KILLS", "6")))
    rng = random.Random(seed)
    url = f"sqlite:///{tmp_path / 'crash.db'}"
    db = Database(url)
    db.upgrade()
    n_boards = -(-messages // 10)
    names = make_players(db, PLAYERS)  # each plays several boards: fewer argon2 hashes to set up
    pairs = [(names[i % PLAYERS], names[(i + 1 + i // PLAYERS) % PLAYERS]) for i in range(n_boards)]
    numbers = make_boards(url, pairs)
    per_client, commands_of, moves = plan(numbers, pairs, messages)

    server = ServerProcess(url, free_port(), sink.port, tmp_path / "serve.log", "--rate-limit", "1000000")
    procs.append(server)
    server.start()
    started = time.monotonic()
    kills_sending = kills_draining = 0
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(CLIENTS) as pool:
        pending = [pool.apply_async(run_jobs, (server.port, jobs)) for jobs in per_client]
        while kills_sending < kills_wanted and not all(p.ready() for p in pending):
            time.sleep(rng.uniform(1.0, 4.0))
            if all(p.ready() for p in pending):
                break
            server.kill()
            kills_sending += 1
            server.start()
        reports: list[Report] = [p.get() for p in pending]
    # Keep killing while the backlog is worked off, until the minimum is reached.
    while kills_sending + kills_draining < MIN_KILLS and pending_work(db):
        time.sleep(rng.uniform(0.3, 1.5))
        server.kill()
        kills_draining += 1
        server.start()
    wait_settled(db, timeout=120)
    elapsed = time.monotonic() - started
    server.stop()

    accepted = {mid for r in reports for mid in r.accepted}
    refused = {mid: why for r in reports for mid, why in r.refused.items()}
    assert not refused, f"the server refused valid mail permanently: {list(refused.items())[:3]}"
    assert accepted == set(commands_of)
    done, figures = audit_inbound(db, accepted, commands_of)
    figures.values.update(audit_replies(db, sink, accepted).values)
    figures.values.update(audit_boards(db).values)

    # No move applied twice: each stored move is exactly one accepted move command that succeeded.
    with db.transaction() as s:
        stored = {(number, ply): mv for number, ply, mv in s.execute(
            select(Board.number, Move.ply, Move.move).join(Board, Board.id == Move.board_id))}
    applied = {mid for mid in moves if done[mid].results[0]["ok"]}
    assert {moves[mid][:2] for mid in applied} == set(stored), "stored moves differ from the moves reported played"
    assert all(stored[moves[mid][:2]] == moves[mid][2] for mid in applied)
    figures.add(messages_sent=messages, kills=server.kills, kills_while_sending=kills_sending,
                moves_sent=len(moves), moves_applied=len(applied), moves_refused=len(moves) - len(applied),
                smtp_attempts=sum(r.attempts for r in reports),
                connection_failures=sum(r.connection_failures for r in reports),
                temp_failures=sum(r.temp_failures for r in reports), seconds=int(elapsed))
    print(f"\ncrash safety (seed {seed}): {figures}")
    assert server.kills >= MIN_KILLS, f"only {server.kills} kills: the run finished too quickly"
    assert figures.values["lost"] == figures.values["doubled"] == 0
    assert figures.values["replies_missing"] == figures.values["replies_doubled"] == 0
    assert "Traceback" not in server.log(), server.log()[-3000:]
    db.dispose()
