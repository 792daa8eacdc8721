"""Tri-Dimensional (Star Trek) Chess, Loidl's rules, for pbmserv.

The plugin class only adapts the contract to the modules that hold the rules:
``geometry`` (cells, pins, cached per-configuration tables), ``rules``
(positions, move generation, legality), ``notation`` (squares, moves, the
position string), ``explain`` (reading typed moves, reasons for refusals)
and ``render`` (the seven-layer ASCII board).
"""

from __future__ import annotations

from typing import Any

from games.contract import Game, IllegalMove, OptionError, Outcome, split_option
from games.tridchess.explain import legal_texts, resolve
from games.tridchess.notation import (
    START_POSITION,
    NotationError,
    move_text,
    parse_position,
    position_text,
)
from games.tridchess.render import render as render_board
from games.tridchess.rules import State, play_move

__all__ = ["GAME", "TriDChess", "State", "START_POSITION", "perft"]

HELP = """\
Tri-Dimensional Chess (Star Trek chess), rules after H.-W. Loidl.

BOARDS  Three 4x4 main boards W (White's, ranks 1-4), N (neutral, 3-6) and
B (Black's, 5-8) stand at layers 1, 3, 5; each overlaps the next by two
ranks.  Four movable 2x2 attack boards (WQ WK BQ BK) stand on pins above
(QL1..QL6, KL1..KL6) or hanging below (QL1i..KL6i) each main board corner.
Files z a b c d e, ranks 0-9; z, e, 0 and 9 exist only on attack boards.

SQUARES  file rank level: a1W c5N b8B z0QL1 d9KL6 a6QL4i

PIECES  Every square is a cube; "one level up/down" is the next board that
exists in that column.  Rook: along files/ranks, straight up/down, or a
stair step (one orthogonal square plus one level).  Bishop: diagonal, or
diagonal plus one level.  Queen/King: all 26 directions (king one step).
Knight: 2+1 L-leap in any two of file, rank and level.  Lines stop at a
missing square.  Pawns: one forward, one level toward the enemy, or both;
double step on the same level if never moved (nor carried); capture
diagonally forward, also one level toward the enemy; en passant; promote
on rank 8-9 (White) or 0-1 (Black), also when carried there.
Castling (not on your first move): O-O swaps king and e-file rook; O-O-O
puts the king on a0/a9 and the rook on d0/d9.

ATTACK BOARDS  A move may instead move one of your own attack boards,
empty or carrying exactly one pawn (of either colour), to the nearest pin
along the ranks in its layer, sideways to the same pin on the other side,
or (empty boards only) flip between the upper and lower pin of its corner.
Never onto an occupied pin; you may not carry an enemy pawn to its last
rank.  A board move may give check, answer check, or be illegal because
it exposes your king.

MOVES  Nd1W-c3W  b2W-b4W  c7Bxd6N  d5Nxc6B e.p.  b7B-b8B=Q  O-O  O-O-O
QL1-QL3i  QL4-QL6i=Q (a carried pawn promotes; default Q).  Short forms
(Nc2W, c3W, QL3) are accepted when exactly one legal move fits.

END  Checkmate wins.  Draws: stalemate, third repetition, 100 plies with no
capture and no pawn move (a carry counts as a pawn move), a capture that
leaves only the two kings.  Resignation and agreed draws as usual.

OPTIONS  -compact            denser board
         -position=STRING    start from a position string:
  boards pieces side castling ep halfmove fullmove, e.g. the start:
  WQ:QL1,WK:KL1,BQ:QL6,BK:KL6 Rz0QL1,Qa0QL1,... w KQkq - 0 1
  (pieces KQRBNP White, kqrbnp Black; a trailing * marks a moved pawn;
  ST stands for the start boards; underscores may stand for the spaces)
"""


