"""Board-mail subjects as commands: what a player gets by hitting Reply.

Board mails are titled ``[New ]TITLE Board N USER`` (``Warp and Weft Board
102 alice``).  pbmserv players have always answered by editing that subject
to ``Re: Warp and Weft Board 102 alice PASSWORD G1#3``; the reply prefixes
are gone by the time a line gets here (server.mail.parse.clean_subject).  The
game's title may be several words, so it is mapped to the game's command
word here, for every installed game (a new plugin's title works too), and
``Board`` is the ``move`` alias it has always been.
"""

from __future__ import annotations

import games


def _titles() -> list[tuple[list[str], str]]:
    """(title words, command word) of every installed game, longest title first."""
    pairs = [(g.title.lower().split(), g.name) for g in games.available()]
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def canonical_words(words: list[str]) -> list[str]:
    """``[New] Warp and Weft Board 102 ...`` -> ``warpandweft Board 102 ...``; other lines unchanged."""
    lowered = [w.lower() for w in words]
    start = 1 if lowered[:1] == ["new"] else 0
    for title, name in _titles():
        end = start + len(title)
        if lowered[start:end] == title and len(words) > end and (start == 0 or lowered[end] == "board"):
            return [name, *words[end:]]
    return words


def names_a_board(words: list[str]) -> bool:
    """Does the line start like a board mail's subject (``[New] TITLE Board ...``)?

    A reply's subject in that form is a reply even where the title is also
    the game's command word (``Interweave Board 101 carol f8xh4#6``): read as
    a full command, the move would sit in the password's place.
    """
    lowered = [w.lower() for w in words]
    start = 1 if lowered[:1] == ["new"] else 0
    return any(lowered[start:start + len(title)] == title and lowered[start + len(title):][:1] == ["board"]
               for title, _ in _titles())
