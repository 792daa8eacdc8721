"""From raw bytes to commands: the part of the message path that reads mail.

Players write from Thunderbird, webmail and phones, so the reader is lenient
about what clients do to text (HTML-only bodies, quoted-printable, odd
charsets, smart quotes, non-breaking spaces, "Re: Re: AW:" prefixes) and
strict about what the command language says.  Nothing here raises on bad
input: garbage MIME gives a message with no usable command, which the worker
answers with a clear error.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from email import policy
from email.message import Message
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from server.mail.autoreply import autoresponder_reason
from server.mail.guards import header_fields, header_problem
from server.mail.headers import BARE_ADDRESS
from server.mail.headers import field as _header  # decoded, "" when absent or unreadable
from server.mail.mailtext import MAX_LINE, command_lines, comment_text, decode_flowed

#: Multipart containers (``boundary=`` parameters) beyond which the body is not parsed.
MAX_MULTIPARTS = 100
_BOUNDARY = re.compile(rb"boundary\s*=", re.IGNORECASE)
_MAILABLE = re.compile(r"^[!-~]+@[!-~]+$")
_MSGID = re.compile(r"^<[!-;=?-~]{1,250}>$")  # printable ASCII but < and >

#: Reply/forward prefixes ("Re:", "AW:", "Re[2]:") and list-style tags ("[PBM]").
_PREFIX = re.compile(
    r"^\s*(?:(?:(?:re|fwd?|aw|sv|wg|vs|antw|tr|rif|odp|ynt)\s*(?:\[\d+\])?\s*:|\[[^\]\s][^\]]{0,39}\])\s*)+",
    re.IGNORECASE,
)

_TRANSLATE = str.maketrans(
    {
        "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u2009": " ", "\u200b": "",
        "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
        "\u2013": "-", "\u2014": "-", "\u2212": "-", "\ufeff": "",
    }
)


@dataclass
class ParsedMail:
    """What the worker needs from one message."""

    message_id: str
    subject: str
    #: Where error replies go: Reply-To, else From (never a null sender).
    reply_to: str
    from_address: str
    commands: list[str]
    #: True when the body was read line by line (empty or ``multiple`` subject).
    multiple: bool
    comment: str
    #: Why the message must not be answered (RFC 3834), or None.
    no_reply_reason: str | None = None
    truncated: bool = False
    problems: list[str] = field(default_factory=list)
    #: The token of the reply address the mail came to (server.accounts.reply_address), if any.
    reply_token: str | None = None
    #: Reply mode: the command is the subject, as the body had no line of the player's.
    from_subject: bool = False
    #: A document the commands may read (a game record): the first text attachment, else the body.
    document: str = ""
    #: The front MTA we trust vouched for the From address (server/mail/authresults.py; set by the worker).
    from_authenticated: bool = False
    #: Set by the worker: the sender has no account (fewer lines read, a smaller time budget) ...
    stranger: bool = False
    #: ... and, once the mail's time budget is spent, why the rest of its lines are refused.
    over_budget: str | None = None


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text).translate(_TRANSLATE)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def clean_subject(subject: str) -> str:
    """Drop reply/forward prefixes and ``**`` markers, so a reply's subject still works."""
    subject = normalise(subject).replace("\n", " ")
    subject = " ".join(w for w in subject.split() if not set(w) <= {"*"})
    previous = None
    while previous != subject:
        previous = subject
        subject = _PREFIX.sub("", subject).strip()
    return subject


