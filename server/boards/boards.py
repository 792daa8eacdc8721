"""Boards: the server's side of a game (seats, stored state, moves, board mail).

The rules live in the plugin; this module keeps what the server owns around
them: who sits where, the stored state and move list, whose turn it has been
since when, and the mail every player gets after each change.
"""

from __future__ import annotations

import inspect
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.orm import Session, object_session

import games
from games import Game, Outcome
from server.accounts.accounts import addresses_of
from server.accounts.reply_address import invite
from server.boards import board_notes, board_record, computer, conditional, snapshots, standings
from server.boards.ratings import rate_board
from server.boards.watchers import board_followers
from server.core.config import Settings
from server.core.errors import CommandError
from server.mail.replies import Mail, board_root
from server.mail.wrapping import WIDTH, wrap, wrap_prose
from server.pictures.cache import Picture
from server.pictures.cache import make as make_picture
from server.store.model import Board, Move, Seat, User, utcnow
from server.store.queries import core, known_board, remember_board, remember_owners

if TYPE_CHECKING:
    from datetime import datetime

    from server.commands.base import Context

FIRST_BOARD = 101
RECENT_MOVES = 8
_BOARD_REF = re.compile(r"^([0-9]{1,9})(?:#([0-9]{1,6}))?$")


def plugin_for(name: str) -> Game:
    try:
        return games.load_game(name)
    except games.GameUnavailable as exc:
        raise CommandError(str(exc)) from None
    except games.UnknownGame:
        known = ", ".join(g.name for g in games.available())
        raise CommandError(f"Unknown game {name!r}; the games here are: {known}") from None


def parse_board_ref(text: str) -> tuple[int, int | None]:
    """``101`` or ``101#5`` (the board as it stood after 5 moves)."""
    m = _BOARD_REF.match(text)
    if not m:
        raise CommandError(f"{text!r} is not a board number (e.g. 101, or 101#5 for after move 5)")
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


def find_board(session: Session, game: Game, number: int, lock: bool = False) -> Board:
    """The board; with ``lock`` its row is locked until the transaction ends."""
    board = known_board(session, game.name, number, lock)
    if board is not None:
        return board
    query = select(Board).where(Board.game == game.name, Board.number == number)
    if lock:
        query = query.with_for_update()
    board = session.scalars(query).one_or_none()
    if board is None:
        raise CommandError(f"There is no {game.title} Board {number}", title=game.title)
    remember_board(session, board, lock)
    return board


def board_at(session: Session, game: Game, ref: str) -> tuple[Board, list[Move], int | None]:
    """The board a ``BOARD[#N]`` names, its moves, and N (refused when the board has fewer moves)."""
    number, at = parse_board_ref(ref)
    board = find_board(session, game, number)
    moves = moves_of(session, board)
    if at is not None and at > len(moves):
        raise CommandError(f"Board {number} has only {len(moves)} moves; #{at} is not one", board=board,
                           title=game.title)
    return board, moves, at


def seat_users(board: Board) -> list[User]:
    return [s.user for s in board.seats]


def seat_of(board: Board, user: User) -> int | None:
    for s in board.seats:
        if s.user_id == user.id:
            return s.seat
    return None


def user_to_move(board: Board) -> User | None:
    return None if board.to_move is None else seat_users(board)[board.to_move]


def next_board_number(session: Session, game: Game) -> int:
    top = session.scalar(select(func.max(Board.number)).where(Board.game == game.name))
    return FIRST_BOARD if top is None else top + 1


def create_board(
    session: Session,
    game: Game,
    users: list[User],
    options: dict[str, Any],
    nagtime: float,
    forfeittime: float,
    rated: bool = True,
) -> tuple[Board, Any]:
    state = game.start(options, len(users))
    board = Board(
        game=game.name,
        number=next_board_number(session, game),
        options=options,
        state=game.dump(state),
        ply=0,
        to_move=game.to_move(state),
        status="active",
        pending={},
        nagtime=nagtime,
        forfeittime=forfeittime,
        rated=rated,
    )
    board.seats = [Seat(seat=i, user_id=u.id) for i, u in enumerate(users)]
    session.add(board)
    session.flush()
    return board, state


