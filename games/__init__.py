"""Rule plugins for pbmserv, and the registry that finds them.

Plugins are found through the entry-point group ``pbmserv.games`` so a third
party can add a game by installing a package; :func:`register` adds one by
hand (the test suite's tiny games use it).  This package never imports
``server``.
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

from games.contract import (
    Game,
    GameError,
    GameUnavailable,
    IllegalMove,
    OptionError,
    Outcome,
    UnknownGame,
    split_option,
)

__all__ = [
    "Game",
    "GameError",
    "GameUnavailable",
    "IllegalMove",
    "OptionError",
    "Outcome",
    "UnknownGame",
    "available",
    "load_game",
    "register",
    "split_option",
    "unavailable",
    "unregister",
]

ENTRY_POINT_GROUP = "pbmserv.games"

log = logging.getLogger(__name__)

_registered: dict[str, Game] = {}
_discovered: dict[str, Game] | None = None
#: (every game sorted by command word, command words and aliases -> game): built once,
#: again only after register/unregister (commands asked for it several times a mail).
_catalogue: tuple[list[Game], dict[str, Game]] | None = None


def _index() -> tuple[list[Game], dict[str, Game]]:
    global _catalogue
    if _catalogue is None:
        plugins = {**_discover(), **_registered}
        ordered = [plugins[k] for k in sorted(plugins)]
        words: dict[str, Game] = {}
        for plugin in ordered:  # the first game in order that answers to a word keeps it, as before
            for word in (plugin.name, *plugin.aliases):
                words.setdefault(word.lower(), plugin)
        _catalogue = (ordered, words)
    return _catalogue
#: Entry points that failed to load: name -> the error's first line.
_broken: dict[str, str] = {}


def _discover() -> dict[str, Game]:
    """Load every entry point once; a broken plugin is logged and skipped."""
    global _discovered
    if _discovered is None:
        found: dict[str, Game] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                plugin = ep.load()
            except Exception as exc:  # a third-party plugin must not take the server down
                log.exception("game plugin %s could not be loaded", ep.name)
                _broken[ep.name.lower()] = (str(exc).splitlines() or [type(exc).__name__])[0]
                continue
            found[plugin.name.lower()] = plugin
        _discovered = found
    return _discovered


def register(plugin: Game) -> None:
    """Make ``plugin`` available without an entry point."""
    global _catalogue
    _registered[plugin.name.lower()] = plugin
    _catalogue = None


def unregister(name: str) -> None:
    global _catalogue
    _registered.pop(name.lower(), None)
    _catalogue = None


def available() -> list[Game]:
    """Every installed game, sorted by command word."""
    return list(_index()[0])


def load_game(name: str) -> Game:
    """The plugin whose command word or alias is ``name`` (case-insensitive)."""
    word = name.lower()
    plugin = _index()[1].get(word)
    if plugin is not None:
        return plugin
    if word in _broken:
        raise GameUnavailable(word)
    raise UnknownGame(name)


def unavailable() -> dict[str, str]:
    """The games installed whose plugin could not be loaded, with why (for the admin)."""
    _discover()
    return dict(_broken)
