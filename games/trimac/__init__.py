"""TriMac 3 Friends: three-player hexagonal XiangQi on 207 points.

The rules follow ``rules/trimac.md`` (Neatham's 2007 game, with the board,
fortress and start array reconstructed there).  Modules:

- ``geometry``: the three lattices, bent lines across the river, piece tables;
- ``moves``: move generation, attack/facing detection, the legality filter;
- ``state``: the immutable state and the turn driver (mate, pass, defeat);
- ``notation``: squares, moves and the position string;
- ``render``: the e-mailed board and the coordinate key.
"""

from __future__ import annotations

from typing import Any

from games.contract import Game, IllegalMove, OptionError, Outcome, split_option
from games.digits import is_digits
from games.trimac.geometry import LATTICES, SEAT_NAMES
from games.trimac.notation import format_position, parse_position
from games.trimac.render import key_lines, render
from games.trimac.state import State, apply_move, apply_resign, initial

__all__ = ["GAME", "State", "TriMac"]

#: Start array of spec §3, the same local points for every army.
SETUP = {
    "K": "f1",
    "A": "e1 g1 f4",
    "E": "d1 h1 f7",
    "H": "b1 j1 f8",
    "R": "a1 k1 f5",
    "C": "c1 i1 f3",
    "F": "c3 i3 f6",
    "P": "a3 b4 c5 e7 g7 i5 j4 k3",
}


def start_position() -> str:
    """The start array of §3 as a canonical position string."""
    tokens = [
        f"{colour}{kind}@{lat}{sq}"
        for colour, lat in zip("rbg", LATTICES, strict=True)
        for kind, squares in SETUP.items()
        for sq in squares.split()
    ]
    return format_position(*parse_position(" ".join(tokens) + " to=R alive=RBG last=G"))


HELP = """\
TriMac 3 Friends (Graeme Neatham, 2007): three-player XiangQi on three
69-point hexagonal lattices joined by a three-way river (207 points).
Red (bottom), Blue (upper left) and Green (upper right) move in turn,
Red > Blue > Green.  Win by defeating (checkmating) both opponents.

Board: each lattice has files a-k (4,5,6,7,8,9,8,7,6,5,4 points) and
ranks from 1 at the back.  A point is lattice + file + rank: Rf1, Bi6.
Lines that reach the river bend into the neighbour's lattice and run back
down its mirror file (Red's file c continues as Blue's file i); the f-file
branches at the apex f9 into both neighbours.  Diagonal steps never cross.
Fortress (12 points): f1 e1 g1 f2 e2 g2 f3 d2 h2 e3 g3 f4.
Directions: 6 orthogonal (along the triangle sides: N up the file toward
the river, NE, SE, S, SW, NW) and 6 diagonal between them (to the far
corner of the next triangle: E, NNE, NNW, W, SSW, SSE).

Pieces (letters in the board and lists, colours r b g):
  K General  one orthogonal step, stays in its fortress.  Two Generals
             may not face each other on an open north-south line.
  A Guard    one diagonal step, stays in its fortress.
  E Bishop   two diagonal steps, blocked by a piece on the first; stays home.
  H Knight   one orthogonal step then one diagonal step outward; blocked
             by a piece on the orthogonal step.
  F Banner   two orthogonal steps then one diagonal outward; blocked by a
             piece on either orthogonal point.
  R Rook     any distance along a line, no jumping.
  C Cannon   moves like a Rook; captures only by jumping exactly one piece.
  P Pawn     at home one step N, NE or NW; across the river one step
             S, SE or SW (forward after the bend) or sideways E or W.
Generals are never captured.  A move may not leave your own General in
check (attacked, or facing another General).  Checkmate is decided at the
start of the victim's turn; the victor is the opponent giving check (if
both do, the one who moved most recently).  The victor gains the army:
its General becomes his Banner, its Guards and Bishops are removed, the
rest change colour.  Then the two survivors alternate.
No stalemate: a player with no legal move (not in check) passes; the
server does it for you.  Draw when every survivor passes in succession,
by threefold repetition, or after 300 turns without capture or defeat.
Resigning removes your whole army (nobody inherits it); the others play on.

Moves: <from>-<to>, or <from>x<to> for a capture: Rf5-Rf6, Rc4xBf4.
Case does not matter; a trailing + is accepted.  'resign' resigns.
'pass' is refused: the server passes for you when you have no legal move.

Options:
  -compact            shorter board mail (no legend, no piece lists)
  -position=STRING    start from a position: tokens like rK@Rf1 (colour,
                      piece letter, @, point), then to=R alive=RBG last=G

Coordinate key (file and rank of every point; Blue upper left, Green
upper right, Red at the bottom):

"""


