"""Votes on a board: a draw offer or a take-back, settled by every other player.

All other players still in the game must accept (a seat that resigned from
a game that plays on has no vote, and loses a draw agreed after it); one
reject cancels; a normal move cancels a pending offer (see ``play_move``).

An offer that stalls (3-player games especially) is the timers' business,
as in pbmserv: the board mail names who still owes a vote, ``pbmserv
remind`` reminds them once per nag period from ``Board.vote_since``, and at
the board's forfeit time a non-voter's silence counts as accept
(:func:`settle_by_silence`); everyone is told.
"""

from __future__ import annotations

from sqlalchemy import delete, select

from games import Game, Outcome
from server import boards
from server.commands.base import CommandError, Context, Result
from server.commands.play import played
from server.model import Board, Move, User
from server.replies import Mail

KINDS = {"propose": "a draw", "undo": "taking back the last move"}


def resigned_seats(ctx: Context, board: Board) -> set[int]:
    """Seats out of a game that plays on without them (their resign is a stored move)."""
    return set(ctx.session.scalars(select(Move.seat).where(Move.board_id == board.id, Move.move == "resign")))


def vote(ctx: Context, board: Board, game: Game, seat: int, user: User, word: str) -> Result:
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
        headline = f"{user.userid} proposes {KINDS[word]}. The other players: send accept or reject."
        return played(ctx, board, game, state, headline, user.userid, seat)
    if not current:
        raise CommandError("Nothing to accept or reject: no proposal is pending", board=board, title=game.title)
    if word == "reject":
        pending.pop("vote")
        board.pending = pending
        board.vote_since = None
        headline = f"{user.userid} rejects {current['kind']} (proposed by {current['by']})."
        return played(ctx, board, game, state, headline, user.userid, seat)
    if seat in current["accepted"]:
        raise CommandError(f"You already accept {current['kind']}", board=board, title=game.title)
    current = {**current, "accepted": [*current["accepted"], seat]}
    if not voters <= set(current["accepted"]):
        pending["vote"] = current
        board.pending = pending
        return played(ctx, board, game, state, f"{user.userid} accepts {current['kind']}.", user.userid, seat)
    state = carry(ctx, board, game, current, out)
    done = "the game is drawn by agreement" if current["word"] == "propose" else "the last move is taken back"
    return played(ctx, board, game, state, f"{user.userid} accepts: {done}.", user.userid, seat)


def carry(ctx: Context, board: Board, game: Game, current: dict, out: set[int]):  # type: ignore[no-untyped-def]
    """Everyone has accepted: end in a draw or take the move back; the new state."""
    pending = dict(board.pending or {})
    pending.pop("vote", None)
    board.pending = pending
    board.vote_since = None
    if current["word"] == "propose":
        # Those still playing share the draw; a seat that resigned earlier stays lost.
        boards.finish(board, Outcome(winners=(), losers=tuple(sorted(out)), reason="draw by agreement"))
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


def take_back(ctx: Context, board: Board, game: Game):  # type: ignore[no-untyped-def]
    """Drop the last stored move and rebuild the board from the move list."""
    ctx.session.execute(delete(Move).where(Move.board_id == board.id, Move.ply == board.ply))
    board.ply -= 1
    state = boards.replay(game, board, boards.moves_of(ctx.session, board))
    boards.apply_state(board, game, state)
    pending = dict(board.pending or {})
    pending.pop("submit", None)  # it was checked against the position now taken back
    board.pending = pending
    # This ply's turn begins again: its reminders start over (timers keys them by ply).
    from server.timers import forget_reminders

    forget_reminders(ctx.session, board)
    return state
