"""The README's worked example works as written on a fresh server."""

from __future__ import annotations

import re
from pathlib import Path

from tests.server.conftest import Running

README = Path(__file__).resolve().parents[3] / "README.md"
SWAKS = re.compile(r'swaks [^\n]*--from (\S+) \\\n\s*--header "Subject: ([^"]+)"(?: --body "([^"]*)")?')


def test_readme_worked_example(sqlite_url: str, sink) -> None:  # type: ignore[no-untyped-def]
    from tests.server.conftest import ADDRESS, start_server

    section = README.read_text().split("## A worked example", 1)[1].split("\n## ", 1)[0]
    steps = SWAKS.findall(section)
    assert len(steps) >= 5, steps
    server = start_server(sqlite_url, sink, addresses=["pbmserv@localhost", ADDRESS])
    try:
        run = Running(server, sink)
        for sender, subject, body in steps:
            mails = run.mail(sender, subject, body)
            assert mails, subject
            for mail in mails:
                assert "Error" not in mail.subject, (subject, mail.text.split("carried out:")[-1][:400])
        assert mails[-1].subject == "Warp and Weft Board 101 alice" and "bob played E9." in mails[-1].text
    finally:
        server.stop()