class TriMac(Game):
    name = "trimac"
    aliases = ("trimac3friends",)
    option_names = ("compact", "position", "game")
    title = "TriMac 3 Friends"
    players = 3
    has_position = True

    def help(self) -> str:
        return HELP + "\n".join(key_lines()) + "\n"

    def coordinate_key(self) -> str:
        """Spec §6.3's key, mailed under the board (issue 26 item 9).

        The §6.2 board is a contract (test T25: byte-exact), so it cannot
        carry labels, and in the rotated Blue and Green blocks a file is a
        slanting line nobody can count.  So the mail carries the key itself,
        in the board's own layout (always Red at the bottom, like the text
        board): find the point's place on the board, read its name at the
        same place in the key, put the block's letter in front.  The picture
        names every empty point as well.  ``coordinates USERID PASSWORD
        off`` drops the key for a player who knows the board by heart.
        """
        return ("Coordinate key (each point's file and rank, in the board's layout; put the block's "
                "letter in front: B upper left, G upper right, R bottom, e.g. Gj5; 'coordinates USERID "
                "PASSWORD off' drops this key):\n\n" + "\n".join(key_lines()))

    def seat_names(self, state: Any) -> list[str]:
        return list(SEAT_NAMES)

    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        opts: dict[str, Any] = {"compact": False, "position": None, "game": 1}
        # -game=N (the number in the header) exists for drawing a board outside
        # a server; on the server the header shows the board's own number, so
        # the option is not offered in help or in this list.
        valid = "valid options: -compact, -position=STRING"
        for tok in tokens:
            name, value = split_option(tok)
            if name == "compact":
                if value is not None:
                    raise OptionError(f"-compact takes no value; {valid}")
                opts["compact"] = True
            elif name == "position":
                if not value:
                    raise OptionError(
                        f"-position needs a value, e.g. -position='rK@Rf1 ...'; {valid}"
                    )
                parse_position(value)
                opts["position"] = value
            elif name == "game":
                if value is None or not is_digits(value) or int(value) < 1:
                    raise OptionError(f"-game must be a positive board number; {valid}")
                opts["game"] = int(value)
            else:
                raise OptionError(f"Unknown option -{name}; {valid}")
        return opts

    def record_options(self, options: dict[str, Any]) -> list[str]:
        """``-game`` only numbers a board drawn outside a server: the record has its Board tag."""
        return ["-compact"] if options.get("compact") else []

    def start(self, options: dict[str, Any], players: int) -> State:
        if players != 3:
            raise OptionError("TriMac 3 Friends is played by exactly 3 players")
        board, to, alive, last = parse_position(options.get("position") or start_position())
        return initial(board, to, alive, last, game_no=int(options.get("game", 1)))

    def to_move(self, state: State) -> int | None:
        return None if state.result is not None else state.to

    def play(self, state: State, seat: int, move: str) -> State:
        return apply_move(state, seat, move)

    def legal_moves(self, state: State) -> list[str]:
        return state.legal()

    def outcome(self, state: State) -> Outcome | None:
        if state.result is None:
            return None
        winners, losers, reason = state.result
        return Outcome(winners=winners, losers=losers, reason=reason)

    def resign(self, state: State, seat: int) -> State:
        return apply_resign(state, seat)

    #: The picture turns for each player (their army nearest); the text board keeps spec 6.2's layout.
    oriented = True

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
        """The spec's mailed board; its header names the server's board number when given."""
        return render(state, compact=compact, game_no=board if board is not None else state.game_no, moveno=moveno,
                      over=over)

    def position(self, state: State) -> str:
        alive = state.alive
        others = [s for s in alive if s != state.to] or alive
        last = max(others, key=lambda s: state.last_turn[s])
        return format_position(state.board, state.to, alive, last)

    def dump(self, state: State) -> dict[str, Any]:
        return {
            "position": self.position(state),
            "to": state.to,
            "status": list(state.status),
            "last_turn": list(state.last_turn),
            "turns": state.turns,
            "quiet": state.quiet,
            "passes": state.passes,
            "seen": list(state.seen),
            # "seat:text" strings: compact to store and quick to encode
            "history": [f"{s}:{t}" for s, t in state.history],
            "game": state.game_no,
            "result": None
            if state.result is None
            else {
                "winners": list(state.result[0]),
                "losers": list(state.result[1]),
                "reason": state.result[2],
            },
        }

    def load(self, data: dict[str, Any]) -> State:
        try:
            status = tuple(int(v) for v in data["status"])
            board = _board_of(data["position"])
            res = data.get("result")
            return State(
                board=board,
                to=int(data["to"]),
                status=status,  # type: ignore[arg-type]
                last_turn=tuple(int(v) for v in data["last_turn"]),  # type: ignore[arg-type]
                turns=int(data["turns"]),
                quiet=int(data["quiet"]),
                passes=int(data["passes"]),
                seen=tuple(str(v) for v in data["seen"]),
                history=tuple(_history_entry(h) for h in data["history"]),
                result=None
                if res is None
                else (tuple(res["winners"]), tuple(res["losers"]), str(res["reason"])),
                game_no=int(data.get("game", 1)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalMove(f"stored TriMac state is damaged: {exc}") from exc


def _history_entry(text: str) -> tuple[int, str]:
    seat, _, move = str(text).partition(":")
    return int(seat), move


def _board_of(position: str) -> bytes:
    """The board of a dumped position; dead armies may lack Generals there."""
    from games.trimac.geometry import BY_NAME, NPOINTS
    from games.trimac.moves import KINDS, code

    board = bytearray(NPOINTS)
    for tok in position.split():
        if "@" in tok:
            board[BY_NAME[tok[3:].lower()]] = code("rbg".index(tok[0]), KINDS.index(tok[1]))
    return bytes(board)


GAME = TriMac()
