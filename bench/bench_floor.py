"""The floor of a move by reply: the same work done with the bare libraries, next to the server.

Run: ``python bench/bench_floor.py`` (the floor alone, ~20 s) or
``python bench/bench_floor.py --server`` (also bench_throughput's SQLite
peak run, and the server's CPU per move per process against its floor).

Issue 25 asks for <= 6 ms of server CPU per move by reply, or a note that
shows what remains and why it cannot go lower in CPython.  This measures,
in one run, what each part of a move costs when done the cheapest way the
stack allows, with no server logic around it: the same bytes the server
handles (one real game played through a real ``pbmserv serve`` first,
capturing every move mail the player's client sent, the two board mails the
server stored for it and the two it sent to the relay, and the pictures it
drew), replayed in loops.  Every row is CPU (user + system) per move,
median over ``--rounds`` rounds of ``--moves`` moves each.

listener (the ``serve`` process):
* sink: a bare aiosmtpd ``Controller`` in its own process whose handler
  only answers 250, fed one smtplib connection per mail (as the clients
  in bench_throughput): the sink process's CPU per mail (it reports its own
  ``time.process_time()`` in the answer to a DATA sent to ``cpu@``; the
  interval holds the N mails and about one query mail, so it is divided by
  N + 1).
* store: the mail's Message-ID and From found by a bytes regex, then one
  ``INSERT`` of the raw mail into the server's own ``inbound`` table (the
  migrated schema, with its six indexes) with stdlib ``sqlite3``, WAL,
  ``synchronous=FULL``, autocommit: one durable commit per mail.

worker (``pbm-worker-0``):
* parse: ``BytesParser(policy=compat32)`` (what server/mail/parse.py uses;
  ``policy.default`` is printed as an aside), From, To, Subject,
  In-Reply-To, and the first non-empty line of the text part.
* token: the reply token in the To address checked as server/mail/tokens.py
  does (base32, HMAC-SHA256 tag and seal, ``compare_digest``), the key and
  the player's password hash already in memory.
* rules: the stored JSON state read, ``Game.load``, ``Game.play`` (the
  legality check is play's), ``to_move``, ``outcome``, ``Game.dump``, the
  JSON written.
* board text: ``Game.render`` of the new position, once per orientation
  (what server/boards/boards.py draws; no session needed).
* mails: the two board mails' bytes by ``server.mail.replies.render``
  (plain joins and ``binascii.b2a_qp``: the floor of rendering), from the
  recipients, subject, body and picture specs the server stored.
* sql: one transaction of plain sqlite3 statements a move needs at least:
  the oldest new inbound row, the board row, its seats with their users,
  their addresses, UPDATE the board, INSERT the move, INSERT the two outbox
  rows (the real stored bytes), UPDATE the inbound row, durable COMMIT.

deliverer (``pbm-deliver``):
* sql: claim the move's two outbox rows (UPDATE ... RETURNING the
  messages) and commit, then mark them sent and commit (both durable).
* picture: ``Game.load`` + ``Game.draw`` + ``server.pictures.draw_png.to_png``
  of each position the move's mails show, base64, placed in both mails;
  renderer caches warm from the earlier positions of the same game as in
  bench_pictures.py (emptied at each round's start, the first position
  drawn uncounted).
* smtp: two ``smtplib.SMTP.sendmail`` of the filled mails on ONE kept
  connection to an aiosmtpd sink in another process: this process's
  (the client's) CPU only.

Not in the floor (the server's own logic, by design): command lookup and
dispatch, rate limits, quotas, the dedupe lookup, the fair queue, the
inbound claim as its own transaction, the write-lock file, the board
mail's prose, SQLAlchemy.  The parts run one after another in loops of
their own, so their code stays hot in the CPU caches: if anything the floor
is lower than the same work interleaved.  ``server.processes.serve.tune_gc``
is applied, as ``serve`` does.

Knobs (flag or env): --rounds/BENCH_ROUNDS (7), --moves/BENCH_FLOOR_MOVES
(60 moves a round; one game of that many moves is captured first),
--game/BENCH_GAME (warpandweft), --server/BENCH_SERVER=1 (also the server's
SQLite peak run: --boards/BENCH_BOARDS 24, --clients/BENCH_CLIENTS 4,
--commands/BENCH_COMMANDS 600, as bench_throughput.py prints them).
Prints figures and ratios; asserts no timing.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import html
import json
import os
import random
import re
import smtplib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_throughput as bt  # noqa: E402
from aiosmtpd.controller import Controller  # noqa: E402

import games  # noqa: E402
from server.core.config import Settings  # noqa: E402
from server.mail.replies import Mail, render  # noqa: E402
from server.pictures import draw_png  # noqa: E402
from server.pictures.cache import Picture, placeholder  # noqa: E402
from server.processes.serve import tune_gc  # noqa: E402

PARSER = BytesParser(policy=policy.compat32)
PARSER_DEFAULT = BytesParser(policy=policy.default)


# -- capture: one real game through pbmserv serve ---------------------------------
@dataclass
class Captured:
    """One move as the server handled it."""

    sender: str
    rcpt: str
    inbound: bytes  # the move mail as the client sent it
    number: int
    users: list[str]
    seat: int
    move: str
    ply: int  # moves played before this one
    before: str  # the stored state (JSON text) before the move
    msgid: str = ""  # the move mail's Message-ID
    outbox: list[dict[str, Any]] = field(default_factory=list)  # the two rows as stored
    sent: list[bytes] = field(default_factory=list)  # the same two mails as the relay got them
    mails: list[Mail] = field(default_factory=list)  # rebuilt from the rows, for render()
    specs: dict[str, dict[str, Any]] = field(default_factory=dict)  # picture key -> spec


class CapturingSink(bt.RelaySink):
    """The benchmark's relay sink, keeping every mail's bytes by Message-ID."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: dict[str, bytes] = {}

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        raw = envelope.original_content or b""
        found = re.search(rb"^Message-ID:\s*(<[^>\r\n]+>)", raw, re.MULTILINE | re.IGNORECASE)
        if found:
            self.raw[found.group(1).decode()] = raw
        return await super().handle_DATA(server, session, envelope)


