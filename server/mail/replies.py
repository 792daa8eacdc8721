"""Composing reply mails and putting them in the outbox.

A reply is built whole, as bytes, inside the transaction of the command that
caused it: once that transaction commits, the mail exists even if the server
dies before the relay sees it.  Only its board pictures are left to the
deliverer (a placeholder and what to draw: server.pictures.cache), as a
pure function of what is stored, so the mail is the same either way.
"""

from __future__ import annotations

import binascii
import uuid
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import SMTP as SMTP_POLICY
from email.utils import formatdate, make_msgid

from sqlalchemy import insert
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.mail.limits import cut
from server.mail.quota import admit_each, short_for_stranger
from server.mail.wrapping import wrap_prose
from server.pictures.cache import Picture, content_ids, html_page, related_part, spec_png
from server.store.model import Outbox, utcnow
from server.store.queries import core


@dataclass
class Mail:
    """One outgoing mail to one recipient (a user's addresses, or the sender)."""

    to: list[str]
    subject: str
    body: str
    #: The Message-ID of the mail this answers, if any.
    in_reply_to: str | None = None
    #: Thread root(s), e.g. the board's, so clients group all its mail.
    references: list[str] = field(default_factory=list)
    #: RFC 3834 value: "auto-replied" for answers, "auto-generated" for reminders.
    auto_submitted: str = "auto-replied"
    #: Users the mail is for (for the multiple-mode merge and for logs).
    users: list[str] = field(default_factory=list)
    #: The recipient's personal reply address (server.accounts.reply_address), on mail that invites a move.
    reply_to: str | None = None
    #: Board pictures shown inline in the HTML part (server.pictures.cache).
    pictures: list[Picture] = field(default_factory=list)
    #: Text files attached below the message, (filename, text): a game record (server.boards.board_record).
    attachments: list[tuple[str, str]] = field(default_factory=list)
    #: The body is the server's own fixed text (help), nothing a sender chose: a
    #: stranger gets it whole (the stranger cap is for attacker-chosen text).
    fixed: bool = False


def board_root(settings: Settings, game: str, number: int) -> str:
    """A stable References root per board, so all its mail threads together."""
    return f"<{game}.{number}.board@{settings.domain}>"


def compose(settings: Settings, mail: Mail) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"pbmserv <{settings.sender_address}>"
    msg["To"] = ", ".join(mail.to)
    msg["Subject"] = mail.subject
    if mail.reply_to:
        msg["Reply-To"] = mail.reply_to
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid("pbmserv", domain=settings.domain)
    refs = list(mail.references)
    if mail.in_reply_to:
        msg["In-Reply-To"] = mail.in_reply_to
        refs.append(mail.in_reply_to)
    if refs:
        msg["References"] = " ".join(dict.fromkeys(refs))
    msg["Auto-Submitted"] = mail.auto_submitted
    msg["X-Loop"] = settings.address
    msg["Precedence"] = "bulk"
    msg["X-Auto-Response-Suppress"] = "All"
    body = wrap_prose(mail.body if mail.body.endswith("\n") else mail.body + "\n")
    msg.set_content(body, charset="utf-8", cte="quoted-printable")
    # Webmail shows text/plain in a proportional font and breaks the boards'
    # columns; a <pre> alternative keeps them.  Clients that prefer plain text
    # still read the first part.
    cids = content_ids(mail.pictures, settings.domain)
    msg.add_alternative(html_page(body, mail.pictures, cids), subtype="html", charset="utf-8",
                        cte="quoted-printable")
    page = msg.get_payload()[1]  # type: ignore[index]
    for pic, cid in zip(mail.pictures, cids, strict=True):
        # The email package's path (headers beyond plain ASCII: rare) draws the picture here.
        png = pic.png if pic.png is not None else spec_png(pic.spec or {})
        page.add_related(png, "image", "png", cid=f"<{cid}>", disposition="inline", filename=pic.filename)
    for filename, text in mail.attachments:
        msg.add_attachment(text, subtype="plain", charset="utf-8", cte="quoted-printable", filename=filename)
    return msg


def _qp(text: str) -> bytes:
    """Quoted-printable UTF-8 with CRLF line ends (soft breaks keep lines <= 76)."""
    encoded = binascii.b2a_qp(text.encode("utf-8"), quotetabs=False, istext=True, header=False)
    return encoded.replace(b"\n", b"\r\n")


def _fold(name: str, value: str) -> str:
    """``Name: value`` CRLF, folded at spaces so lines stay within 78 characters where they can."""
    lines = [f"{name}:"]
    for word in value.split(" "):
        if len(lines[-1]) + 1 + len(word) > 78 and lines[-1] != f"{name}:":
            lines.append("")
        lines[-1] += " " + word
    return "\r\n".join(lines) + "\r\n"


