"""``pbmserv`` for the abuse tests: the real CLI plus tic-tac-toe and a "crash" game.

The crash game stands in for any mail that kills the process (out of
memory, a segfault in a C library): its ``help`` SIGKILLs the server, so
the test can show such a mail is set aside after three deaths instead of
crash-looping the server for ever.
"""

from __future__ import annotations

import os
import signal

import games
from server.processes.cli import main
from tests.tictactoe import GAME, TicTacToe


class CrashGame(TicTacToe):
    """Tic-tac-toe whose help kills the process."""

    name = "crashgame"
    aliases: tuple[str, ...] = ()
    title = "Crash Game"

    def help(self) -> str:
        os.kill(os.getpid(), signal.SIGKILL)
        return ""


if __name__ == "__main__":
    games.register(GAME)
    games.register(CrashGame())
    main()
