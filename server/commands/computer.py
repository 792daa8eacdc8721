"""``hint`` and ``review``: the computer opponent's advice, by mail.

Both are answered in a mail of their own by the computer's process
(server/processes/computer.py): a search must not run inside this command's
transaction, which holds the board (and, on SQLite, the database's write
lock).  This command checks the player and the board, queues the request
and says so.
"""

from __future__ import annotations

from games import Game
from server.boards import boards, computer
from server.commands.base import CommandError, Context, Result, authenticate
from server.commands.registry import GameCommand, game_verb
from server.mail.replies import board_root
from server.store.model import Board, User


def _open(ctx: Context, game: Game, args: list[str], verb: str) -> tuple[Board, User, int | None]:
    if len(args) < 3:
        raise CommandError(f"Usage: {game.name} {verb} BOARD USERID PASSWORD", title=game.title)
    number, at = boards.parse_board_ref(args[0])
    board = boards.find_board(ctx.session, game, number, lock=True)
    user = authenticate(ctx, args[1], args[2], board)
    seat = boards.seat_of(board, user)
    if seat is None:
        raise CommandError(f"{user.userid} is not playing on {game.title} Board {number}", board=board,
                           title=game.title)
    return board, user, at


@game_verb
class Hint(GameCommand):
    name = "hint"
    argument_description = "BOARD[#N] USERID PASSWORD"
    description = ("The computer's best move for the player to move, its top three and why, by mail: on a "
                   "board where every opponent is the computer, or a finished board (#N: after move N).")
    password_args = (2,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        board, user, at = _open(ctx, game, args, "hint")
        seat = boards.seat_of(board, user)
        assert seat is not None
        finished = board.status != "active"
        if not finished and not computer.only_computer_opponents(board, seat):
            raise CommandError("Hints are for boards where every opponent is the computer, and for finished "
                               "boards: a person is playing you here", board=board, title=game.title)
        if at is not None and not finished:
            raise CommandError("BOARD#N is for a finished board; a hint on a running one is for its "
                               "position now", board=board, title=game.title)
        return _queue(ctx, game, board, user, "hint", at)


@game_verb
class Review(GameCommand):
    name = "review"
    argument_description = "BOARD USERID PASSWORD"
    description = ("On a finished board: each player's moves where the computer's estimate fell most, "
                   "with the move it prefers, in one mail.")
    password_args = (2,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        board, user, at = _open(ctx, game, args, "review")
        if board.status == "active":
            raise CommandError(f"{game.title} Board {board.number} is still being played: a review is for a "
                               "finished board", board=board, title=game.title)
        if at is not None:
            raise CommandError("A review covers the whole game: name the board without #N",
                               board=board, title=game.title)
        return _queue(ctx, game, board, user, "review", None)


def _queue(ctx: Context, game: Game, board: Board, user: User, kind: str, at: int | None) -> Result:
    if at is not None and not 0 <= at <= board.ply:
        raise CommandError(f"Board {board.number} has {board.ply} moves; #{at} is not one of them",
                           board=board, title=game.title)
    computer.queue_request(ctx.session, ctx.settings, kind, board, user, ctx.request.sender,
                           ctx.request.message_id, board.ply if at is None else at)
    what = {"hint": "a hint", "review": "a review"}[kind]
    text = (f"The computer is working out {what} for {game.title} Board {board.number}; it comes in a mail "
            "of its own in a moment.")
    return Result(text, subject=f"{game.title} Board {board.number} {kind}",
                  references=[board_root(ctx.settings, game.name, board.number)])
