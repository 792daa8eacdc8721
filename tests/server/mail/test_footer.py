"""The admin's footer under every mail (issue 26, item 17: the original's advertisement file)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import select

from server.mail.replies import parse_rendered
from server.processes.cli import main
from server.store.database import Database
from server.store.model import Outbox
from tests.server.conftest import Running, start_server

FOOTER = ("Games by mail since 1993 at example.org. Tournaments start every month: send "
          "'help tournaments' for the schedule and the rules of entry.")


def test_every_mail_ends_with_the_footer_as_a_signature(sqlite_url: str, sink) -> None:  # type: ignore[no-untyped-def]
    running = Running(start_server(sqlite_url, sink, footer=FOOTER), sink)
    try:
        mails = running.mail("alice@example.org", "signup alice apple1")
        mails += running.mail("stranger@example.net", "frobnicate")
        mails += running.mail("stranger@example.net", "help")
        for mail in mails:
            text = mail.text.replace("\r\n", "\n").rstrip()
            assert "\n-- \n" in text, text[-300:]
            tail = text.split("\n-- \n")[-1].split("\n")
            assert " ".join(tail) == FOOTER and all(len(line) <= 78 for line in tail)
    finally:
        running.server.stop()


def test_footer_file_is_read_wrapped_and_capped(tmp_path: Path, sqlite_url: str) -> None:
    footer = tmp_path / "footer.txt"
    footer.write_text(FOOTER + "\n")
    args = ["--database-url", sqlite_url, "--address", "pbmserv@games.test", "--footer-file", str(footer)]
    runner = CliRunner()
    for user in ("alice", "bob"):
        assert runner.invoke(main, [*args, "user", "add", user, "pw1234", f"{user}@example.org"]).exit_code == 0
    result = runner.invoke(main, [*args, "challenge", "warpandweft", "alice", "bob"])
    assert result.exit_code == 0, result.output
    db = Database(sqlite_url)
    with db.transaction() as s:
        bodies = [parse_rendered(row.message).get_body(("plain",)).get_content() for row in s.scalars(select(Outbox))]
    assert len(bodies) == 2
    for body in bodies:
        tail = body.replace("\r\n", "\n").rstrip().split("\n-- \n")[-1].split("\n")
        assert " ".join(tail) == FOOTER and all(len(line) <= 78 for line in tail)
    footer.write_text("x" * 5000)
    refused = runner.invoke(main, [*args, "status"])
    assert refused.exit_code == 2 and "a footer has at most 1000" in refused.output