#: A board's moves as plain rows: read, never changed, by every caller.
_MOVES = (select(Move.id, Move.board_id, Move.ply, Move.seat, Move.move, Move.played_at, Move.auto)
          .where(Move.board_id == bindparam("board")).order_by(Move.ply))


def moves_of(session: Session, board: Board) -> list[Move]:
    """The board's moves in order, as read-only rows with a Move's attributes.

    Every board mail lists the moves, so a move loaded the whole list: as
    ORM objects that was 60 objects built and tracked for a 60-ply game,
    growing with the game (issue 25).  Nobody changes a listed move (undo
    deletes with one statement), so rows serve.
    """
    # On the connection (server.store.queries.core): moves are only ever written by Core
    # statements, so nothing of them waits in the session to be flushed first.
    return list(core(session, _MOVES, {"board": board.id}))  # type: ignore[arg-type]


def replay(game: Game, board: Board, moves: list[Move], upto: int | None = None) -> Any:
    """The state after ``upto`` moves, rebuilt from the stored move list (from the nearest
    snapshot, not from move 0: server/boards/snapshots.py)."""
    return snapshots.replay(game, board, moves, upto)


def apply_state(board: Board, game: Game, state: Any, now: datetime | None = None) -> Outcome | None:
    """Store ``state`` on the board and finish it if the game is over (or only the computer is left in it).

    ``now`` is the time of the change (``pbmserv remind --now T`` runs at T), default the clock.
    """
    board.state = game.dump(state)
    previous = board.to_move
    board.to_move = game.to_move(state)
    if board.to_move != previous:
        board.turn_since = now or utcnow()
        board.reminders_sent = 0
    outcome = game.outcome(state)
    if outcome is None:
        # TriMac after a resignation or a defeat: only computer seats may be left in play.
        outcome = computer.only_computer_left(board, game, state)
    if outcome is not None:
        finish(board, outcome, now)
    return outcome


def finish(board: Board, outcome: Outcome, now: datetime | None = None) -> None:
    """End the game: the single place a board finishes, so ratings follow it here.

    The ratings change in the caller's transaction (the board's own session),
    so the end of a game and its rating are stored together or not at all.
    """
    board.status = "finished"
    board.to_move = None
    board.finished_at = now or utcnow()
    board.outcome = {
        "winners": list(outcome.winners),
        "losers": list(outcome.losers),
        "reason": outcome.reason,
        "grade": outcome.grade,
    }
    pending = dict(board.pending or {})
    for key in ("resign", "vote", "queue", "submit", "conditional"):
        pending.pop(key, None)
    board.pending = pending
    board.vote_since = None
    session = object_session(board)
    if session is None:
        raise RuntimeError(f"board {board.game} {board.number} finished outside a session: it cannot be rated")
    rated = rate_board(session, board)
    if rated:
        board.outcome = {**board.outcome, "ratings": [[c.seat, round(c.before, 1), round(c.after, 1)] for c in rated]}


#: A move's row, written with one Core INSERT: nothing reads it back as an object (moves_of
#: reads rows), and the ORM's unit of work cost more than the statement (issue 25).
_INSERT_MOVE = insert(Move.__table__)


def record_move(session: Session, board: Board, seat: int, move: str, auto: bool = False) -> None:
    """Store the next move; ``auto``: played by the server for its owner (queued or conditional)."""
    board.ply += 1
    # On the connection: no autoflush, so the board's changes go in one UPDATE later, not one now
    # and one then.
    core(session, _INSERT_MOVE, {"board_id": board.id, "ply": board.ply, "seat": seat, "move": move, "auto": auto})


