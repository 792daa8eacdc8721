"""Issue 32, item 14: reply tokens never reach a log line, whatever the recipient delimiter.

With ``--recipient-delimiter _`` the log filter, which knew only ``+``,
``-`` and ``=``, let reply tokens through in four ``-vv`` lines (the SMTP
dialogue, the worker's).  A real server at ``-vv`` with ``_`` gets a board
started by mail and a reply to a board mail's address; its log must not
hold the token.
"""

from __future__ import annotations

import re

import pytest

from server.store.database import Database
from tests.abuse.harness import mail, send, settle
from tests.mailtools import Sink, free_port
from tests.reliability.conftest import make_players
from tests.reliability.serverproc import ServerProcess


@pytest.mark.parametrize("delimiter", ["_", ".", "+"])
def test_tokens_are_redacted_for_every_delimiter(tmp_path, sink: Sink, procs: list[ServerProcess],
                                                 delimiter: str) -> None:
    url = f"sqlite:///{tmp_path / 'pbmserv.db'}"
    db = Database(url)
    db.upgrade()
    make_players(db, 2)
    server = ServerProcess(url, free_port(), sink.port, tmp_path / "serve.log", "-v",
                           "--recipient-delimiter", delimiter)
    procs.append(server)
    server.start()
    alice = "p0@players.test"
    assert send(server.port, mail(alice, "tictactoe challenge p0 p1"), alice)[0] == 250
    assert settle(db)
    tagged = re.compile(rf"pbmserv{re.escape(delimiter)}([a-z2-7]{{24,}})@games\.test")
    tokens = [m.group(1) for r in sink.messages if (m := tagged.fullmatch(str(r.message.get("Reply-To") or "")))]
    assert tokens, [str(r.message.get("Reply-To")) for r in sink.messages]
    to = f"pbmserv{delimiter}{tokens[0]}@games.test"
    assert send(server.port, mail(alice, "", "a1", to=to), alice, to=to)[0] == 250
    assert settle(db)
    server.stop()
    log = server.log()
    assert "DEBUG" in log and to.split("@")[0][:8] in log  # the -vv dialogue was logged
    leaked = [t for t in tokens if t in log]
    assert not leaked, [line for line in log.splitlines() if any(t in line for t in leaked)][:4]
    db.dispose()
