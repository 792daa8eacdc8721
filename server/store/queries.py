"""Questions about stored rows that several folders ask the same way.

``owner_of`` is what "known sender" means everywhere: the inbound store's
fair-queue tier, the outbound quota for strangers, challenge attribution.
The mail folder asks it long before any account code runs, so it lives with
the store, below both.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from server.store.model import Address, User


def owner_of(session: Session, address: str, active_only: bool = True) -> User | None:
    """The active account whose confirmed address ``address`` is (case-insensitive), if any.

    What "known sender" means everywhere: the fair queue, challenge
    attribution and the limits on replies to strangers.
    """
    if not address:
        return None
    # The user itself, in one statement (selecting the Address loaded its user with a second one).
    query = select(User).join(Address).where(func.lower(Address.address) == address.lower(), Address.confirmed)
    return session.scalars((query.where(User.active) if active_only else query).limit(1)).first()
