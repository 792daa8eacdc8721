"""Recognising auto-responders that do not say so the RFC 3834 way.

Vacation programs and Exchange often send no ``Auto-Submitted``; answering
them starts a ping-pong (300 mails in 65 s before this check).  Each marker
here is one a real responder sends: Exchange/Outlook (``X-Autoreply``,
``X-Autorespond``, "Automatic reply:"), Gmail and Thunderbird vacation
replies ("Out of office", "Abwesenheitsnotiz", ...), ``Precedence:
auto_reply`` (Yahoo, cPanel), and delivery or read reports
(``multipart/report``) that come from a non-null sender.  The per-recipient
daily cap (server/mail/quota.py) is the last defence against the ones we miss.
"""

from __future__ import annotations

import re
from email.message import Message

from server.mail.headers import field

#: Subjects of vacation replies, in the languages players write in.
_SUBJECT = re.compile(
    r"^\s*(out of (the )?office|automatic reply|auto(matic)?[- ]?(reply|response)|autoreply|auto:|"
    r"abwesenheitsnotiz|automatische antwort|r[eé]ponse automatique|absence du bureau|"
    r"respuesta autom[aá]tica|fuera de la oficina|risposta automatica|fuori sede|"
    r"automatisch antwoord|afwezig|vacation( reply)?:|away from (the )?office)",
    re.IGNORECASE,
)


def _get(msg: Message, name: str) -> str:
    return field(msg, name).strip()


def autoresponder_reason(msg: Message) -> str | None:
    """Why ``msg`` looks like an automatic answer (so it gets none), or None."""
    for name in ("X-Autoreply", "X-Autorespond", "X-Autoresponder"):
        if _get(msg, name):
            return f"{name} header (an auto-responder)"
    precedence = _get(msg, "Precedence").lower()
    if precedence in ("auto_reply", "auto-reply", "autoreply"):
        return f"Precedence: {precedence}"
    try:
        ctype = msg.get_content_type()
    except Exception:
        ctype = ""
    if ctype == "multipart/report":
        return "a delivery or read report (multipart/report)"
    if _SUBJECT.match(_get(msg, "Subject")):
        return "an out-of-office subject"
    return None
