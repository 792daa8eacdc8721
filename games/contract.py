"""The rules-plugin contract every game implements.

A game is pure rules: no I/O, no database, no mail.  The server only ever
talks to a game through the roles of :class:`Game`, so five very different
games (and third-party ones) fit one server and can be tested on their own.

The in-memory ``State`` is each plugin's own choice; only ``dump()`` output
is stored.  ``play()`` must return a *new* state and leave the old one
untouched, because the server keeps the old one when a move is refused and
``preview`` plays on copies.
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass
from typing import Any, ClassVar


class GameError(ValueError):
    """Base of the errors whose message is shown to a player as it is."""


class IllegalMove(GameError):
    """A move the rules refuse; the message says why, in the game's terms."""


INPUT_QUOTE_LIMIT = 24


def clip_input(text: str, limit: int = INPUT_QUOTE_LIMIT) -> str:
    """What a player wrote, fit to be quoted in an error reason.

    A reason that echoes the input whole grows with it (a 300-character
    "move" gave a 400-character reason, far past a reply's 78 columns), so
    the input is put on one line (runs of whitespace become one space) and
    cut to ``limit`` characters, the cut marked with "...". Every game quotes
    a player's move or square through this, so all word the cut the same.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: max(1, limit - 3)] + "..."


class OptionError(GameError):
    """A challenge option that is unknown, malformed or out of range."""


class UnknownGame(LookupError):
    """No installed plugin answers to that name or alias."""


class GameUnavailable(UnknownGame, GameError):
    """The game is installed but its plugin could not be loaded (an import failed).

    A fault of the server, not of the player's word: the player is told the
    game is temporarily unavailable, never that it does not exist.
    """

    def __init__(self, name: str) -> None:
        super().__init__(f"The game {name} is temporarily unavailable on this server (its rules could not "
                         "be loaded; the admin's log says why): nothing was done. Please send this again later.")
        self.name = name


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.  Winners and losers are seats, never sides.

    A draw has no winners (``winners == ()``); its ``losers`` are the seats
    already out of a game of more than two (defeated or resigned before the
    draw), who do not share it -- ``()`` when every seat shares the draw.
    ``grade`` is the game's own grading of a win (e.g. Weave & Dungeon's
    Triumph / Ovation / Victory), ``None`` where the game has none.
    """

    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: str
    grade: str | None = None

    @property
    def is_draw(self) -> bool:
        return not self.winners


_OPTION = re.compile(r"^-(?P<name>[A-Za-z][A-Za-z0-9_-]*)(?:=(?P<value>.*))?$")


def split_option(token: str) -> tuple[str, str | None]:
    """Split a ``-name[=value]`` challenge token; the name is lower-cased.

    Raises :class:`OptionError` for anything that is not of that shape, so
    every game words the same mistake the same way.
    """
    m = _OPTION.match(token)
    if not m:
        raise OptionError(f"{token!r} is not an option; options look like -name or -name=value")
    return m.group("name").lower(), m.group("value")


