"""The five games played by hitting Reply, from the four client shapes in turn (issue 26, "Done when").

One server (real listener on loopback, SQLite file, relay sink).  For each
game a board is challenged, then every move is a Reply to the last board
mail its player received, typed above the quote by Thunderbird (format=
flowed), Outlook (HTML, "RE:", the old mail unquoted under From:/Sent:),
Gmail (multipart/alternative, "On ... wrote:") or iPhone ("Sent from my
iPhone"), rotating.  After each reply: the move is stored as typed, the
mover's copy answers their reply (In-Reply-To = its Message-ID), every mail
threads under the board's root, and the next player gets the next board
mail with their own reply address.  Short games (four plies, TriMac three)
keep it within the suite's budget.
"""

from __future__ import annotations

import itertools
import smtplib
import time

from sqlalchemy import select

import games
from server.store.model import Board, Move
from tests.client_replies import SHAPES
from tests.mailtools import Received
from tests.server.accounts.test_reply_play import TOKEN_ADDRESS
from tests.server.conftest import Running

PEOPLE = {"alice": "alice@example.org", "bob": "bob@example.org", "carol": "carol@example.org"}
GAMES = ("interweave", "tridchess", "trimac", "warpandweft", "weavedungeon")
ORDER = ("thunderbird", "outlook", "gmail", "iphone")


def board_mail(running: Running, address: str, title: str) -> Received:
    """The last mail about ``title``'s board to ``address`` that invites a move (it has a Reply-To)."""
    return [m for m in running.sink.messages if address in m.rcpt_tos and title in m.subject
            and "Reply-To" in m.message][-1]


def test_five_games_by_reply_from_four_clients(sqlite_players: Running) -> None:
    running = sqlite_players
    running.mail(PEOPLE["carol"], "signup carol cherry3")
    shapes = itertools.cycle(ORDER)
    used: dict[str, set[str]] = {}
    started = time.monotonic()
    for name in GAMES:
        game = games.load_game(name)
        seats = list(PEOPLE)[: game.players]
        new = running.mail(PEOPLE["alice"], f"{name} challenge {' '.join(seats)}")
        assert sorted(m.rcpt_tos[0] for m in new) == sorted(PEOPLE[s] for s in seats)
        root = f"<{name}.101.board@games.test>"
        for ply in range(1, (3 if game.players == 3 else 4) + 1):
            with running.db.transaction() as s:
                board = s.scalars(select(Board).where(Board.game == name)).one()
                state, mover = game.load(board.state), seats[board.to_move]
            move = sorted(game.legal_moves(state))[0]
            shape = next(shapes)
            used.setdefault(name, set()).add(shape)
            mail = board_mail(running, PEOPLE[mover], game.title)
            to = str(mail.message["Reply-To"])
            assert TOKEN_ADDRESS.match(to), to
            typed = move if ply % 2 else f"{move}\nYour move, friend."
            raw = SHAPES[shape](mail, PEOPLE[mover], typed)
            sent_id = next(line.split(b":", 1)[1].strip() for line in raw.split(b"\r\n")
                           if line.lower().startswith(b"message-id:")).decode()
            before = len(running.sink.messages)
            with smtplib.SMTP("127.0.0.1", running.port, timeout=30) as smtp:
                smtp.sendmail(PEOPLE[mover], [to], raw)
            running.quiesce()
            out = running.sink.messages[before:]
            where = f"{name} ply {ply} by {mover} from {shape}"
            with running.db.transaction() as s:
                board = s.scalars(select(Board).where(Board.game == name)).one()
                stored = s.scalars(select(Move).where(Move.board_id == board.id).order_by(Move.ply)).all()
                assert board.ply == ply and stored[-1].move.rstrip("+#") == move.rstrip("+#"), where
                nxt = seats[board.to_move] if board.to_move is not None else None
            assert sorted(m.rcpt_tos[0] for m in out) == sorted(PEOPLE[s] for s in seats), where
            assert all("Error" not in m.subject for m in out), (where, [m.subject for m in out])
            for m in out:  # every mail threads under the board's root
                assert root in str(m.message["References"]).split(), (where, m.message["References"])
            mine = next(m for m in out if m.rcpt_tos == [PEOPLE[mover]])
            assert str(mine.message["In-Reply-To"]) == sent_id, where  # answers the reply itself
            if nxt is not None:
                theirs = next(m for m in out if m.rcpt_tos == [PEOPLE[nxt]])
                assert TOKEN_ADDRESS.match(str(theirs.message["Reply-To"])), where
                assert str(theirs.message["Reply-To"]) != to  # their own reply address, not the mover's
                assert f"Board 101 {nxt}" in theirs.subject, (where, theirs.subject)
            if "\n" in typed:
                other = next(m for m in out if m.rcpt_tos != [PEOPLE[mover]])
                assert f"{mover} writes:" in other.text and "Your move, friend." in other.text, where
                assert "wrote:" not in other.text.split(f"{mover} writes:")[1], where
    assert {s for v in used.values() for s in v} == set(ORDER)
    assert all(len(v) >= 3 for v in used.values()), used  # each game saw at least three of the clients
    assert time.monotonic() - started < 120  # about 20 s on an idle machine
