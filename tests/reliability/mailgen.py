"""Hypothesis strategies for hostile mail: random MIME trees, charsets, encodings and damage.

Messages are assembled as bytes by hand (not through ``EmailMessage``, which
refuses to build most of what arrives from the wild): wrong charsets, broken
base64, boundaries that never close, NUL bytes, 8-bit headers, overlong
lines, huge headers, bare CR/LF, truncation.  Hypothesis draws the seed, the
tree depth and the kind of damage; the tree and its content come from a
``Random`` with that seed, so ten thousand messages generate in seconds
(drawing every choice through hypothesis cost ~13 ms a message).
"""

from __future__ import annotations

import base64
import quopri
import random

from hypothesis import strategies as st

ADDRESS = "pbmserv@games.test"
#: Seeds of the plain ``Random`` that fills in content (hypothesis' own randoms cost ~8 us a call).
SEEDS = st.integers(0, 2**64)

CHARSETS = ["utf-8", "us-ascii", "iso-8859-1", "koi8-r", "utf-16", "shift_jis", "utf-7", "x-no-such-charset",
            "", "utf-8\x00", "big5"]
ENCODINGS = ["7bit", "8bit", "binary", "base64", "quoted-printable", "x-uuencode", "x-garbage", ""]
LEAF_TYPES = ["text/plain", "text/html", "text/enriched", "application/octet-stream", "image/png",
              "message/delivery-status", "text/x-weird", "garbage", ""]
MULTI_TYPES = ["mixed", "alternative", "related", "digest", "report", "signed", "x-nonsense"]
#: Words the command parser knows, so random subjects often reach the commands' own checks.
VOCAB = ["tictactoe", "ttt", "move", "board", "mvoe", "show", "games", "challenge", "resign", "swap", "help",
         "signup", "change", "password", "address", "signoff", "list", "all", "vacation", "on", "off", "101",
         "101#1", "102", "p0", "p1", "alice", "wrongpass", "a1", "b2", "c3#2", "#", "multiple", "Re:",
         "Fwd:", "**", "--nagtime=7", "-compact", "-swap", "commands", "propose", "accept", "undo", "next"]
NASTY = ["\x00", "\r", "\n", "\r\n\r\n", "=?utf-8?b?!!!?=", "=?x-bogus?q?=FF?=", "\ufffd", "\u202e", "\ufeff",
         "\u00a0", "\u200b", "<html><p>help</p>", "-- \n", "> quoted", "=\r\n", "\t", "a" * 2000, "\U0001f600"]
#: Alphabets random text is drawn from: ASCII, Latin-1, anything in the BMP, control characters.
ALPHABETS = [(32, 127), (0, 256), (0, 0xD7FF), (0, 32)]


def random_text(rng: random.Random, size: int) -> str:
    lo, hi = rng.choice(ALPHABETS)
    parts = [chr(rng.randrange(lo, hi)) if rng.random() > 0.05 else rng.choice(NASTY + VOCAB) for _ in range(size)]
    return "".join(parts)


def encode_body(body: str, charset: str, cte: str) -> bytes:
    try:
        data = body.encode(charset.strip("\x00") or "utf-8", "replace")
    except (LookupError, UnicodeError):
        data = body.encode("utf-8", "replace")
    if cte == "base64":
        return base64.encodebytes(data)
    if cte == "quoted-printable":
        return quopri.encodestring(data)
    return data


def leaf(rng: random.Random) -> bytes:
    ctype = rng.choice(LEAF_TYPES)
    charset = rng.choice(CHARSETS)
    cte = rng.choice(ENCODINGS)
    head = f"Content-Type: {ctype}; charset=\"{charset}\"\r\n".encode("utf-8", "replace")
    if cte:
        head += f"Content-Transfer-Encoding: {cte}\r\n".encode()
    if rng.random() < 0.3:
        head += b"Content-Disposition: " + rng.choice([b"attachment", b"inline", b"attachment; filename=\xff.txt"]) + b"\r\n"
    if rng.random() < 0.1:
        payload = rng.randbytes(rng.randrange(300))
    else:
        payload = encode_body(random_text(rng, rng.randrange(400)), charset, cte)
    return head + b"\r\n" + payload


