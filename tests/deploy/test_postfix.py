"""The Postfix path, for real: deploy/verify_postfix.sh under pytest.

Opt-in (PBMSERV_TEST_POSTFIX=1), because it needs root, installs postfix and
swaks when missing and, while it runs, names its private Postfix instance in
/etc/postfix/main.cf (alternate_config_directories; restored afterwards).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "verify_postfix.sh"


@pytest.mark.skipif(os.environ.get("PBMSERV_TEST_POSTFIX") != "1",
                    reason="set PBMSERV_TEST_POSTFIX=1 (as root) to run deploy/verify_postfix.sh")
def test_mail_goes_through_postfix_to_pbmserv_and_the_replies_come_back() -> None:
    result = subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, timeout=300)
    if result.returncode == 77:
        pytest.skip(result.stderr.strip())
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "relay=virtual" in out and "status=sent (250 2.0.0 Message accepted)" in out
    assert "OK: Postfix -> LMTP -> pbmserv -> Postfix -> mailbox verified" in out
    assert "User unknown in relay recipient table" in out  # relay_recipient_maps: no backscatter


@pytest.mark.skipif(os.environ.get("PBMSERV_TEST_POSTFIX") != "1",
                    reason="set PBMSERV_TEST_POSTFIX=1 (as root) to run deploy/verify_postfix.sh")
def test_a_failed_check_leaves_nothing_behind() -> None:
    """pbmserv cannot start: the script fails, and removes its work directory and its
    change to /etc/postfix/main.cf (which a fresh 'No configuration' install lacks)."""
    main_cf = Path("/etc/postfix/main.cf")
    before = main_cf.read_text() if main_cf.exists() else None
    work_before = set(Path("/tmp").glob("pbmserv-postfix.*"))
    result = subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PBMSERV": "false"})
    if result.returncode == 77:
        pytest.skip(result.stderr.strip())
    assert result.returncode != 0 and "pbmserv did not start" in result.stderr
    assert set(Path("/tmp").glob("pbmserv-postfix.*")) == work_before
    assert (main_cf.read_text() if main_cf.exists() else None) == before
