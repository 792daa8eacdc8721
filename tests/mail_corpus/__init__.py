"""Mail as real clients write it, for every test that sends mail to the server.

Each ``NAME.eml`` here was written by hand in the shape one client produces
(headers, MIME structure, transfer encoding, quoting, signature): Thunderbird
with format=flowed, Outlook desktop/web/Android, Gmail top- and bottom-posted,
Apple Mail, iPhone, Hotmail, HTML-only webmail, QP and base64 bodies, RFC 2047
subjects and list-style subject tags.  ``CASES`` says, for each, what the
server must read out of it with the default fill-in: the command(s) and the
comment the other players are shown.

Reuse a shape in any test with :func:`load`::

    from tests import mail_corpus
    raw = mail_corpus.load("outlook_desktop_reply", sender="bob@example.org",
                           subject="Warp and Weft Board 101 bob banana2 G1")
    send(port, raw, sender="bob@example.org", to=ADDRESS)

Placeholders in the files, filled by :func:`load`:

``{{FROM}}``        ``Display Name <sender>`` (the From header)
``{{ADDRESS}}``     the bare sender address
``{{TO}}``          the server's address
``{{SUBJECT}}``     the subject (after the file's own "Re: " etc.);
                    ``{{SUBJECT:Q}}`` / ``{{SUBJECT:B}}``: RFC 2047 encoded
``{{COMMAND}}``     a body-mode command line (only in body-mode shapes)
``{{MSGID}}``       a fresh Message-ID
``{{BASE64:...}}``  the enclosed text (after filling) base64-encoded, 76 a line

Placeholders inside a quoted-printable part must be filled with plain ASCII
without ``=`` (userids, passwords and moves are).
"""

from __future__ import annotations

import base64
import itertools
import re
from dataclasses import dataclass, field
from email.header import Header
from pathlib import Path

HERE = Path(__file__).parent
SERVER = "pbmserv@games.test"
_COUNTER = itertools.count(1)
_BASE64 = re.compile(r"\{\{BASE64:\n(.*?)\n\}\}", re.DOTALL)


@dataclass(frozen=True)
class Case:
    """One client shape and what the server must read out of it."""

    client: str
    #: Filled into {{SUBJECT}} by default ("" for body-mode shapes).
    subject: str = ""
    #: Filled into {{COMMAND}} by default.
    command: str = ""
    #: The commands the server must read, with the defaults filled in.
    commands: list[str] = field(default_factory=list)
    #: The comment shown to the other players.
    comment: str = ""
    sender_name: str = "Alice Example"


MOVE = "Warp and Weft Board 101 alice apple1 C1"
CHALLENGE = "warpandweft challenge alice bob"

