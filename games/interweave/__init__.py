"""Interweave (Peter Aronson, 2002) as a pbmserv rules plugin.

Every piece is colourbound and captures only pieces on the other colour,
by short/long leap, approach, custodian, removal or double knight's move.
Capture is compulsory and the capturing piece goes on capturing; taking
either enemy King wins.  The rules follow /shared/rules/interweave.md.

Modules: :mod:`board` (geometry tables), :mod:`position` (position
string), :mod:`moves` (generators and turn enumeration), :mod:`notation`
(reading turns), :mod:`rules` (validation, end of turn), :mod:`render`.
"""

from __future__ import annotations

import re
from typing import Any

from games.contract import Game, IllegalMove, OptionError, Outcome, clip_input, split_option
from games.interweave.board import SIDE_NAMES
from games.interweave.moves import legal_turn_texts
from games.interweave.notation import NotationError, parse_turn
from games.interweave.position import START_FEN, PositionError, parse_fen
from games.interweave.render import render_compact, render_full
from games.interweave.rules import State, finish, initial_state, resolve

__all__ = ["GAME", "Interweave", "State", "legal_turn_texts"]

OPTIONS_HELP = "valid options: -compact, -position=POSITION, -fifty=on|off"

HELP = """\
Interweave (Peter Aronson, 2002) -- two players; White moves first.

Every piece is colourbound: it always stays on the colour it starts on,
and it captures only enemy pieces on the other colour.  Capturing is never
by replacement.  Win by capturing either of the enemy's two Kings.  There
is no check.  A player with no legal turn loses (stalemate loses), and the
player whose turn makes a position occur for the third time loses.  100
turns in a row without a capture or Pawn move is a draw (-fifty=off).

Pieces (upper case White, lower case Black; R is the Remover, not a Rook):
 K King     steps 1 diagonally; captures by leaping over an orthogonally
            adjacent enemy to the empty square beyond.
 S Smasher  slides diagonally; slides orthogonally an even number of
            squares; if the next square beyond is an enemy, it is taken
            (approach).  Must move at least 2 squares to capture.
 L Leaper   slides diagonally, or orthogonally an even number of squares;
            captures orthogonally by leaping over one enemy at odd distance
            to any empty even-distance square beyond; double knight's move
            (2+4): a friendly midpoint blocks it, an enemy there is taken.
 R Remover  slides diagonally; captures an orthogonally adjacent enemy
            without moving.
 P Pawn     steps 1 diagonally forward (2 from its start rank, which lets
            a Pawn beside the passed square take it en passant by leaping
            over that square next turn); captures by a straight short leap
            forward, and by custodian capture: every enemy left between the
            Pawn's landing square and a friendly piece (orthogonally) goes.
            On the 7th rank it may, on the 8th it must promote to one of its
            own side's captured S/L/R; with none, it may not enter rank 8.

Capture is compulsory.  After a capture the same piece must keep capturing
while it can (a promoted Pawn with its new powers); any such chain is fine.

Moves: origin then steps.  '-' moves, 'x' is a moving capture (they are
interchangeable in input), '*' is the Remover's capture without moving
(name the victim), '=S', '=L', '=R' promotes.  A whole chain is one move:
  e2-d3   b2-d4   c1-e5   d4xd6   a1xa3xc3xc1   e4*e5*f4   b6-b7=L
An optional piece letter (Le2-...) and {captured squares} are checked.

Options:
  -compact              a smaller board
  -position=POSITION    start from a position string; in mail write '_'
                        for its spaces:
      placement side ep reserves halfmove fullmove, e.g.
      srlkklrs/pppppppp/8/8/8/8/PPPPPPPP/SRLKKLRS w - - 0 1
      ep is - or passed:victim (c3:d4); reserves - or e.g. SLr
  -fifty=on|off         the 100-turn draw rule (default on)
"""


def _join_position_fields(tokens: list[str]) -> list[str]:
    """Glue ``-position=PLACEMENT w - - 0 1`` back together when mail split it.

    A mailed challenge line is split at spaces, so the later fields of a
    position string arrive as tokens of their own; none of them looks like
    an option (``-`` alone or ``-`` plus a letter), which is how they are told apart.
    """
    out: list[str] = []
    for token in tokens:
        if (
            out
            and out[-1].lower().startswith("-position=")
            and not re.match(r"^-[A-Za-z]", token)
            and len(out[-1].split()) < 6
        ):
            out[-1] += " " + token
        else:
            out.append(token)
    return out


