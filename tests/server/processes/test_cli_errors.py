"""The admin tool answers ordinary mistakes with one line and an exit code, never a traceback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

import games
from server.processes.cli import main
from tests.mailtools import free_port


def run(*args: str, url: str | None = None) -> tuple[int, str, str]:
    env = {"PBMSERV_DATABASE_URL": url} if url else {}
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    return lines[-1]


@pytest.mark.parametrize("args, code, words", [
    (("game", "list", "chess"), 1, "unknown game 'chess'; games: "),
    (("challenge", "chess", "a", "b"), 1, "unknown game 'chess'"),
    (("game", "show", "chess", "101"), 1, "unknown game 'chess'"),
    (("prune", "--days", "-1"), 2, "give zero or more days"),
])
def test_mistakes_get_one_line(sqlite_url: str, args: tuple[str, ...], code: int, words: str) -> None:
    status, _, err = run(*args, url=sqlite_url)
    assert status == code and words in one_line(err)
    assert "help" not in one_line(err).lower() or "Try" in err  # CLI words, not mail words


@pytest.mark.parametrize("url, code, words", [
    # A missing directory stays missing until the admin acts: 78, not "try later" (issue 26).
    ("sqlite:////nonexistent/dir/pbmserv.db", 78, "no directory /nonexistent/dir for the database"),
    ("postgresql://someone:s3cret@127.0.0.1:1/x", 75, "cannot use the database postgresql://someone:***@127.0.0.1:1/x"),
    ("bogus://x", 78, "bad --database-url bogus://x"),
])
def test_database_trouble_is_one_line(url: str, code: int, words: str) -> None:
    for args in (("user", "list"), ("status",), ("db", "upgrade"), ("outbox", "list")):
        status, _, err = run(*args, url=url)
        assert status == code, (args, err)
        assert one_line(err).startswith("pbmserv: " + words) and "s3cret" not in err


def test_serve_refuses_bad_listen_addresses(sqlite_url: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status, _, err = run("--listen", f"127.0.0.1:{port}", "--relay", "127.0.0.1:1", "serve", url=sqlite_url)
        assert status == 75 and f"cannot listen on 127.0.0.1:{port}" in one_line(err)
    status, _, err = run("--listen", "127.0.0.1:99999", "serve", url=sqlite_url)
    assert status == 2 and "port 99999 is not 1-65535" in one_line(err)
    status, _, err = run("--listen", "127.0.0.1:x", "serve", url=sqlite_url)
    assert status == 2 and "give host:port" in one_line(err)
    status, _, err = run("--listen", f"127.0.0.1:{free_port()}", "serve", url="bogus://")
    assert status == 78


def test_serve_without_relay_warns_at_start(sqlite_url: str) -> None:
    with socket.socket() as busy:  # make it stop right after the warning
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        _, _, err = run("--listen", f"127.0.0.1:{busy.getsockname()[1]}", "serve", url=sqlite_url)
    assert "no --relay" in err and "replies are stored and wait" in err


def test_db_upgrade_says_what_it_did(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    status, out, _ = run("db", "upgrade", url=url)
    assert status == 0 and out.startswith("created the schema (revision ")
    status, out, _ = run("db", "upgrade", url=url)
    assert status == 0 and out.startswith("schema already current (revision ")
    from sqlalchemy import create_engine, text

    from server.store.database import alembic_config

    engine = create_engine(url)
    from alembic import command

    config = alembic_config(engine)
    with engine.connect() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "-1")
        conn.commit()
        older = conn.execute(text("select version_num from alembic_version")).scalar()
    status, out, _ = run("db", "upgrade", url=url)
    assert status == 0 and out.startswith(f"upgraded the schema from revision {older} to ")


def test_version_and_empty_lists(sqlite_url: str) -> None:
    status, out, _ = run("--version")
    assert status == 0 and out.startswith("pbmserv ") and out.strip().split()[-1][0].isdigit()
    assert run("db", "upgrade", url=sqlite_url)[0] == 0  # (a look never creates the database: issue 26)
    assert run("outbox", "list", url=sqlite_url)[1].strip() == "no pending mail in the outbox"
    assert run("inbound", "list", "--status", "all", url=sqlite_url)[1].strip() == "no received mail"


# -- issue 26, item 19 ------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [("game", "list"), ("status",), ("user", "list"), ("outbox", "list"),
                                  ("inbound", "list"), ("game", "show", "warpandweft", "101"),
                                  ("draw", "warpandweft", "101", "--out", "x.png")])
def test_read_only_commands_create_no_database(tmp_path: Path, args: tuple[str, ...]) -> None:
    """No empty pbmserv.db left behind by a look: "no database at ...", exit 78."""
    db = tmp_path / "pbmserv.db"
    status, _, err = run(*args, url=f"sqlite:///{db}")
    assert status == 78 and one_line(err) == (f"pbmserv: no database at {db} (give --database-url, or "
                                              "create it with pbmserv db upgrade)")
    assert list(tmp_path.iterdir()) == []


def test_draw_names_an_unknown_game_like_every_other_command(sqlite_url: str) -> None:
    for args in (("draw", "warpwef", "new", "--out", "x.png"), ("game", "list", "warpwef")):
        status, _, err = run(*args, url=sqlite_url)
        names = ", ".join(sorted(g.name for g in games.available()))
        assert status == 1 and one_line(err) == (
            f"Error: unknown game 'warpwef'; games: {names} (did you mean 'warpweft'?)"), one_line(err)


def test_web_says_nothing_of_success_before_a_failed_bind(sqlite_url: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        # a bare number is the port (it was once taken as a host name)
        for bind in (f"127.0.0.1:{port}", str(port)):
            status, out, err = run("web", "--bind", bind, url=sqlite_url)
            assert status == 75 and "Ctrl-C" not in out + err, (bind, err)
            assert one_line(err).startswith(f"pbmserv: cannot serve the web pages on 127.0.0.1:{port}: ")
