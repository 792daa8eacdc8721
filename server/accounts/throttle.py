"""Password guessing by mail: a few tries an hour per account, then no more.

Guessing cost nothing but mail (15,000 guesses an hour per sender, ~5,500 a
minute with rotating senders).  Now a wrong password from an address that
is not the account's own counts against the account; after GUESS_LIMIT of
them within GUESS_WINDOW, password commands for that account from other
addresses are refused *without checking the password*, and the owner is
told once.  The owner's registered addresses keep working (and so do reply
tokens, which carry no password): the attacker cannot lock them out.

The count must survive the refusal: the command's own changes are rolled
back, so the failure is recorded by the error's ``aftermath`` in the
worker's transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from server.core.errors import CommandError
from server.mail.replies import Mail
from server.store.model import User, utcnow

GUESS_LIMIT = 5
GUESS_WINDOW = timedelta(hours=1)
#: Where the worker puts the sender's address for the command it runs.
SENDER_KEY = "pbmserv.sender"
#: Where the worker notes that the front MTA authenticated that From address (server/mail/authresults.py).
AUTHENTICATED_KEY = "pbmserv.sender_authenticated"


def is_owner(user: User, sender: str | None) -> bool:
    """``sender`` is one of the user's confirmed addresses (None: the admin's tool)."""
    if sender is None:
        return True
    return any(a.confirmed and a.address.lower() == sender.lower() for a in user.addresses)


def _window_open(user: User, now: datetime) -> bool:
    return user.guesses_since is not None and now - user.guesses_since < GUESS_WINDOW


def locked(user: User) -> bool:
    """Password commands from strangers are refused for this account now: nothing may test its hash."""
    return _window_open(user, utcnow()) and user.guesses >= GUESS_LIMIT


def check(user: User, sender: str | None) -> None:
    """Refuse (without looking at the password) when the account is being guessed at."""
    if is_owner(user, sender):
        return
    if locked(user):
        raise CommandError(f"Too many wrong passwords for {user.userid} this hour: try from its own address")


def wrong_password(user: User, sender: str | None) -> CommandError:
    """The refusal for a wrong password; it counts the guess once the command is rolled back."""
    error = CommandError(f"Wrong password for {user.userid}")
    if not is_owner(user, sender):
        user_id = user.id
        error.aftermath = lambda session: record(session, user_id)
    return error


def record(session: Session, user_id: int) -> list[Mail]:
    """Count one guess; the notice to the owner when the limit is first reached."""
    user = session.get(User, user_id, with_for_update=True)
    if user is None:
        return []
    now = utcnow()
    if not _window_open(user, now):
        user.guesses, user.guesses_since, user.guesses_told = 0, now, False
    user.guesses += 1
    if user.guesses < GUESS_LIMIT or user.guesses_told:
        return []
    user.guesses_told = True
    to = [a.address for a in user.addresses if a.confirmed]
    body = (f"Someone sent {user.guesses} wrong passwords for your account {user.userid} within an hour,\n"
            "from addresses that are not yours.  For the next hour, password commands for\n"
            f"{user.userid} are refused unless they come from your own address, which\n"
            "keeps working as before.  Nothing else has changed.  If the guesses go on,\n"
            "a longer password helps: change password USERID OLD NEW.\n")
    return [Mail(to=to, subject=f"pbmserv: password guesses for {user.userid}", body=body,
                 users=[user.userid])] if to else []