def _squash(move: str) -> str:
    return "".join(move.split()).lower()


def canonical_move(game: Game, state: Any, seat: int, move: str, played: Any) -> str:
    """``move`` as the game spells it (legal_moves' notation), not as typed.

    ``da2-a3`` is stored as ``Da2-a3``: the move list, ``history`` and the
    replay of a board show one spelling.  The legal move equal to it but
    for case and spaces is taken; failing that (``Diamond a2-a3``, a letter
    left out), the legal move that leads to the same position; failing
    that (a plugin whose legal_moves omits some word), the text as typed.
    """
    try:
        legal = game.legal_moves(state)
        key = _squash(move)
        same = [m for m in legal if _squash(m) == key]
        if len(same) == 1:
            return same[0]
        target = game.dump(played)
        for candidate in legal:
            try:
                if game.dump(game.play(state, seat, candidate)) == target:
                    return candidate
            except games.GameError:
                continue
    except Exception:  # a plugin's trouble here must not cost the move
        return move
    return move


def player_label(board: Board, game: Game, state: Any, seat: int) -> str:
    names = game.seat_names(state)
    user = seat_users(board)[seat].userid
    return f"{user} ({names[seat]})" if seat < len(names) else user


def status_line(board: Board, game: Game, state: Any) -> str:
    """Whose turn it is, or the result with its grade."""
    if board.status == "removed":
        return "This board was removed: a player resigned before making a move."
    if board.outcome is not None:
        out = board.outcome
        if out["winners"]:
            who = " and ".join(player_label(board, game, state, s) for s in out["winners"])
            verb = "wins" if len(out["winners"]) == 1 else "win"
            text = f"Game over: {who} {verb} ({out['reason']})."
        else:
            text = f"Game over: a draw ({out['reason']})."
        if out.get("grade"):
            text += f" Grade: {out['grade']}."
        return text
    assert board.to_move is not None
    text = f"It is {player_label(board, game, state, board.to_move)}'s move (move #{board.ply + 1})."
    pending = board.pending or {}
    if pending.get("vote"):
        vote = pending["vote"]
        users = seat_users(board)
        waiting = " and ".join(users[s].userid for s in owing_votes(board)) or "the others"
        text += f"\n{vote['by']} proposes {vote['kind']}; waiting for {waiting} to accept or reject."
    return text


def owing_votes(board: Board) -> list[int]:
    """Seats that still owe a vote on the pending draw or take-back offer (in seat order)."""
    current = (board.pending or {}).get("vote")
    if not current:
        return []
    voters = current.get("voters", [s.seat for s in board.seats])
    return [s for s in voters if s not in current["accepted"]]


def move_list(board: Board, moves: list[Move], whole: bool) -> str:
    users = seat_users(board)
    shown = moves if whole else moves[-RECENT_MOVES:]
    if not shown:
        return "No moves yet."
    head = "Moves:" if whole or len(shown) == len(moves) else f"Last {len(shown)} of {len(moves)} moves:"
    lines = [head] + [f"  {m.ply:>4}. {users[m.seat].userid:<16} {m.move}{' (auto)' if m.auto else ''}"
                      for m in shown]
    return "\n".join(lines)


