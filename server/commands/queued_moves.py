"""``GAME queue``: a move stored now and played when its owner's turn comes.

One queued move per player and board, kept in ``Board.pending["queue"]``
(keyed by seat).  ``server.boards.lifecycle.apply_queued`` plays it as soon as that seat is to
move, if it is still legal then; if not, it is dropped and the board mail
says so.  Queued moves are private: nobody else is told of one until it is
played.  The answer is the board, as the original mailed it back ("You
have the following move queued").

A queued move and a conditional tree (``server.boards.conditional``) are
one player's instructions for their next turns: the last one sent is the
one kept, so a queued move replaces the tree and a tree the queued move.
"""

from __future__ import annotations

from games import Game
from server.boards import conditional
from server.commands.base import CommandError, Context, Result
from server.commands.conditional import own_board
from server.commands.play import (
    SERVER_WORDS,
    BoardCommand,
    MoveCommand,
    require_active,
    split_moveno,
)
from server.commands.registry import game_verb
from server.mail.wrapping import wrap


@game_verb
class Queue(BoardCommand):
    name = "queue"
    aliases = ("qmove", "moveq", "qboard", "boardq")
    argument_description = "BOARD USERID PASSWORD MOVE[#N] | cancel"
    description = ("On your turn, same as move; otherwise MOVE is stored (one per player) and played for you "
                   "when your turn comes, if still legal; 'cancel' drops it.")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        usage = "queue BOARD USERID PASSWORD MOVE[#N]"
        board, user, seat = self.open(ctx, game, args, usage)
        if len(args) < 4:
            raise CommandError(f"No move given: {game.name} {usage}", board=board, title=game.title)
        require_active(board, game)
        text = " ".join(args[3:])
        subject = f"{game.title} Board {board.number} queue"
        pending = dict(board.pending or {})
        queued = dict(pending.get("queue", {}))
        if text.lower() == "cancel":
            if str(seat) not in queued:
                raise CommandError(f"You have no queued move on {game.title} Board {board.number}",
                                   board=board, title=game.title)
            dropped = queued.pop(str(seat))["move"]
            pending["queue"] = queued
            if not queued:
                pending.pop("queue")
            board.pending = pending
            return Result(f"Your queued move {dropped} on {game.title} Board {board.number} is cancelled.",
                          subject=subject)
        if board.to_move == seat:
            return MoveCommand().run(ctx, game, args)
        move, moveno = split_moveno(text)
        if move.lower() in SERVER_WORDS:
            raise CommandError(f"{move} cannot be queued: send it with 'move' (a resign out of turn "
                               "is kept until your turn by itself)", board=board, title=game.title)
        if moveno is not None and moveno <= board.ply + 1:
            raise CommandError(f"A queued move is for a later move than the current #{board.ply + 1}; "
                               f"#{moveno} is not", board=board, title=game.title)
        replaced = queued.get(str(seat), {}).get("move")
        queued[str(seat)] = {"move": move, "n": moveno}
        pending["queue"] = queued
        board.pending = pending
        when = f"at move #{moveno}" if moveno is not None else "when your turn comes"
        text = (f"You have the following move queued on {game.title} Board {board.number}: {move}. It is "
                f"played for you {when}, if it is legal then; if not, you are told and it is your move "
                "as usual.")
        if replaced:
            text += f" It replaces your earlier queued move {replaced}."
        if conditional.tree_of(board, seat):
            conditional.store(board, seat, {})
            text += " It replaces your conditional moves."
        return own_board(ctx, board, game, seat, wrap(text), subject="queue")