def _header(raw: bytes, name: str) -> str:
    found = re.search(rb"^" + name.encode() + rb":\s*([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)", raw,
                      re.MULTILINE | re.IGNORECASE)
    return re.sub(r"\s+", " ", found.group(1).decode()).strip() if found else ""


def _mail_of(row: dict[str, Any]) -> tuple[Mail, list[Picture]]:
    """The Mail the server rendered into ``row["message"]`` (for replies.render), and its pictures."""
    msg = PARSER.parsebytes(row["message"])
    body, page, filenames = "", "", []
    for part in msg.walk():
        kind = part.get_content_type()
        if kind == "text/plain" and not body:
            body = part.get_payload(decode=True).decode("utf-8").replace("\r\n", "\n")
        elif kind == "text/html":
            page = part.get_payload(decode=True).decode("utf-8", "replace")
        elif kind == "image/png":
            filenames.append(part.get_filename())
    specs = row["pictures"] or {}
    alts = [html.unescape(a) for a in re.findall(r'alt="([^"]*)"', page)]
    links = re.findall(r'<a href="([^"]*)"><img', page)
    pictures = [Picture(None, alt, filename, html.unescape(links[i]) if i < len(links) else None, spec)
                for i, (alt, filename, spec) in enumerate(zip(alts, filenames, specs.values(), strict=False))]
    refs = msg.get("References", "").split()
    irt = msg.get("In-Reply-To")
    if irt and refs and refs[-1] == irt:
        refs = refs[:-1]
    mail = Mail(to=list(row["recipients"]), subject=msg["Subject"], body=body, in_reply_to=irt,
                references=refs, auto_submitted=msg["Auto-Submitted"], reply_to=msg.get("Reply-To"),
                pictures=pictures)
    return mail, pictures


