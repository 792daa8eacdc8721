"""``pbmserv`` as a real operating-system process, for tests that kill it.

The server runs through :mod:`tests.reliability.launcher` (the real CLI plus
the test game); its stderr goes to a file so tests can read what it logged.
"""

from __future__ import annotations

import os
import signal
import smtplib
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "pbmserv@games.test"


def proof_flags() -> list[str]:
    """``--address-proof from`` where the CLI has it: the test MTA is taken to reject forged From
    (the default, a confirmation round trip, is tested by tests/abuse/test_forged_from.py)."""
    from server.processes.cli import main

    known = {opt for param in main.params for opt in param.opts}
    return ["--address-proof", "from"] if "--address-proof" in known else []


def cli_args(database_url: str, *extra: str, relay_port: int | None = None) -> list[str]:
    """The top-level flags every test server gets (short leases: a killed server's work returns fast)."""
    args = [sys.executable, "-m", "tests.reliability.launcher", "--database-url", database_url,
            "--address", ADDRESS, "--retry-base", "0.2", "--lease-seconds", "1",
            "--delivery-lease-seconds", "2", "-v", *proof_flags()]
    if relay_port is not None:
        args += ["--relay", f"127.0.0.1:{relay_port}"]
    return [*args, *extra]


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = str(ROOT) + os.pathsep + out.get("PYTHONPATH", "")
    return out


def run_cli(database_url: str, *args: str, stdin: bytes = b"", relay_port: int | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """One ``pbmserv`` command (``process``, ``user add``, ...) to completion."""
    return subprocess.run(cli_args(database_url, *args, relay_port=relay_port), input=stdin, capture_output=True,
                          cwd=ROOT, env=env(), timeout=timeout)


class ServerProcess:
    """``pbmserv serve`` on a port; started, killed and restarted by the test."""

    def __init__(self, database_url: str, port: int, relay_port: int, log_path: Path, *extra: str) -> None:
        self.database_url = database_url
        self.port = port
        self.relay_port = relay_port
        self.log_path = log_path
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0

    def start(self, timeout: float = 30.0) -> None:
        args = cli_args(self.database_url, *self.extra, "serve", relay_port=self.relay_port)
        args.insert(args.index("serve"), "--listen")
        args.insert(args.index("serve"), f"127.0.0.1:{self.port}")
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(args, stdout=log, stderr=log, cwd=ROOT, env=env())
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"pbmserv serve exited with {self.proc.returncode}:\n{self.log()[-3000:]}")
            try:
                with smtplib.SMTP("127.0.0.1", self.port, timeout=5) as smtp:
                    smtp.noop()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"pbmserv serve did not listen on {self.port}:\n{self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: no cleanup, no flush, exactly what a power cut leaves."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.kills += 1
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
