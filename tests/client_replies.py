"""Replies as real mail clients write them, built from the board mail they answer.

A player hits Reply on the board mail the server sent and types above the
quote; the client adds the rest: Reply-To as the recipient, "Re:"/"RE:",
In-Reply-To/References, an attribution, the old mail quoted (or, Outlook,
*unquoted* under a From:/Sent: block), a signature, format=flowed soft
breaks, an HTML alternative.  These builders reproduce those shapes (after
tests/mail_corpus) around the real received mail, so the quoted part is the
real board, moves and commands included, which must never be read as the
player's command.
"""

from __future__ import annotations

import html
import itertools
import textwrap
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY

from tests.mailtools import Received

_COUNTER = itertools.count(1)


def _answering(received: Received, sender: str, subject_prefix: str = "Re: ") -> EmailMessage:
    board = received.message
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(board["Reply-To"] or board["From"])
    msg["Subject"] = subject_prefix + str(board["Subject"])
    msg["Date"] = "Wed, 25 Nov 2026 02:41:07 +0000"
    msg["Message-ID"] = f"<reply.{next(_COUNTER)}.{id(msg)}@{sender.rpartition('@')[2]}>"
    msg["In-Reply-To"] = str(board["Message-ID"])
    msg["References"] = " ".join(filter(None, [str(board["References"] or ""), str(board["Message-ID"])])).strip()
    return msg


def _quoted(text: str, prefix: str = "> ") -> str:
    return "\n".join((prefix + line).rstrip() if line else prefix.rstrip() for line in text.rstrip("\n").split("\n"))


def _flowed(text: str, width: int = 72) -> str:
    """RFC 3676: long lines soft-broken with a trailing space, quotes kept per line, space-stuffing."""
    out = []
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        quote, rest = line[:depth], line[depth:]
        if rest.startswith((" ", "From ")) or (not depth and rest.startswith(">")):
            rest = " " + rest
        if len(quote + rest) <= width or line.rstrip() == "--":
            out.append(quote + rest)
            continue
        pieces = textwrap.wrap(rest, width - depth, break_long_words=False,
                               break_on_hyphens=False, drop_whitespace=False)
        out += [quote + p if i == len(pieces) - 1 else quote + p.rstrip(" ") + " " for i, p in enumerate(pieces)]
    return "\n".join(out)


def thunderbird_flowed(received: Received, sender: str, typed: str) -> bytes:
    """Thunderbird: plain text, format=flowed, "On DATE, NAME wrote:", every line quoted, "-- " signature."""
    msg = _answering(received, sender)
    msg["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.4.0"
    body = (f"{typed}\n\n-- \nAlice, on the train\n\n"
            f"On 25/11/2026 02:40, pbmserv wrote:\n{_quoted(received.text)}\n")
    # (Thunderbird's "start my reply above the quote", signature below the reply.)
    msg.set_content(_flowed(body), charset="utf-8", cte="8bit")
    msg.replace_header("Content-Type", 'text/plain; charset=UTF-8; format=flowed')
    return msg.as_bytes(policy=SMTP_POLICY)


def outlook_html(received: Received, sender: str, typed: str) -> bytes:
    """Outlook desktop: "RE:", Thread-Topic, multipart/alternative, the old mail unquoted under
    a From:/Sent:/To:/Subject: block (text part) and under an <hr> (HTML part)."""
    msg = _answering(received, sender, "RE: ")
    msg["Thread-Topic"] = str(received.message["Subject"])
    msg["X-MS-Has-Attach"] = ""
    lines = typed.split("\n")
    header = (f"From: pbmserv <{received.message['From'].addresses[0].addr_spec}>\n"
              "Sent: Wednesday, November 25, 2026 2:40 AM\n"
              f"To: {sender}\nSubject: {received.message['Subject']}\n")
    text = "\n".join(lines) + "\n\n________________________________\n" + header + "\n" + received.text
    msg.set_content(text, charset="us-ascii" if text.isascii() else "utf-8", cte="quoted-printable")
    divs = "".join(f'<div class="elementToProof" style="font-family: Aptos, sans-serif; font-size: 12pt">'
                   f"{html.escape(line) or '<br>'}</div>\n" for line in lines)
    page = ("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=us-ascii\">"
            "<style type=\"text/css\" style=\"display:none;\"> P {margin-top:0;margin-bottom:0;} </style>"
            f"</head><body dir=\"ltr\">\n{divs}<div id=\"appendonsend\"></div>\n"
            "<hr style=\"display:inline-block;width:98%\" tabindex=\"-1\">\n"
            "<div id=\"divRplyFwdMsg\" dir=\"ltr\"><font face=\"Calibri, sans-serif\" style=\"font-size:11pt\">"
            + "<br>\n".join(f"<b>{html.escape(h.split(':', 1)[0])}:</b>{html.escape(h.split(':', 1)[1])}"
                            for h in header.strip().split("\n"))
            + "</font><div>&nbsp;</div></div>\n"
            f"<div><pre>{html.escape(received.text)}</pre></div>\n</body></html>\n")
    msg.add_alternative(page, subtype="html", charset="us-ascii" if page.isascii() else "utf-8",
                        cte="quoted-printable")
    return msg.as_bytes(policy=SMTP_POLICY)


def gmail(received: Received, sender: str, typed: str) -> bytes:
    """Gmail: multipart/alternative, the attribution wrapped over two lines, <div class="gmail_quote">."""
    msg = _answering(received, sender)
    attribution = ("On Wed, Nov 25, 2026 at 2:40\u202fAM pbmserv <"
                   f"{received.message['From'].addresses[0].addr_spec}>\nwrote:")
    text = f"{typed}\n\n{attribution}\n\n{_quoted(received.text)}\n"
    msg.set_content(text, charset="utf-8", cte="quoted-printable")
    page = ('<div dir="ltr">' + "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in typed.split("\n"))
            + '</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
            + html.escape(attribution.replace("\n", " ")) + '<br></div>'
            '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
            f'rgb(204,204,204);padding-left:1ex"><pre>{html.escape(received.text)}</pre></blockquote></div>\n')
    msg.add_alternative(page, subtype="html", charset="utf-8", cte="quoted-printable")
    return msg.as_bytes(policy=SMTP_POLICY)


def iphone(received: Received, sender: str, typed: str) -> bytes:
    """iPhone Mail: plain text, "Sent from my iPhone", the attribution itself quoted."""
    msg = _answering(received, sender)
    msg["X-Mailer"] = "iPhone Mail (22B91)"
    text = (f"{typed}\n\nSent from my iPhone\n\n> On Nov 25, 2026, at 02:40, pbmserv "
            f"<{received.message['From'].addresses[0].addr_spec}> wrote:\n>\n{_quoted(received.text)}\n")
    msg.set_content(text, charset="us-ascii" if text.isascii() else "utf-8", cte="7bit" if text.isascii() else "8bit")
    return msg.as_bytes(policy=SMTP_POLICY)


SHAPES = {"thunderbird": thunderbird_flowed, "outlook": outlook_html, "gmail": gmail, "iphone": iphone}
