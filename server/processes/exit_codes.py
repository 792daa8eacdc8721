"""How the admin tool fails: sysexits codes, and a failure that carries its own.

75 (EX_TEMPFAIL) says trying again later may help (a locked database, a port
in use); 78 (EX_CONFIG) says it will not until the admin changes something
(a missing directory, no database where a read-only command looks).  Kept
apart from server.processes.cli so its sub-modules raise the same failure
without importing the tool itself.
"""

from __future__ import annotations

EX_DATAERR = 65
EX_TEMPFAIL = 75
EX_CONFIG = 78


class Failure(Exception):
    """One line for the admin (printed as ``pbmserv: ...``) and the exit code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
