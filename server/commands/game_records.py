"""``GAME record BOARD[#N]``, and reading a record a player mails in.

Not to be confused with ``records.py`` (history and standings): this is the
game record of games/record.py, the one text that says what was played.
A record comes back as the first text attachment of a mail, or as its body
(``Request.document``); ``GAME preview record`` (server.commands.preview)
and ``GAME challenge ... --record[=N]`` (server.commands.play) read it here.
"""

from __future__ import annotations

from typing import Any

from games import Game
from games.record import RESIGN, GameRecord, RecordError, Replay, parse, replay, text_before
from server.boards import board_record, boards, lifecycle
from server.commands.base import CommandError, Context, Result
from server.commands.registry import GameCommand, game_verb
from server.mail.replies import board_root
from server.mail.wrapping import wrap
from server.store.model import Board

#: Where the format is written down, for the player who wants to read or write one.
FORMAT_DOC = "docs/record-format.md in pbmserv's sources"


def read_record(ctx: Context, game: Game, upto: int | None = None) -> tuple[GameRecord, Replay]:
    """The record the mail carries, played through the rules (the first ``upto`` moves)."""
    text = ctx.request.document
    try:
        record = parse(text)
        if upto is not None and upto > len(record.entries):
            raise RecordError(0, f"the record has {len(record.entries)} moves; #{upto} is not one")
        return record, replay(game, record, upto)
    except RecordError as exc:
        where = ("Attach the record as a text file, or put it in the body of the mail"
                 if not text.strip() else "Nothing was done")
        raise CommandError(f"The game record was not read: {exc}. {where}.", title=game.title) from None


@game_verb
class RecordCommand(GameCommand):
    name = "record"
    abbrev = 6
    argument_description = "BOARD[#N]"
    description = ("The board's game record (every move, in a text format other programs can read), "
                   "to you; #N: its first N moves.")

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) != 1:
            raise CommandError(f"Usage: {game.name} record BOARD[#N]", title=game.title)
        board, moves, at = boards.board_at(ctx.session, game, args[0])
        number = board.number
        text = board_record.record_text(board, game, moves, at, site=ctx.settings.address)
        if at is not None and at < len(moves):
            which = f"its first {at} of {len(moves)} moves"
        elif board.status == "active":
            which = f"the {len(moves)} move{'s' if len(moves) != 1 else ''} played so far"
        else:
            which = f"all {len(moves)} moves; the game is over"
        head = (f"The game record of {game.title} Board {number} ({which}), attached and below the "
                f"line. Mailed back as an attachment or as the body, it is read by "
                f"'{game.name} preview record [#N]' and '{game.name} challenge USER1 USER2 --record[=N]'. "
                f"The format: {FORMAT_DOC}.")
        name = board_record.record_filename(board)
        if at is not None and at < len(moves):
            name = name.replace(".pbmr", f"-{at}.pbmr")
        return Result(f"{wrap(head)}\n\n{'-' * 40}\n{text}", subject=f"{game.title} Board {number} record",
                      references=[board_root(ctx.settings, game.name, number)], attachments=[(name, text)])


def from_record(ctx: Context, game: Game, value: str) -> tuple[Replay, int]:
    """``--record`` / ``--record=N`` of a challenge: the record played to move N (default: its end).

    Refused when the game is over there: a board must have a move to make.
    """
    if value and not value.isdigit():
        raise CommandError(f"--record={value}: give the move to start after, e.g. --record=12", title=game.title)
    record, played = read_record(ctx, game, int(value) if value else None)
    if game.to_move(played.final) is None:
        at = len(played.moves)
        raise CommandError(f"The record's game is over after move {at}: name an earlier move, e.g. "
                           f"--record={max(at - 1, 0)}", title=game.title)
    return played, len(played.moves)


def challenge_comment(ctx: Context) -> str:
    """A challenge's comment is the body, but not the record in it: only what the player wrote above it."""
    return text_before(ctx.request.comment)


def play_opening(ctx: Context, board: Board, game: Game, state: Any, moves: list[tuple[int, str]]) -> Any:
    """A new board plays the record's first moves as its own, by the seats that made them, as the rules do."""
    for seat, move in moves:
        if move == RESIGN:
            state = game.resign(state, seat)
            boards.record_move(ctx.session, board, seat, move)
            boards.apply_state(board, game, state)
        else:
            state, _ = lifecycle.store_move(ctx, board, game, state, seat, move)
    return state
