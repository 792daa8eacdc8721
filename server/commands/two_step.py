"""``submit`` and ``confirm``: a move in two steps, for players who like to look first.

``submit`` checks the move on a copy of the board and stores it, unplayed,
in ``Board.pending["submit"]`` with the move number it was meant for; the
reply (to the sender only) shows the board as it would be.  ``confirm``
plays the stored move exactly as ``move`` would.  A new ``submit`` replaces
the old one; any move on the board (or a take-back) makes a submission void,
so a confirm never plays a move into a position it was not checked against.
"""

from __future__ import annotations

from games import Game, GameError
from server.boards import boards, lifecycle
from server.commands.base import CommandError, Context, Result
from server.commands.play import (
    SERVER_WORDS,
    BoardCommand,
    check_moveno,
    check_turn,
    played,
    require_active,
    split_moveno,
)
from server.commands.preview import outcome_line
from server.commands.registry import game_verb
from server.mail.replies import board_root


@game_verb
class Submit(BoardCommand):
    name = "submit"
    abbrev = 4  # "sub" is subscribe, as in pbmserv
    argument_description = "BOARD USERID PASSWORD MOVE[#N]"
    description = "Check MOVE and store it unplayed; you get the board as it would be. 'confirm' plays it."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        usage = "submit BOARD USERID PASSWORD MOVE[#N]"
        board, user, seat = self.open(ctx, game, args, usage)
        if len(args) < 4:
            raise CommandError(f"No move given: {game.name} {usage}", board=board, title=game.title)
        move, moveno = split_moveno(" ".join(args[3:]))
        require_active(board, game)
        check_moveno(board, game, moveno)
        check_turn(board, game, seat)
        if move.lower() in SERVER_WORDS:
            raise CommandError(f"{move} is not submitted: send it with 'move'", board=board, title=game.title)
        try:
            state = game.play(game.load(board.state), seat, move)
        except GameError as exc:
            raise CommandError(str(exc), board=board, title=game.title) from None
        pending = dict(board.pending or {})
        pending["submit"] = {str(seat): {"move": move, "ply": board.ply}}
        board.pending = pending

        def label(st: object, s: int) -> str:
            return boards.player_label(board, game, st, s)

        head = (f"Submitted on {game.title} Board {board.number}: {move} (move #{board.ply + 1}), NOT played yet. "
                f"To play it send: {game.name} confirm {board.number} {user.userid} PASSWORD")
        body = "\n\n".join(p for p in (head, "If you confirm it: " + outcome_line(game, state, label),
                                      boards.render(board, game, state, seat)) if p)
        return Result(body + "\n", subject=f"{game.title} Board {board.number} submitted",
                      references=[board_root(ctx.settings, game.name, board.number)],
                      pictures=boards.picture(ctx.settings, board, game, state))


@game_verb
class Confirm(BoardCommand):
    name = "confirm"
    argument_description = "BOARD USERID PASSWORD"
    description = "Play the move you submitted (everyone gets the board, as after 'move')."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        board, user, seat = self.open(ctx, game, args, "confirm BOARD USERID PASSWORD")
        if len(args) != 3:
            raise CommandError(f"Usage: {game.name} confirm BOARD USERID PASSWORD", board=board, title=game.title)
        require_active(board, game)
        submitted = (board.pending or {}).get("submit", {}).get(str(seat))
        if submitted is None or submitted["ply"] != board.ply:
            raise CommandError(f"You have no submitted move for move #{board.ply + 1} on {game.title} Board "
                               f"{board.number}: submit one first", board=board, title=game.title)
        check_turn(board, game, seat)
        move = submitted["move"]
        state, notes, move = lifecycle.play_move(ctx, board, game, seat, move)
        headline = f"{user.userid} played {move}. {notes.public}".strip()
        return played(ctx, board, game, state, headline, user.userid, seat, notes.private)
