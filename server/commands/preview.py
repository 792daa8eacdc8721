"""``preview``: what-if on a copy of a board (or of a new one), for the sender only.

Nothing is locked and nothing is stored: the moves are played on a state
loaded from the board (or replayed to ``#N``, or started fresh for
``preview new``), and the result is mailed to whoever asked.  Moves are
separated by spaces; a game whose moves contain spaces takes them separated
by commas instead.
"""

from __future__ import annotations

import re
from typing import Any

from games import Game, GameError
from server.boards import boards
from server.commands.base import Command, CommandError, Context, Result
from server.commands.game_records import read_record
from server.commands.play import game_options
from server.commands.registry import GAME_VERBS, GameCommand, game_verb, general
from server.mail.replies import board_root
from server.mail.wrapping import wrap_indented
from server.pictures import cache as pictures

#: Boards one ``preview record`` draws at most (one per move; TriMac's is 40 lines).
RECORD_BOARDS = 25


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
    argument_description = "BOARD[#N] MOVE ... | new [NUMPLAYERS] [-OPTION[=VALUE] ...] MOVE ... | record [#N]"
    description = ("What-if: plays the moves on a copy and mails the result to you only; nothing is stored. "
                   "'record': the game record attached (or the body), move by move or after #N.")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if not args:
            raise CommandError(f"Usage: {game.name} preview BOARD[#N] MOVE ..., or "
                               f"{game.name} preview new [-OPTION ...] MOVE ...", title=game.title)
        if args[0].lower() == "new":
            return self.new_board(ctx, game, args[1:])
        if args[0].lower() == "record":
            return self.record(ctx, game, args[1:])
        board, moves, at = boards.board_at(ctx.session, game, args[0])
        number = board.number
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

    def record(self, ctx: Context, game: Game, args: list[str]) -> Result:
        """``preview record [#N]``: a mailed game record, the board after each move (or after move N)."""
        if len(args) > 1 or (args and not re.fullmatch(r"#?\d{1,6}", args[0])):
            raise CommandError(f"Usage: {game.name} preview record [#N], with the record attached or as the body",
                               title=game.title)
        at = int(args[0].lstrip("#")) if args else None
        record, played = read_record(ctx, game, at)
        seats = record.seats or [f"seat {i + 1}" for i in range(game.players)]

        def label(st: Any, seat: int) -> str:
            names = game.seat_names(st)
            return f"{seats[seat]} ({names[seat]})" if seat < len(names) else seats[seat]

        compact = bool(played.options.get("compact"))
        shown = range(len(played.moves) + 1) if at is None else [at]
        cut = len(shown) > RECORD_BOARDS
        if cut:
            shown = range(RECORD_BOARDS)
        where = f"Board {record.tag('Board')} " if record.tag("Board") else ""
        head = (f"Preview of the {game.title} {where}record ({len(record.entries)} moves, "
                f"{' vs '.join(seats)})" + (f" after move {at}" if at is not None else "")
                + ". Nothing is stored; this mail went to you only.")
        parts = [wrap_indented(head)]
        for n in shown:
            state = played.states[n]
            if n == 0:
                title = "At the start:"
            else:
                seat, move = played.moves[n - 1]
                title = f"After move {n}, {label(state, seat)} {move}:"
            number = int(record.tag("Board")) if record.tag("Board").isdigit() else None
            parts += [title, boards.render_state(game, state, compact, None, number, seats, n + 1)]
        if cut:
            parts.append(wrap_indented(f"Boards after moves {RECORD_BOARDS} to {len(played.moves)} are left out; "
                                       f"send '{game.name} preview record #N' with the record for one of them."))
        parts.append(outcome_line(game, played.final, label))
        if at is None and record.tag("Result", "*") != "*" and game.outcome(played.final) is None:
            parts.append(wrap_indented(f"The record ends with {record.tag('Result')}: {record.tag('Reason')}."))
        return Result("\n\n".join(p for p in parts if p) + "\n", subject=f"{game.title} Preview record")

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