def board_text(
    settings: Settings,
    board: Board,
    game: Game,
    state: Any,
    moves: list[Move],
    headline: str,
    viewer: int | None,
    whole: bool,
    comment_by: str | None = None,
    comment: str = "",
    note: str = "",
    followers: str | None = None,
) -> str:
    """The body of a board mail, in commands.md's order.

    ``note`` is for this viewer alone (e.g. that their queued move was not
    legal); the small print below the board is server.boards.board_notes'.
    ``followers``: the board's follower lines where the caller made them
    already (the same for every recipient of a move: made once, not once each).
    """
    parts = [wrap(headline.strip()), wrap(note.strip()), wrap(status_line(board, game, state)),
             move_list(board, moves, whole)]
    parts.append(render(board, game, state, viewer))
    parts.append(coordinate_key(board, game, viewer))
    players = ", ".join(player_label(board, game, state, i) for i in range(len(board.seats)))
    parts.append(f"Players: {players}")
    session = object_session(board) if board.tournament_id is not None else None
    if session is not None:
        parts.append(wrap(standings.board_line(session, board)))
    away = [u.userid for u in seat_users(board) if u.vacation]
    if away and board.status == "active":
        parts.append(f"On vacation (no reminders, no forfeits): {', '.join(away)}")
    parts.append(wrap(board_notes.follower_lines(board) if followers is None else followers))
    parts.append(wrap(board_notes.timing_block(settings, board, moves, user_to_move(board), whole)))
    parts.append(board_notes.rating_lines(board, seat_users(board)))
    link = web_link(settings, board)
    if link:
        parts.append(f"On the web: {link}")
    if comment.strip() and comment_by:
        under = "\n".join(("  " + line).rstrip() for line in wrap(comment, WIDTH - 2).split("\n"))
        parts.append(f"{comment_by} writes:\n" + under)
    return "\n\n".join(p for p in parts if p) + "\n"


def coordinate_key(board: Board, game: Game, viewer: int | None) -> str:
    """The game's key to its text board's points (TriMac), unless this player said ``coordinates off``.

    Mail from no seat (a watcher's, a stranger's ``show``) carries it: the
    default is on, and such readers are the least likely to know the board.
    """
    if not text_view(board, game, viewer)[1]:
        return ""
    key = getattr(game, "coordinate_key", None)  # plugins written before the hook have none
    return wrap_prose(key()) if key is not None else ""


def web_link(settings: Settings, board: Board, at: int | None = None) -> str | None:
    """The board's read-only web page (``#N``: the position after N moves), when the server has one."""
    if not settings.web_url:
        return None
    return f"{settings.web_url.rstrip('/')}/{board.game}/{board.number}" + (f"#{at}" if at is not None else "")


def picture(settings: Settings, board: Board, game: Game, state: Any, at: int | None = None,
            viewer: int | None = None) -> list[Picture]:
    """The board's picture for a mail (an empty list where the game draws none, or pictures are off);
    ``viewer``: drawn from that seat's side (see ``view_of``)."""
    if not settings.pictures:
        return []
    pic = make_picture(game, state, [u.userid for u in seat_users(board)], f"board-{board.number}",
                       web_link(settings, board, at), view_of(board, game, viewer))
    return [pic] if pic else []


def view_of(board: Board, game: Game, viewer: int | None) -> int | None:
    """The seat a board is drawn from for ``viewer``: theirs, unless the game draws every seat
    alike or they said ``flip off`` (then None: the first player's side)."""
    if viewer is None or not getattr(game, "oriented", False) or not seat_users(board)[viewer].flip:
        return None
    return viewer


#: session.info key: the text drawings made in this transaction (see ``render``).
_RENDERED = "pbmserv_rendered"


def text_view(board: Board, game: Game, viewer: int | None) -> tuple[int | None, bool]:
    """What of a board mail's text depends on who reads it: the side its drawing is seen from
    (None: the first player's, for "flip off", no seat, or a game that draws every seat alike)
    and whether it carries the coordinate key."""
    return view_of(board, game, viewer), viewer is None or bool(seat_users(board)[viewer].coordinates)


