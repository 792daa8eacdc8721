"""``pbmserv`` as the mailbox tests run it: the real CLI plus the test game.

With ``PBMSERV_TEST_DIE_BEFORE_FLAG`` set, the process kills itself with
SIGKILL right after a mailbox message's commit and before it is flagged:
the one moment the IMAP receiver's crash guarantee is about.
"""

from __future__ import annotations

import os
import signal

import games
from server.mail import imap
from server.processes.cli import main
from tests.tictactoe import GAME


def _die(*args: object, **kwargs: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    games.register(GAME)
    if os.environ.get("PBMSERV_TEST_DIE_BEFORE_FLAG"):
        imap.ImapReceiver._finish = _die  # type: ignore[method-assign]
    main()
