"""Fields read from a compat32 parse decode exactly as policy.default decodes them (issue 25).

The reader parses incoming mail with compat32 and decodes only the fields
it reads (server/mail/headers.py); a player's encoded subject or display
name must come out as the modern parser gives it.  Checked against the
stdlib's own policy.default on every mail of the client corpus and on
hand-made fields (encoded words, folding, 8-bit bytes).
"""

from __future__ import annotations

from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from server.mail.headers import field

CORPUS = sorted((Path(__file__).resolve().parents[2] / "mail_corpus").glob("*.eml"))
NAMES = ["Subject", "From", "Reply-To", "Message-ID", "To", "Auto-Submitted", "Precedence", "X-Missing"]

EXTRA = [
    b"Subject: =?utf-8?q?J=C3=B6rg_plays_d4?=\r\nFrom: =?iso-8859-1?q?J=F6rg?= <j@example.org>\r\n\r\nx\r\n",
    b"Subject: =?utf-8?b?UmU6IFdhcnAgYW5kIFdlZnQgQm9hcmQgMTAx?=\r\n =?utf-8?b?IGFsaWNl?=\r\n\r\nx\r\n",
    b"Subject: Re: a long subject\r\n\tfolded with a tab\r\nReply-To: \"Bob (home)\" <bob@example.org>\r\n\r\nx\r\n",
    b"Subject: caf\xc3\xa9 8-bit\r\nFrom: Ren\xc3\xa9 <rene@example.org>\r\n\r\nx\r\n",
]


def _modern(raw: bytes, name: str) -> str:
    value = BytesParser(policy=policy.default).parsebytes(raw).get(name)
    return "" if value is None else str(value)


@pytest.mark.parametrize("raw", [p.read_bytes() for p in CORPUS] + EXTRA,
                         ids=[p.name for p in CORPUS] + [f"extra{i}" for i in range(len(EXTRA))])
def test_every_field_read_decodes_as_policy_default(raw: bytes) -> None:
    msg = BytesParser(policy=policy.compat32).parsebytes(raw)
    for name in NAMES:
        assert field(msg, name) == _modern(raw, name), name


def test_a_field_is_decoded_once_per_message() -> None:
    msg = BytesParser(policy=policy.compat32).parsebytes(EXTRA[0])
    first = field(msg, "Subject")
    msg.replace_header("Subject", "changed")  # a second read is served from the message's memo
    assert field(msg, "subject") == first == "J\u00f6rg plays d4"