def render(board: Board, game: Game, state: Any, viewer: int | None, moveno: int | None = None) -> str:
    """The plugin's drawing of ``state`` on this board, for one viewer.

    ``moveno`` (default: the board's next move number) is passed to plugins
    that take it, so the board names the same #N as the status line.
    """
    # The side it is seen from: the viewer's, unless "flip off" or a game that draws every seat
    # alike (not ``oriented``: games/contract.py), where it is the first player's (None).
    args = (bool(board.options.get("compact")), view_of(board, game, viewer), board.number,
            tuple(u.userid for u in seat_users(board)), board.ply + 1 if moveno is None else moveno,
            board.status != "active")
    # A move's drawing is asked for by every player's mail and the mover's result (three times
    # for two players): drawn once per transaction and side.  Keyed by the state object itself,
    # held in the entry so its id cannot be reused meanwhile (a state is a value: play returns a
    # new one).
    session = object_session(board)
    drawn = session.info.setdefault(_RENDERED, {}) if session is not None else {}
    entry = drawn.get((id(state), args))
    if entry is not None and entry[0] is state:
        return entry[1]
    text = render_state(game, state, args[0], args[1], board.number, list(args[3]), args[4], over=args[5])
    drawn[(id(state), args)] = (state, text)
    return text


def render_state(game: Game, state: Any, compact: bool, viewer: int | None, number: int | None,
                 players: list[str] | None, moveno: int, over: bool = False) -> str:
    """The plugin's drawing, passing ``moveno`` and ``over`` only to plugins that take them
    (a board or a record's position); ``over``: ended by the server (resigned, forfeited,
    agreed), so no player is to move."""
    extra: dict[str, Any] = {"moveno": moveno} if _takes(game, "moveno") else {}
    if over and _takes(game, "over"):
        extra["over"] = True
    return game.render(state, compact=compact, seat=viewer, board=number, players=players, **extra).rstrip("\n")


@cache
def _takes(game: Game, parameter: str) -> bool:
    """Whether the plugin's render accepts ``parameter`` (plugins written before it do not)."""
    try:
        return parameter in inspect.signature(game.render).parameters
    except (TypeError, ValueError):
        return False


def show_text_at(board: Board, game: Game, state: Any, moves: list[Move], headline: str) -> str:
    """A past position for ``show BOARD#N``: the board's current status does not apply."""
    seat = game.to_move(state)
    if seat is None:
        status = "The game was over at this point."
    else:
        status = f"At this point it was {player_label(board, game, state, seat)}'s move (move #{len(moves) + 1})."
    parts = [headline, status, move_list(board, moves, True), render(board, game, state, None, len(moves) + 1)]
    return "\n\n".join(parts) + "\n"


def board_subject(board: Board, game: Game, new: bool = False, comment: str = "") -> str:
    """``[New ]TITLE Board N USER`` or ``... Finished``; `` **`` marks a mail that carries a comment (as pbmserv)."""
    mark = " **" if comment.strip() else ""
    session = object_session(board) if board.tournament_id is not None else None
    tag = standings.subject_tag(session, board) if session is not None else ""
    if board.status != "active":
        return f"{tag}{game.title} Board {board.number} Finished{mark}"
    user = user_to_move(board)
    prefix = "New " if new else ""
    return f"{tag}{prefix}{game.title} Board {board.number} {user.userid if user else ''}".rstrip() + mark


def own_note(board: Board, seat: int | None, private: dict[int, str]) -> str:
    """What only the player in ``seat`` reads: ``private[seat]``, their queued move, their conditional moves.

    Only mail addressed to that player may carry it (not ``all show``, which
    anyone may ask for).
    """
    if seat is None:
        return ""
    return "\n".join(p for p in (private.get(seat, ""), board_notes.queued_line(board, seat),
                                  conditional.own_line(board, seat)) if p)


