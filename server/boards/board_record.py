"""A board's game record (games/record.py) as the server writes it.

One function makes the text that the final board mail attaches, that
``GAME record BOARD`` mails, that ``pbmserv game export`` writes and that
the web page offers for download, so the four never differ.  The format
itself is the games package's; this adds what only the server knows: the
seats' userids, the dates, the board number, and how a game ended outside
the rules (a resignation, a forfeit, a draw agreed).
"""

from __future__ import annotations

from games import Game, Outcome
from games.record import build, write
from server.core.config import Settings
from server.store.model import Board, Move

#: The MIME type of an attached record: text a person can read, with its own extension.
MIME_TYPE = "text/plain"


def record_filename(board: Board) -> str:
    """``interweave-101.pbmr.txt``: says what it is, and opens as text everywhere."""
    return f"{board.game}-{board.number}.pbmr.txt"


def attachment(settings: Settings, board: Board, game: Game, moves: list[Move]) -> tuple[str, str]:
    """(filename, text) of the record, for a mail's attachments."""
    return record_filename(board), record_text(board, game, moves, site=settings.address)


def stored_outcome(board: Board) -> Outcome | None:
    """How the board ended as the server stored it (``None`` while it is played)."""
    out = board.outcome
    if board.status != "finished" or not out:
        return None
    return Outcome(tuple(out.get("winners", ())), tuple(out.get("losers", ())), str(out.get("reason", "")),
                   out.get("grade"))


def record_text(board: Board, game: Game, moves: list[Move], upto: int | None = None, site: str = "") -> str:
    """The board's record from its stored ``moves`` (the first ``upto`` when given), in the export form.

    ``site`` is the server's address (the Site tag), where the caller knows it.
    """
    finished = upto is None or upto >= len(moves)
    moves = moves if upto is None else moves[:upto]
    outcome = stored_outcome(board) if finished else None
    tags = {
        "Site": site,
        "Board": str(board.number),
        "Started": board.created_at.strftime("%Y-%m-%d") if board.created_at else "",
        "Finished": board.finished_at.strftime("%Y-%m-%d") if board.finished_at and outcome else "",
    }
    if board.status == "removed" and finished:
        tags["Reason"] = "removed: a player resigned before making a move"
    record = build(game, board.options or {}, [s.user.userid for s in board.seats],
                   [(m.seat, m.move) for m in moves], outcome, **tags)
    return write(record)
