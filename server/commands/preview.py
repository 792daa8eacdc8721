"""``preview``: what-if on a copy of a board (or of a new one), for the sender only.

Nothing is locked and nothing is stored: the moves are played on a state
loaded from the board (or replayed to ``#N``, or started fresh for
``preview new``), and the result is mailed to whoever asked.  Moves are
separated by spaces; a game whose moves contain spaces takes them separated
by commas instead.
"""

from __future__ import annotations

from typing import Any

from games import Game, GameError
from server.boards import boards
from server.commands.base import Command, CommandError, Context, Result
from server.commands.play import game_options
from server.commands.registry import GAME_VERBS, GameCommand, game_verb, general
from server.mail.replies import board_root
from server.mail.wrapping import wrap_indented
from server.pictures import cache as pictures


def split_moves(words: list[str]) -> list[str]:
    text = " ".join(words)
    if "," in text or ";" in text:
        return [m.strip() for m in text.replace(";", ",").split(",") if m.strip()]
    return words


def play_through(game: Game, state: Any, moves: list[str], label: Any) -> tuple[Any, list[str]]:
    """Play ``moves`` in turn order on ``state``; each step names who played it."""
    done = []
    for index, move in enumerate(moves, start=1):
        seat = game.to_move(state)
        if seat is None:
            raise CommandError(f"Preview: the game is over before move {index} ({move})", title=game.title)
        try:
            state = game.play(state, seat, move)
        except GameError as exc:
            raise CommandError(f"Preview: move {index} ({move}) by {label(state, seat)} is refused: {exc}",
                               title=game.title) from None
        done.append(f"{label(state, seat)} {move}")
    return state, done


def outcome_line(game: Game, state: Any, label: Any) -> str:
    outcome = game.outcome(state)
    if outcome is None:
        seat = game.to_move(state)
        return f"It would be {label(state, seat)}'s move." if seat is not None else ""
    if outcome.winners:
        who = " and ".join(label(state, s) for s in outcome.winners)
        text = f"The game would be over: {who} {'wins' if len(outcome.winners) == 1 else 'win'} ({outcome.reason})."
    else:
        text = f"The game would be over: a draw ({outcome.reason})."
    return text + (f" Grade: {outcome.grade}." if outcome.grade else "")


@game_verb
class Preview(GameCommand):
    name = "preview"
    abbrev = 4
    argument_description = "BOARD[#N] MOVE ... | new [NUMPLAYERS] [-OPTION[=VALUE] ...] MOVE ..."
    description = "What-if: plays the moves on a copy and mails the result to you only; nothing is stored."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if not args:
            raise CommandError(f"Usage: {game.name} preview BOARD[#N] MOVE ..., or "
                               f"{game.name} preview new [-OPTION ...] MOVE ...", title=game.title)
        if args[0].lower() == "new":
            return self.new_board(ctx, game, args[1:])
        number, at = boards.parse_board_ref(args[0])
        board = boards.find_board(ctx.session, game, number)
        moves = boards.moves_of(ctx.session, board)
        if at is not None and at > len(moves):
            raise CommandError(f"Board {number} has only {len(moves)} moves; #{at} is not one",
                               board=board, title=game.title)
        if at is None and board.status != "active":
            raise CommandError(f"{game.title} Board {number} is over; preview it from an earlier move, "
                               f"e.g. {number}#{len(moves)}", board=board, title=game.title)
        state = game.load(board.state) if at is None else boards.replay(game, board, moves, at)
        wanted = split_moves(args[1:])
        if not wanted:
            raise CommandError("No moves to preview: name at least one", board=board, title=game.title)

        def label(st: Any, seat: int) -> str:
            return boards.player_label(board, game, st, seat)

        state, done = play_through(game, state, wanted, label)
        start = f"move #{at + 1}" if at is not None else f"move #{board.ply + 1}"
        head = (f"Preview of {game.title} Board {number} from {start}: " + ", ".join(done)
                + ". Nothing is stored; this mail went to you only.")
        players = ", ".join(label(state, i) for i in range(len(board.seats)))
        moveno = (board.ply if at is None else at) + len(done) + 1
        body = "\n\n".join(p for p in (wrap_indented(head), outcome_line(game, state, label),
                                      boards.render(board, game, state, None, moveno), f"Players: {players}") if p)
        return Result(body + "\n", subject=f"{game.title} Board {number} Preview",
                      references=[board_root(ctx.settings, game.name, number)],
                      pictures=boards.picture(ctx.settings, board, game, state))

    def new_board(self, ctx: Context, game: Game, args: list[str]) -> Result:
        players = game.players
        if args and args[0].isdigit() and len(args[0]) <= 2:  # the original's "preview new NUMPLAYERS ..."
            players = int(args.pop(0))
            if players != game.players:
                raise CommandError(f"{game.title} is played by {game.players} players, not {players}",
                                   title=game.title)
        options = game_options(game, [a for a in args if a.startswith("-")])
        wanted = split_moves([a for a in args if not a.startswith("-")])
        state = game.start(options, players)

        def label(st: Any, seat: int) -> str:
            names = game.seat_names(st)
            return names[seat] if seat < len(names) else f"Player {seat + 1}"

        state, done = play_through(game, state, wanted, label)
        shown = " ".join(a for a in args if a.startswith("-"))
        head = (f"Preview of a new {game.title} board{' (' + shown + ')' if shown else ''}"
                + (": " + ", ".join(done) if done else ", before any move") + ". Nothing is stored.")
        body = "\n\n".join(p for p in (wrap_indented(head), outcome_line(game, state, label),
                                      game.render(state, compact=bool(options.get("compact"))).rstrip("\n")) if p)
        pic = pictures.make(game, state, None, "preview") if ctx.settings.pictures else None
        return Result(body + "\n", subject=f"{game.title} Preview", pictures=[pic] if pic else [])


@general
class PreviewAnyGame(Command):
    """``preview new GAME ...`` / ``preview GAME BOARD ...``: the same, with the game named after."""

    name = "preview"
    abbrev = 4
    argument_description = "new GAME [NUMPLAYERS] [-OPTION[=VALUE] ...] MOVE ... | GAME BOARD[#N] MOVE ..."
    description = "Same as 'GAME preview ...', for those who name the game second."

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) >= 2 and args[0].lower() == "new":
            game = boards.plugin_for(args[1])
            return GAME_VERBS["preview"].run(ctx, game, ["new", *args[2:]])
        if len(args) >= 3 and args[1].lower() == "new":  # "preview GAME new ...": the game first, as in GAME preview
            game = boards.plugin_for(args[0])
            return GAME_VERBS["preview"].run(ctx, game, args[1:])
        if len(args) >= 2:
            game = boards.plugin_for(args[0])
            return GAME_VERBS["preview"].run(ctx, game, args[1:])
        raise CommandError("Usage: preview new GAME [-OPTION ...] MOVE ..., or GAME preview BOARD[#N] MOVE ...")
