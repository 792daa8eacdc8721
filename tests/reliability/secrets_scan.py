"""Everything a server wrote, as text, for a grep: database rows, relayed mail, logs.

``inbound.raw`` is left out on purpose: it is the player's own message,
kept verbatim so a crash can never lose it, and it holds the password the
player typed.  Everything the server *derived* from it is scanned.
"""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

from sqlalchemy import inspect, select, text

from server.store.database import Database
from tests.mailtools import Received


def mail_text(raw: bytes) -> str:
    """Headers and every decoded text part (quoted-printable soft breaks would hide a password)."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    parts = [str(k) + ": " + str(v) for k, v in msg.items()]
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            parts.append(part.get_content())
    return "\n".join(parts) + "\n" + raw.decode("utf-8", "replace")


def database_text(db: Database, skip: tuple[tuple[str, str], ...] = (("inbound", "raw"),)) -> dict[str, str]:
    """Every column of every table (but ``skip``: inbound.raw), outbox mail decoded."""
    out: dict[str, str] = {}
    with db.engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            rows = conn.execute(text(f"SELECT * FROM {table}")).mappings().all()
            chunks = []
            for row in rows:
                for column, value in row.items():
                    if (table, column) in skip:
                        continue
                    if isinstance(value, bytes):
                        chunks.append(mail_text(value) if table == "outbox" else value.decode("utf-8", "replace"))
                    else:
                        chunks.append(str(value))
            out[table] = "\n".join(chunks)
    return out


def relay_text(messages: list[Received]) -> str:
    return "\n".join(mail_text(m.raw) for m in messages)


def leaks(passwords: list[str], sources: dict[str, str]) -> list[tuple[str, str, str]]:
    """(source, password, context) for every place a password shows up."""
    found = []
    for name, body in sources.items():
        for pw in passwords:
            at = body.find(pw)
            if at >= 0:
                found.append((name, pw, body[max(0, at - 120): at + 60]))
    return found


def argon2_hashes(db: Database) -> list[str]:
    from server.store.model import User

    with db.transaction() as s:
        return list(s.scalars(select(User.password_hash)))


def reply_tokens(messages: list[Received]) -> dict[str, set[str]]:
    """Every reply token the relay carried (lower-cased), and the recipients it was mailed to."""
    from server.core.config import split_tag

    found: dict[str, set[str]] = {}
    for m in messages:
        value = m.message["Reply-To"]
        if value is None:
            continue
        tag = split_tag(str(value))[1]
        if tag:
            found.setdefault(tag.lower(), set()).update(r.lower() for r in m.rcpt_tos)
    return found


def token_leaks(tokens: dict[str, set[str]], sources: dict[str, str],
                messages: list[Received]) -> list[tuple[str, str, str]]:
    """(source, token, context) wherever a token shows up but in its owner's own mail.

    ``sources`` are texts that must hold no token at all (logs, database
    columns other than the player's own received mail); ``messages`` are the
    mails at the relay, each of which may hold only its recipient's tokens.
    """
    found = []
    for name, body in sources.items():
        low = body.lower()
        for token in tokens:
            at = low.find(token)
            if at >= 0:
                found.append((name, token, body[max(0, at - 120): at + 60]))
    for m in messages:
        text = mail_text(m.raw).lower()
        for token, owners in tokens.items():
            if token in text and not {r.lower() for r in m.rcpt_tos} <= owners:
                found.append((f"mail to {m.rcpt_tos}", token, str(m.message["Subject"])))
    return found
