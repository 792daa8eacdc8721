"""The small print of a board mail, as pbmserv's players knew it.

Below the board: who follows it (``Subscribers:``, ``Notifiers:``), its
timers (when it started, the last move, when the player to move is reminded
and forfeited), a player's own queued move, and at the end of a game each
player's rating change.  ``boards.board_text`` puts them in; they are here
so that module stays about the board itself.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import object_session

from server.boards.watchers import board_watchers
from server.core.config import Settings
from server.store.model import Board, Move, User, utcnow


def stamp(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def days(value: float) -> str:
    return f"{value:g} day{'' if value == 1 else 's'}"


def follower_lines(board: Board, known: dict[str, list[User]] | None = None) -> str:
    """``Subscribers:`` and ``Notifiers:``; ``known``: followers by kind the caller has loaded already."""
    session = object_session(board)
    if session is None:
        return ""
    lines = []
    for kind, label in (("watch", "Subscribers"), ("notify", "Notifiers")):
        found = (known or {}).get(kind)
        names = [u.userid for u in (found if found is not None else board_watchers(session, board, kind))]
        if names:
            lines.append(f"{label}: {', '.join(names)}")
    return "\n".join(lines)


def default_timers(settings: Settings, board: Board) -> bool:
    return board.nagtime == settings.nagtime and board.forfeittime == settings.forfeittime


def time_used(board: Board, moves: list[Move], now: datetime) -> list[float]:
    """Days each seat has used so far: from each turn's start to its move, the running turn up to ``now``.

    A turn starts at the previous move (the board's creation for the first), so
    the total clock needs no column of its own; an active board's running turn
    counts from ``turn_since`` (which a vacation's return restarts).
    """
    used = [0.0] * len(board.seats)
    start = board.created_at
    for move in moves:
        used[move.seat] += max(0.0, (move.played_at - start).total_seconds()) / 86400
        start = move.played_at
    if board.status == "active" and board.to_move is not None and board.turn_since is not None:
        used[board.to_move] += max(0.0, (now - board.turn_since).total_seconds()) / 86400
    elif board.finished_at is not None and used:
        # The last turn (a forfeit, a resignation) was the next seat's after the last move.
        seat = (moves[-1].seat + 1) % len(used) if moves else 0
        used[seat] += max(0.0, (board.finished_at - start).total_seconds()) / 86400
    return used


def timing_block(settings: Settings, board: Board, moves: list[Move], mover: User | None, whole: bool,
                 now: datetime | None = None) -> str:
    """When the board started and moved, and when its player to move is reminded and forfeited.

    Shown whenever the board's timers differ from the server's defaults, and
    on whole-board mails (new, shown, finished ones).  With a total clock
    (``--totaltime``), each player's time used.
    """
    if not whole and default_timers(settings, board) and board.totaltime is None:
        return ""
    head = f"Started {stamp(board.created_at)}"
    if moves:
        head += f"; last move {stamp(moves[-1].played_at)}"
    lines = [head + "."]
    if board.finished_at is not None and board.status != "active":
        lines.append(f"Ended {stamp(board.finished_at)}.")
    if board.totaltime is not None:
        used = time_used(board, moves, now or utcnow())
        names = [s.user.userid for s in sorted(board.seats, key=lambda s: s.seat)]
        lines.append("Time used: " + ", ".join(f"{n} {u:.1f} days" for n, u in zip(names, used, strict=True))
                     + f" (of {days(board.totaltime)} each).")
    if board.status != "active":  # a finished board has no reminders or forfeits to speak of
        return "Timing:\n" + "\n".join("  " + line for line in lines)
    lines += [f"Reminders after {days(board.nagtime)} without a move, forfeit after {days(board.forfeittime)}."]
    if mover is not None:
        if mover.vacation:
            lines.append(f"{mover.userid} is on vacation: no reminders, no forfeits until back.")
        else:
            remind = board.turn_since + timedelta(days=board.nagtime * (board.reminders_sent + 1))
            forfeit = board.turn_since + timedelta(days=board.forfeittime)
            if mover.vacation_back:
                lines.append(f"{mover.userid} is reminded {stamp(remind)}; back from vacation, not forfeited "
                             "before their next move.")
            elif remind < forfeit:
                lines.append(f"{mover.userid} is reminded {stamp(remind)} and forfeits {stamp(forfeit)}.")
            else:
                lines.append(f"{mover.userid} forfeits {stamp(forfeit)}.")
    return "Timing:\n" + "\n".join("  " + line for line in lines)


def rating_lines(board: Board, users: list[User]) -> str:
    """Each player's rating change at the end (``alice: 1600 -> 1824 (+224)``)."""
    if board.status == "active":
        return ""
    changes = (board.outcome or {}).get("ratings")
    if not changes:
        return "This game was not rated."
    lines = ["Rating changes:"]
    for seat, before, after in changes:
        delta = round(after) - round(before)
        lines.append(f"  {users[seat].userid}: {round(before)} -> {round(after)} ({delta:+d})")
    return "\n".join(lines)


def queued_line(board: Board, viewer: int | None) -> str:
    """The viewer's own queued move (nobody else is shown it)."""
    if viewer is None or board.status != "active":
        return ""
    queued = (board.pending or {}).get("queue", {}).get(str(viewer))
    if not queued:
        return ""
    when = f"at move #{queued['n']}" if queued.get("n") else "when your turn comes"
    return (f"Your queued move: {queued['move']} (played for you {when}, if legal then; "
            "'queue ... cancel' drops it).")
