"""``GAME conditional BOARD USERID PASSWORD``: a tree of answers to the others' moves.

The branches come one a line in the body (or one branch after the
password, or in a reply to the board mail: ``conditional`` or ``if C3 then
E5`` on the first line, more lines below it).  A new tree replaces the
old one and the player's queued move: the last one sent is what the server
plays (see ``server.boards.conditional`` for the tree itself).  ``list``
mails the board with the tree, ``clear`` drops it.

The answer goes to the sender alone, with their board: a tree is its
owner's business until a move of it is played.
"""

from __future__ import annotations

from games import Game
from server.boards import boards, conditional
from server.commands.base import CommandError, Context, Result
from server.commands.play import BoardCommand, require_active
from server.commands.registry import game_verb
from server.mail.replies import board_root
from server.store.model import Board

USAGE = "conditional BOARD USERID PASSWORD [list | clear], the branches one a line in the body"


@game_verb
class Conditional(BoardCommand):
    name = "conditional"
    abbrev = 4
    private_from = 3  # a branch typed after the password: its owner's alone, never logged
    argument_description = "BOARD USERID PASSWORD [list | clear] (branches: one a line in the body)"
    description = ("Answers to the others' next moves, played for you at once: one branch a line, in turn "
                   "order (C3 E5 G7 A1 = if C3 then E5, then if G7 then A1); see 'help conditional'.")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        board, user, seat = self.open(ctx, game, args, USAGE)
        require_active(board, game)
        word = " ".join(args[3:]).lower()
        if word == "list":
            headline = ("Your conditional moves are below." if conditional.tree_of(board, seat)
                        else "You have no conditional moves on this board.")
            return own_board(ctx, board, game, seat, headline)
        if word == "clear":
            if not conditional.tree_of(board, seat):
                raise CommandError(f"You have no conditional moves on {game.title} Board {board.number}",
                                   board=board, title=game.title)
            conditional.store(board, seat, {})
            return own_board(ctx, board, game, seat, "Your conditional moves are cleared.")
        lines = ([" ".join(args[3:])] if args[3:] else []) + conditional.branch_lines(ctx.request.comment)
        if not lines:
            raise CommandError(f"No conditional moves given: {game.name} {USAGE}. See 'help conditional'.",
                               board=board, title=game.title)
        if board.to_move == seat:
            raise CommandError(f"It is your move on {game.title} Board {board.number}: play it first; "
                               "conditional moves answer the others' moves", board=board, title=game.title)
        try:
            checked = conditional.check(game, game.load(board.state), seat, lines, boards.canonical_move)
        except conditional.TreeRefused as exc:
            raise CommandError(
                "Your conditional moves are refused, and nothing of this mail is stored.\n"
                f"Line {exc.number}: {exc.line}\n{exc.why}.",
                board=board, title=game.title) from None
        pending = dict(board.pending or {})
        queue = dict(pending.get("queue", {}))
        dropped = queue.pop(str(seat), None)
        pending["queue"] = queue
        if not queue:
            pending.pop("queue")
        board.pending = pending
        replaced = bool(conditional.tree_of(board, seat))
        conditional.store(board, seat, checked.tree)
        count = f"{checked.lines} line{'' if checked.lines == 1 else 's'}"
        headline = f"Your conditional moves ({count}) are stored."
        if replaced:
            headline += " They replace your earlier ones."
        if dropped:
            headline += f" They replace your queued move {dropped['move']}."
        return own_board(ctx, board, game, seat, headline)


def own_board(ctx: Context, board: Board, game: Game, seat: int, headline: str,
              subject: str = "conditional") -> Result:
    """The board as its owner sees it (with their queued or conditional moves), for them alone.

    The subject says what was asked ("... Board 101 conditional"), not whose
    move it is: this mail does not invite a move.
    """
    state = game.load(board.state)
    moves = boards.moves_of(ctx.session, board)
    text = boards.board_text(ctx.settings, board, game, state, moves, headline, seat, False,
                             note=boards.own_note(board, seat, {}))
    return Result(text, subject=f"{game.title} Board {board.number} {subject}",
                  references=[board_root(ctx.settings, game.name, board.number)])
