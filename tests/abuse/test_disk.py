"""Issue 32, item 9: strangers cannot fill the disk.

1 MB mails from strangers were stored whole for 30 days: 242 MB a minute,
and ``prune`` removed nothing.  Replayed (10 big and 20 mid-size mails; 240
and 400 with ``PBMSERV_ABUSE_FULL=1``): a stranger's mail over
``--max-stranger-size`` is refused with 552 and not stored; one under it is
stored while it waits, and only its header is kept once handled.  A
player's big mail is still accepted and kept whole.
"""

from __future__ import annotations

from sqlalchemy import func, select

from server.store.model import Inbound
from tests.abuse.conftest import make_accounts
from tests.abuse.harness import mail, record, send, settle, size, wire
from tests.mailtools import Sink

BIG = 1024 * 1024 - 64 * 1024  # under --max-size (1 MB)
MID = 40 * 1024


def stored_bytes(db) -> int:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        return s.scalar(select(func.sum(func.length(Inbound.raw)))) or 0


def test_strangers_mail_is_small_and_dropped_once_handled(start, sink: Sink) -> None:
    server, db = start("--unknown-per-minute", "6000", setup=lambda db: make_accounts(db, ["alice"]))
    big, mid = size(10, 240), size(20, 400)
    codes = []
    for i in range(big):
        sender = f"big{i}@rotating{i}.test"
        codes.append(send(server.port, mail(sender, "help", "x" * BIG), sender)[0])
    mids = []
    for i in range(mid):
        sender = f"mid{i}@rotating{i}.test"
        mids.append(send(server.port, mail(sender, "help", "y " * (MID // 2)), sender)[0])
    player = send(server.port, mail("alice@players.test", "help", "z" * (200 * 1024)), "alice@players.test")[0]
    assert settle(db, timeout=120)
    total = stored_bytes(db)
    record("32_9_disk", big_codes=sorted(set(codes)), mid_codes=sorted(set(mids)), player=player,
           offered_mb=round((big * BIG + mid * MID) / 2**20, 1), stored_kb=round(total / 1024, 1))
    assert set(codes) == {552}, codes
    assert set(mids) == {250} and player == 250
    # Handled: mid-size strangers' mails keep their header (~1 KB each), alice's mail is whole.
    assert total < 200 * 1024 + mid * 9 * 1024, total
    assert total >= 200 * 1024


def test_strangers_bytes_per_hour(start, sink: Sink) -> None:
    """Many small stranger mails from rotating addresses: beyond the server's hourly byte cap, 452 to them only.

    ``--max-stranger-size`` bounds one mail; before this cap a flood of
    64 KB mails from ever new addresses was stored at the speed of the line.
    """
    one = len(wire(mail("flood0@rotating0.test", "help", "y " * (MID // 2))))
    cap = 5 * (one + 64) + 2048  # five of these mails (as they go on the wire), and a little more
    server, db = start("--unknown-per-minute", "6000", "--stranger-bytes-per-hour", str(cap),
                       setup=lambda db: make_accounts(db, ["alice"]))
    codes = []
    for i in range(9):
        sender = f"flood{i}@rotating{i}.test"
        codes.append(send(server.port, mail(sender, "help", "y " * (MID // 2)), sender)[0])
    player = [send(server.port, mail("alice@players.test", "help", "z" * MID), "alice@players.test")[0]
              for _ in range(3)]
    small = send(server.port, mail("tiny@rotating.test", "help", "help"), "tiny@rotating.test")[0]
    status = server.cli("status").stdout
    record("32_9_stranger_bytes", codes=codes, player=player, small=small)
    assert codes == [250] * 5 + [452] * 4, codes
    assert player == [250, 250, 250]  # players are never refused for it
    assert small == 250  # the cap is in bytes: a few lines still fit
    with db.transaction() as s:
        strangers = s.scalar(select(func.count()).select_from(Inbound).where(Inbound.known.is_(False)))
    assert strangers == 6, strangers
    line = next(x for x in status.splitlines() if x.startswith("stranger bytes:"))
    assert f"of {cap} this hour" in line and "ALERT" not in line, status
