"""A parsed message's header fields, decoded only when read.

Incoming mail is parsed with ``policy.compat32``, which keeps each field
as its raw text: ``policy.default`` builds a header object for every
field the parser itself looks at (each part's Content-Type and its
parameters), and that was most of a reply's parse -- 0.2-0.9 ms of the
0.8-1.7 ms a real client's mail took (issue 25).  The few fields the
server reads (Subject, From, Reply-To, Message-ID, the RFC 3834 ones) are
decoded here exactly as ``policy.default`` decodes them (its
``header_fetch_parse`` on the same raw text), each once per message.

Most fields of real mail are plain: ASCII on one line, no encoded
word.  ``policy.default`` gives such a field back unchanged (a
Subject or any unstructured field; a From, Reply-To or To that is one bare
address; a Message-ID of the ``<dot-atom@dot-atom>`` form), yet building
its header object cost 55-170 us a field, ~0.4 ms of a reply's parse
(issue 25).  Those are returned as they are (``_plain``); every other field
goes to ``policy.default``.  tests/server/mail/test_headers_plain.py checks
the shapes against ``policy.default`` itself.
"""

from __future__ import annotations

import re
from email import policy
from email.headerregistry import AddressHeader, UnstructuredHeader
from email.message import Message

#: Where a message keeps the fields decoded so far (an attribute of the Message object).
_MEMO = "_pbmserv_fields"


def field(msg: Message, name: str) -> str:
    """The field's decoded value, "" when absent or unreadable; decoded once a message."""
    seen: dict[str, str] = msg.__dict__.setdefault(_MEMO, {})
    key = name.lower()
    if key not in seen:
        try:
            # The stored text itself: compat32's own ``get`` wraps a field with 8-bit
            # bytes in a Header object, which policy.default cannot take.
            raw = next((v for k, v in msg.raw_items() if k.lower() == key), None)
            value = None if raw is None else _plain(key, raw) or policy.default.header_fetch_parse(name, raw)
        except Exception:
            value = None
        seen[key] = "" if value is None else str(value)
    return seen[key]


_DOT_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
#: One bare address (RFC 5322 dot-atom on both sides of the @).
BARE_ADDRESS = re.compile(f"{_DOT_ATOM}@{_DOT_ATOM}")
#: A Message-ID of the common form.
_PLAIN_MSGID = re.compile(f"<{_DOT_ATOM}@{_DOT_ATOM}>")
#: Fields ``policy.default`` reads with a parser of their own (every other name is unstructured).
_STRUCTURED = frozenset(name for name, kind in policy.default.header_factory.registry.items()  # type: ignore[attr-defined]
                        if not issubclass(kind, UnstructuredHeader))
_ADDRESS_FIELDS = frozenset(name for name, kind in policy.default.header_factory.registry.items()  # type: ignore[attr-defined]
                            if issubclass(kind, AddressHeader))


def _plain(key: str, raw: str) -> str | None:
    """``raw`` itself when ``policy.default`` would give it back unchanged, else None (ask it)."""
    if not raw or not raw.isascii() or "=?" in raw or "\r" in raw or "\n" in raw:
        return None
    if key not in _STRUCTURED:
        return raw
    if key in _ADDRESS_FIELDS:
        return raw if BARE_ADDRESS.fullmatch(raw) else None
    if key == "message-id":
        return raw if _PLAIN_MSGID.fullmatch(raw) else None
    return None
