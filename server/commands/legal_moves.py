"""``GAME moves BOARD [FROM]`` and ``GAME why BOARD MOVE``: what can I play here?

A web site highlights legal moves under the mouse; a mail player of
TriMac's 207 points or Tri-D's attack boards could only guess.  ``moves``
lists the legal moves of the player to move, grouped by where they start
(the game's own notation: ``Ri5``, ``Ba2W``, ``QL4``), ``why`` says whether
one move would be played now and, if not, the same reason a refused move
gets.  Both read the board and change nothing; the answer goes to the asker
only (a position is public: ``show`` draws it for anyone).
"""

from __future__ import annotations

import re
from typing import Any

from games import Game, GameError
from server.boards import boards
from server.commands.base import CommandError, Context, Result
from server.commands.play import split_moveno
from server.commands.registry import GameCommand, game_verb
from server.mail.replies import board_root
from server.mail.wrapping import WIDTH, wrap
from server.store.model import Board

#: Lines of grouped moves in one reply; past them the rest is counted, not listed.
MOVES_LINES = 40


def open_position(ctx: Context, game: Game, ref: str) -> tuple[Board, Any, int]:
    """The active board, its state and the seat to move (a finished board has no moves to ask about)."""
    number, at = boards.parse_board_ref(ref)
    if at is not None:
        raise CommandError(f"{ref}: name the board without #N; moves and why are about the board as it is now",
                           title=game.title)
    board = boards.find_board(ctx.session, game, number)
    state = game.load(board.state)
    seat = game.to_move(state)
    if board.status != "active" or seat is None:
        raise CommandError(f"{game.title} Board {number} has no moves to make. " + boards.status_line(board, game, state),
                           board=board, title=game.title)
    return board, state, seat


def natural(text: str) -> list[tuple[int, int | str]]:
    """Sort key reading numbers as numbers (``A3`` before ``A10``), letters without case."""
    return [(0, int(part)) if part.isdigit() else (1, part.casefold()) for part in re.split(r"(\d+)", text)]


def grouped(game: Game, moves: list[str]) -> list[tuple[str, list[str]]]:
    """(origin, endings), both sorted as a player looks them up; moves without an origin last, under ""."""
    groups: dict[str, list[str]] = {}
    for move in moves:
        origin, rest = game.move_origin(move)
        groups.setdefault(origin, []).append(rest)
    return [(origin, sorted(groups[origin], key=natural))
            for origin in sorted(groups, key=lambda o: (o == "", natural(o)))]


def group_lines(origin: str, endings: list[str], width: int) -> list[str]:
    """One group: the origin padded to ``width``, then its endings, wrapped under the endings' column."""
    lead = f"  {origin:<{width}}  " if width else "  "
    lines, line = [], lead
    for ending in endings:
        if len(line) + len(ending) > WIDTH and line != lead:
            lines.append(line.rstrip())
            line = " " * len(lead)
        line += ending + " "
    return lines + [line.rstrip()]


def listing(groups: list[tuple[str, list[str]]], limit: int = MOVES_LINES) -> tuple[list[str], int, int]:
    """The lines of ``groups`` up to ``limit``, and (moves, places) left out."""
    width = max((len(origin) for origin, _ in groups), default=0)
    lines: list[str] = []
    left_moves = left_places = 0
    for origin, endings in groups:
        block = group_lines(origin, endings, width)
        room = limit - len(lines)
        if left_moves or len(block) > room and (origin or room <= 0):
            left_moves += len(endings)
            left_places += 1 if origin else 0
            continue
        if len(block) > room:  # moves without an origin (placements): as many as fit
            block = block[:room]
            left_moves += len(endings) - sum(len(b.split()) for b in block)
        lines += block
    return lines, left_moves, left_places


def matches(origin: str, wanted: str) -> bool:
    """FROM names this origin: the whole of it (``Ba2W``), or it without its piece letter (``a2W``)."""
    key = wanted.lower()
    return origin.lower() == key or (origin[:1].isupper() and origin[1:].lower() == key and len(key) > 1)


def piece_words(count: int) -> str:
    return f"{count} legal move{'s' if count != 1 else ''}"


@game_verb
class Moves(GameCommand):
    name = "moves"
    abbrev = 5
    argument_description = "BOARD [FROM]"
    description = "The legal moves of the player to move, grouped by where they start (FROM: only those), to you."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) not in (1, 2):
            raise CommandError(f"Usage: {game.name} moves BOARD [FROM]", title=game.title)
        board, state, seat = open_position(ctx, game, args[0])
        legal = game.legal_moves(state)
        who = boards.player_label(board, game, state, seat)
        head = f"{game.title} Board {board.number}, move #{board.ply + 1}: {who}"
        groups = grouped(game, legal)
        if len(args) == 2:
            wanted = args[1]
            chosen = [(o, e) for o, e in groups if o and matches(o, wanted)]
            if not chosen:  # a placement game: FROM is a point, and its move is itself
                same = [e for o, endings in groups if not o for e in endings if e.lower() == wanted.lower()]
                chosen = [("", same)] if same else []
            count = sum(len(e) for _, e in chosen)
            if not count:
                text = (f"{head} has no legal move from {wanted} ({piece_words(len(legal))} in all; "
                        f"'{game.name} moves {board.number}' lists them).")
                return self.reply(ctx, game, board, wrap(text))
            head += f" has {piece_words(count)} from {wanted}:"
            groups = chosen
        else:
            places = sum(1 for origin, _ in groups if origin)
            head += f" has {piece_words(len(legal))}" + (f", from {places} places:" if places else ":")
        lines, left_moves, left_places = listing(groups)
        body = [wrap(head), "", *lines]
        if left_moves:
            more = f"... and {piece_words(left_moves)} more" + (f" from {left_places} more places" if left_places
                                                                   else "")
            body += ["", wrap(f"{more}: send '{game.name} moves {board.number} FROM' for one place.")]
        if any(origin for origin, _ in groups):
            example = next(origin + endings[0] for origin, endings in groups if origin)
            body += ["", wrap(f"A move is its place and one of the endings beside it (e.g. {example}).")]
        return self.reply(ctx, game, board, "\n".join(body))

    @staticmethod
    def reply(ctx: Context, game: Game, board: Board, text: str) -> Result:
        return Result(text + "\n", subject=f"{game.title} Board {board.number} moves",
                      references=[board_root(ctx.settings, game.name, board.number)])


@game_verb
class Why(GameCommand):
    name = "why"
    argument_description = "BOARD MOVE"
    description = "Whether MOVE would be played now, and if not the reason a refused move gets, to you."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) < 2:
            raise CommandError(f"Usage: {game.name} why BOARD MOVE", title=game.title)
        board, state, seat = open_position(ctx, game, args[0])
        move, _ = split_moveno(" ".join(args[1:]))
        who = boards.player_label(board, game, state, seat)
        where = f"{game.title} Board {board.number}, move #{board.ply + 1}"
        try:
            after = game.play(state, seat, move)
        except GameError as exc:
            text = f"{move} would be refused on {where} ({who} to move): {exc}"
        else:
            spelled = boards.canonical_move(game, state, seat, move, after)
            text = f"{move} would be played on {where}: it is legal for {who}."
            if spelled != move:
                text += f" It is written {spelled}."
            if game.outcome(after) is not None:
                text += " It would end the game."
        return Result(wrap(text) + "\n", subject=f"{game.title} Board {board.number} why",
                      references=[board_root(ctx.settings, game.name, board.number)])
