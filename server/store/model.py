"""The stored state of the server: accounts, boards, moves and the two mail queues.

Naming conventions are fixed on the metadata so Alembic's batch mode on
SQLite and plain ALTERs on PostgreSQL produce the same constraint names.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: Lower-cased; userids are case-insensitive.
    userid: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    vacation: Mapped[bool] = mapped_column(Boolean, default=False)
    digest: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Board pictures (an inline PNG in the HTML part) in this user's board mail.
    pictures: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    #: The board drawn from this player's own side (Black at the bottom for Black): ``flip on|off``.
    flip: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    #: Back from vacation and not yet moved: reminded again, but not forfeited until the next move.
    vacation_back: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Receives other players' ``broadcast`` mail (opt-in: ``broadcasts USERID PASSWORD on``).
    broadcasts: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Board mails carry the game's coordinate key where it has one (TriMac): ``coordinates on|off``.
    coordinates: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    #: Challenge policy: "accept" (default) or "reject"; limit caps active boards.
    challenge_policy: Mapped[str] = mapped_column(String(10), default="accept")
    board_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Wrong passwords from addresses not the owner's, counted from ``guesses_since`` (server/accounts/throttle.py).
    guesses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    guesses_since: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: The owner was told of this guessing window already (told once per window).
    guesses_told: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")

    addresses: Mapped[list[Address]] = relationship(
        back_populates="user", cascade="all, delete-orphan", order_by="Address.id"
    )


class Address(Base):
    __tablename__ = "addresses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    address: Mapped[str] = mapped_column(String(320))
    #: False until the address answered its confirmation mail: it receives nothing else.
    confirmed: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")

    user: Mapped[User] = relationship(back_populates="addresses")


class Board(Base):
    """One game in play (or finished): "Board 101" of a game."""

    __tablename__ = "boards"
    __table_args__ = (
        UniqueConstraint("game", "number", name="uq_boards_game_number"),
        Index("ix_boards_status_game", "status", "game"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    number: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: Moves made so far (stored rows in ``moves``); ``#N`` must equal ply + 1.
    ply: Mapped[int] = mapped_column(Integer, default=0)
    #: Seat to move, None once finished.
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: "active", "finished" or "removed" (resigned before a first move).
    status: Mapped[str] = mapped_column(String(12), default="active")
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: Server-side pending business: queued resigns, votes, queued moves.
    pending: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    nagtime: Mapped[float] = mapped_column(Float, default=7.0)
    forfeittime: Mapped[float] = mapped_column(Float, default=21.0)
    #: Days each player may use in all (``--totaltime``; None: no total clock), counted from the move times.
    totaltime: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: When the player to move got the move: reminders and forfeits count from here.
    turn_since: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Reminder periods already sent for the current turn.
    reminders_sent: Mapped[int] = mapped_column(Integer, default=0)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: False for the admin's ``pbmserv challenge --unrated`` (a tournament or a test board).
    rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    #: Since when a draw or take-back offer has waited for votes (None: no offer):
    #: ``pbmserv remind`` reminds those who owe a vote and settles it at the forfeit time.
    vote_since: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: The tournament this board belongs to (server/boards/tournaments.py), and its round
    #: (for pools: the pool, 1 = A); None for an ordinary board.
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id", ondelete="SET NULL"),
                                                      nullable=True, index=True)
    tournament_round: Mapped[int | None] = mapped_column(Integer, nullable=True)

    seats: Mapped[list[Seat]] = relationship(
        back_populates="board", cascade="all, delete-orphan", order_by="Seat.seat", lazy="selectin"
    )


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("board_id", "seat", name="uq_seats_board_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)

    board: Mapped[Board] = relationship(back_populates="seats")
    user: Mapped[User] = relationship(lazy="joined")


class Move(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("board_id", "ply", name="uq_moves_board_ply"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id", ondelete="CASCADE"))
    ply: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(200))
    played_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Played by the server for its owner (a queued or conditional move): "(auto)" in the move list.
    auto: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")


class Inbound(Base):
    """A received message: stored (and committed) before the listener says 250."""

    __tablename__ = "inbound"
    __table_args__ = (
        Index("ix_inbound_status_id", "status", "id"),
        # The per-sender hourly rate limit counts these before every 250;
        # without it that count scans all mail ever received.
        Index("ix_inbound_mail_from_received_at", "mail_from", "received_at"),
        # The same count keyed on the From address (rotating envelope senders),
        # and the fair queue's tiers (server/mail/fairqueue.py).
        Index("ix_inbound_sender_received_at", "sender", "received_at"),
        Index("ix_inbound_status_known", "status", "known"),
        # The strangers' hourly byte cap sums their last hour's sizes before every 250.
        Index("ix_inbound_known_received_at", "known", "received_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    received_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    mail_from: Mapped[str] = mapped_column(String(320), default="")
    rcpt_to: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: The From address, lower-cased: what rate limits and the fair queue key on.
    sender: Mapped[str] = mapped_column(String(320), default="", server_default="")
    #: From a registered address (or with a valid reply token): served before strangers.
    known: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    #: Message-ID, or a digest of the bytes when it has none: re-sent mail is not applied twice.
    dedupe_key: Mapped[str] = mapped_column(String(300), index=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    #: Bytes received (``raw`` of a handled stranger's mail is cut short; this is not).
    size: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: "new", "done", "ignored" (RFC 3834: not answered), "duplicate", "shunted" (set aside).
    status: Mapped[str] = mapped_column(String(12), default="new")
    tries: Mapped[int] = mapped_column(Integer, default=0)
    #: Commands of this message already applied, each in its own transaction.
    commands_done: Mapped[int] = mapped_column(Integer, default=0)
    results: Mapped[list[Any]] = mapped_column(JSON, default=list)
    claimed_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    done_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Outbox(Base):
    """A reply waiting for the relay; built whole in the command's transaction."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_status_next", "status", "next_attempt"),
        # The hourly outbound budget counts what went out in the last hour.
        Index("ix_outbox_sent_at", "sent_at"),
        # ... per pool: players' mail and strangers' (issue 32).
        Index("ix_outbox_stranger_sent_at", "stranger", "sent_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    envelope_from: Mapped[str] = mapped_column(String(320))
    recipients: Mapped[list[Any]] = mapped_column(JSON)
    subject: Mapped[str] = mapped_column(String(400), default="")
    message: Mapped[bytes] = mapped_column(LargeBinary)
    #: "pending", "sent" or "failed" (permanent refusal or too many tries).
    status: Mapped[str] = mapped_column(String(10), default="pending")
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: Board pictures the deliverer draws into ``message`` before sending: placeholder key ->
    #: {"game", "state", "players"} (server.pictures.cache.fill); None when there are none.
    pictures: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: Every recipient is a stranger (no account): sent from the strangers' own hourly pool.
    stranger: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")


class Subscription(Base):
    """A user who follows a board: every move mail ("watch"), or only its end ("notify")."""

    __tablename__ = "subscriptions"
    __table_args__ = (UniqueConstraint("board_id", "user_id", "kind", name="uq_subscriptions_board_user_kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10), default="watch")

    user: Mapped[User] = relationship(lazy="selectin")


class Rating(Base):
    """A player's rating in one game (Elo; everyone starts at 1600).

    Its user is loaded by a second SELECT, not a join: PostgreSQL refuses
    ``FOR UPDATE`` on the nullable side of the outer join a joined load makes,
    and ratings rows are locked when a game ends.
    """

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("game", "user_id", name="uq_ratings_game_user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    rating: Mapped[float] = mapped_column(Float, default=1600.0)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)

    user: Mapped[User] = relationship(lazy="selectin")


class Reminder(Base):
    """One reminder sent: at most one per board, ply and nag period.

    The unique key is what makes ``pbmserv remind`` idempotent: however often
    cron runs it, and even two runs at once, a period is reminded once.
    """

    __tablename__ = "reminders"
    __table_args__ = (UniqueConstraint("board_id", "ply", "period", name="uq_reminders_board_ply_period"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id", ondelete="CASCADE"))
    ply: Mapped[int] = mapped_column(Integer)
    #: 1 for the first reminder of a turn (after one nag time), 2 after two, ...
    period: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    sent_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ReplyQuota(Base):
    """Replies queued for one address on one day: the last defence against robot ping-pong.

    Mailman's autoresponse limit: past the day's cap an address gets nothing
    more until the next day (server/mail/quota.py).
    """

    __tablename__ = "reply_quota"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class GamePolicy(Base):
    """A player's challenge policy in one game; it overrides the account's (``User``) there."""

    __tablename__ = "game_policies"
    __table_args__ = (UniqueConstraint("user_id", "game", name="uq_game_policies_user_game"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(40))
    #: "accept", "reject", or None (the account's policy holds).
    policy: Mapped[str | None] = mapped_column(String(10), nullable=True)
    #: Most active boards of this game, or None (no limit of its own).
    board_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Seek(Base):
    """An open wish to play: two compatible seeks of a game start a board."""

    __tablename__ = "seeks"
    __table_args__ = (UniqueConstraint("game", "user_id", name="uq_seeks_game_user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: The option tokens as wished (names written out), e.g. ["-size=3"].
    tokens: Mapped[list[Any]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    user: Mapped[User] = relationship(lazy="selectin")


class GameFollow(Base):
    """A user who follows a whole game: every new board ("watch") or every end ("notify")."""

    __tablename__ = "game_follows"
    __table_args__ = (UniqueConstraint("game", "user_id", "kind", name="uq_game_follows_game_user_kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))
    #: "watch" follows boards started from this moment on.
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    user: Mapped[User] = relationship(lazy="selectin")


class ServerSecret(Base):
    """A key only the server knows: the HMAC key of reply and confirmation tokens.

    ``previous`` is the key ``pbmserv secret rotate`` replaced: a token made
    with it is recognised as genuine but revoked, so its holder is told to
    use a newer mail instead of "this address is not valid".
    """

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    #: 32 random bytes, hex.
    value: Mapped[str] = mapped_column(String(128))
    previous: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ImapState(Base):
    """What the IMAP receiver (server/mail/imap.py) knows of one mailbox folder.

    ``last_uid`` is the highest UID below which every message was stored and
    then flagged or moved: after a crash the receiver looks again from there,
    and a message stored but not yet flagged is stored once more and dropped
    by the inbound dedupe.  ``state`` and ``last_error`` are what
    ``pbmserv status`` shows, since the receiver runs in another process.
    """

    __tablename__ = "imap_state"

    #: The mailbox as shown (``imaps://user@host:993/INBOX``): no secret in it.
    mailbox: Mapped[str] = mapped_column(String(400), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(Integer, default=0)
    last_uid: Mapped[int] = mapped_column(Integer, default=0)
    #: "connecting", "idle", "polling", "disconnected" or "stopped".
    state: Mapped[str] = mapped_column(String(20), default="connecting")
    since: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_error_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: Messages stored from this folder since the state row was made.
    stored: Mapped[int] = mapped_column(Integer, default=0)


class Tournament(Base):
    """An organised event: boards of one game paired by a kind (server/boards/tournaments.py)."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: Lower-cased; names are case-insensitive, as userids are.
    name: Mapped[str] = mapped_column(String(40), unique=True)
    game: Mapped[str] = mapped_column(String(40))
    #: "roundrobin", "double", "swiss" or "pools".
    kind: Mapped[str] = mapped_column(String(12))
    #: Swiss: how many rounds; the other kinds: None (their schedule fixes it).
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The challenge option tokens every board starts with, e.g. ["-size=2"].
    tokens: Mapped[list[Any]] = mapped_column(JSON, default=list)
    starts_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    max_players: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: "open" (players join and leave), "running" or "finished".
    status: Mapped[str] = mapped_column(String(10), default="open")
    #: The round being played (Swiss starts them one by one); 0 before the start.
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    #: The tournament timers (the original's: nag after 1 day, forfeit after 7).
    nagtime: Mapped[float] = mapped_column(Float, default=1.0)
    forfeittime: Mapped[float] = mapped_column(Float, default=7.0)
    #: Days a player on vacation adds to a tournament board's forfeit time (the tournament's own rule).
    vacation_days: Mapped[float] = mapped_column(Float, default=7.0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    entries: Mapped[list[TournamentPlayer]] = relationship(
        back_populates="tournament", cascade="all, delete-orphan", order_by="TournamentPlayer.id", lazy="selectin"
    )


class TournamentPlayer(Base):
    """A player who joined a tournament; the order of joining is the seeding order."""

    __tablename__ = "tournament_players"
    __table_args__ = (UniqueConstraint("tournament_id", "user_id", name="uq_tournament_players_tournament_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Set when the player withdrew (or signed off) after the start: no further pairings.
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: Swiss rounds in which this player had the bye (a point each).
    byes: Mapped[list[Any]] = mapped_column(JSON, default=list)

    tournament: Mapped[Tournament] = relationship(back_populates="entries")
    user: Mapped[User] = relationship(lazy="joined")


class ComputerJob(Base):
    """Work for the computer opponent's process (server/processes/computer.py).

    ``kind`` "move": the computer's turn on a board at ``ply`` (the row counts
    the tries, so a turn that keeps failing is cut, never retried for ever);
    "hint" and "review": a player's request, answered by mail to
    ``address``.  The engine thinks outside any transaction; only taking a
    job and handing in its result are short transactions.
    """

    __tablename__ = "computer_jobs"
    __table_args__ = (
        Index("ix_computer_jobs_status_id", "status", "id"),
        UniqueConstraint("board_id", "kind", "ply", "user_id", name="uq_computer_jobs_board_kind_ply_user"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id", ondelete="CASCADE"), index=True)
    #: The board's ply when the job was made: a move for another ply is stale.
    ply: Mapped[int] = mapped_column(Integer)
    #: The computer's seat (move) or the asking player (hint, review).
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: Where a hint or review goes, and the mail it answers (threading).
    address: Mapped[str | None] = mapped_column(String(320), nullable=True)
    message_id: Mapped[str | None] = mapped_column(String(300), nullable=True)
    #: "new", "done" (a hint or review sent; a move's row is deleted once stored),
    #: "stale" (the board moved on), "cut" (failed MAX_TRIES times).
    status: Mapped[str] = mapped_column(String(10), default="new")
    tries: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
