"""What makes two received mails "the same message", applied only once.

A mail an MTA delivers twice (a lost 250, a retry after a timeout) is the
same Message-ID, the same sender and the same content; only its trace
headers differ (one more ``Received:``).  So the key is a digest of all
three, the trace headers left out.  Keying on the Message-ID alone dropped a
different command that reused (or was pre-empted on) a Message-ID; hashing
the raw bytes when the Message-ID was long applied a mail twice once one
more ``Received:`` line came with it.
"""

from __future__ import annotations

import hashlib

from server.mail.guards import header_block, header_fields

#: Header fields added in transit (RFC 5321 trace fields, and what relays and filters stamp on).
TRACE_FIELDS = frozenset({
    b"received", b"return-path", b"delivered-to", b"x-original-to", b"received-spf", b"authentication-results",
    b"arc-seal", b"arc-message-signature", b"arc-authentication-results", b"x-received", b"x-spam-status",
    b"x-spam-score", b"x-spam-flag", b"x-virus-scanned", b"x-spam-checker-version", b"x-spam-level",
    b"x-ms-exchange-organization-authas", b"x-envelope-from", b"x-envelope-to",
})


def content_digest(raw: bytes) -> str:
    """SHA-256 of the message without trace header fields, line ends normalised."""
    raw = raw.replace(b"\r\n", b"\n")
    head = header_block(raw)
    kept = [f for f in header_fields(head) if f.partition(b":")[0].strip().lower() not in TRACE_FIELDS]
    digest = hashlib.sha256()
    for field in kept:
        digest.update(field.rstrip(b"\n") + b"\n")
    digest.update(b"\n" + raw[len(head):])
    return digest.hexdigest()


def message_id_of(raw: bytes) -> str:
    """The Message-ID as written (at most 200 characters), or ""."""
    for field in header_fields(header_block(raw)):
        name, _, value = field.partition(b":")
        if name.strip().lower() == b"message-id":
            return value.decode("ascii", "replace").strip()[:200]
    return ""


def dedupe_key(raw: bytes, sender: str = "") -> str:
    """``id:`` + a digest of (Message-ID, sender, content without trace headers)."""
    digest = hashlib.sha256()
    for part in (message_id_of(raw), sender.lower(), content_digest(raw)):
        digest.update(part.encode("utf-8", "replace") + b"\0")
    return "id:" + digest.hexdigest()