def mime_tree(rng: random.Random, depth: int) -> bytes:
    """A leaf, a multipart of up to four subtrees (boundaries odd, maybe unclosed), or a message/rfc822."""
    kind = rng.randrange(3) if depth > 0 else 0
    if kind == 0:
        return leaf(rng)
    if kind == 1:
        inner = mime_tree(rng, depth - 1)
        return b"Content-Type: message/rfc822\r\n\r\nSubject: inner\r\nFrom: x@y.z\r\n" + inner
    boundary = rng.choice(["b1", "==x==", "", "a" * 80, "b1 b1", "\u00e9t\u00e9", random_text(rng, 8)])
    parts = [mime_tree(rng, depth - 1) for _ in range(rng.randrange(5))]
    head = f"Content-Type: multipart/{rng.choice(MULTI_TYPES)}; boundary=\"{boundary}\"\r\n\r\n"
    body = b"preamble\r\n" + b"".join(f"--{boundary}\r\n".encode("utf-8", "replace") + p + b"\r\n" for p in parts)
    if rng.random() < 0.8:
        body += f"--{boundary}--\r\nepilogue\r\n".encode("utf-8", "replace")
    return head.encode("utf-8", "replace") + body


def header_value(rng: random.Random) -> bytes:
    kind = rng.choice([0, 1, 2, 4, 5] * 6 + [3])  # huge headers are slow to parse: 1 in 31
    if kind == 0:
        return rng.randbytes(rng.randrange(120))
    if kind == 1:
        return " ".join(rng.choice(VOCAB) for _ in range(rng.randrange(8))).encode()
    if kind == 2:
        value = random_text(rng, rng.randrange(80))
        charset = rng.choice(["utf-8", "iso-8859-1", "x-bogus", "koi8-r"])
        enc = base64.b64encode(value.encode("utf-8", "replace")).decode()
        return f"=?{charset}?b?{enc}?=".encode()
    if kind == 3:  # huge, folded
        return b"\r\n ".join([b"x" * rng.randrange(1, 900)] * rng.randrange(1, 150))
    return random_text(rng, rng.randrange(100)).encode("utf-8", "replace")


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    """A whole message: random headers around a random MIME tree, then maybe damaged."""
    rng = random.Random(draw(SEEDS))
    lines = [b"From: " + rng.choice([b"fuzz@example.org", b"Fuzz <fuzz@example.org>", b"", b"<>", b"@@",
                                     b"=?utf-8?q?F=C3=BCzz?= <fuzz@example.org>", b"\xff\xfe@x"])]
    lines.append(f"To: {ADDRESS}".encode())
    if rng.random() < 0.9:
        lines.append(f"Message-ID: <fuzz.{rng.getrandbits(64)}@example.org>".encode())
    if rng.random() < 0.5:
        lines.append(b"Subject: " + header_value(rng))
    for _ in range(rng.randrange(6)):
        name = rng.choice([b"Reply-To", b"Subject", b"X-Loop", b"Auto-Submitted", b"Precedence", b"Date",
                           b"Content-Type", b"MIME-Version", b"Received", b"X-" + b"h" * 300, b"Bad Name",
                           b"Cc", b"List-Id", b"Message-ID", b"\xc3\xa9"])
        lines.append(name + b": " + header_value(rng))
    if rng.random() < 0.5:
        lines.append(b"MIME-Version: 1.0")
    raw = b"\r\n".join(lines) + b"\r\n" + mime_tree(rng, draw(st.integers(0, 5)))
    damage = draw(st.integers(0, 7))
    if damage == 0:
        raw = raw[: rng.randrange(len(raw) + 1)]
    elif damage == 1:
        at = rng.randrange(len(raw) + 1)
        raw = raw[:at] + b"\x00" * rng.randrange(1, 50) + raw[at:]
    elif damage == 2:
        raw = raw.replace(b"\r\n", rng.choice([b"\n", b"\r", b"\n\r"]))
    elif damage == 3:
        raw += b"z" * rng.randrange(1000, 20000) + b"\r\n"
    return raw


@st.composite
def subjects(draw: st.DrawFn) -> str:
    """Command lines: known words in random order, mixed with random text."""
    rng = random.Random(draw(SEEDS))
    words = [rng.choice(VOCAB) if rng.random() < 0.7 else random_text(rng, rng.randrange(20))
             for _ in range(rng.randrange(10))]
    return rng.choice([" ", "  ", "\t", "\u00a0", " \u200b"]).join(words)