def capture(game: games.Game, count: int, workdir: Path) -> tuple[list[Captured], Path, dict[str, Any]]:
    """Play ``count`` moves by reply through a real ``pbmserv serve`` and keep what it handled.

    Returns the moves, the SQLite file (serve stopped; the floor's statements run on it) and
    the token key and the users' password hashes (what the token check needs in memory).
    """
    bdb = bt.BenchDatabase("sqlite", "", workdir)
    rng = random.Random(5)
    boards = bt.populate(bdb.db, game, 4, rng)
    bt.first_reply_addresses(bdb.db, boards)
    bdb.db.dispose()
    sink = CapturingSink()
    sink.game = game
    sink.boards = {b.number: b for b in boards}
    relay = Controller(sink, hostname="127.0.0.1", port=bt.free_port(), server_hostname="relay.bench.test")
    relay.start()
    port = bt.free_port()
    proc = bt.server_process(bdb.url, port, relay.port, workdir / "serve-capture.log", 1)
    moves: list[Captured] = []
    try:
        bt.wait_port(port, proc)
        pool = list(boards)
        board = pool.pop(0)
        while len(moves) < count:
            seat, before, ply = game.to_move(board.state), json.dumps(game.dump(board.state)), board.ply
            mail = bt.move_mail(game, board, rng)
            if mail is None:  # the game ended: go on on the next board
                board = pool.pop(0)
                continue
            sender, msgid, data, rcpt = mail
            with sink.lock:
                sink.waiting[msgid] = board
                if game.to_move(board.state) is not None:
                    board.waiting = [msgid, False, False]
            bt.send_timed(port, sender, rcpt, data)
            sink.free.get(timeout=60)
            text = data.split(b"\r\n\r\n", 1)[1].decode()
            moves.append(Captured(sender, rcpt, data, board.number, board.users, seat,
                                  text.split("\n", 1)[0].strip(), ply, before, msgid))
        # the deliverer marks a row sent after the relay's 250: let it finish
        deadline = time.monotonic() + 10
        path = Path(bdb.url.removeprefix("sqlite:///"))
        while time.monotonic() < deadline:
            with sqlite3.connect(path) as conn:
                if not conn.execute("SELECT COUNT(*) FROM outbox WHERE status != 'sent'").fetchone()[0]:
                    break
            time.sleep(0.05)
    finally:
        bt.stop(proc)
        relay.stop()
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    rows = [dict(r) for r in conn.execute("SELECT * FROM outbox ORDER BY id")]
    for row in rows:
        row["recipients"] = json.loads(row["recipients"])
        row["pictures"] = json.loads(row["pictures"]) if row["pictures"] else None
    key = bytes.fromhex(conn.execute("SELECT value FROM server_secrets WHERE name = 'token'").fetchone()[0])
    hashes = {r["id"]: r["password_hash"] for r in conn.execute("SELECT id, password_hash FROM users")}
    conn.close()
    for move in moves:
        mine = [r for r in rows if _header(r["message"], "In-Reply-To") == move.msgid]
        if len(mine) != 1:
            raise RuntimeError(f"expected one reply to {move.msgid}, found {len(mine)}")
        at = rows.index(mine[0])
        # the move's other mail (the next player's board mail), queued in the same transaction: next to
        # the reply, answering nothing, with the reply's subject (the board and who is to move)
        other = [r for r in (rows[at - 1] if at else None, rows[at + 1] if at + 1 < len(rows) else None)
                 if r is not None and not _header(r["message"], "In-Reply-To") and r["subject"] == mine[0]["subject"]]
        if len(other) != 1:
            raise RuntimeError(f"the other board mail of {move.msgid} not told apart ({len(other)} candidates)")
        move.outbox = [mine[0], other[0]]
        for row in move.outbox:
            sent = sink.raw.get(_header(row["message"], "Message-ID"))
            if sent is None:
                raise RuntimeError("a stored board mail never reached the relay")
            move.sent.append(sent)
            mail, _ = _mail_of(row)
            move.mails.append(mail)
            move.specs.update(row["pictures"] or {})
    return moves, path, {"key": key, "hashes": hashes}


# -- the sink process that reports its own CPU ------------------------------------------
SINK = """
import sys, threading, time
from aiosmtpd.controller import Controller
class Sink:
    async def handle_DATA(self, server, session, envelope):
        if envelope.rcpt_tos and envelope.rcpt_tos[0].startswith("cpu@"):
            return f"250 {time.process_time():.9f}"
        return "250 OK"
c = Controller(Sink(), hostname="127.0.0.1", port=int(sys.argv[1]), server_hostname="sink.bench.test")
c.start()
threading.Event().wait()
"""