def announce(
    ctx: Context,
    board: Board,
    game: Game,
    state: Any,
    headline: str,
    new: bool = False,
    comment_by: str | None = None,
    comment: str = "",
    private: dict[int, str] | None = None,
    moves: list[Move] | None = None,
    pictures: list[Picture] | None = None,
    followers: dict[str, list[User]] | None = None,
) -> list[Mail]:
    """One board mail per player (drawn from their seat) and per watcher.

    ``private`` holds a note per seat that only that seat's player is shown.
    ``moves`` and ``pictures``: the board's move list and picture of
    ``state`` when the caller has them already (the move path needs the
    moves for the mover's reply too; drawing the PNG is the dearest step
    of a move, 7.5 ms for interweave, so it is drawn once per command).
    ``followers``: the board's followers by kind (watchers.board_followers), likewise.
    """
    if moves is None:
        moves = moves_of(ctx.session, board)
    whole = new or board.status != "active"
    subject = board_subject(board, game, new, comment if comment_by else "")
    root = board_root(ctx.settings, game.name, board.number)
    mails: list[Mail] = []
    recipients: list[tuple[User, int | None]] = [(u, i) for i, u in enumerate(seat_users(board))]
    if followers is None:
        followers = board_followers(ctx.session, board)
    recipients += [(u, None) for u in followers["watch"]]
    if board.status != "active":
        # "notify" subscribers hear only of the end, and once: nothing is
        # announced on a board after it has ended.
        seen = {u.id for u, _ in recipients}
        recipients += [(u, None) for u in followers["notify"] if u.id not in seen]
    remember_owners(ctx.session, [u for u, _ in recipients])  # the quota asks who they are
    # The same for every recipient: made once per move.
    small_print = board_notes.follower_lines(board, followers)
    notes = private or {}
    wanted = any(u.pictures and u.active and u.addresses for u, _ in recipients)
    if not wanted:
        pictures = []
    elif pictures is None:
        pictures = picture(ctx.settings, board, game, state)
    # The last mail of a finished board carries its game record (server.boards.board_record).
    record = [board_record.attachment(ctx.settings, board, game, moves)] if board.status == "finished" else []
    # One picture per orientation (two at most): a game that turns the board draws Black's too.
    views: dict[int | None, list[Picture]] = {None: pictures}
    # Recipients who see the same text get the same body, made once: it differs only by the
    # drawing's side, the coordinate key and a seat's own note (most moves: one body for all).
    bodies: dict[tuple[int | None, bool, str], str] = {}
    for user, seat in recipients:
        if not user.active or not user.addresses:
            continue
        note = own_note(board, seat, notes)
        key = (*text_view(board, game, seat), note)
        body = bodies.get(key)
        if body is None:
            body = bodies[key] = board_text(ctx.settings, board, game, state, moves, headline, seat, whole,
                                            comment_by, comment, note, small_print)
        view = view_of(board, game, seat) if wanted and user.pictures else None
        if view not in views:
            views[view] = picture(ctx.settings, board, game, state, viewer=view)
        mail = Mail(to=addresses_of(user), subject=subject, body=body, references=[root], users=[user.userid],
                    pictures=views[view] if user.pictures else [], attachments=list(record))
        mails.append(invite(ctx.session, ctx.settings, mail, user, board) if seat is not None else mail)
    if board.status == "finished" and board.tournament_id is not None:
        ended = f"{game.title} Board {board.number} has ended. {status_line(board, game, state)}"
        mails += standings.after_board(ctx.session, ctx.settings, board, wrap(ended))
    return mails


def boards_table(board_list: list[Board], title: str) -> str:
    """The table of ``list``, ``all`` and ``GAME games``: number, move, status, players."""
    if not board_list:
        return f"{title}: no boards."
    lines = [f"{title}:", "", f"  {'Board':>5}  {'Move':>4}  {'Status':<22} Players"]
    for b in board_list:
        mover = user_to_move(b)
        if b.status == "active":
            status = f"{mover.userid} to move" if mover else "active"
            if mover and mover.vacation:
                status += " (vacation)"
        elif b.status == "removed":
            status = "removed"
        else:
            winners = [seat_users(b)[s].userid for s in (b.outcome or {}).get("winners", [])]
            status = f"won by {', '.join(winners)}" if winners else "drawn"
        players = ", ".join(u.userid for u in seat_users(b))
        lines.append(f"  {b.number:>5}  {b.ply + 1 if b.status == 'active' else b.ply:>4}  {status:<22} {players}")
    return "\n".join(lines)
