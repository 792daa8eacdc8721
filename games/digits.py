r"""Numbers typed by players are ASCII digits, whatever ``str.isdigit`` says.

``"²".isdigit()`` (and ``"①"``, ``"٣"``... superscripts, circled and
other scripts' digits) is true, but ``int("²")`` raises: a check with
``isdigit`` followed by ``int`` crashed the worker on ``show ²`` or
``-size=²`` three times and set the mail aside (issue 32).  Every parse of
a typed number in the server and the games goes through here (patterns
spell ``[0-9]``, not ``\d``, which matches any script's digits).
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]+")


def is_digits(text: str) -> bool:
    """``text`` is one or more ASCII digits 0-9 (and so ``int(text)`` cannot fail)."""
    return _DIGITS.fullmatch(text) is not None
