"""Which words of a command line are passwords: by position and shape, never by asking a stranger's hash.

Masking by position alone echoed passwords whenever a word was missing
(``warpandweft move alice PASSWORD C1`` has no board number, so the password
sits where the userid should be) or the words were swapped.  So a refused
line that does not even have its command's shape (no known user before the
password slot) hides every word after the verb that is not a known keyword,
userid or number.

Testing words against the hashes of the users a line names (as this once
did) was a password oracle: ``vacation carol xxxx rose-11 tulip-77`` from
any account echoed ``tulip-77`` masked, whatever carol's lockout said
(issue 32).  Now only the account of the address the echo goes to is asked
(its owner learns nothing new), at most MAX_CHECKS words a line, and not at
all while that account is locked against guessing.  The same set of words
is scrubbed from the reason and from the log line.
"""

from __future__ import annotations

import re
from functools import cache

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import games
from server.accounts import throttle
from server.accounts.accounts import USERID
from server.accounts.passwords import verify_password
from server.commands import describe
from server.commands.base import Command
from server.commands.registry import GAME_VERBS, GENERAL
from server.commands.resolve import resolve
from server.store.model import Address, Board, Tournament, User

MASK = "********"
#: Password checks (argon2 runs) one refused line may cost, against the echo's own recipient only.
MAX_CHECKS = 2
_WORDS = ("on", "off", "all", "active", "inactive", "next", "show", "password", "address", "commands",
          "games", "swap", "pass", "resign", "propose", "undo", "accept", "reject", "multiple", "new",
          "board", "help", "end", "stop", "finished", "error", "reminder", "join", "leave", "standings",
          "list", "clear", "record", "tutorial", "page", "flip")


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
    head = word.split("#")[0]
    return head.isascii() and head.isdigit() and len(word) < 12


def secret_words(session: Session, words: list[str], sender: str, refused: bool) -> set[str]:
    """The words of ``words`` to hide wherever the line, or an answer to it, is shown."""
    command, prefix, _ = describe(words)
    positions = _password_positions(command, words[prefix:])
    slots = [prefix + i for i in positions if prefix + i < len(words)]
    if not refused:
        return {words[i] for i in slots}
    # A sign-up's password slot is always one, even a refused too-short one: it was meant as a password.
    secrets = {words[i] for i in slots if _password_shaped(words[i]) or _creates_account(command)}
    named = _named_userids(session, words)
    # The shape: every password slot holds a password-like word after a known user
    # (``vacation carol on 314159`` has "on" in the slot: the words are swapped).
    shaped = command is not None and len(slots) == len(positions) and (
        not slots or _creates_account(command) or (
            words[slots[0] - 1].lower() in named
            and all(_password_shaped(words[i]) and words[i].lower() not in keywords() for i in slots)))
    start = prefix
    if command is None:  # an unknown word: hide what stands in a password's place, not every word
        secrets |= _unknown_command_secrets(words, prefix, named)
    elif not shaped:
        boards = _board_numbers(session, words[start:])
        secrets = {w for w in secrets if w.lower() not in keywords()}
        secrets |= {w for w in words[start:] if _password_shaped(w) and w.lower() not in keywords()
                    and w.lower() not in named and w.split("#")[0].lower() not in boards}
    owner = _own_account(session, sender)
    if owner is None or throttle.locked(owner):
        return secrets
    checks = 0
    for word in dict.fromkeys(words[start if command is not None else 0:]):
        if word in secrets or not _password_shaped(word) or word.lower() in keywords() or _is_number(word):
            continue
        if checks >= MAX_CHECKS:
            break
        checks += 1
        if verify_password(owner.password_hash, word):
            secrets.add(word)
            break
    return secrets


def _password_positions(command: Command | type[Command] | None, args: list[str]) -> tuple[int, ...]:
    """Where the passwords are in ``args``: a command with several forms (``tournament join`` and
    ``tournament standings``) says so itself, as in :func:`server.commands.base.mask`."""
    if command is None:
        return ()
    return command.password_positions(args) if isinstance(command, Command) else command.password_args


def _unknown_command_secrets(words: list[str], prefix: int, named: set[str]) -> set[str]:
    """The words of a line whose command is unknown that stand where a password would.

    Hiding every word after an unknown one turned ``fetch.2 something`` into
    ``fetch.2 ********``, an echo that tells the sender nothing.  Hidden are
    a word after a known userid, and the password slots of the command the
    unknown word resembles (``singup bob pw12`` as ``signup``); the check
    against the sender's own password (below) catches the rest.
    """
    out = {words[i] for i in range(1, len(words)) if words[i - 1].lower() in named
           and _password_shaped(words[i]) and words[i].lower() not in keywords()}
    guess = resolve(words[prefix - 1].lower(), GENERAL if prefix == 1 else GAME_VERBS).suggestion
    near = (GENERAL if prefix == 1 else GAME_VERBS).get(guess) if guess else None
    for slot in near.password_args if near is not None else ():
        if prefix + slot < len(words) and _password_shaped(words[prefix + slot]):
            out.add(words[prefix + slot])
    return out


def _creates_account(command: object) -> bool:
    return getattr(command, "name", "") == "signup"


def _named_userids(session: Session, words: list[str]) -> set[str]:
    """The words that are userids of existing accounts (lower-cased); no hash is read."""
    names = {w.lower() for w in words if USERID.match(w.lower())}  # (and never a NUL byte for PostgreSQL)
    if not names:
        return set()
    return set(session.scalars(select(User.userid).where(User.userid.in_(names)).limit(8)))


def _board_numbers(session: Session, words: list[str]) -> set[str]:
    """The words (before any ``#N``) that name something public: numbers of existing boards and
    names of tournaments (announced to everyone). Shown: a password is neither."""
    numbers = {int(w.split("#")[0]) for w in words if _is_number(w)}
    found = {str(n) for n in session.scalars(select(Board.number).where(Board.number.in_(numbers)).distinct())
             } if numbers else set()
    names = {w.lower() for w in words if 0 < len(w) <= 40}
    if names:
        found |= set(session.scalars(select(Tournament.name).where(Tournament.name.in_(names)).limit(8)))
    return found


def _own_account(session: Session, address: str) -> User | None:
    """The account whose *confirmed* address is ``address`` (where the echo is mailed), if exactly one."""
    found = list(session.scalars(select(User).join(Address).where(
        func.lower(Address.address) == address.lower(), Address.confirmed.is_(True)).limit(2)))
    return found[0] if len(found) == 1 else None


def log_line(shown: str) -> str:
    """``shown`` (already masked) for the log: cut before the words its command keeps private."""
    words = shown.split()
    command, prefix, _ = describe(words)
    start = None if command is None or command.private_from is None else prefix + command.private_from
    if start is None or len(words) <= start:
        return shown
    return " ".join([*words[:start], f"({len(words) - start} private words)"])


def mask_words(words: list[str], secrets: set[str]) -> str:
    return " ".join(MASK if w in secrets else w for w in words)


def scrub(text: str, secrets: set[str]) -> str:
    """``text`` with every secret word replaced (reasons quote what was typed)."""
    for word in sorted(secrets, key=len, reverse=True):
        text = re.sub(r"(?<![\w#-])" + re.escape(word) + r"(?![\w#-])", MASK, text)
    return text
