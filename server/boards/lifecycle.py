"""A board's life after it starts: moves applied, queued moves, resignations,
draw and take-back votes, the end of the game, and the turn's clock.

Every path that changes a running board comes through here: the mail
commands (``move``, ``resign``, ``signoff``, ``queue``, ``confirm``,
``vacation``) and the timers (a forfeit is a resignation; a stalled offer is
settled as if accepted).  This module calls no command: a command turns
what it returns into a reply, the timers into mail.

Votes: all other players still in the game must accept (a seat that resigned
from a game that plays on has no vote, and loses a draw agreed after it);
one reject cancels; a normal move cancels a pending offer.  An offer that
stalls is the timers' business, as in pbmserv: the board mail names who
still owes a vote, ``pbmserv remind`` reminds them once per nag period from
``Board.vote_since``, and at the board's forfeit time a non-voter's silence
counts as accept (:func:`settle_by_silence`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from games import Game, GameError, Outcome
from server.boards import boards, conditional
from server.boards.context import Context
from server.core.errors import CommandError
from server.mail.replies import Mail
from server.store.model import Board, Move, Reminder, Seat, User

#: The vote words and what each proposes.
KINDS = {"propose": "a draw", "undo": "taking back the last move"}


@dataclass
class QueueNotes:
    """What happened to queued moves and resignations: for everyone, and for one seat only.

    A queued move that is not played is its owner's business: the others
    never learn what it was.
    """

    public: str = ""
    private: dict[int, str] = field(default_factory=dict)


# -- moves ---------------------------------------------------------------------------------


def play_move(ctx: Context, board: Board, game: Game, seat: int, move: str) -> tuple[Any, QueueNotes, str]:
    """Play ``move`` for ``seat`` and store it, then what the next players queued.

    Also returns the move as stored (its canonical spelling), for the headline.
    """
    private: dict[int, str] = {}
    state, text = store_move(ctx, board, game, game.load(board.state), seat, move, private)
    state, notes = apply_queued(ctx, board, game, state)
    for owner, note in notes.private.items():
        add_note(private, owner, note)
    return state, QueueNotes(notes.public, private), text


def add_note(private: dict[int, str], seat: int, note: str) -> None:
    """One more sentence for ``seat`` alone."""
    private[seat] = f"{private[seat]} {note}" if private.get(seat) else note


def store_move(ctx: Context, board: Board, game: Game, state: Any, seat: int, move: str,
               private: dict[int, str] | None = None, auto: bool = False) -> tuple[Any, str]:
    """Play one move on the stored board (IllegalMove changes nothing).

    Returns the new state and the move as stored (in the game's spelling).
    Every conditional tree steps past the move (``private`` collects what
    their owners are told); ``auto``: the server played it for its owner
    (a queued or conditional move), which the move list marks.
    """
    new_state = game.play(state, seat, move)
    move = boards.canonical_move(game, state, seat, move, new_state)
    boards.seat_users(board)[seat].vacation_back = False  # moved since the vacation: forfeits apply again
    boards.record_move(ctx.session, board, seat, move, auto=auto)
    name = boards.seat_users(board)[seat].userid
    for owner, note in conditional.advance(game, board, state, seat, move, name).items():
        if private is not None:
            add_note(private, owner, note)
    pending = dict(board.pending or {})
    pending.pop("vote", None)  # a normal move cancels a pending proposal
    board.vote_since = None
    pending.pop("submit", None)  # a submitted move was for the position before this one
    queued = {k: v for k, v in pending.get("queue", {}).items() if k != str(seat)}
    if queued:
        pending["queue"] = queued
    else:
        pending.pop("queue", None)
    board.pending = pending
    boards.apply_state(board, game, new_state, ctx.now)
    return new_state, move


def apply_queued(ctx: Context, board: Board, game: Game, state: Any) -> tuple[Any, QueueNotes]:
    """Resignations, conditional answers and queued moves of whoever is to move now, in turn order.

    A seat's conditional tree answers first (a seat has a tree or a queued
    move, never both: the last one sent replaces the other).  A queued move
    is played if it is still legal (and, when it was queued with #N, if the
    board is at move #N); otherwise it is dropped and a note in its owner's
    board mail alone says so.
    """
    notes = []
    private: dict[int, str] = {}
    while board.status == "active" and board.to_move is not None:
        seat = board.to_move
        user = boards.seat_users(board)[seat]
        pending = dict(board.pending or {})
        if seat in pending.get("resign", []):
            state = resign_state(ctx, board, game, state, seat, f"{user.userid} resigned", private)
            notes.append(f"{user.userid}'s resignation takes effect.")
            continue
        answer = conditional.answer(board, seat)
        if answer is not None:
            # Checked against this very position when the tree was sent, so it is legal,
            # unless the game's rules changed since (a plugin upgrade): then it is the owner's move.
            try:
                state, answer = store_move(ctx, board, game, state, seat, answer, private, auto=True)
            except GameError as exc:
                conditional.store(board, seat, {})
                add_note(private, seat, f"Your conditional move {answer} is not legal now ({exc}): it is "
                         "not played, your conditional moves are cleared, and it is your move.")
                break
            notes.append(f"{user.userid}'s conditional move {answer} is played.")
            continue
        queued = pending.get("queue", {}).get(str(seat))
        if queued is None:
            break
        rest = {k: v for k, v in pending["queue"].items() if k != str(seat)}
        if rest:
            pending["queue"] = rest
        else:
            pending.pop("queue")
        board.pending = pending
        move, moveno = queued["move"], queued.get("n")
        if moveno is not None and moveno != board.ply + 1:
            private[seat] = (f"Your queued move {move} was for move #{moveno}, but the board is at "
                             f"move #{board.ply + 1}: it is not played, and it is your move.")
            break
        try:
            state, move = store_move(ctx, board, game, state, seat, move, private, auto=True)
        except GameError as exc:
            private[seat] = f"Your queued move {move} is not legal now ({exc}): it is not played, and it is your move."
            break
        notes.append(f"{user.userid}'s queued move {move} is played.")
    return state, QueueNotes(" ".join(notes), private)


# -- resignations --------------------------------------------------------------------------


def resign_state(ctx: Context, board: Board, game: Game, state: Any, seat: int, reason: str,
                 private: dict[int, str] | None = None) -> Any:
    """``seat`` is out: the game ends, or plays on without them (TriMac).

    Conditional trees are cleared either way: they were checked against a
    turn order that no longer holds.
    """
    # "alice forfeited: no move for 22 days" -> "alice forfeited"
    for owner, note in conditional.clear_all(board, reason.split(":")[0]).items():
        if private is not None and owner != seat:
            add_note(private, owner, note)
    pending = dict(board.pending or {})
    pending["resign"] = [s for s in pending.get("resign", []) if s != seat]
    board.pending = pending
    new_state = game.resign(state, seat)
    if new_state is None:
        others = tuple(i for i in range(len(board.seats)) if i != seat)
        boards.finish(board, Outcome(winners=others, losers=(seat,), reason=reason), ctx.now)
        return state
    boards.record_move(ctx.session, board, seat, "resign")
    boards.apply_state(board, game, new_state, ctx.now)
    return new_state


def has_moved(ctx: Context, board: Board, seat: int) -> bool:
    return bool(ctx.session.scalar(select(func.count()).select_from(Move).where(Move.board_id == board.id, Move.seat == seat)))


def resign_now(
    ctx: Context, board: Board, game: Game, seat: int, user: User, reason: str, verb: str = "resigned"
) -> list[Mail]:
    """Resign at once (signoff, on one's turn, a forfeit); a seat that never moved removes the board.

    ``verb`` words the headline ("resigned", "signed off", "forfeits ...").
    """
    state = game.load(board.state)
    # A resignation, a declined challenge or a signoff may say why: the
    # comment reaches everyone, as it does with a move.
    comment = {"comment_by": user.userid, "comment": ctx.request.comment}
    # A tournament board is never removed: joining the tournament was consent.
    if board.tournament_id is None and not has_moved(ctx, board, seat):
        board.status = "removed"
        board.to_move = None
        board.finished_at = ctx.now
        board.pending = {}
        headline = f"{user.userid} {verb} before making a move: {game.title} Board {board.number} is removed."
        return boards.announce(ctx, board, game, state, headline, **comment)
    private: dict[int, str] = {}
    state = resign_state(ctx, board, game, state, seat, reason, private)
    state, notes = apply_queued(ctx, board, game, state)
    for owner, note in notes.private.items():
        add_note(private, owner, note)
    headline = f"{user.userid} {verb}. {notes.public}".strip()
    return boards.announce(ctx, board, game, state, headline, private=private, **comment)


@dataclass
class Resignation:
    """What ``resign`` did: at once (``mails`` to everyone), or recorded or withdrawn for later."""

    text: str
    mails: list[Mail]
    now: bool


def resign(ctx: Context, board: Board, game: Game, seat: int, user: User) -> Resignation:
    """On one's turn (or before one's first move) at once; otherwise at one's next turn.

    Sent again before it takes effect, a resignation is withdrawn.
    """
    queued = (board.pending or {}).get("resign", [])
    if board.to_move == seat or (board.tournament_id is None and not has_moved(ctx, board, seat)):
        mails = resign_now(ctx, board, game, seat, user, reason=f"{user.userid} resigned")
        return Resignation(mails[0].body if mails else f"{user.userid} resigned.", mails, now=True)
    pending = dict(board.pending or {})
    if seat in queued:
        pending["resign"] = [s for s in queued if s != seat]
        text = f"Your resignation on {game.title} Board {board.number} is withdrawn."
    else:
        pending["resign"] = [*queued, seat]
        text = (
            f"Your resignation on {game.title} Board {board.number} is recorded: it takes effect "
            "at your next turn. Send it again to withdraw it."
        )
    board.pending = pending
    return Resignation(text, [], now=False)


# -- votes ---------------------------------------------------------------------------------


def resigned_seats(ctx: Context, board: Board) -> set[int]:
    """Seats out of a game that plays on without them (their resign is a stored move)."""
    return set(ctx.session.scalars(select(Move.seat).where(Move.board_id == board.id, Move.move == "resign")))


def vote(ctx: Context, board: Board, game: Game, seat: int, user: User, word: str) -> tuple[Any, str]:
    """``propose``, ``undo``, ``accept`` or ``reject`` by ``seat``: the state after it, and the headline."""
    pending = dict(board.pending or {})
    current = pending.get("vote")
    state = game.load(board.state)
    out = resigned_seats(ctx, board)
    if seat in out:
        raise CommandError(f"{user.userid} has resigned from {game.title} Board {board.number} and has no vote",
                           board=board, title=game.title)
    voters = {s.seat for s in board.seats} - out
    if word in KINDS:
        if current:
            raise CommandError(
                f"{current['by']} already proposes {current['kind']}: accept or reject that first",
                board=board, title=game.title,
            )
        if word == "undo" and board.ply == 0:
            raise CommandError("There is no move to take back yet", board=board, title=game.title)
        pending["vote"] = {"kind": KINDS[word], "word": word, "by": user.userid, "by_seat": seat, "accepted": [seat],
                           "voters": sorted(voters)}
        board.pending = pending
        board.vote_since = ctx.now
        return state, f"{user.userid} proposes {KINDS[word]}. The other players: send accept or reject."
    if not current:
        raise CommandError("Nothing to accept or reject: no proposal is pending", board=board, title=game.title)
    if word == "reject":
        pending.pop("vote")
        board.pending = pending
        board.vote_since = None
        return state, f"{user.userid} rejects {current['kind']} (proposed by {current['by']})."
    if seat in current["accepted"]:
        raise CommandError(f"You already accept {current['kind']}", board=board, title=game.title)
    current = {**current, "accepted": [*current["accepted"], seat]}
    if not voters <= set(current["accepted"]):
        pending["vote"] = current
        board.pending = pending
        return state, f"{user.userid} accepts {current['kind']}."
    state = carry(ctx, board, game, current, out)
    done = "the game is drawn by agreement" if current["word"] == "propose" else "the last move is taken back"
    return state, f"{user.userid} accepts: {done}."


def carry(ctx: Context, board: Board, game: Game, current: dict[str, Any], out: set[int]) -> Any:
    """Everyone has accepted: end in a draw or take the move back; the new state."""
    pending = dict(board.pending or {})
    pending.pop("vote", None)
    board.pending = pending
    board.vote_since = None
    if current["word"] == "propose":
        # Those still playing share the draw; a seat that resigned earlier stays lost.
        boards.finish(board, Outcome(winners=(), losers=tuple(sorted(out)), reason="draw by agreement"), ctx.now)
        return game.load(board.state)
    return take_back(ctx, board, game)


def settle_by_silence(ctx: Context, board: Board, game: Game) -> list[Mail]:
    """The offer has waited the board's forfeit time: silence counts as accept, everyone is told."""
    current = (board.pending or {})["vote"]
    users = boards.seat_users(board)
    silent = " and ".join(users[s].userid for s in boards.owing_votes(board))
    state = carry(ctx, board, game, current, resigned_seats(ctx, board))
    done = "the game is drawn by agreement" if current["word"] == "propose" else "the last move is taken back"
    headline = (f"{silent} did not answer {current['by']}'s offer of {current['kind']} within "
                f"{board.forfeittime:g} days: silence counts as accept, so {done}.")
    return boards.announce(ctx, board, game, state, headline)


def take_back(ctx: Context, board: Board, game: Game) -> Any:
    """Drop the last stored move and rebuild the board from the move list."""
    ctx.session.execute(delete(Move).where(Move.board_id == board.id, Move.ply == board.ply))
    board.ply -= 1
    state = boards.replay(game, board, boards.moves_of(ctx.session, board))
    boards.apply_state(board, game, state, ctx.now)
    pending = dict(board.pending or {})
    pending.pop("submit", None)  # it was checked against the position now taken back
    board.pending = pending
    conditional.clear_all(board, "a move was taken back")  # so were the trees
    # This ply's turn begins again: its reminders start over (timers keys them by ply).
    forget_reminders(ctx.session, board)
    return state


# -- clocks --------------------------------------------------------------------------------


def restart_clock(session: Session, board: Board, now: datetime) -> None:
    """Start the turn's clock again (back from vacation): a full nag time before the next reminder."""
    board.turn_since = now
    board.reminders_sent = 0
    forget_reminders(session, board)


def forget_reminders(session: Session, board: Board) -> None:
    """Drop reminder rows of this ply and later ones (after a take-back, or a restarted clock)."""
    session.execute(delete(Reminder).where(Reminder.board_id == board.id, Reminder.ply >= board.ply))


def back_from_vacation(session: Session, user: User, now: datetime) -> int:
    """The clocks stood still for the vacation: where it is ``user``'s move, the turn starts afresh.

    Returns how many boards were waiting for them.
    """
    waiting = session.scalars(
        select(Board).join(Seat).where(Seat.user_id == user.id, Board.status == "active",
                                       Board.to_move == Seat.seat,
                                       # a tournament board's clock runs on (server/boards/tournaments.py)
                                       Board.tournament_id.is_(None)).with_for_update()
    ).all()
    for board in waiting:
        restart_clock(session, board, now)
    return len(waiting)