class Game:
    """Base class of a rules plugin.

    Subclasses set the class attributes and implement the abstract roles.
    The defaults here are the ones most games share; override what differs.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    players: ClassVar[int] = 2
    #: True when the game defines a position string (and so ``-position=``).
    has_position: ClassVar[bool] = False
    #: The names of the ``-name[=value]`` challenge options, so the server can
    #: take any unambiguous prefix (``-siz=3``) as players did in pbmserv.
    option_names: ClassVar[tuple[str, ...]] = ()

    # -- description -----------------------------------------------------
    def help(self) -> str:
        """Rules summary, options and move syntax (mailed for ``GAME help``)."""
        raise NotImplementedError

    def seat_names(self, state: Any) -> list[str]:
        """What each seat plays, in seat order (``["White", "Black"]``).

        After a swap this follows the swap, so the server can say
        "alice (Black)".  The default numbers the seats.
        """
        return [f"Player {i + 1}" for i in range(self.players)]

    # -- setting up ------------------------------------------------------
    def parse_options(self, tokens: list[str]) -> dict[str, Any]:
        """Turn ``-name[=value]`` tokens into an options dict, or OptionError.

        A value with spaces (a position string) arrives whole when the player
        quoted it (``-position="..."``: the server rejoins it); the plugins of
        this project also accept ``_`` for a space, for mailers that mangle
        quotes.
        """
        raise NotImplementedError

    def start(self, options: dict[str, Any], players: int) -> Any:
        """The starting state for these options."""
        raise NotImplementedError

    # -- playing ---------------------------------------------------------
    def to_move(self, state: Any) -> int | None:
        """Seat to move (0-based, challenge order), ``None`` when over."""
        raise NotImplementedError

    def play(self, state: Any, seat: int, move: str) -> Any:
        """A new state with ``move`` played by ``seat``, or IllegalMove."""
        raise NotImplementedError

    def legal_moves(self, state: Any) -> list[str]:
        """Every legal move in canonical notation; ``play`` accepts each."""
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else ``None``."""
        raise NotImplementedError

    def resign(self, state: Any, seat: int) -> Any | None:
        """Resignation of ``seat``.

        ``None`` (the default) means the server ends the game itself: the
        resigning seat loses and every other seat wins.  A game where play
        goes on without that seat (TriMac's three armies) returns the new
        state instead, and ``outcome`` of it tells whether the game is over.
        """
        return None

    # -- records and move lists (optional: the defaults fit most games) -----
    def record_options(self, options: dict[str, Any]) -> list[str]:
        """The challenge tokens that give ``options`` back through :meth:`parse_options`.

        A game record (games/record.py) writes these in its Options tag and
        reads them back with ``parse_options``.  The default writes ``-name``
        for a true flag and ``-name=value`` for any other value; false, empty
        and ``position`` (the record's own Position tag) are left out.  A
        game whose options dict is not its tokens (a stored word that is not
        an option name) overrides this.
        """
        tokens = []
        for name, value in options.items():
            if name == "position" or value is None or value is False or value == "":
                continue
            tokens.append(f"-{name}" if value is True else f"-{name}={value}")
        return tokens

    def move_origin(self, move: str) -> tuple[str, str]:
        """(where the move starts, the rest) for grouping ``GAME moves``: ``("Ri5", "-Rg6")``.

        The default cuts before the first ``-`` or ``x`` after the first
        character, which is the notation of every game here that moves
        pieces (TriMac ``Ri5-Rg6``, Tri-D ``Ba2W-b1W`` and ``QL4-KL4``,
        ``e4xe6xe8``).  A move with no origin (a placement, ``swap``) gives
        ``("", move)``.
        """
        for index, ch in enumerate(move):
            if index and ch in "-x":
                return move[:index], move[index:]
        return "", move

    # -- showing and storing ----------------------------------------------
    #: True when ``render`` and ``draw`` turn the board for the viewer's ``seat``
    #: (Black at the bottom for Black): the server then draws one picture and
    #: one text board per orientation.  False: they draw every seat alike, and
    #: the server draws each once for everybody.
    oriented: bool = False

    def render(
        self,
        state: Any,
        compact: bool = False,
        seat: int | None = None,
        board: int | None = None,
        players: list[str] | None = None,
        moveno: int | None = None,
        over: bool = False,
    ) -> str:
        """The ASCII board (at most 79 columns unless help says why not).

        ``seat`` is the viewer; a game may orient the board for it.  ``board``
        (the board number) and ``players`` (userids by seat) are given where
        the server knows them, so a title line can read "game 17 ... White
        (alice) to move" as a spec draws it; without them a game draws a
        generic title.

        ``moveno`` is the number the server asks for with the next move
        (``MOVE#N``, counting every move played, swaps included).  Where it
        is given, a game that shows a move number shows this one ("move
        #N"), so one mail never names two different numbers.

        ``over`` is True when the server ended the game although the position
        still has a side to move (a resignation, a forfeit, an agreed draw):
        the board then names no player to move, only that the game is over.
        """
        raise NotImplementedError

    def coordinate_key(self) -> str:
        """A key to the text board's points, mailed under the board ("" : none needed).

        For a game whose text board names no file or rank (TriMac's, fixed
        by its spec) a player cannot name a target from the mail alone; the
        server prints this key under the board for every player who has not
        turned it off (``coordinates USERID PASSWORD off``).
        """
        return ""

    def draw(self, state: Any, seat: int | None = None, players: list[str] | None = None) -> Any:
        """A picture of ``state`` (a :class:`games.drawing.Drawing`), or ``None``.

        By convention a plugin package draws in its module ``draw``, a
        function ``draw(game, state, seat, players)``; a game without one has
        no picture and its mail stays text only.  ``seat`` is the viewer and
        ``players`` the userids by seat, as for :meth:`render`.
        """
        module = self._draw_module()
        return None if module is None else module.draw(self, state, seat, players)

    def _draw_module(self) -> Any:
        """The plugin package's ``draw`` module, or None when it has none."""
        target = f"{type(self).__module__}.draw"
        loaded = sys.modules.get(target)  # (import_module's checks and locks were 5% of a Warp and Weft picture)
        if loaded is not None:
            return loaded
        try:
            return importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name in (target, type(self).__module__):
                return None
            raise

    def picture_title(self, state: Any, seat: int | None = None, players: list[str] | None = None) -> str | None:
        """The title (alt text) :meth:`draw` gives the picture of ``state``, or None with no picture.

        A mail names its picture when the move is played, but the picture is
        drawn later, by the server's deliverer; drawing it twice only for its
        title cost a move 0.1-0.3 ms.  By convention the plugin's ``draw``
        module may have ``title(game, state, seat, players)`` returning exactly
        the drawing's title; without one the picture is drawn for it.
        """
        module = self._draw_module() if type(self).draw is Game.draw else None  # draw() not overridden
        title = getattr(module, "title", None)
        if title is not None:
            return title(self, state, seat, players)
        drawing = self.draw(state, seat, players)
        return None if drawing is None else drawing.title

    def position(self, state: Any) -> str:
        """The position string, where the game defines one."""
        raise NotImplementedError(f"{self.title} has no position string")

    def dump(self, state: Any) -> dict[str, Any]:
        """A JSON-serialisable form of ``state`` for storage."""
        raise NotImplementedError

    def load(self, data: dict[str, Any]) -> Any:
        """The state back from ``dump`` output; it plays exactly like the original."""
        raise NotImplementedError
