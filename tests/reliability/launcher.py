"""``pbmserv`` with the test game registered: what the subprocess servers run.

The real CLI (``server.cli.main``), started as ``python -m
tests.reliability.launcher --database-url ... serve``; the only addition is
the tic-tac-toe game of the test suite, which is not an installed plugin.
"""

from __future__ import annotations

import games
from server.processes.cli import main
from tests.tictactoe import GAME

if __name__ == "__main__":
    games.register(GAME)
    main()