def render(settings: Settings, mail: Mail) -> bytes:
    """The wire bytes of ``mail``: what :func:`compose` builds, without the email package.

    Building an EmailMessage under ``policy.default`` parses every header it
    sets and re-folds everything on output: 8 ms a mail, the largest single
    cost of a move (two board mails) in bench/bench_throughput.py.  Our
    headers are plain ASCII, so they are written out directly; a mail with
    anything but printable ASCII in a header, or a header over 900 characters, goes
    through the email package as before.
    """
    refs = list(mail.references)
    if mail.in_reply_to:
        refs.append(mail.in_reply_to)
    headers = [
        ("From", f"pbmserv <{settings.sender_address}>"),
        ("To", ", ".join(mail.to)),
        ("Subject", mail.subject),
        *([("Reply-To", mail.reply_to)] if mail.reply_to else []),
        ("Date", formatdate(localtime=False)),
        ("Message-ID", make_msgid("pbmserv", domain=settings.domain)),
    ]
    if mail.in_reply_to:
        headers.append(("In-Reply-To", mail.in_reply_to))
    if refs:
        headers.append(("References", " ".join(dict.fromkeys(refs))))
    headers += [("Auto-Submitted", mail.auto_submitted), ("X-Loop", settings.address), ("Precedence", "bulk"),
                ("X-Auto-Response-Suppress", "All")]
    if any(not (value.isascii() and value.isprintable()) or len(value) > 900 for _, value in headers):
        return compose(settings, mail).as_bytes(policy=SMTP_POLICY)
    body = wrap_prose(mail.body if mail.body.endswith("\n") else mail.body + "\n")
    cids = content_ids(mail.pictures, settings.domain)
    page = html_page(body, mail.pictures, cids)
    boundary = f"===============pbm{uuid.uuid4().hex}=="
    head = "".join(_fold(name, value) for name, value in headers)
    part = 'Content-Type: text/{}; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
    alternative = b"".join([
        (f'Content-Type: multipart/alternative;\r\n boundary="{boundary}"\r\n\r\n'
         f"--{boundary}\r\n" + part.format("plain")).encode("ascii"),
        _qp(body),
        f"\r\n--{boundary}\r\n".encode("ascii"),
        related_part(_qp(page), mail.pictures, cids) if mail.pictures
        else part.format("html").encode("ascii") + _qp(page),
        f"\r\n--{boundary}--\r\n".encode("ascii"),
    ])
    return (head + "MIME-Version: 1.0\r\n").encode("ascii") + with_attachments(alternative, mail.attachments)


def with_attachments(content: bytes, attachments: list[tuple[str, str]]) -> bytes:
    """``content`` (a MIME part with its headers) alone, or first in a multipart/mixed with the text files."""
    if not attachments:
        return content
    boundary = f"===============pbm{uuid.uuid4().hex}=="
    parts = [f'Content-Type: multipart/mixed;\r\n boundary="{boundary}"\r\n\r\n--{boundary}\r\n'.encode("ascii"),
             content]
    for filename, text in attachments:
        safe = "".join(c for c in filename if c.isascii() and (c.isalnum() or c in ".-_")) or "attachment.txt"
        parts += [f'\r\n--{boundary}\r\nContent-Type: text/plain; charset="utf-8"\r\n'
                  f'Content-Disposition: attachment; filename="{safe}"\r\n'
                  "Content-Transfer-Encoding: quoted-printable\r\n\r\n".encode("ascii"), _qp(text)]
    parts.append(f"\r\n--{boundary}--\r\n".encode("ascii"))
    return b"".join(parts)


def parse_rendered(raw: bytes) -> EmailMessage:
    """A rendered mail read back (for tools and tests that want the message object)."""
    return BytesParser(policy=policy.default).parsebytes(raw)  # type: ignore[return-value]


#: The outbox row's INSERT, built once (its columns come as parameters).
_INSERT_OUTBOX = insert(Outbox.__table__)  # the table, not the class: no ORM bulk-insert layer


def queue(session: Session, settings: Settings, *mails: Mail) -> None:
    """Add ``mails`` to the outbox in the caller's transaction.

    Each body is cut at the reply cap (and shorter for an address without an
    account); recipients over their daily cap are dropped, and with them
    a mail if none is left (server/mail/quota.py).  The rows are written
    with one Core INSERT (an executemany for several): nothing reads them
    back in the transaction, and the ORM's unit of work cost more than the
    statement.  A move queues its board mails together, so their recipients
    are counted in one statement and the rows written in one (two board
    mails a move: issue 25).
    """
    rows = []
    for mail, (recipients, strangers) in zip(
            mails, admit_each(session, settings, [list(m.to) for m in mails], utcnow()), strict=True):
        if not recipients:
            continue
        mail.to = recipients
        if settings.footer:  # the admin's footer, as a signature: replies quoting it are read without it
            mail.body = mail.body.rstrip("\n") + "\n\n-- \n" + settings.footer + "\n"
        mail.body = short_for_stranger(mail.body) if strangers and not mail.fixed else cut(mail.body)
        if strangers:
            mail.pictures = []  # no images for an address without an account: short means short
        rows.append(dict(
            envelope_from=settings.sender_address,
            recipients=list(mail.to),
            subject=mail.subject[:400],
            # CRLF on the wire: smtplib sends bytes as they are.
            message=render(settings, mail),
            status="pending",
            # Drawn by the deliverer, outside the command's locks (server.pictures.cache.fill).
            pictures={p.key: p.spec for p in mail.pictures if p.png is None and p.spec is not None} or None,
            stranger=strangers,
        ))
    if rows:
        core(session, _INSERT_OUTBOX, rows[0] if len(rows) == 1 else rows)