class Interweave(Game):
    """The Game roles; the rules themselves live in the submodules."""

    name = "interweave"
    aliases = ()
    option_names = ("compact", "position", "fifty")
    title = "Interweave"
    players = 2
    has_position = True

    def help(self) -> str:
        return HELP

    def seat_names(self, state: Any) -> list[str]:
        return list(SIDE_NAMES)

    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        opts: dict[str, Any] = {"compact": False, "position": None, "fifty": True}
        tokens = _join_position_fields(tokens)
        for token in tokens:
            name, value = split_option(token)
            if name == "compact" and value is None:
                opts["compact"] = True
            elif name == "position" and value:
                try:
                    parse_fen(value)
                except PositionError as exc:
                    raise OptionError(f"-position: {exc}") from None
                opts["position"] = value
            elif name == "fifty" and value is not None and value.lower() in ("on", "off"):
                opts["fifty"] = value.lower() == "on"
            else:
                raise OptionError(
                    f"{clip_input(token)!r} is not an Interweave option; {OPTIONS_HELP}"
                )
        return opts

    def record_options(self, options: dict[str, Any]) -> list[str]:
        """``-fifty`` takes on/off (a bare ``-fifty`` is not an option)."""
        tokens = ["-compact"] if options.get("compact") else []
        return tokens + ([] if options.get("fifty", True) else ["-fifty=off"])

    def start(self, options: dict[str, Any], players: int) -> State:
        if players != 2:
            raise OptionError("Interweave is a game for 2 players")
        fen = options.get("position") or START_FEN
        try:
            pos = parse_fen(fen)
        except PositionError as exc:
            raise OptionError(f"-position: {exc}") from None
        return initial_state(pos, bool(options.get("fifty", True)))

    def to_move(self, state: State) -> int | None:
        return None if state.result is not None else state.pos.side

    def play(self, state: State, seat: int, move: str) -> State:
        if state.result is not None:
            raise IllegalMove(f"The game is over: {state.result.reason}")
        side = state.pos.side
        if seat != side:
            raise IllegalMove(f"It is not your turn: {SIDE_NAMES[side]} is to move")
        try:
            turn = parse_turn(move)
        except NotationError as exc:
            raise IllegalMove(str(exc)) from None
        steps, work = resolve(state.pos, turn)
        text = "".join(st.text(i == 0) for i, st in enumerate(steps))
        return finish(state, steps, work, text)

    def legal_moves(self, state: State) -> list[str]:
        return list(state.legal())

    def outcome(self, state: State) -> Outcome | None:
        return state.result

    oriented = True  # Black at the bottom for Black (render and draw)

    def render(
        self,
        state: State,
        compact: bool = False,
        seat: int | None = None,
        board: int | None = None,
        players: list[str] | None = None,
        moveno: int | None = None,
        over: bool = False,
    ) -> str:
        black_below = seat == 1  # Black's player sees Black at the bottom (the server passes no seat with flip off)
        render = render_compact if compact else render_full
        return render(state, moveno, over, black_below)

    def position(self, state: State) -> str:
        return state.pos.fen()

    def dump(self, state: State) -> dict[str, Any]:
        result = state.result
        return {
            "position": state.pos.fen(),
            "fifty": state.fifty,
            "history": dict(state.history),
            "result": None
            if result is None
            else {
                "winners": list(result.winners),
                "losers": list(result.losers),
                "reason": result.reason,
            },
            "last": state.last,
        }

    def load(self, data: dict[str, Any]) -> State:
        r = data.get("result")
        result = (
            None if r is None else Outcome(tuple(r["winners"]), tuple(r["losers"]), r["reason"])
        )
        return State(
            parse_fen(data["position"], stored=True),
            bool(data["fifty"]),
            {str(k): int(v) for k, v in data["history"].items()},
            result,
            data.get("last"),
        )


GAME = Interweave()
