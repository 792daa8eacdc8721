"""``pbmserv serve`` as an admin starts it: one log line per command, never a password."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from tests.mailtools import Sink, free_port, make_mail, send

ADDRESS = "pbmserv@games.test"
LINE = re.compile(r"INFO pbmserv\.worker: command from=(\S+) cmd='([^']*)' result=(ok|refused: .*) ms=\d+\.\d")


def wait_for(path: Path, count: int, timeout: float = 30.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [line for line in path.read_text().splitlines() if "command from=" in line]
        if len(lines) >= count:
            return lines
        time.sleep(0.1)
    raise AssertionError(f"expected {count} command lines in the log:\n{path.read_text()}")


def test_default_verbosity_logs_each_command_once_with_the_password_masked(tmp_path: Path) -> None:
    sink = Sink().start()
    port = free_port()
    log = tmp_path / "serve.log"
    cmd = [sys.executable, "-c", "from server.cli import main; main()", "--database-url",
           f"sqlite:///{tmp_path / 'pbmserv.db'}", "--address", ADDRESS, "--relay", f"127.0.0.1:{sink.port}",
           "--listen", f"127.0.0.1:{port}", "--address-proof", "from", "serve"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "listening" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        send(port, make_mail("alice@example.org", ADDRESS, "signup alice apple1"), sender="alice@example.org",
             to=ADDRESS)
        send(port, make_mail("bob@example.org", ADDRESS, "signup bob banana2"), sender="bob@example.org", to=ADDRESS)
        # Both welcomes first: the fair queue takes senders in turn, so alice's
        # challenge could otherwise be applied before bob's signup.
        sink.wait_for(2)
        send(port, make_mail("alice@example.org", ADDRESS, "interweave challenge alice bob"),
             sender="alice@example.org", to=ADDRESS)
        send(port, make_mail("alice@example.org", ADDRESS, "interweave move 101 alice sesame77 a1-a2"),
             sender="alice@example.org", to=ADDRESS)
        lines = wait_for(log, 4)
        sink.wait_for(5)  # 2 welcomes, 2 board mails, 1 refusal: the replies all went out
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        sink.stop()
    text = log.read_text()
    parsed = [LINE.search(line) for line in lines]
    assert all(parsed), lines
    assert [(m.group(1), m.group(2)) for m in parsed] == [  # type: ignore[union-attr]
        ("alice@example.org", "signup alice ********"),
        ("bob@example.org", "signup bob ********"),
        ("alice@example.org", "interweave challenge alice bob"),
        ("alice@example.org", "interweave move 101 alice ******** a1-a2"),
    ]
    assert [m.group(3) for m in parsed][:3] == ["ok", "ok", "ok"]  # type: ignore[union-attr]
    assert parsed[3].group(3).startswith("refused: ")  # type: ignore[union-attr]
    for secret in ("apple1", "banana2", "sesame77"):
        assert secret not in text
    # aiosmtpd's own per-SMTP-line chatter stays out of the default log.
    assert "mail.log" not in text
    assert len(lines) == 4
