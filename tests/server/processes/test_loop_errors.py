"""An outage fails every poll: the log says so once, then once a minute, then that it recovered."""

from __future__ import annotations

import logging

import pytest

from server.processes.serve import LoopErrors


def test_outage_is_logged_once_then_throttled_then_recovery(caplog: pytest.LogCaptureFixture,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr("server.processes.serve.time.monotonic", lambda: clock[0])
    errors = LoopErrors("worker loop")
    with caplog.at_level(logging.INFO, logger="pbmserv.serve"):
        for _ in range(121):  # a minute of polls every 0.5 s, both ends included
            try:
                raise ConnectionError("database is down")
            except ConnectionError:
                errors.failed()
            clock[0] += 0.5
        errors.recovered()
        errors.recovered()
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == "worker loop error" and caplog.records[0].exc_info is not None
    assert messages[1] == "worker loop still failing: 121 errors in 60 s"
    assert messages[2] == "worker loop recovered after 121 errors in 60 s"
    assert len(messages) == 3
