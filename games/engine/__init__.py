"""The computer opponent's engine: one search over the plugin contract.

It talks to a game only through :class:`games.contract.Game`'s roles
(``legal_moves``, ``play``, ``outcome``, ``to_move``), so every installed
game -- a third party's included -- gets a computer opponent.  A game may
add hooks (an evaluation, a playout policy, move ordering; see
:mod:`games.engine.hooks`) that make it stronger; none is required.

Like every module under ``games``, this never imports ``server``.
"""

from games.engine.hooks import Hooks, hooks_for
from games.engine.levels import LEVELS, Level, level
from games.engine.search import Analysis, Choice, analyse, choose, reward_vector

__all__ = [
    "LEVELS",
    "Analysis",
    "Choice",
    "Hooks",
    "Level",
    "analyse",
    "choose",
    "hooks_for",
    "level",
    "reward_vector",
]
