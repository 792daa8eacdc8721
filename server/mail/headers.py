"""A parsed message's header fields, decoded only when read.

Incoming mail is parsed with ``policy.compat32``, which keeps each field
as its raw text: ``policy.default`` builds a header object for every
field the parser itself looks at (each part's Content-Type and its
parameters), and that was most of a reply's parse -- 0.2-0.9 ms of the
0.8-1.7 ms a real client's mail took (issue 25).  The few fields the
server reads (Subject, From, Reply-To, Message-ID, the RFC 3834 ones) are
decoded here exactly as ``policy.default`` decodes them (its
``header_fetch_parse`` on the same raw text), each once per message.
"""

from __future__ import annotations

from email import policy
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
            value = None if raw is None else policy.default.header_fetch_parse(name, raw)
        except Exception:
            value = None
        seen[key] = "" if value is None else str(value)
    return seen[key]
