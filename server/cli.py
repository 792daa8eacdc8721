"""The ``pbmserv`` command (``python -m server.cli`` too): see server.processes.cli."""

from server.processes.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    main()
