"""Weave & Dungeon (W. D. Troyka, 2002) as a pbmserv rules plugin.

The board geometry lives in :mod:`.geometry` as data; :mod:`.moves` turns it
into move templates and the rules engine; :mod:`.notation` reads and writes
moves and position strings; :mod:`.explain` words refusals; :mod:`.render`
draws the board.  This module is only the contract glue.
"""

from __future__ import annotations

from typing import Any

from games.contract import Game, IllegalMove, OptionError, Outcome, clip_input, split_option
from games.weavedungeon import geometry as g
from games.weavedungeon.explain import why_illegal
from games.weavedungeon.moves import (
    COLOUR_NAMES,
    THRONE,
    TYPE_OF_LETTER,
    Move,
    Position,
    initial_position,
)
from games.weavedungeon.notation import (
    INITIAL_FEN,
    NotationError,
    format_move,
    parse_move,
    parse_position,
)
from games.weavedungeon.render import render as render_board

__all__ = ["GAME", "WeaveDungeon"]

OPTIONS_TEXT = "valid options: -compact, -position=<position string>"

HELP = """\
Weave & Dungeon (W. D. Troyka, 2002) -- two players, White moves first.

The 9x9 board is a Weave of 5 vertical and 5 horizontal strands over a
Dungeon of 16 cells (b,d,f,h x 2,4,6,8).  Where two strands cross is a
bridge (odd file and rank); one strand is on top, the other passes under it
through an underpass nobody can stop on.  The other Weave squares are
slopes.  Each strand is cut by its underpasses into segments of 2-3 squares
with one bridge each (25 segments).  Segment stepping: from any square of a
segment slide to its bridge, step down onto a slope of the strand passing
under it, and stop anywhere in that new segment.  It only goes one way round
each cell (the pinwheel), so such attacks are not always mutual.

Reading the board: the lower left corner without pieces, as mails draw it
(!+! a bridge with the vertical strand on top, =+= the horizontal one on
top, | | and - - slopes of a vertical and a horizontal strand, ### a cell):

     a   b   c   d   e
 3  =+= - - !+! - - =+=     rank 3: segments [a3 b3] [d3 e3 f3] ...
 2  | | ### | | ### | |     file c: segment [c2 c3 c4], bridge c3
 1  !+! - - =+= - - !+!     rank 1: segment [b1 c1 d1], bridge c1

A segment step from c1: c1 is the bridge of [b1 c1 d1] and file c passes
under it, so step down onto c2 and stop anywhere in [c2 c3 c4].  A second
step from c3 (file c is on top there, rank 3 passes under) reaches
[a3 b3] or [d3 e3 f3].  So once c2 is free, the Triangle on c1 reaches
c2, c3, c4, a3, b3, d3, e3 and f3.

Pieces (all capture by replacement; only the Circle jumps):
  K Star     royal.  One segment step, or one step into a next cell
             (diagonally from a bridge, straight from a slope).  In the
             Dungeon one cell any direction; it can never leave it.
  C Circle   one or two squares along a rank or file, jumping anything.
  T Triangle one segment step, optionally a second.  From a bridge it
             enters the Dungeon diagonally and may run on along the
             diagonal; in the Dungeon it runs diagonally and may leave
             straight ahead onto a bridge.  No Dungeon access from a slope.
  S Square   rides its strand (from a bridge also the one underneath),
             passing under troughs.  From a slope it enters the Dungeon
             straight across; in the Dungeon it runs orthogonally and may
             leave straight ahead onto a slope.
  P Pentagon moves like a Triangle or a Square on the Weave; it can never
             enter the Dungeon.
  D Diamond  one square or one cell forward (two squares within a segment);
             captures forward or sideways, but only by a step, never by a
             slide.  On reaching the far row it may be exchanged for one of
             your captured C, T, S or P (a rescue: write Db8-b9=T).

Object: checkmate the enemy Star.  Stalemate loses, and so does making a
position occur for the third time.  When both Stars are in the Dungeon they
do not check each other diagonally; a Star is never captured.  Wins are
graded: Triumph (your Star never left its throne), Ovation (your Star is on
the Weave), Victory (your Star is in the Dungeon).

Moves: piece letter, from, to.  From the start, e.g. Dc2-c4 (a Diamond two
squares forward) or Cd1-d3 (a Circle jumping its own Diamond); after
1. Dc2-c4 Dc8-c6 the Triangle can leave: Tc1-e3.  x or - either way
(Cd1xd3), any case; the letter may be left out (c2-c3) or written in full
(Diamond c2-c3).  A rescue is written Db8-b9=T.

Options:
  -compact            a denser board
  -position=STRING    start from a position:
                      <placement> <side> <rescue-pool> <fullmove>
                      (ranks 9 to 1, White upper case; _ may stand
                      for a space), e.g. the start:
  pstckctsp/ddddddddd/9/9/9/9/9/DDDDDDDDD/PSTCKCTSP w - 1
"""


def _looks_like_option(token: str) -> bool:
    return len(token) > 1 and token[0] == "-" and token[1].isalpha()


def _grade(pos: Position, winner: int) -> str:
    """Triumph / Ovation / Victory for the winner (3.8; Dungeon Star = Victory)."""
    star = pos.stars[winner]
    if star == THRONE[winner] and not pos.moved[winner]:
        return "Triumph"
    if g.is_weave(star):
        return "Ovation"
    return "Victory"