class _HTMLText(HTMLParser):
    """Just enough HTML to text: block elements become line breaks.

    Source line breaks are white space (outside ``<pre>``), quoted blocks
    get ``> `` as in a plain-text reply, and ``<hr>`` becomes the rule that
    Outlook puts above its quoted header block, so the text reader stops
    there as it does for Outlook's plain-text part.
    """

    _BLOCK = {"p", "div", "br", "tr", "li", "pre", "h1", "h2", "h3", "h4", "blockquote", "table"}
    _HIDDEN = ("script", "style", "head", "title")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        self._quote = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self._skip += 1
        if tag == "blockquote":
            self._quote += 1
        if tag == "pre":
            self._pre += 1
        if tag == "br":
            self.parts.append("\n")
        elif tag in self._BLOCK:
            self._break()
        if tag == "hr":
            self.parts.append("\n" + "_" * 32 + "\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append("\n")
        elif tag == "hr":
            self.parts.append("\n" + "_" * 32 + "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN and self._skip:
            self._skip -= 1
        if tag == "blockquote" and self._quote:
            self._quote -= 1
        if tag == "pre" and self._pre:
            self._pre -= 1
        if tag in self._BLOCK and tag != "br":
            self._break()

    def _break(self) -> None:
        """End the current line unless it just ended: nested blocks make one break."""
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if not self._pre:
            data = re.sub(r"[ \t\r\n]+", " ", data)
            if not self.parts or self.parts[-1].endswith("\n"):
                data = data.lstrip(" ")
            if not data:
                return
        if self._quote:
            data = "\n".join("> " * self._quote + line for line in data.split("\n"))
        self.parts.append(data)

    def text(self) -> str:
        return "".join(self.parts)


def html_to_text(html: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:
        return re.sub(r"<[^>]*>", " ", html)
    return parser.text()


def _part_text(part: Message) -> str:
    """A leaf part's text: its payload decoded (transfer encoding, then charset).

    A text part in its declared charset, bad bytes replaced; with no
    charset declared, or one Python does not know, as UTF-8 (what nearly
    every client sends today); other parts as UTF-8.
    """
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return payload if isinstance(payload, str) else ""
    if part.get_content_maintype() == "text":
        charset = part.get_content_charset() or "utf-8"
        try:
            return payload.decode(charset, "replace")
        except LookupError:
            pass
    return payload.decode("utf-8", "replace")


def _plain_text(part: Message) -> str:
    """A text/plain part's text, with format=flowed soft breaks joined (RFC 3676)."""
    text = _part_text(part)
    if str(part.get_param("format", "") or "").lower() == "flowed":
        delsp = str(part.get_param("delsp", "") or "").lower() == "yes"
        text = decode_flowed(text.replace("\r\n", "\n"), delsp)
    return text


def body_text(msg: Message) -> str:
    """The first text/plain part that is not an attachment; else HTML as text."""
    html: str | None = None
    for part in msg.walk():
        if part.is_multipart():
            continue
        disposition = (part.get("Content-Disposition") or "").lower()
        if "attachment" in disposition:
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain":
            return _plain_text(part)
        if ctype == "text/html" and html is None:
            html = _part_text(part)
    return html_to_text(html) if html is not None else ""


def attached_text(msg: Message) -> str | None:
    """The first attached text file (a game record sent to ``preview record``), or None.

    A part counts when it is marked as an attachment or has a file name, and
    is text (some clients send a ``.txt`` as application/octet-stream).
    """
    for part in msg.walk():
        if part.is_multipart():
            continue
        disposition = (part.get("Content-Disposition") or "").lower()
        filename = str(part.get_filename() or "")
        if "attachment" not in disposition and not filename:
            continue
        if part.get_content_maintype() == "text" or filename.lower().endswith(".txt"):
            return normalise(_part_text(part))
    return None


def mailable(address: str) -> bool:
    """An address a reply can go to: local@domain in printable ASCII, no spaces.

    A decoded Reply-To can hold control characters (\x1c, NEL, ...) that
    ``email`` refuses in a To header: composing the answer then failed on
    every try and the message was set aside.
    """
    return _MAILABLE.match(address) is not None and len(address) <= 320


def _address(msg: Message, name: str) -> str:
    """The address of a From-like field, or "" when the stdlib cannot read it.

    ``parseaddr`` recurses once per nested comment: a From of 1000 "(" raised
    RecursionError out of parse_message (once the compat32 fallback hands it
    the raw field), and the worker retried the mail until it set it aside.
    """
    value = _header(msg, name)
    if BARE_ADDRESS.fullmatch(value):
        return value  # what parseaddr gives for one bare address, at a tenth of its cost (issue 25)
    try:
        return parseaddr(value)[1]
    except Exception:
        return ""


def message_id(msg: Message) -> str:
    """The Message-ID if it is one: our replies echo it in In-Reply-To and References."""
    value = _header(msg, "Message-ID").strip()
    return value if _MSGID.match(value) else ""


def no_reply_reason(msg: Message, envelope_from: str, own: set[str]) -> str | None:
    """Why RFC 3834 (and common sense) says this message gets no answer."""
    if envelope_from.strip() in ("", "<>"):
        return "null envelope sender (a bounce)"
    if any(str(v).strip().lower() in own for v in (msg.get_all("X-Loop") or [])):
        return "carries our own X-Loop header"
    auto = _header(msg, "Auto-Submitted").strip().lower()
    if auto and not auto.startswith("no"):
        return f"Auto-Submitted: {auto}"
    if _header(msg, "Precedence").strip().lower() in ("bulk", "junk", "list"):
        return "Precedence: " + _header(msg, "Precedence").strip().lower()
    if any(k.lower().startswith("list-") for k in msg):
        return "mailing-list mail (List-* headers)"
    if _header(msg, "X-Ack").strip().lower() == "no":
        return "X-Ack: no"
    sender = _address(msg, "From").lower()
    if sender in own or envelope_from.strip().lower() in own:
        return "mail from our own address"
    local = sender.partition("@")[0]
    if local in ("mailer-daemon", "postmaster", "noreply", "no-reply"):
        return f"sent by {local}"
    return autoresponder_reason(msg)


def read_commands(body: str, limit: int) -> tuple[list[str], bool]:
    """Body mode: one command a line until end/stop, a signature or a quote."""
    return command_lines(body, limit)


def read_comment(body: str) -> str:
    """The body without quoted text, attributions, client headers and the signature."""
    return comment_text(body)


#: Header fields read at most; a message with more is stored but not answered.
MAX_HEADER_FIELDS = 1000
TOO_MANY_HEADERS = f"more than {MAX_HEADER_FIELDS} header fields"


def read_message(raw: bytes, problems: list[str]) -> Message:
    """The parsed message; never raises.

    The stdlib parser recurses once per nested multipart and slows down
    quadratically: a 1 MB message of nested ``multipart/mixed`` takes seconds
    and then raises RecursionError.  Past ``MAX_MULTIPARTS`` boundaries only
    the headers are read (the subject still works).
    """
    headers_only = len(_BOUNDARY.findall(raw)) > MAX_MULTIPARTS
    if headers_only:
        problems.append(f"more than {MAX_MULTIPARTS} multipart boundaries: body not read")
    head, sep, body = raw.partition(b"\n\n") if b"\r\n\r\n" not in raw else raw.partition(b"\r\n\r\n")
    fields = header_fields(head)  # the listener's own count, the first field too
    if len(fields) > MAX_HEADER_FIELDS:
        # The header parser is slow per field (seconds for 50,000); no
        # person's client writes this many, so only the first ones are read
        # and the mail is not answered (see parse_message).  Folded lines of
        # one long field do not count.
        problems.append(TOO_MANY_HEADERS)
        raw = b"".join(fields[:MAX_HEADER_FIELDS]) + sep + body
    try:
        # compat32: fields stay raw text until read (server/mail/headers.py decodes those read).
        return BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=headers_only)
    except Exception as exc:
        problems.append(f"unreadable message: {type(exc).__name__}")
    return Message()


def reply_lines(body: str) -> tuple[str | None, str]:
    """A reply to play: the first line the player wrote (the command), and the rest (the comment).

    What counts as the player's own text (not quoted, no attribution, no
    signature) is what :func:`read_comment` keeps, so both paths agree.
    """
    lines = read_comment(body).split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None, ""
    return lines[first].strip(), "\n".join(lines[first + 1:]).strip("\n")


def parse_message(raw: bytes, envelope_from: str, own: set[str], max_commands: int = 50,
                  reply_token: str | None = None) -> ParsedMail:
    """What the worker needs of a message; ``reply_token``: it came to a reply address."""
    if (problem := header_problem(raw, block=False)) is not None:
        # The listener refuses these; mail piped to ``pbmserv process`` (or
        # stored before the check existed) is kept but neither parsed nor answered.
        return ParsedMail(message_id="", subject="", reply_to="", from_address="", commands=[], multiple=False,
                          comment="", no_reply_reason=f"headers not read: {problem}", problems=[problem])
    problems: list[str] = []
    msg = read_message(raw, problems)
    subject = clean_subject(_header(msg, "Subject"))[:MAX_LINE]
    try:
        body = normalise(body_text(msg))
    except Exception as exc:
        problems.append(f"unreadable body: {exc}")
        body = ""
    from_address = _address(msg, "From")
    try:
        reply_pairs = getaddresses([_header(msg, "Reply-To")]) if _header(msg, "Reply-To") else []
        reply_to = next((a for _, a in reply_pairs if mailable(a)), "") or from_address
    except Exception:
        reply_to = from_address
    if not mailable(reply_to):
        reply_to = envelope_from.strip("<>") if mailable(envelope_from.strip("<>")) else ""
    multiple = not reply_token and (subject == "" or subject.lower() == "multiple")
    truncated = False
    from_subject = False
    if reply_token:
        line, comment = reply_lines(body)
        from_subject = line is None
        line = subject if line is None else line
        commands = [line] if line else []
    elif multiple:
        commands, truncated = read_commands(body, max_commands)
        comment = ""
    else:
        commands = [subject]
        comment = read_comment(body)
    try:
        document = attached_text(msg)
    except Exception as exc:
        problems.append(f"unreadable attachment: {exc}")
        document = None
    return ParsedMail(
        document=body if document is None else document,
        message_id=message_id(msg),
        subject=subject,
        reply_to=reply_to,
        from_address=from_address,
        commands=commands,
        multiple=multiple,
        comment=comment,
        no_reply_reason=TOO_MANY_HEADERS if TOO_MANY_HEADERS in problems else no_reply_reason(msg, envelope_from, own),
        truncated=truncated,
        problems=problems,
        reply_token=reply_token,
        from_subject=from_subject,
    )
