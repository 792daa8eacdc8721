"""Composing reply mails and putting them in the outbox.

A reply is built whole, as bytes, inside the transaction of the command that
caused it: once that transaction commits, the mail exists even if the server
dies before the relay sees it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import formatdate, make_msgid

from sqlalchemy.orm import Session

from server.config import Settings
from server.model import Outbox


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


def board_root(settings: Settings, game: str, number: int) -> str:
    """A stable References root per board, so all its mail threads together."""
    return f"<{game}.{number}.board@{settings.domain}>"


def compose(settings: Settings, mail: Mail) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"pbmserv <{settings.address}>"
    msg["To"] = ", ".join(mail.to)
    msg["Subject"] = mail.subject
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
    body = mail.body if mail.body.endswith("\n") else mail.body + "\n"
    msg.set_content(body, charset="utf-8", cte="quoted-printable")
    # Webmail shows text/plain in a proportional font and breaks the boards'
    # columns; a <pre> alternative keeps them.  Clients that prefer plain text
    # still read the first part.
    msg.add_alternative(
        "<html><body><pre style=\"font-family: monospace\">"
        + html.escape(body)
        + "</pre></body></html>\n",
        subtype="html",
        charset="utf-8",
        cte="quoted-printable",
    )
    return msg


def queue(session: Session, settings: Settings, mail: Mail) -> Outbox:
    """Add ``mail`` to the outbox in the caller's transaction."""
    msg = compose(settings, mail)
    row = Outbox(
        envelope_from=settings.address,
        recipients=list(mail.to),
        subject=mail.subject[:400],
        # CRLF on the wire: smtplib sends bytes as they are.
        message=msg.as_bytes(policy=SMTP_POLICY),
        status="pending",
    )
    session.add(row)
    return row
