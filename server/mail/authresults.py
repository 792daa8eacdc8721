"""Did the front MTA authenticate the From address: its ``Authentication-Results`` (RFC 8601).

A From address is no proof of anything: a signup sent with ``From:
victim@...`` from the attacker's own server once confirmed the victim's
address, and the attacker then subscribed it to every board (issue 32).
New addresses are therefore confirmed by a token round trip, unless the
admin names the front MTA whose DMARC verdict is trusted
(``--trust-authentication-results AUTHSERV-ID``, e.g. the hostname
OpenDMARC or rspamd writes): then a mail whose header from that MTA says
``dmarc=pass`` for the From address's domain proves its From.  Such an MTA
removes headers claiming its own authserv-id from incoming mail; any other
authserv-id is ignored, so a forged header proves nothing.
"""

from __future__ import annotations

import re

from server.mail.guards import header_block, header_fields

_FIELD = re.compile(rb"^authentication-results[ \t]*:(.*)", re.IGNORECASE | re.DOTALL)
_DMARC = re.compile(r"\bdmarc\s*=\s*pass\b(?P<rest>[^;]*)", re.IGNORECASE)
_HEADER_FROM = re.compile(r"\bheader\.from\s*=\s*\"?(?P<domain>[A-Za-z0-9.-]+)", re.IGNORECASE)


def from_authenticated(raw: bytes, from_address: str, authserv_id: str | None) -> bool:
    """A header of ``authserv_id`` says dmarc=pass for the domain of ``from_address``."""
    if not authserv_id or "@" not in from_address:
        return False
    domain = from_address.rpartition("@")[2].strip().lower().rstrip(".")
    for field in header_fields(header_block(raw)):
        match = _FIELD.match(field)
        if match is None:
            continue
        value = match.group(1).decode("utf-8", "replace").replace("\r", " ").replace("\n", " ")
        serv, _, results = value.partition(";")
        if [w.lower() for w in serv.split()[:1]] != [authserv_id.strip().lower()]:
            continue  # another server's verdict (or the sender's own forgery): proves nothing
        for verdict in _DMARC.finditer(results):
            said = _HEADER_FROM.search(verdict.group("rest"))
            if said is not None and said.group("domain").lower().rstrip(".") == domain:
                return True
    return False
