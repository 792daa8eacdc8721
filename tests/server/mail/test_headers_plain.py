"""Plain header fields are read without policy.default's header objects, and read the same
(server/mail/headers.py ``_plain``, issue 25).

The reference is the standard library itself: every value, plain or not,
must come out of ``field`` exactly as ``policy.default.header_fetch_parse``
gives it.  The values are drawn near the fast path's edges: bare addresses
and display names, quoted strings and comments, encoded words, tabs and
runs of spaces, Message-IDs with and without their brackets.  The address of a From-like
field (``parse._address``, which skips ``parseaddr`` for one bare address)
must be ``parseaddr``'s on the decoded field.
"""

from __future__ import annotations

import string
from email import policy
from email.parser import BytesParser
from email.utils import parseaddr

from hypothesis import given, settings
from hypothesis import strategies as st

from server.mail.headers import _plain, field
from server.mail.parse import _address

NAMES = ["Subject", "From", "Reply-To", "To", "Cc", "Sender", "Message-ID", "Auto-Submitted", "Precedence",
         "X-Ack", "X-Loop", "Date", "Content-Type", "MIME-Version"]

ATEXT = string.ascii_letters + string.digits + "!#$%&'*+-/=?^_`{|}~"
atom = st.text(alphabet=ATEXT, min_size=1, max_size=6)
dot_atom = st.lists(atom, min_size=1, max_size=3).map(".".join)
address = st.builds(lambda a, b: f"{a}@{b}", dot_atom, dot_atom)
pieces = st.sampled_from(['"', "(", ")", "<", ">", ",", ";", ":", "\\", "=?utf-8?q?", "?=", " ", "  ", "\t", "[", "]",
                          "@", ".", "é", "Alice", "Bob Smith"])
near = st.one_of(
    address,
    st.builds(lambda a: f"<{a}>", address),
    st.builds(lambda n, a: f"{n} <{a}>", atom, address),
    st.builds(lambda n, a: f'"{n}" <{a}>', st.text(alphabet=ATEXT + " ", max_size=8), address),
    st.builds(lambda a, c: f"{a} ({c})", address, st.text(alphabet=ATEXT, max_size=5)),
    st.builds(lambda a, p, b: a + p + b, address, pieces, st.one_of(address, atom)),
    st.lists(st.one_of(atom, pieces), max_size=8).map("".join),
    st.text(alphabet="".join(chr(i) for i in range(128) if chr(i) not in "\r\n"), max_size=40),
)


def _parsed(name: str, value: str):  # type: ignore[no-untyped-def]
    return BytesParser(policy=policy.compat32).parsebytes(
        f"{name}: {value}\r\n\r\nbody\r\n".encode("utf-8", "surrogateescape"))


@settings(max_examples=1500, deadline=None)
@given(name=st.sampled_from(NAMES), value=near)
def test_a_field_reads_as_policy_default_reads_it(name: str, value: str) -> None:
    msg = _parsed(name, value)
    raw = next((v for k, v in msg.raw_items() if k.lower() == name.lower()), None)
    if raw is None:
        return  # the value broke the header line itself (a leading colon, say): not a field
    try:
        expected = str(policy.default.header_fetch_parse(name, raw))
    except Exception:
        expected = ""  # field's answer for what the stdlib cannot read
    assert field(msg, name) == expected


def test_the_plain_shapes_skip_the_header_objects() -> None:
    """What the fast path takes, and what it leaves to policy.default (so the test above covers both)."""
    assert _plain("subject", "Re: Warp and Weft Board 101 bob") == "Re: Warp and Weft Board 101 bob"
    assert _plain("auto-submitted", "auto-replied") == "auto-replied"
    assert _plain("from", "bob@example.org") == "bob@example.org"
    assert _plain("message-id", "<abc.1@mail.example.org>") == "<abc.1@mail.example.org>"
    for key, value in [("from", '"Bob" <bob@example.org>'), ("from", "Bob <bob@example.org>"),
                       ("subject", "=?utf-8?q?caf=C3=A9?="), ("subject", "caf\u00e9"), ("subject", "a\r\n b"),
                       ("message-id", "abc@x"), ("date", "Fri, 27 Nov 2026 10:00:00 +0000"),
                       ("content-type", "text/plain")]:
        assert _plain(key, value) is None, (key, value)


@settings(max_examples=1500, deadline=None)
@given(name=st.sampled_from(["From", "Reply-To", "Sender"]), value=near)
def test_an_address_is_read_as_parseaddr_reads_the_decoded_field(name: str, value: str) -> None:
    """parse._address answers a bare address without parseaddr (issue 25): the same answer."""
    msg = _parsed(name, value)
    try:
        expected = parseaddr(field(msg, name))[1]
    except Exception:
        expected = ""
    assert _address(msg, name) == expected
