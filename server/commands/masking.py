"""Which words of a command line are passwords, found by content, not by position.

Masking by position alone echoed passwords whenever a word was missing
(``warpandweft move alice PASSWORD C1`` has no board number, so the password
sits where the userid should be) or the words were swapped.  So a refused
line gets two more checks: every word that *is* the password of the sender
or of a user the line names is hidden, and when the line does not even
have its command's shape (no known user before the password slot) every
word after the verb that is not a known keyword, userid or number is hidden
too.  The same set of words is scrubbed from the reason and from the log
line, so nothing the player typed as a password leaves the server.
"""

from __future__ import annotations

import re
from functools import cache

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import games
from server.accounts.accounts import USERID
from server.accounts.passwords import verify_password
from server.commands import describe
from server.commands.registry import GAME_VERBS, GENERAL
from server.commands.resolve import resolve
from server.store.model import Address, User

MASK = "********"
#: Password checks (argon2 runs for wrong guesses) one refused line may cost.
MAX_CHECKS = 8
_WORDS = ("on", "off", "all", "active", "inactive", "next", "show", "password", "address", "commands",
          "games", "swap", "pass", "resign", "propose", "undo", "accept", "reject", "multiple", "new",
          "board", "help", "end", "stop", "finished", "error", "reminder")


@cache
def keywords() -> frozenset[str]:
    """Command words, game names and titles, and the fixed words of the language."""
    words = set(_WORDS) | set(GENERAL) | set(GAME_VERBS)
    for game in games.available():
        words |= {game.name, *game.aliases, *game.title.lower().split()}
    return frozenset(words)


def _password_shaped(word: str) -> bool:
    """Could be a password (server.accounts.accounts.check_password): shorter words never are."""
    return 4 <= len(word) <= 128 and not any(c in word for c in "'\":")


def _is_number(word: str) -> bool:
    return word.split("#")[0].isdigit() and len(word) < 12


def secret_words(session: Session, words: list[str], sender: str, refused: bool) -> set[str]:
    """The words of ``words`` to hide wherever the line, or an answer to it, is shown."""
    command, prefix, _ = describe(words)
    slots = [prefix + i for i in (command.password_args if command else ()) if prefix + i < len(words)]
    if not refused:
        return {words[i] for i in slots}
    # A sign-up's password slot is always one, even a refused too-short one: it was meant as a password.
    secrets = {words[i] for i in slots if _password_shaped(words[i]) or _creates_account(command)}
    users = {u.userid: u for u in _named_users(session, words, sender)}
    shaped = command is not None and len(slots) == len(command.password_args) and (
        not slots or _creates_account(command) or words[slots[0] - 1].lower() in users)
    start = prefix
    if command is None:  # an unknown word: hide what stands in a password's place, not every word
        secrets |= _unknown_command_secrets(words, prefix, users)
    elif not shaped:
        secrets = {w for w in secrets if w.lower() not in keywords()}
        secrets |= {w for w in words[start:] if _password_shaped(w) and w.lower() not in keywords()
                    and w.lower() not in users and not _is_number(w)}
    checks = 0
    for word in dict.fromkeys(words[start if command is not None else 0:]):
        if word in secrets or not _password_shaped(word):
            continue
        for user in users.values():
            if checks >= MAX_CHECKS:
                return secrets
            checks += 1
            if verify_password(user.password_hash, word):
                secrets.add(word)
                break
    return secrets


def _unknown_command_secrets(words: list[str], prefix: int, users: dict[str, User]) -> set[str]:
    """The words of a line whose command is unknown that stand where a password would.

    Hiding every word after an unknown one turned ``fetch.2 something`` into
    ``fetch.2 ********``, an echo that tells the sender nothing.  Hidden are
    a word after a known userid, and the password slots of the command the
    unknown word resembles (``singup bob pw12`` as ``signup``); the check
    against the sender's own password (below) catches the rest.
    """
    out = {words[i] for i in range(1, len(words)) if words[i - 1].lower() in users
           and _password_shaped(words[i]) and words[i].lower() not in keywords()}
    guess = resolve(words[prefix - 1].lower(), GENERAL if prefix == 1 else GAME_VERBS).suggestion
    near = (GENERAL if prefix == 1 else GAME_VERBS).get(guess) if guess else None
    for slot in near.password_args if near is not None else ():
        if prefix + slot < len(words) and _password_shaped(words[prefix + slot]):
            out.add(words[prefix + slot])
    return out


def _creates_account(command: object) -> bool:
    return getattr(command, "name", "") == "signup"


def _named_users(session: Session, words: list[str], sender: str) -> list[User]:
    """The sender's own account(s) first, then the users the line names (at most 3 in all)."""
    found: list[User] = list(session.scalars(
        select(User).join(Address).where(func.lower(Address.address) == sender.lower()).limit(2)))
    names = [w.lower() for w in words if USERID.match(w.lower())]  # (and never a NUL byte for PostgreSQL)
    if names:
        found += session.scalars(select(User).where(User.userid.in_(names)).limit(3)).all()
    unique = {u.id: u for u in found}
    return list(unique.values())[:3]


def mask_words(words: list[str], secrets: set[str]) -> str:
    return " ".join(MASK if w in secrets else w for w in words)


def scrub(text: str, secrets: set[str]) -> str:
    """``text`` with every secret word replaced (reasons quote what was typed)."""
    for word in sorted(secrets, key=len, reverse=True):
        text = re.sub(r"(?<![\w#-])" + re.escape(word) + r"(?![\w#-])", MASK, text)
    return text