class TriDChess(Game):
    name = "tridchess"
    aliases = ("3dchess", "startrek")
    option_names = ("compact", "position")
    title = "Tri-Dimensional Chess"
    players = 2
    has_position = True

    def help(self) -> str:
        return HELP

    def seat_names(self, state: Any) -> list[str]:
        return ["White", "Black"]

    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        opts: dict[str, Any] = {"compact": False, "position": None}
        i = 0
        tokens = list(tokens)
        while i < len(tokens):
            name, value = split_option(tokens[i])
            i += 1
            if name == "compact":
                if value is not None:
                    raise OptionError("-compact takes no value")
                opts["compact"] = True
            elif name == "position":
                parts = [value or ""]
                # the position string has spaces; take the pieces a mailer split off
                while i < len(tokens) and not _looks_like_option(tokens[i]):
                    parts.append(tokens[i])
                    i += 1
                text = " ".join(p for p in parts if p)
                try:
                    st = parse_position(text)
                except NotationError as exc:
                    raise OptionError(f"-position: {exc}") from None
                opts["position"] = position_text(st)
            else:
                raise OptionError(
                    f"unknown option -{name}; valid options are -compact and -position=STRING"
                )
        return opts

    def move_origin(self, move: str) -> tuple[str, str]:
        """Castling (``O-O``, ``O-O-O``) starts from no one square: it is listed on its own."""
        return ("", move) if move.startswith("O-O") else super().move_origin(move)

    def start(self, options: dict[str, Any], players: int) -> State:
        if players != 2:
            raise OptionError("Tri-Dimensional Chess is for 2 players")
        return parse_position(options.get("position") or START_POSITION)

    def to_move(self, state: State) -> int | None:
        return None if self.outcome(state) is not None else state.turn

    def play(self, state: State, seat: int, move: str) -> State:
        out = self.outcome(state)
        if out is not None:
            raise IllegalMove(f"the game is over ({out.reason})")
        if seat != state.turn:
            side = "Black" if state.turn else "White"
            raise IllegalMove(f"it is not your turn: {side} is to move")
        if not isinstance(move, str):
            raise IllegalMove("a move must be text such as Nd1W-c3W")
        mv = resolve(state, move)
        return play_move(state, mv, move_text(state, mv))

    def legal_moves(self, state: State) -> list[str]:
        if self.outcome(state) is not None:
            return []
        return list(legal_texts(state))

    def outcome(self, state: State) -> Outcome | None:
        if state.dead:
            return Outcome((), (), "draw: only the two kings are left")
        if state.history.count(state.history[-1]) >= 3:
            return Outcome((), (), "draw by threefold repetition")
        if not state.legal():
            if state.in_check():
                return Outcome((1 - state.turn,), (state.turn,), "checkmate")
            return Outcome((), (), "draw by stalemate")
        if state.halfmove >= 100:
            return Outcome((), (), "draw: 100 plies without a capture or pawn move")
        return None

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
        out = self.outcome(state)
        move_no = str(state.fullmove) if moveno is None else f"#{moveno}"
        side = "Black" if state.turn else "White"
        check = "yes" if state.in_check() else "no"
        last = state.last or "-"
        if state.last and state.in_check():
            last += "#" if out is not None and out.reason == "checkmate" else "+"
        if out is None and over:  # ended by the server (resignation, forfeit, agreed draw)
            status = "Game over."
        elif out is None:
            status = f"{side} to move."
        elif out.winners:
            status = (
                f"Game over: {'White' if out.winners[0] == 0 else 'Black'} wins by {out.reason}."
            )
        else:
            status = f"Game over: {out.reason}."
        if out is not None and out.reason == "checkmate":
            check = "mate"
        doing = f"{side} to move" if out is None and not over else "game over"
        title = f"Tri-Dimensional Chess   move {move_no}   {doing}   [rules: Loidl]"
        if board is not None:
            # The spec's line 1 (section 8): game id, move, side (user) to move, ruleset.
            user = f" ({players[state.turn]})" if players and out is None else ""
            doing = f"{side}{user} to move" if out is None and not over else "game over"
            title = f"TRI-D CHESS game {board}  move {move_no}  {doing}   [rules: loidl]"
            if len(title) > 79:  # a long userid: the side alone still says who moves
                plain = f"{side} to move" if out is None and not over else "game over"
                title = f"TRI-D CHESS game {board}  move {move_no}  {plain}   [rules: loidl]"
        if compact:
            title = f"Tri-D Chess  move {move_no}"
        # Black's player sees Black at the bottom (the server passes no seat with "flip off").
        return render_board(state, title, status, last, check, compact, black_below=seat == 1)

    def position(self, state: State) -> str:
        return position_text(state)

    def dump(self, state: State) -> dict[str, Any]:
        return {
            "position": position_text(state),
            "history": list(state.history),
            "last": state.last,
            "dead": state.dead,
        }

    def load(self, data: dict[str, Any]) -> State:
        st = parse_position(data["position"])
        st.history = tuple(data.get("history") or st.history)
        st.last = data.get("last")
        st.dead = bool(data.get("dead"))
        return st


def _looks_like_option(token: str) -> bool:
    return len(token) > 1 and token[0] == "-" and token[1].isalpha()


GAME = TriDChess()


def perft(state: State | int, depth: int | None = None) -> int:
    """Leaf count of the legal-move tree: ``perft(3)`` from the start, or ``perft(state, 3)``.

    Works on internal moves, so it is fast; the count equals that of the
    ``legal_moves`` strings (attack-board promotions are separate moves).
    """
    if isinstance(state, int):
        state, depth = GAME.start(GAME.parse_options([]), 2), state
    assert depth is not None
    if depth == 0:
        return 1
    if GAME.outcome(state) is not None:
        return 0
    moves = state.legal()
    if depth == 1:
        return len(moves)
    return sum(perft(play_move(state, mv, move_text(state, mv)), depth - 1) for mv in moves)
