"""What one transaction remembers so a move by reply does not load things twice (issue 25).

Real SQLite file, real sessions.  Each memo must answer only what it was told
and only while its objects belong to the session; a board asked for locked
must not be served from an unlocked find.
"""

from __future__ import annotations

from server.processes.cli import default_workers
from server.store.database import Database
from server.store.model import Address, Board, User
from server.store.queries import (
    known_board,
    known_owners,
    owner_of,
    remember_board,
    remember_owners,
)


def _setup(url: str) -> Database:
    db = Database(url)
    db.upgrade()
    with db.transaction() as s:
        alice = User(userid="alice", password_hash="x", active=True)
        gone = User(userid="gone", password_hash="x", active=False)
        s.add_all([alice, gone])
        s.flush()
        s.add_all([Address(user_id=alice.id, address="Alice@Example.org", confirmed=True),
                   Address(user_id=alice.id, address="alt@example.org", confirmed=False),
                   Address(user_id=gone.id, address="gone@example.org", confirmed=True)])
        s.add(Board(game="tictactoe", number=101, options={}, state={}, ply=0, to_move=0, status="active",
                    pending={}, nagtime=7.0, forfeittime=21.0, reminders_sent=0))
    return db


def test_a_board_found_unlocked_is_not_served_to_a_locking_find(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with db.transaction() as s:
        board = s.query(Board).one()
        assert known_board(s, "tictactoe", 101, lock=False) is None  # told nothing yet
        remember_board(s, board, locked=False)
        assert known_board(s, "tictactoe", 101, lock=False) is board
        assert known_board(s, "tictactoe", 101, lock=True) is None
        remember_board(s, board, locked=True)
        assert known_board(s, "tictactoe", 101, lock=True) is board
        assert known_board(s, "tictactoe", 102, lock=False) is None
        s.expunge(board)  # no longer the session's: not served
        assert known_board(s, "tictactoe", 101, lock=False) is None


def test_owners_are_remembered_by_confirmed_address_only(sqlite_url: str) -> None:
    db = _setup(sqlite_url)
    with db.transaction() as s:
        alice, gone = s.query(User).filter_by(userid="alice").one(), s.query(User).filter_by(userid="gone").one()
        assert known_owners(s, ["alice@example.org"]) is None
        remember_owners(s, [alice, gone])
        assert known_owners(s, ["ALICE@example.org"]) == [alice]  # case does not matter
        assert known_owners(s, ["alice@example.org", "alt@example.org"]) is None  # unconfirmed: not noted
        assert owner_of(s, "alice@example.org") is alice
        # An inactive account's address is known, but not to a question about active owners.
        assert owner_of(s, "gone@example.org", active_only=False) is gone
        assert owner_of(s, "gone@example.org") is None
        s.expunge(alice)  # no longer the session's: not served
        assert known_owners(s, ["alice@example.org"]) is None


def test_one_worker_on_sqlite_and_one_per_core_on_postgresql() -> None:
    import os

    assert default_workers("sqlite:////tmp/pbmserv.db") == 1
    assert default_workers("postgresql+psycopg://u@h/db") == (os.cpu_count() or 1)