def sink_process(port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SINK, str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def sink_cpu(port: int) -> float:
    """The sink process's CPU seconds so far, as it reports them in a DATA answer."""
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.bench.test", timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail("q@bench.test")
        smtp.rcpt("cpu@bench.test")
        code, resp = smtp.data(b"Subject: cpu\r\n\r\ncpu\r\n")
    return float(resp.split()[0])


# -- the floor's parts -------------------------------------------------------------------
def _now() -> str:
    return datetime.now(UTC).replace(tzinfo=None).isoformat(" ")


_MSGID = re.compile(rb"^Message-ID:[ \t]*(<[^>\r\n]+>)", re.MULTILINE | re.IGNORECASE)
_FROM = re.compile(rb"^From:[^\r\n]*?<?([^<>\s]+@[^<>\s]+?)>?\r?$", re.MULTILINE | re.IGNORECASE)


def durable(path: Path) -> sqlite3.Connection:
    """A stdlib connection as the server's durable ones: WAL, synchronous=FULL; autocommit."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


def store_inbound(conn: sqlite3.Connection, move: Captured) -> None:
    raw = move.inbound
    msgid, sender = _MSGID.search(raw), _FROM.search(raw)
    now = _now()
    conn.execute(
        "INSERT INTO inbound (received_at, mail_from, rcpt_to, sender, known, dedupe_key, raw, size, status, "
        "tries, commands_done, results) VALUES (?, ?, ?, ?, 1, ?, ?, ?, 'new', 0, 0, '[]')",
        (now, move.sender, json.dumps([move.rcpt]), sender.group(1).decode().lower() if sender else "",
         msgid.group(1).decode() if msgid else hashlib.sha256(raw).hexdigest(), raw, len(raw)))


def parse(raw: bytes, parser: BytesParser = PARSER) -> tuple[str, ...]:
    msg = parser.parsebytes(raw)
    text = ""
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            text = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8", "replace")
            break
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return str(msg["From"]), str(msg["To"]), str(msg["Subject"]), str(msg["In-Reply-To"]), first


def check_token(address: str, key: bytes, hashes: dict[int, str]) -> tuple[int, ...]:
    """tokens.verify's work: base32, the tag, the fields, the seal bound to the password hash."""
    token = address.split("@", 1)[0].partition("+")[2].upper()
    raw = base64.b32decode(token + "=" * (-len(token) % 8))
    body, tag, seal = raw[:-15], raw[-15:-5], raw[-5:]
    if not hmac.compare_digest(tag, hmac.new(key, b"pbmserv-token-v1\0" + body, hashlib.sha256).digest()[:10]):
        raise ValueError("tampered")
    fields, value, shift = [], 0, 0
    for byte in body[1:]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            fields.append(value)
            value = shift = 0
    binding = hashes[fields[0]]
    expect = hmac.new(key, b"pbmserv-binding-v1\0" + body + b"\0" + binding.encode(), hashlib.sha256).digest()[:5]
    if not hmac.compare_digest(seal, expect):
        raise ValueError("revoked")
    return tuple(fields)


def rules(game: games.Game, move: Captured) -> tuple[Any, str]:
    state = game.load(json.loads(move.before))
    new = game.play(state, move.seat, move.move)
    game.to_move(new)
    game.outcome(new)
    return new, json.dumps(game.dump(new))


def board_text(game: games.Game, move: Captured, state: Any) -> None:
    views = range(game.players) if getattr(game, "oriented", False) else [None]
    for seat in views:
        game.render(state, compact=False, seat=seat, board=move.number, players=move.users, moveno=move.ply + 2)


class WorkerSql:
    """The statements a move needs at least, one durable transaction."""

    def __init__(self, conn: sqlite3.Connection, game: str, ply_base: int) -> None:
        self.conn = conn
        self.game = game
        self.ply = ply_base

    def run(self, move: Captured, state_json: str, to_move: int | None) -> None:
        c = self.conn
        now = _now()
        c.execute("BEGIN IMMEDIATE")
        inbound = c.execute("SELECT id, raw, mail_from FROM inbound WHERE status = 'new' ORDER BY id LIMIT 1").fetchone()
        board = c.execute("SELECT id, game, number, options, state, ply, to_move, status, pending, nagtime, "
                          "forfeittime, totaltime, turn_since, reminders_sent, vote_since, tournament_id, rated "
                          "FROM boards WHERE game = ? AND number = ?", (self.game, move.number)).fetchone()
        seats = c.execute("SELECT s.seat, u.id, u.userid, u.password_hash, u.active, u.vacation, u.pictures, "
                          "u.flip, u.coordinates, u.digest FROM seats s JOIN users u ON u.id = s.user_id "
                          "WHERE s.board_id = ? ORDER BY s.seat", (board[0],)).fetchall()
        ids = [s[1] for s in seats]
        c.execute(f"SELECT user_id, address, confirmed FROM addresses WHERE user_id IN ({','.join('?' * len(ids))}) "
                  "ORDER BY id", ids).fetchall()
        self.ply += 1
        c.execute("UPDATE boards SET state = ?, ply = ?, to_move = ?, pending = ?, turn_since = ?, "
                  "reminders_sent = 0, vote_since = NULL WHERE id = ?",
                  (state_json, self.ply, to_move, "{}", now, board[0]))
        c.execute("INSERT INTO moves (board_id, ply, seat, move, played_at, auto) VALUES (?, ?, ?, ?, ?, 0)",
                  (board[0], self.ply, move.seat, move.move, now))
        for row in move.outbox:
            c.execute("INSERT INTO outbox (created_at, envelope_from, recipients, subject, message, status, tries, "
                      "next_attempt, pictures, stranger) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, 0)",
                      (now, row["envelope_from"], json.dumps(row["recipients"]), row["subject"], row["message"],
                       now, json.dumps(row["pictures"]) if row["pictures"] else None))
        c.execute("UPDATE inbound SET status = 'done', commands_done = 1, results = ?, done_at = ? WHERE id = ?",
                  ('["ok"]', now, inbound[0]))
        c.execute("COMMIT")


def deliverer_sql(conn: sqlite3.Connection) -> list[tuple]:
    """Claim the next two pending rows (durable), then mark them sent (durable)."""
    now = datetime.now(UTC).replace(tzinfo=None)
    rows = conn.execute(
        "UPDATE outbox SET claimed_by = 'floor', claimed_until = ?, tries = tries + 1 WHERE id IN "
        "(SELECT id FROM outbox WHERE status = 'pending' AND next_attempt <= ? ORDER BY id LIMIT 2) "
        "RETURNING id, envelope_from, recipients, message, pictures",
        ((now + timedelta(minutes=5)).isoformat(" "), now.isoformat(" "))).fetchall()
    for row in rows:
        json.loads(row[2])
        if row[4]:
            json.loads(row[4])
    ids = [r[0] for r in rows]
    conn.execute(f"UPDATE outbox SET status = 'sent', sent_at = ?, claimed_by = NULL, claimed_until = NULL "
                 f"WHERE id IN ({','.join('?' * len(ids))})", [now.isoformat(" "), *ids])
    return rows


def picture(game: games.Game, move: Captured) -> list[bytes]:
    """Each position the move's mails show, drawn and placed in both mails (cache.fill's work)."""
    messages = [row["message"] for row in move.outbox]
    for key, spec in move.specs.items():
        drawing = game.draw(game.load(spec["state"]), spec.get("seat"), spec.get("players"))
        encoded = base64.encodebytes(draw_png.to_png(drawing)).replace(b"\n", b"\r\n").rstrip(b"\r\n")
        mark = placeholder(key)
        messages = [m.replace(mark, encoded) for m in messages]
    return messages


# -- rounds ------------------------------------------------------------------------------
PARTS = [
    ("listener", "sink", "aiosmtpd sink, own process, 1 connection/mail"),
    ("listener", "store", "INSERT raw mail + durable commit (sqlite3)"),
    ("worker", "parse", "parse: BytesParser(compat32), 4 headers + line 1"),
    ("worker", "token", "reply token: base32 + 2 HMAC-SHA256"),
    ("worker", "rules", "rules: JSON + load + play + dump"),
    ("worker", "text", "board text: Game.render"),
    ("worker", "mails", "two board mails' bytes: replies.render"),
    ("worker", "sql", "sql: 4 reads, 5 writes, durable commit"),
    ("deliverer", "sql", "sql: claim + mark sent, 2 durable commits"),
    ("deliverer", "picture", "picture: draw + to_png + base64 (warm)"),
    ("deliverer", "smtp", "smtp: 2 sendmail, 1 kept conn (client)"),
]


def one_round(game: games.Game, moves: list[Captured], conn: sqlite3.Connection, worker: WorkerSql,
              secret: dict[str, Any], sink_port: int, out_port: int, settings: Settings) -> dict[tuple[str, str], float]:
    """CPU seconds per move of every part, over ``moves`` (the first is the pictures' warm-up only)."""
    timed = moves[1:]
    n = len(timed)
    got: dict[tuple[str, str], float] = {}

    def clock(key: tuple[str, str], work) -> None:  # type: ignore[no-untyped-def]
        start = time.thread_time()
        for move in timed:
            work(move)
        got[key] = (time.thread_time() - start) / n

    before = sink_cpu(sink_port)
    for move in timed:
        bt.send_timed(sink_port, move.sender, move.rcpt, move.inbound)
    got[("listener", "sink")] = (sink_cpu(sink_port) - before) / (n + 1)
    clock(("listener", "store"), lambda m: store_inbound(conn, m))
    clock(("worker", "parse"), lambda m: parse(m.inbound))
    clock(("worker", "token"), lambda m: check_token(m.rcpt, secret["key"], secret["hashes"]))
    states = {}

    def play(m: Captured) -> None:
        states[id(m)] = rules(game, m)

    clock(("worker", "rules"), play)
    clock(("worker", "text"), lambda m: board_text(game, m, states[id(m)][0]))
    clock(("worker", "mails"), lambda m: [render(settings, mail) for mail in m.mails])
    clock(("worker", "sql"), lambda m: worker.run(m, states[id(m)][1], game.to_move(states[id(m)][0])))
    clock(("deliverer", "sql"), lambda m: deliverer_sql(conn))
    draw_png.forget()
    picture(game, moves[0])
    clock(("deliverer", "picture"), lambda m: picture(game, m))
    smtp = smtplib.SMTP("127.0.0.1", out_port, local_hostname="pbmserv.bench.test", timeout=30)
    smtp.ehlo()
    try:
        clock(("deliverer", "smtp"), lambda m: [smtp.sendmail(row["envelope_from"], row["recipients"], sent)
                                               for row, sent in zip(m.outbox, m.sent, strict=True)])
    finally:
        smtp.quit()
    return got


def run_floor(args: argparse.Namespace, game: games.Game, workdir: Path) -> tuple[dict, dict, str]:
    """(median ms per part, min-max per part, load averages) of ``args.rounds`` rounds."""
    t0 = time.monotonic()
    moves, path, secret = capture(game, args.moves + 1, workdir)
    sizes = [len(m.inbound) for m in moves], [len(r["message"]) for m in moves for r in m.outbox], \
        [len(s) for m in moves for s in m.sent]
    print(f"captured {len(moves)} moves of {game.name} through pbmserv serve in {time.monotonic() - t0:.1f} s: "
          f"move mail {statistics.median(sizes[0]):.0f} B, stored board mail {statistics.median(sizes[1]):.0f} B, "
          f"sent (PNG in) {statistics.median(sizes[2]):.0f} B (medians); "
          f"{len(moves[1].specs)} picture(s) a move")
    # the captured bytes replay as the server read them
    for move in moves:
        fields = parse(move.inbound)
        if fields[4] != move.move:
            raise RuntimeError(f"parsed move {fields[4]!r}, sent {move.move!r}")
        check_token(move.rcpt, secret["key"], secret["hashes"])
    settings = Settings(addresses=[bt.ADDRESS])
    worst = max(abs(len(render(settings, mail)) - len(row["message"]))
                for move in moves for mail, row in zip(move.mails, move.outbox, strict=True))
    if worst > 16:  # only Date, Message-ID, boundaries and content ids may differ (random, ~same length)
        raise RuntimeError(f"render() of a stored board mail again differs by {worst} bytes")
    conn = durable(path)
    worker = WorkerSql(conn, game.name, 10_000)
    sink_port, out_port = bt.free_port(), bt.free_port()
    sinks = [sink_process(sink_port), sink_process(out_port)]
    load_before = bt.loadavg()
    rounds: list[dict] = []
    try:
        bt.wait_port(sink_port, sinks[0])
        bt.wait_port(out_port, sinks[1])
        tune_gc()
        one_round(game, moves[:4], conn, worker, secret, sink_port, out_port, settings)  # warm-up
        for _ in range(args.rounds):
            rounds.append(one_round(game, moves, conn, worker, secret, sink_port, out_port, settings))
    finally:
        for proc in sinks:
            bt.stop(proc)
        conn.close()
    load = f"{load_before} before / {bt.loadavg()} after"
    aside = []
    for parser, name in ((PARSER, "compat32"), (PARSER_DEFAULT, "policy.default")):
        start = time.thread_time()
        for move in moves[1:]:
            parse(move.inbound, parser)
        aside.append(f"{name} {(time.thread_time() - start) / (len(moves) - 1) * 1000:.3f}")
    print("aside: parse with " + ", ".join(aside) + " ms a move mail")
    median = {k: statistics.median(r[k] for r in rounds) * 1000 for k in rounds[0]}
    spread = {k: (min(r[k] for r in rounds) * 1000, max(r[k] for r in rounds) * 1000) for k in rounds[0]}
    return median, spread, load


def server_run(args: argparse.Namespace, game: games.Game, workdir: Path) -> tuple[dict[str, float], bt.Measured]:
    """bench_throughput's SQLite peak run (moves by reply, pictures on): ms per move per process."""
    bdb = bt.BenchDatabase("sqlite", "", workdir)
    rng = random.Random(11)
    try:
        boards = bt.populate(bdb.db, game, args.boards, rng)
        bt.first_reply_addresses(bdb.db, boards)
        ns = argparse.Namespace(workers=None, profile=False, cold=False, warmup=5, clients=args.clients,
                                commands=args.commands, latency_rate=0.0, latency_commands=0)
        m = bt.measure_servers("sqlite", bdb, boards, 1, ns, game, workdir, rng, "floor")
    finally:
        bdb.close()
    per: dict[str, float] = {}
    for label, sec in m.per_proc.items():
        role = next((r for r in ("listener", "worker", "deliverer") if r in label), "other")
        per[role] = per.get(role, 0.0) + sec * 1000
    return per, m


def main(argv: list[str] | None = None) -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=int(env("BENCH_ROUNDS", "7")))
    parser.add_argument("--moves", type=int, default=int(env("BENCH_FLOOR_MOVES", "60")),
                        help="moves a round (one game of that many moves is captured first)")
    parser.add_argument("--game", default=env("BENCH_GAME", "warpandweft"))
    parser.add_argument("--server", action=argparse.BooleanOptionalAction, default=env("BENCH_SERVER", "0") == "1",
                        help="also bench_throughput's SQLite peak run, and the ratio server/floor per process")
    parser.add_argument("--boards", type=int, default=int(env("BENCH_BOARDS", "24")))
    parser.add_argument("--clients", type=int, default=int(env("BENCH_CLIENTS", "4")))
    parser.add_argument("--commands", type=int, default=int(env("BENCH_COMMANDS", "600")))
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.moves < 2:
        parser.error("--rounds >= 1 and --moves >= 2")
    game = games.load_game(args.game)
    workdir = Path(tempfile.mkdtemp(prefix="pbmserv-floor-"))
    print(f"game {game.name}, moves by reply, {args.rounds} rounds of {args.moves} moves, {os.cpu_count()} CPUs, "
          f"Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}")
    median, spread, load = run_floor(args, game, workdir)
    server: dict[str, float] = {}
    if args.server:
        server, m = server_run(args, game, workdir)
        print(f"server (bench_throughput's peak run, SQLite, {args.boards} boards, {args.clients} clients, "
              f"{args.commands} moves): {m.peak:.1f} moves/s, {m.server_cpu * 1000:.1f} ms a move; load average "
              f"{m.load_before} before / {m.load_after} after; {len(m.failures)} errors")
    print(f"floor: CPU ms per move, median of {args.rounds} rounds (min-max); load average {load} the floor rounds")
    print(f"{'part':<58} {'floor':>7} {'(min-max)':>13} {'server':>7} {'ratio':>6}")
    total = 0.0
    for proc in ("listener", "worker", "deliverer"):
        subtotal = 0.0
        for role, key, label in PARTS:
            if role != proc:
                continue
            value = median[(role, key)]
            subtotal += value
            lo, hi = spread[(role, key)]
            print(f"  {role + ': ' + label:<56} {value:7.3f} {f'({lo:.2f}-{hi:.2f})':>13}")
        total += subtotal
        mine = server.get(proc)
        extra = f" {mine:7.2f} {mine / subtotal:5.1f}x" if mine is not None else ""
        print(f"{proc + ' (sum of its parts)':<58} {subtotal:7.3f} {'':>13}{extra}")
    others = sum(v for k, v in server.items() if k not in ("listener", "worker", "deliverer"))
    if others:
        print(f"{'other server processes':<58} {'':>7} {'':>13} {others:7.2f}")
    extra = ""
    if server:
        all_server = sum(server.values())
        extra = f" {all_server:7.2f} {all_server / total:5.1f}x"
    print(f"{'sum: a move by reply':<58} {total:7.3f} {'':>13}{extra}")
    for p in sorted(workdir.glob("*"), reverse=True):
        if p.suffix not in (".log", ".txt"):
            p.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