CASES: dict[str, Case] = {
    "thunderbird_flowed_reply": Case(
        "Thunderbird 128, multipart/alternative, text part format=flowed, top-posted",
        subject=MOVE, commands=[MOVE],
        comment="I thought about this one for a long time, and I am still not sure the long thread "
                "on the left is worth the patch it costs me."),
    "thunderbird_flowed_body": Case(
        "Thunderbird, empty subject, commands soft-wrapped by format=flowed, '-- ' signature",
        commands=["warpandweft challenge alice bob", "help games"]),
    "apple_delsp_body": Case(
        "Apple Mail, format=flowed; delsp=yes, 'multiple' subject, breaks inside a word",
        commands=["warpandweft challenge alice bob -compact", "warpandweft help"]),
    "html_only_reply": Case(
        "webmail, HTML only (QP) with <head>, <style>, <title>, attribution and <blockquote>",
        subject=MOVE, commands=[MOVE], comment="Your thread is blocked now.\nGood game so far!"),
    "outlook_desktop_reply": Case(
        "Outlook desktop: rule, From:/Sent:/To:/Subject: block, then the old board unquoted",
        subject=MOVE, commands=[MOVE], comment="Sorry for the slow answer, I was travelling.\n\nRegards,\nAlice"),
    "outlook_web_reply": Case(
        "Outlook on the web: From:/Sent: block right under the text (no rule), latin-1 QP",
        subject=MOVE, commands=[MOVE], comment="Here is my move. Caf\u00e9 tonight?"),
    "outlook_original_message": Case(
        "Outlook in plain-text mode: -----Original Message-----",
        subject=MOVE, commands=[MOVE], comment="Played."),
    "gmail_top_posted": Case(
        "Gmail, top-posted, attribution wrapped over two lines, QP with a narrow no-break space",
        subject=MOVE, commands=[MOVE], comment="Ha, I did not see that coming - well played."),
    "gmail_bottom_posted": Case(
        "Gmail, bottom-posted under the quote, '-- ' signature",
        subject=MOVE, commands=[MOVE], comment="Then I take the corner.\nYour move, Bob."),
    "apple_mail_reply": Case(
        "Apple Mail, quoted attribution ('> On ... wrote:'), QP UTF-8",
        subject=MOVE, commands=[MOVE], comment="Merci, \u00e0 toi."),
    "iphone_reply": Case(
        "iPhone Mail: 'Sent from my iPhone' above the quote",
        subject=MOVE, commands=[MOVE], comment="On the train, short answer"),
    "iphone_body": Case(
        "iPhone Mail, empty subject, one command and the signature",
        command=CHALLENGE, commands=[CHALLENGE]),
    "android_outlook_base64": Case(
        "Outlook for Android: base64, 'Get Outlook for Android', rule and old board unquoted",
        subject=MOVE, commands=[MOVE], comment="I will think about the weft later."),
    "android_gmail_body_base64": Case(
        "Gmail on Android, 'multiple', base64, 'Sent from my Galaxy'",
        command=CHALLENGE, commands=[CHALLENGE, "help games"]),
    "bare_dashes_signature": Case(
        "a signature under a bare '--' (no trailing space)",
        subject=MOVE, commands=[MOVE], comment="Good luck, you will need it."),
    "hotmail_signature_body": Case(
        "Hotmail, empty subject, Windows-1252 QP, '____' rule and advert",
        command=CHALLENGE, commands=[CHALLENGE]),
    "qp_soft_breaks": Case(
        "quoted-printable soft line break inside a sentence, smart quotes, no-break space",
        subject=MOVE, commands=[MOVE],
        comment="Une tr\u00e8s longue phrase qui d\u00e9passe la largeur de ligne et que le client coupe "
                "avec un saut doux, mais c'est une seule ligne.\n\"Joli coup\", non ?"),
    "rfc2047_subject": Case(
        "RFC 2047 Q-encoded subject and From name",
        subject="Re: " + MOVE, commands=[MOVE], comment="Gr\u00fc\u00dfe aus K\u00f6ln.",
        sender_name="Al\u00efce Exampl\u00e9"),
    "rfc2047_base64_subject": Case(
        "RFC 2047 B-encoded subject with a non-breaking space, empty body",
        subject="AW:\u00a0" + MOVE, commands=[MOVE]),
    "pbm_tag_subject": Case(
        "a list-style [PBM] tag ahead of Re: (a filter rule added it)",
        subject=MOVE, commands=[MOVE], comment="Filtered into my games folder."),
}


def names() -> list[str]:
    return sorted(CASES)


def load(name: str, *, sender: str = "alice@example.org", sender_name: str | None = None,
         subject: str | None = None, body_command: str | None = None, to: str = SERVER,
         message_id: str | None = None) -> bytes:
    """The wire bytes (CRLF) of corpus mail ``name`` with the placeholders filled."""
    case = CASES[name]
    text = (HERE / f"{name}.eml").read_text(encoding="utf-8")
    subject = case.subject if subject is None else subject
    display = case.sender_name if sender_name is None else sender_name
    values = {
        "{{FROM}}": Header(display, "utf-8").encode() + f" <{sender}>" if not display.isascii()
        else f"{display} <{sender}>",
        "{{ADDRESS}}": sender,
        "{{TO}}": to,
        "{{SUBJECT:Q}}": _encoded(subject, "q"),
        "{{SUBJECT:B}}": _encoded(subject, "b"),
        "{{SUBJECT}}": subject,
        "{{COMMAND}}": case.command if body_command is None else body_command,
        "{{MSGID}}": message_id or f"<corpus.{name}.{next(_COUNTER)}@example.org>",
    }
    for key, value in values.items():
        text = text.replace(key, value)
    text = _BASE64.sub(lambda m: _base64(m.group(1) + "\n"), text)
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def _encoded(value: str, kind: str) -> str:
    if not value:
        return ""
    from email.charset import BASE64, QP, Charset

    charset = Charset("utf-8")
    charset.header_encoding = QP if kind == "q" else BASE64
    return charset.header_encode(value)


def _base64(text: str) -> str:
    data = base64.b64encode(text.replace("\n", "\r\n").encode("utf-8")).decode("ascii")
    return "\n".join(data[i:i + 76] for i in range(0, len(data), 76))
