"""Settings of one pbmserv instance.

Every setting has a command-line flag and an environment variable (the CLI
wires both to the fields here), so the same server runs from a shell, a
systemd unit or a container without a config file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_DATABASE_URL = "sqlite:///pbmserv.db"


def parse_hostport(text: str, default_port: int) -> tuple[str, int]:
    """``host:port``, ``host``, ``port`` or ``[v6]:port`` into a pair (a bare number is a port on 127.0.0.1)."""
    text = text.strip()
    if text.isdigit():
        return "127.0.0.1", int(text)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.lstrip(":")
        return host, int(port) if port else default_port
    if text.count(":") == 1:
        host, port = text.split(":")
        return host or "127.0.0.1", int(port)
    return text, default_port


def split_tag(address: str, delimiter: str = "+") -> tuple[str, str | None]:
    """``local+tag@domain`` -> (``local@domain``, ``tag``); no tag -> (address, None).

    ``delimiter`` lists the characters that start a tag, like Postfix's
    ``recipient_delimiter``; the first one in the local part counts.
    """
    address = address.strip().strip("<>")
    local, at, domain = address.rpartition("@")
    if not at:
        return address, None
    cut = min((i for i in (local.find(c) for c in delimiter) if i > 0), default=-1)
    if cut < 0:
        return address, None
    return f"{local[:cut]}@{domain}", local[cut + 1:]


@dataclass
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    #: Our own addresses: the only RCPTs accepted, and the From of every reply.
    addresses: list[str] = field(default_factory=lambda: ["pbmserv@localhost"])
    listen: str = "127.0.0.1:8025"
    lmtp: bool = False
    #: ``host:port`` (plain SMTP), ``smtp://USER@HOST:587`` (STARTTLS + AUTH) or ``smtps://USER@HOST:465``.
    relay: str | None = None
    #: Envelope sender and From of replies, when the submission server insists on its account's
    #: own address (``--from``); None: the first of ``addresses``.
    mail_from: str | None = None
    #: ``imaps://USER@HOST[:PORT]/FOLDER`` (or ``imap://``, STARTTLS): read mail from a mailbox.
    imap: str | None = None
    #: What becomes of a mailbox message once stored: "flag" (\Seen and $Pbmserv),
    #: "move:FOLDER" or "delete".
    imap_done: str = "flag"
    #: Seconds between looks at a mailbox without IDLE; also the longest IDLE before a fresh look.
    imap_poll: float = 60.0
    #: Longest wait between reconnection attempts (the wait doubles from one second up to it).
    imap_backoff_max: float = 300.0
    max_size: int = 1024 * 1024
    #: Largest message stored from a sender without an account (beyond: 552); a command needs a few KB.
    max_stranger_size: int = 64 * 1024
    #: Bytes all senders without an account together may store per hour (beyond: 452 to them only).
    stranger_bytes_per_hour: int = 16 * 1024 * 1024
    #: Messages one envelope sender may send per hour before we answer 450.
    rate_limit: int = 300
    max_commands: int = 50
    #: Commands read from a mail of a sender without an account (a player's: max_commands).
    stranger_commands: int = 5
    #: CPU seconds one mail may use (a player's, a stranger's); past it the rest of its lines
    #: are refused and what was done is answered.
    mail_cpu_seconds: float = 20.0
    stranger_cpu_seconds: float = 3.0
    nagtime: float = 7.0
    forfeittime: float = 21.0
    #: First retry delay of the outbox, doubled per failed try.
    retry_base: float = 60.0
    max_delivery_tries: int = 12
    #: Seconds a worker owns an inbound message before another may take it.
    lease_seconds: float = 30.0
    #: Seconds a deliverer owns a claimed outbox batch (longer than a batch's sending).
    delivery_lease_seconds: float = 120.0
    #: Seconds SQLite waits for another process's write lock before "database is locked".
    busy_timeout: float = 30.0
    poll_interval: float = 0.5
    #: Concurrent SMTP connections, in all and from one peer address (beyond: 421).
    max_connections: int = 200
    max_connections_per_peer: int = 20
    #: ... and from one /24 (IPv4) or /64 (IPv6) network.
    max_connections_per_network: int = 50
    #: Seconds one SMTP session may last (ended between transactions, never inside one) ...
    max_session_seconds: float = 300.0
    #: ... and commands it may send in a row without starting a mail transaction (NOOP, RSET, ...).
    max_idle_commands: int = 20
    #: Seconds an SMTP connection may sit idle before it is closed (RFC 5321 allows 5 min; we are stricter).
    idle_timeout: float = 60.0
    #: Seconds DATA waits for its commit before answering 451 (a stalled database is
    #: answered, never left to the client's timeout); capped at half the idle timeout.
    store_timeout: float = 20.0
    #: Seconds the listener's event loop may not answer, or one commit of the store
    #: thread may last, before ``serve`` exits non-zero for its service manager to
    #: restart it (0: never).
    watchdog_seconds: float = 300.0
    #: Stored, unhandled mail from unknown senders beyond which the listener answers 450.
    unknown_backlog: int = 200
    #: Mails from unknown senders the worker handles per minute (their shared budget).
    unknown_per_minute: int = 300
    #: Replies the server sends per hour in all; beyond it mail waits and ``status`` alerts.
    outbound_per_hour: int = 5000
    #: ... and to strangers (every recipient without an account): a pool of its own.
    outbound_strangers_per_hour: int = 500
    #: Replies one address receives per day (Mailman's autoresponse limit) ...
    replies_per_recipient_day: int = 1000
    #: ... and an address that belongs to no account.
    replies_per_stranger_day: int = 10
    #: ``broadcast`` mails one account (and one From address, whatever the account) may send a day.
    broadcasts_per_day: int = 1
    #: Worker processes of ``serve`` (0: worker and deliverer are threads of the listener's process).
    workers: int = 0
    #: Public base URL of the read-only board pages (``pbmserv web``); board mails link there.
    web_url: str | None = None
    #: Board pictures in mail at all (each user can still turn them off for themselves).
    pictures: bool = True
    #: What proves that a command's From address is the sender's own, for a new account
    #: address: "token" (a reply to a confirmation mail; the safe default), or "from" (the
    #: From itself: only behind a front MTA that rejects forged From, and in tests).
    address_proof: str = "token"
    #: The authserv-id of the front MTA whose Authentication-Results (dmarc=pass) prove a From.
    trusted_authserv: str | None = None
    #: Characters that start the tag of a plus-address (``pbmserv+TAG@...``),
    #: as Postfix's ``recipient_delimiter``; reply addresses use the first.
    recipient_delimiter: str = "+"
    #: The admin's text under every mail (the original's advertisement file; ``--footer-file``).
    footer: str = ""
    #: The computer opponent (issue 27): active boards against it per account and in all,
    #: and hint/review requests that may wait in its queue.
    computer_boards_per_account: int = 5
    computer_boards: int = 200
    computer_queue: int = 50
    #: Whether this ``serve`` runs the computer's turns (one host of several may be enough).
    computer: bool = True

    @property
    def address(self) -> str:
        """The address replies come from."""
        return self.addresses[0]

    @property
    def sender_address(self) -> str:
        """Envelope sender and From of replies: ``--from``, else our first address."""
        return self.mail_from or self.address

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"

    @property
    def listen_hostport(self) -> tuple[str, int]:
        return parse_hostport(self.listen, 8025)

    def is_ours(self, address: str) -> bool:
        """One of our addresses, or a plus-tagged form of one (a reply address)."""
        own = {a.lower() for a in self.addresses} | ({self.mail_from.lower()} if self.mail_from else set())
        address = address.strip().strip("<>").lower()
        return address in own or split_tag(address, self.recipient_delimiter)[0] in own
