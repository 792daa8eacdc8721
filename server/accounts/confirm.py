"""Address confirmation: an address receives nothing but one confirmation mail until it says yes.

``signup`` and ``change address`` accepted any third-party addresses (85 an
account; one ``message`` then reached 1,712 strangers).  Now an account has
at most MAX_ADDRESSES, and an address other than the one the command
provably came from (see :func:`proven_sender`) starts unconfirmed: it is sent one mail (at most one a day, however
many accounts name it) whose Reply-To is ``pbmserv+TOKEN@domain``; a reply
to it confirms the address.  Until then nothing else is sent to it
(``accounts.addresses_of`` leaves it out) and it does not make its sender
"known".  The token is the shared one of server/mail/tokens.py, purpose
"confirm", bound to the address and its account: an address removed or
re-added makes old confirmation mails void.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from server.accounts.throttle import AUTHENTICATED_KEY, SENDER_KEY
from server.core.config import Settings
from server.mail import tokens
from server.mail.quota import count_today, once_a_day
from server.mail.replies import Mail
from server.store.model import Address, User
from server.store.resources import render_template

#: Addresses one account may have.
MAX_ADDRESSES = 3
#: Confirmation mails one domain receives a day (rotating sign-ups once sent 33 to one mailbox).
CONFIRMATIONS_PER_DOMAIN_DAY = 20


def mailbox_of(address: str, delimiter: str = "+") -> str:
    """The mailbox an address reaches, as far as we can tell: without its sub-address tag (any of
    ``+``, ``-``, ``=`` and the configured delimiters) and without dots in the local part, lower-cased.

    ``victim+12@``, ``vic.tim@`` and ``victim@`` all reach one person at the big
    providers; one confirmation a day for all of them, not one each.
    """
    local, _, domain = address.strip().lower().rpartition("@")
    cut = min((i for i in (local.find(c) for c in set("+-=" + delimiter)) if i > 0), default=len(local))
    return f"{local[:cut].replace('.', '')}@{domain}"


def may_ask(session: Session, settings: Settings, address: str, now: datetime) -> bool:
    """Whether a confirmation mail may go to ``address`` today: one per mailbox, a few per domain."""
    mailbox = mailbox_of(address, settings.recipient_delimiter)
    if not once_a_day(session, "confirm:" + mailbox, now):
        return False
    domain = mailbox.rpartition("@")[2]
    return count_today(session, "confirm-domain:" + domain, now) <= CONFIRMATIONS_PER_DOMAIN_DAY


binding = tokens.address_binding


def proven_sender(session: Session, settings: Settings, reply_to: str) -> str | None:
    """The address a command provably came from ("": none; None: the admin's tool).

    From and reply address must agree, and the From must be proven: by the
    trusted front MTA's DMARC verdict, or (``address_proof = "from"``) taken
    on trust.  A From alone once let anyone confirm a victim's address.
    """
    from_address = session.info.get(SENDER_KEY)
    if from_address is None:
        return None
    if from_address.lower() != reply_to.lower():
        return ""
    if settings.address_proof == "from" or session.info.get(AUTHENTICATED_KEY):
        return reply_to.lower()
    return ""


def set_addresses(session: Session, settings: Settings, user: User, addresses: list[str], reply_to: str,
                  now: datetime) -> list[Mail]:
    """Give ``user`` these addresses; the confirmation mails for the new, unproven ones."""
    if len(addresses) > MAX_ADDRESSES:
        from server.core.errors import CommandError

        raise CommandError(f"An account has at most {MAX_ADDRESSES} addresses; you gave {len(addresses)}")
    proven = proven_sender(session, settings, reply_to)
    old = {a.address.lower(): a for a in user.addresses}
    rows = []
    for address in addresses:
        row = old.get(address.lower())
        if row is None:
            row = Address(address=address, confirmed=proven is None or address.lower() == proven)
        rows.append(row)
    user.addresses = rows
    session.flush()
    mails = []
    for row in rows:
        if not row.confirmed and may_ask(session, settings, row.address, now):
            token = tokens.issue(session, "confirm", (row.id,), binding(row))
            mails.append(Mail(
                to=[row.address], subject=f"pbmserv: confirm mail for {user.userid}?",
                body=render_template("confirm.txt", userid=user.userid, address=row.address),
                reply_to=tokens.plus_address(settings.address, token, settings.recipient_delimiter),
                users=[user.userid]))
    return mails


def confirm(session: Session, token: str) -> Address | None:
    """Confirm the address a "confirm" token names; None if the token is not good."""

    try:
        (address_id,) = tokens.verify(session, token, "confirm", tokens.confirm_binding(session))
    except (tokens.TokenError, ValueError):
        return None
    row = session.get(Address, address_id, with_for_update=True)
    if row is not None:
        row.confirmed = True
    return row


def tagged(settings: Settings, rcpt_to: list[str]) -> bool:
    """Whether any recipient is a plus-tagged form of our address (no database needed)."""
    return any(tokens.token_of(str(r), settings.addresses, settings.recipient_delimiter) for r in rcpt_to)


def handle(session: Session, settings: Settings, rcpt_to: list[str]) -> Mail | None:
    """A reply to a confirmation mail: confirm its address and say so; None if it is not one."""
    for rcpt in rcpt_to:
        tag = tokens.token_of(str(rcpt), settings.addresses, settings.recipient_delimiter)
        if tag is None or tokens.claimed_purpose(tag) != "confirm":
            continue  # not one (a reply to a board mail): verify() would refuse it as WRONG_PURPOSE
        row = confirm(session, tag)
        if row is not None:
            return Mail(to=[row.address], subject=f"pbmserv: {row.address} confirmed",
                        body=f"Confirmed: the mail of {row.user.userid} now comes to {row.address}.\n",
                        users=[row.user.userid])
    return None
