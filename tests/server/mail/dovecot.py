"""A real IMAP server for the tests: Debian's Dovecot on loopback, thrown away afterwards.

Not the system service: a configuration, a passwd-file user database, a
self-signed certificate (for 127.0.0.1 and localhost) and the mail all live
in one temporary folder, and Dovecot listens on two free ports (IMAPS, and
IMAP with STARTTLS).  Mail arrives the way a provider's MX delivers it:
through ``dovecot-lda``, which writes Return-Path and Delivered-To.

Without Dovecot (a laptop) the tests skip with a message saying what to
install; with ``PBMSERV_REQUIRE_DOVECOT`` set (``.ci/run``) they fail instead.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.mailtools import free_port

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
LDA = "/usr/lib/dovecot/dovecot-lda"


def require_dovecot() -> None:
    """Skip (or, under CI, fail) when Dovecot or openssl is missing."""
    missing = [p for p in (DOVECOT, LDA) if not os.access(p, os.X_OK)]
    if not shutil.which("openssl"):
        missing.append("openssl")
    if not missing:
        return
    message = (f"the IMAP tests need Dovecot (missing: {', '.join(missing)}); "
               f"install it with: apt-get install dovecot-imapd")
    if os.environ.get("PBMSERV_REQUIRE_DOVECOT"):
        pytest.fail(message)
    pytest.skip(message)


def require_openssl() -> None:
    """Skip (or, under CI, fail) without the openssl tool (Dovecot's package brings it)."""
    if shutil.which("openssl"):
        return
    message = "the TLS tests need the openssl tool (apt-get install openssl)"
    if os.environ.get("PBMSERV_REQUIRE_DOVECOT"):
        pytest.fail(message)
    pytest.skip(message)


def make_certificate(folder: Path, name: str = "cert") -> tuple[Path, Path]:
    """A throw-away self-signed certificate for 127.0.0.1 and localhost: (certificate, key)."""
    require_openssl()
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


class Dovecot:
    """One Dovecot instance with users made by :meth:`add_user`."""

    def __init__(self, capabilities: str | None = None) -> None:
        """``capabilities``: what the server announces instead of its own list (e.g. without IDLE)."""
        require_dovecot()
        self.capabilities = capabilities
        # Under /tmp with 0755: Dovecot's processes run as other users and must reach it
        # (pytest's tmp_path lies under a 0700 folder).
        self.root = Path(tempfile.mkdtemp(prefix="pbmserv-dovecot-"))
        self.root.chmod(0o755)
        self.imaps_port = free_port()
        self.imap_port = free_port()
        self.cert, self.key = make_certificate(self.root)
        self.users: dict[str, str] = {}
        if os.geteuid() == 0:
            # Dovecot refuses to store mail as root: mail belongs to "nobody" here.
            mail_user = pwd.getpwnam("nobody")
            self.login_user, self.internal_user = "dovenull", "dovecot"
        else:
            mail_user = pwd.getpwuid(os.getuid())
            self.login_user = self.internal_user = mail_user.pw_name
        self.uid, self.gid = mail_user.pw_uid, mail_user.pw_gid
        (self.root / "mail").mkdir()
        os.chown(self.root / "mail", self.uid, self.gid) if os.geteuid() == 0 else None
        (self.root / "users").write_text("")
        self.config = self.root / "dovecot.conf"
        self.config.write_text(self._config())
        self.proc: subprocess.Popen[bytes] | None = None

    def _config(self) -> str:
        r = self.root
        return f"""
base_dir = {r}/run
state_dir = {r}/state
log_path = {r}/dovecot.log
info_log_path = {r}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{self.cert}
ssl_key = <{self.key}
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain login
auth_failure_delay = 0 secs
default_login_user = {self.login_user}
default_internal_user = {self.internal_user}
first_valid_uid = 1
first_valid_gid = 1
mail_location = maildir:{r}/mail/%u
mail_privileged_group =
lda_mailbox_autocreate = yes
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {r}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {r}/users
  default_fields = uid={self.uid} gid={self.gid} home={r}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.imaps_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
protocol imap {{
  {f"imap_capability = {self.capabilities}" if self.capabilities else ""}
  mail_max_userip_connections = 50
  imap_idle_notify_interval = 1 secs
}}
"""

    def add_user(self, name: str, password: str) -> None:
        self.users[name] = password
        (self.root / "users").write_text(
            "".join(f"{u}:{{PLAIN}}{p}::::::\n" for u, p in self.users.items()))

    def start(self, timeout: float = 20.0, tries: int = 3) -> Dovecot:
        self.proc = subprocess.Popen([DOVECOT, "-F", "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                if "in use" in err + self.log() and tries > 1 and self.proc.returncode:
                    # Another test took a free port between our pick and Dovecot's bind: pick again.
                    self.imaps_port, self.imap_port = free_port(), free_port()
                    self.config.write_text(self._config())
                    return self.start(timeout, tries - 1)
                raise AssertionError(f"dovecot exited with {self.proc.returncode}: {err}\n{self.log()[-2000:]}")
            if all(_listening(p) for p in (self.imap_port, self.imaps_port)):
                return self
            time.sleep(0.05)
        raise AssertionError(f"dovecot did not listen: {self.log()[-2000:]}")

    def stop(self) -> None:
        """Stop as a restart by the admin does: the master and every session it runs (IDLE ones too)."""
        children = _children(self.proc.pid) if self.proc is not None else []
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        # The sessions outlive a master stopped in the foreground here; a service restart ends them.
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # Wait for the ports to close.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_listening(p) for p in (self.imap_port, self.imaps_port)):
            time.sleep(0.05)

    def restart(self) -> None:
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def deliver(self, user: str, raw: bytes, sender: str, recipient: str, folder: str = "INBOX") -> None:
        """Deliver as the provider's MX does: Postfix writes Return-Path and Delivered-To
        (its pipe flags ``DRh``) and hands the message to dovecot-lda."""
        trace = f"Return-Path: <{sender}>\r\nDelivered-To: {recipient}\r\n".encode()
        args = [LDA, "-c", str(self.config), "-d", user, "-f", sender or "<>", "-m", folder]
        result = subprocess.run(args, input=trace + raw, capture_output=True, timeout=30)
        if result.returncode != 0:
            raise AssertionError(f"dovecot-lda failed ({result.returncode}): {result.stderr.decode()}")

    def url(self, user: str, folder: str = "INBOX", starttls: bool = False, host: str = "127.0.0.1") -> str:
        if starttls:
            return f"imap://{user}@{host}:{self.imap_port}/{folder}"
        return f"imaps://{user}@{host}:{self.imaps_port}/{folder}"


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0