class WeaveDungeon(Game):
    """The contract roles for Weave & Dungeon; seat 0 is White."""

    name = "weavedungeon"
    aliases = ("weave", "weaveanddungeon")
    option_names = ("compact", "position")
    title = "Weave & Dungeon"
    players = 2
    has_position = True

    def help(self) -> str:
        return HELP

    def seat_names(self, state: Position) -> list[str]:
        return list(COLOUR_NAMES)

    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        options: dict[str, Any] = {"compact": False, "position": None}
        tokens = list(tokens)
        i = 0
        while i < len(tokens):
            name, value = split_option(tokens[i])
            i += 1
            if name == "position" and value is not None:
                # The string has spaces: take back the fields a mailer split off
                # ("-" is the empty pool, not an option).  "_" may stand for a space.
                parts = [value]
                while i < len(tokens) and not _looks_like_option(tokens[i]):
                    parts.append(tokens[i])
                    i += 1
                value = " ".join(parts).replace("_", " ").strip().strip("\"'").strip()
            if name == "compact":
                if value is not None:
                    raise OptionError(f"-compact takes no value; {OPTIONS_TEXT}")
                options["compact"] = True
            elif name == "position":
                if not value:
                    raise OptionError(f"-position needs a position string; {OPTIONS_TEXT}")
                try:
                    pos = parse_position(value)
                except NotationError as exc:
                    raise OptionError(f"bad -position: {exc}") from None
                options["position"] = pos.fen()
            else:
                raise OptionError(f"unknown option -{clip_input(name)}; {OPTIONS_TEXT}")
        return options

    def start(self, options: dict[str, Any], players: int) -> Position:
        if players != 2:
            raise OptionError("Weave & Dungeon is a game for 2 players")
        text = options.get("position")
        return parse_position(text) if text else initial_position()

    # -- playing -------------------------------------------------------------
    def to_move(self, state: Position) -> int | None:
        return None if self.outcome(state) is not None else state.side

    def outcome(self, state: Position) -> Outcome | None:
        if state.repetitions() >= 3:
            loser = 1 - state.side
            reason = (
                f"{COLOUR_NAMES[loser]} repeated a position for the third time, "
                "and repetition loses"
            )
        elif not state.legal_moves():
            loser = state.side
            if state.in_check():
                reason = f"{COLOUR_NAMES[loser]} is checkmated"
            else:
                reason = f"{COLOUR_NAMES[loser]} is stalemated, and stalemate loses"
        else:
            return None
        winner = 1 - loser
        return Outcome(
            winners=(winner,), losers=(loser,), reason=reason, grade=_grade(state, winner)
        )

    def find_move(self, state: Position, text: str) -> Move:
        """The legal move ``text`` means, or IllegalMove saying why not."""
        try:
            mv = parse_move(text)
        except NotationError as exc:
            raise IllegalMove(str(exc)) from None
        rescue = TYPE_OF_LETTER[mv.rescue] if mv.rescue else 0
        pc = state.board[mv.frm]
        letter_ok = mv.letter is None or (pc and TYPE_OF_LETTER[mv.letter] == pc & 7)
        if letter_ok:
            for m in state.legal_moves():
                if m[0] == mv.frm and m[1] == mv.to and m[2] == rescue:
                    return m
        raise IllegalMove(why_illegal(state, mv))

    def play(self, state: Position, seat: int, move: str) -> Position:
        out = self.outcome(state)
        if out is not None:
            raise IllegalMove(f"the game is over: {out.reason}")
        if seat != state.side:
            raise IllegalMove(
                f"it is {COLOUR_NAMES[state.side]}'s turn, not {COLOUR_NAMES[seat]}'s"
                if seat in (0, 1)
                else f"there is no seat {seat} in a two-player game"
            )
        m = self.find_move(state, move)
        new = state.play(m)
        new.last_move = format_move(state, m)
        return new

    def legal_moves(self, state: Position) -> list[str]:
        if state.repetitions() >= 3:
            return []
        return [format_move(state, m) for m in state.legal_moves()]

    # -- showing and storing ---------------------------------------------------
    oriented = True  # Black at the bottom for Black (render and draw)

    def render(
        self,
        state: Position,
        compact: bool = False,
        seat: int | None = None,
        board: int | None = None,
        players: list[str] | None = None,
        moveno: int | None = None,
        over: bool = False,
    ) -> str:
        return render_board(state, self.outcome(state), compact, moveno, over, black_below=seat == 1)

    def position(self, state: Position) -> str:
        return state.fen()

    def dump(self, state: Position) -> dict[str, Any]:
        return {
            "position": state.fen(),
            "star_moved": list(state.moved),
            "history": dict(state.history),
            "last_move": state.last_move,
        }

    def load(self, data: dict[str, Any]) -> Position:
        base = parse_position(data.get("position", INITIAL_FEN))
        moved = data.get("star_moved", list(base.moved))
        pos = Position(
            base.board,
            base.side,
            base.pools,
            base.fullmove,
            (bool(moved[0]), bool(moved[1])),
            history={str(k): int(v) for k, v in data.get("history", {}).items()} or None,
        )
        pos.last_move = data.get("last_move")
        return pos


GAME = WeaveDungeon()
