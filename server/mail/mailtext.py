"""What the player wrote, out of what their mail client made of it.

A reply from Thunderbird, Outlook, Gmail, Apple Mail or a phone carries far
more than the player typed: soft line breaks (format=flowed, RFC 3676), the
quoted old board, an attribution line ("On ... wrote:", which Gmail wraps
over two lines), Outlook's header block followed by the *unquoted* old mail,
and signatures ("-- ", "Sent from my iPhone", Hotmail's "____" rule).  These
functions find the player's own lines so that nothing of the rest is read as
a command or mailed to the opponent as a comment.  They are shared by the
subject/body reading in server.mail.parse and by reply-to-play (the first line
above the quote).  Pure functions on text: no mail, no database.
"""

from __future__ import annotations

import re

#: Lines longer than this are cut before they are read.
MAX_LINE = 1000
MAX_COMMENT = 8000

#: "On <date>, <someone> wrote:" in the languages players write in; Gmail and
#: Apple Mail wrap it, so it may span up to three lines.
_ATTRIBUTION_START = re.compile(r"^\s*(on|am|le|el|op|il|em|den|w dniu)\s", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(
    r"(wrote|writes|schrieb|a écrit|escribió|schreef|ha scritto|escreveu|skrev|napisał)\s*:\s*$", re.IGNORECASE
)
_ATTRIBUTION_LINES = 3
#: Where the player's text certainly ends: signatures, client separators and
#: the start of an Outlook header block (after which the old mail follows,
#: often unquoted).
_SIGNATURE = re.compile(
    r"^\s*("
    r"--\s*"  # "-- " (RFC 3676) and the bare "--" many people type
    r"|_{4,}\s*"  # Outlook's rule before its header block; Hotmail's signature rule
    r"|-{3,}\s*(original message|forwarded message|message d'origine|ursprüngliche nachricht)\s*-{3,}\s*"
    r"|begin forwarded message:\s*"
    r"|sent from my \S.*|sent from (outlook|mail for windows|yahoo mail|my ipad|my iphone)\b.*"
    r"|sent (via|with) \S.*|get outlook for \S.*"
    r"|von meinem \S.* gesendet\s*|envoyé de mon \S.*|enviado desde mi \S.*"
    r")$",
    re.IGNORECASE,
)
#: Outlook's reply header, "From: ..." then "Sent:"/"Date:" within a few lines.
_OUTLOOK_FROM = re.compile(r"^\s*\*?(from|von|de|van)\s*:\*?\s+\S", re.IGNORECASE)
_OUTLOOK_NEXT = re.compile(r"^\s*\*?(sent|date|gesendet|datum|envoyé|enviado|to|an|à)\s*:\*?\s", re.IGNORECASE)


def decode_flowed(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines, drop space-stuffing.

    A line ending in a space continues on the next line of the same quote
    depth; with DelSp=yes that space was added by the client and goes too.
    The signature separator "-- " is never a soft break.
    """
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0
    for raw in text.split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        line = raw[depth:]
        if line.startswith(" "):
            line = line[1:]  # space-stuffing (or the usual space after ">")
        if pending is not None and depth != pending_depth:
            out.append(_quoted(pending, pending_depth))
            pending = None
        flowed = line.endswith(" ") and line != "-- "
        if flowed and delsp:
            line = line[:-1]
        joined = line if pending is None else pending + line
        if flowed:
            pending, pending_depth = joined, depth
        else:
            out.append(_quoted(joined, depth))
            pending = None
    if pending is not None:
        out.append(_quoted(pending, pending_depth))
    return "\n".join(out)


def _quoted(line: str, depth: int) -> str:
    return ("> " * depth + line) if depth else line


def _attribution_length(lines: list[str], index: int) -> int:
    """How many lines from ``index`` form an "On ... wrote:" attribution (0: none)."""
    if not _ATTRIBUTION_START.match(lines[index]) and not _ATTRIBUTION_END.search(lines[index]):
        return 0
    if _ATTRIBUTION_END.search(lines[index]):
        return 1 if _ATTRIBUTION_START.match(lines[index]) or _quote_follows(lines, index + 1) else 0
    joined = lines[index]
    for extra in range(1, _ATTRIBUTION_LINES):
        if index + extra >= len(lines) or not lines[index + extra].strip():
            return 0
        joined += " " + lines[index + extra]
        if _ATTRIBUTION_END.search(joined):
            return extra + 1
    return 0


def _quote_follows(lines: list[str], index: int) -> bool:
    """A quote comes next (after blank lines): "<someone> wrote:" alone introduces it."""
    for line in lines[index:index + 3]:
        if line.strip():
            return line.lstrip().startswith(">")
    return False


def _outlook_header(lines: list[str], index: int) -> bool:
    if not _OUTLOOK_FROM.match(lines[index]):
        return False
    return any(_OUTLOOK_NEXT.match(line) for line in lines[index + 1:index + 4])


def own_lines(text: str, stop_at_quote: bool = False) -> list[str]:
    """The lines the player wrote: no quotes, attributions, client headers or signatures.

    Quoted lines are skipped (people answer between them); everything from a
    signature, a client separator or an Outlook header block on is dropped.
    With ``stop_at_quote`` (body-mode commands) reading also ends at the
    first quote or attribution.
    """
    lines = [line[:MAX_LINE].rstrip() for line in text.split("\n")]
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _SIGNATURE.match(line) or _outlook_header(lines, index):
            break
        skip = 1 if line.lstrip().startswith(">") else _attribution_length(lines, index)
        if skip:
            if stop_at_quote:
                break
            index += skip
            continue
        kept.append(line)
        index += 1
    return kept


def comment_text(text: str) -> str:
    """The comment shown to the other players: the player's own lines, tidied."""
    joined = "\n".join(own_lines(text)).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", joined)[:MAX_COMMENT]


def command_lines(text: str, limit: int) -> tuple[list[str], bool]:
    """Body mode: one command a line, until ``end``/``stop``, a quote or a signature.

    Returns the commands and whether there were more than ``limit``.  Blank
    lines and ``#`` comments are skipped.
    """
    commands: list[str] = []
    for line in own_lines(text, stop_at_quote=True):
        stripped = line.strip()
        if stripped.lower() in ("end", "stop"):
            break
        if not stripped or stripped.startswith("#"):
            continue
        if len(commands) == limit:
            return commands, True
        commands.append(stripped)
    return commands, False


def first_line(text: str) -> str | None:
    """The first line the player wrote (above the quote when top-posting, below it
    when bottom-posting), or None: what a reply-to-play mail asks for."""
    for line in own_lines(text):
        if line.strip():
            return line.strip()
    return None
