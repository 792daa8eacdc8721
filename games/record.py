"""The game record: one plain-text format for every installed game.

Chess has PGN, Go has SGF; these games had only mail.  A record is a few
``[Tag "value"]`` lines (which game, its options and start position, who sat
where, the result) and then the moves, numbered as the server numbers them
(``#N`` counts every move, swaps included), one to a line, with comments in
braces.  The grammar is in ``docs/record-format.md``; as with PGN the writer
is strict and the reader forgiving (tags in any order and any case, several
moves to a line, numbers optional, ``;`` comments, text around the record).

The format is generic: a game takes part through the contract alone
(``parse_options``, ``start``, ``play``, ``resign``, ``position``) plus one
optional hook, :meth:`games.contract.Game.record_options`.  Nothing here
knows any one game.  :func:`replay` checks a record against the rules and
says which line is wrong and the game's own reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from games.contract import Game, GameError, Outcome, clip_input

FORMAT = "pbmserv-record"
VERSION = "1"
#: The tags the writer emits, in this order (others follow, sorted).
TAG_ORDER = ("Record", "Game", "Title", "Site", "Board", "Options", "Position", "Sides",
             "Seat1", "Seat2", "Seat3", "Started", "Finished", "Plies", "Result", "Reason", "Grade")
#: The move word a game may accept at any seat's turn (TriMac plays on after one).
RESIGN = "resign"
#: Columns of a written record's lines (a mailed text part's width).
WIDTH = 78
#: Lines a folded tag may take.
TAG_LINES = 12

_TAG = re.compile(r'^\s*\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_NUMBER = re.compile(r"^(\d+)\.+$")
_NUMBERED = re.compile(r"^(\d+)\.+(\S+)$")
_SEAT = re.compile(r"^\[(\d)\]$")
_RESULT = re.compile(r"^(\*|(?:1/2|1|0)(?:-(?:1/2|1|0)){1,2})$")


class RecordError(GameError):
    """A record that cannot be read or is not a legal game; the message names the line."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


@dataclass
class Entry:
    """One numbered move of a record."""

    move: str
    #: The seat (0-based) when the record names it (``[3] resign``); else the seat to move.
    seat: int | None = None
    comment: str = ""
    line: int = 0


@dataclass
class GameRecord:
    """A record as read or about to be written: tags in order, the moves, the comments."""

    tags: dict[str, str]
    entries: list[Entry] = field(default_factory=list)
    #: A comment before the first move (the game's own, not a move's).
    comment: str = ""
    #: Line of each tag in the text read (for error messages).
    tag_lines: dict[str, int] = field(default_factory=dict)

    def tag(self, name: str, default: str = "") -> str:
        return self.tags.get(name, default)

    @property
    def seats(self) -> list[str]:
        return [self.tags[f"Seat{i}"] for i in range(1, 4) if f"Seat{i}" in self.tags]


# -- results ------------------------------------------------------------------
def result_text(outcome: Outcome | None, players: int) -> str:
    """Per-seat scores joined by ``-``: 1 a winner, 0 a loser, 1/2 a share of a draw; ``*`` unfinished."""
    if outcome is None:
        return "*"
    scores = []
    for seat in range(players):
        if seat in outcome.winners:
            scores.append("1")
        elif seat in outcome.losers or outcome.winners:
            scores.append("0")
        else:
            scores.append("1/2")
    return "-".join(scores)


def outcome_of(record: GameRecord) -> Outcome | None:
    """The result the record's tags state (``None`` for ``*`` or none)."""
    text = record.tag("Result", "*")
    if text == "*":
        return None
    scores = text.split("-")
    winners = tuple(i for i, s in enumerate(scores) if s == "1")
    losers = tuple(i for i, s in enumerate(scores) if s == "0")
    return Outcome(winners, losers, record.tag("Reason"), record.tag("Grade") or None)


# -- writing ------------------------------------------------------------------
def _quote(value: str) -> str:
    flat = " ".join(str(value).split())
    return flat.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    """A brace comment; braces inside are made parentheses (a comment cannot nest)."""
    flat = " ".join(text.split()).replace("{", "(").replace("}", ")")
    return "{" + flat + "}"


def build(
    game: Game,
    options: dict[str, Any],
    players: list[str],
    moves: list[tuple[int, str]],
    outcome: Outcome | None = None,
    **tags: str,
) -> GameRecord:
    """The record of a game played from ``options`` by ``players`` (userids by seat).

    ``moves`` are (seat, move) as stored, in order; ``outcome`` is how the
    game ended (it may be outside the rules: a resignation, a forfeit, a
    draw agreed); ``tags`` adds or overrides tags (Board, Site, Started, ...).
    """
    start = game.start(options, len(players))
    head: dict[str, str] = {"Record": f"{FORMAT} {VERSION}", "Game": game.name, "Title": game.title}
    head["Options"] = " ".join(game.record_options(options))
    if game.has_position:
        head["Position"] = game.position(start)
    head["Sides"] = ", ".join(game.seat_names(start)[: len(players)])
    for index, user in enumerate(players, start=1):
        head[f"Seat{index}"] = user
    head["Plies"] = str(len(moves))
    head["Result"] = result_text(outcome, len(players))
    if outcome is not None:
        head["Reason"] = outcome.reason
        if outcome.grade:
            head["Grade"] = outcome.grade
    head.update({k: v for k, v in tags.items() if v})
    ordered = {k: head[k] for k in TAG_ORDER if k in head}
    ordered.update({k: head[k] for k in sorted(head) if k not in ordered})
    entries = [Entry(move, seat if move == RESIGN else None) for seat, move in moves]
    return GameRecord(ordered, entries)


def _fold(line: str) -> list[str]:
    """A line cut to ``WIDTH`` columns, the rest on lines indented by two spaces.

    It is cut at spaces (read back as one space); a word too long for a line
    (Tri-D's pieces field) is cut after a comma, and that line ends in ``\\``
    (read back as nothing), so a mailed record keeps every character.
    """
    lines = [""]
    for word in line.split(" "):
        parts = re.findall(r"[^,]*,|[^,]+$", word) or [word]
        for index, part in enumerate(parts):
            joiner = "" if index or not lines[-1] else " "
            # A piece with more of its word after it keeps a column for the "\\" a cut would add.
            room = len(part) + (index < len(parts) - 1)
            if lines[-1].strip() and len(lines[-1]) + len(joiner) + room > WIDTH:
                if index:
                    lines[-1] += "\\"
                lines.append("  " + part)
            else:
                lines[-1] += joiner + part
    return lines


def write(record: GameRecord) -> str:
    """The export form: tag lines, a blank line, one numbered move a line, the result.

    Lines are kept to 78 columns so a record survives being mailed as text: a
    longer tag (Tri-D's Position) or comment goes on indented lines below.
    """
    lines = [part for name, value in record.tags.items() for part in _fold(f'[{name} "{_quote(value)}"]')]
    lines.append("")
    if record.comment:
        lines += _fold(_comment(record.comment))
    for ply, entry in enumerate(record.entries, start=1):
        seat = f"[{entry.seat + 1}] " if entry.seat is not None else ""
        # A move is one word in the record: a game that spells one with a space (Tri-D's
        # "c4Wxd3W e.p.") is written without it, and read back by canonical() below.
        text = f"{ply}. {seat}{''.join(entry.move.split())}"
        if entry.comment:
            text += " " + _comment(entry.comment)
        lines += _fold(text)
    lines.append(record.tag("Result", "*"))
    return "\n".join(lines) + "\n"


# -- reading ------------------------------------------------------------------
def _start(lines: list[str]) -> int:
    """Where the record begins in a mail body: its first tag line."""
    for index, line in enumerate(lines):
        if _TAG.match(line):
            return index
    raise RecordError(0, f'no record found: a record begins with tag lines such as [Record "{FORMAT} {VERSION}"]')


def text_before(text: str) -> str:
    """What a mail says above the record in it (the whole text when it holds none)."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _TAG.match(line.lstrip("> "))), len(lines))
    return "\n".join(lines[:first]).strip()


def _tokens(lines: list[str], first: int) -> Iterator[tuple[str, int, bool]]:
    """(token, line number, is a comment) of the movetext; line numbers count from 1."""
    comment: list[str] | None = None
    opened = 0
    for number, line in enumerate(lines[first:], start=first + 1):
        if line.rstrip() == "--":  # a signature below the record
            break
        i = 0
        while i < len(line):
            if comment is not None:
                end = line.find("}", i)
                if end < 0:
                    comment.append(line[i:])
                    break
                comment.append(line[i:end])
                yield " ".join(" ".join(comment).split()), opened, True
                comment, i = None, end + 1
                continue
            ch = line[i]
            if ch.isspace():
                i += 1
            elif ch == "{":
                comment, opened, i = [], number, i + 1
            elif ch == ";":
                yield " ".join(line[i + 1:].split()), number, True
                break
            else:
                end = i
                while end < len(line) and not line[end].isspace() and line[end] not in "{;":
                    end += 1
                yield line[i:end], number, False
                i = end
    if comment is not None:
        raise RecordError(opened, "a comment opened with { is never closed with }")


def parse(text: str) -> GameRecord:
    """Read a record (syntax only; :func:`replay` checks it against the rules).

    Text before the first tag line (a mail's greeting) and from a ``--``
    signature line on is ignored; a record quoted in a reply (``> ``) is unquoted.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not any(_TAG.match(line) for line in lines):  # a record quoted in a reply ("> [Game ...]")
        lines = [re.sub(r"^> ?", "", line) for line in lines]
    first = _start(lines)
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    index = first
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        m = _TAG.match(line)
        start = index
        if not m and line.lstrip().startswith("["):  # a long tag folded over several lines
            for more in range(index + 1, min(index + TAG_LINES, len(lines))):
                if not lines[more].strip():
                    break
                head = line.rstrip()
                line = head[:-1] + lines[more].strip() if head.endswith("\\") else f"{head} {lines[more].strip()}"
                m = _TAG.match(line)
                if m:
                    index = more
                    break
            if not m:
                raise RecordError(start + 1, f'{clip_input(lines[start].strip(), 40)!r} is not a tag line: '
                                             '[Name "value"]')
        if not m:
            break
        name = m.group(1)[:1].upper() + m.group(1)[1:]
        name = next((t for t in TAG_ORDER if t.lower() == name.lower()), name)
        if name in tags:
            raise RecordError(start + 1, f"the tag {name} is given twice")
        tags[name] = re.sub(r"\\(.)", r"\1", m.group(2))
        tag_lines[name] = start + 1
        index += 1
    record = GameRecord(tags, tag_lines=tag_lines)
    if "Game" not in tags:
        raise RecordError(first + 1, 'the record has no [Game "..."] tag')
    version = tags.get("Record", f"{FORMAT} {VERSION}").split()
    if version[:1] != [FORMAT] or len(version) != 2 or version[1].split(".")[0] != VERSION:
        raise RecordError(tag_lines.get("Record", 0),
                          f"this server reads {FORMAT} {VERSION}, not {clip_input(tags['Record'])!r}")
    seat: int | None = None
    expected = 1
    result_seen = False
    for token, number, is_comment in _tokens(lines, index):
        if result_seen:
            raise RecordError(number, f"{clip_input(token)!r} after the result: the result ends the record")
        if is_comment:
            if record.entries:
                last = record.entries[-1]
                last.comment = f"{last.comment} {token}".strip()
            else:
                record.comment = f"{record.comment} {token}".strip()
            continue
        m = _NUMBER.match(token) or _NUMBERED.match(token)
        if m:
            if int(m.group(1)) != expected:
                raise RecordError(number, f"move number {m.group(1)} where move {expected} comes next")
            if _NUMBERED.match(token):
                token = m.group(2)
            else:
                continue
        s = _SEAT.match(token)
        if s:
            seat = int(s.group(1)) - 1
            continue
        if _RESULT.match(token):
            stated = tags.get("Result", "*")
            if token != stated:
                raise RecordError(number, f"the record ends with {token} but its Result tag says {stated}")
            result_seen = True
            continue
        record.entries.append(Entry(token, seat, line=number))
        seat = None
        expected += 1
    if seat is not None:
        raise RecordError(len(lines), "a seat [N] with no move after it")
    return record


# -- checking against the rules ---------------------------------------------------
@dataclass
class Replay:
    """A record played through the rules."""

    game: Game
    options: dict[str, Any]
    #: The state before any move, then after each move (``states[n]``: after move n).
    states: list[Any]
    #: (seat, move) in the game's canonical spelling, as the server stores moves.
    moves: list[tuple[int, str]]

    @property
    def final(self) -> Any:
        return self.states[-1]


def options_of(game: Game, record: GameRecord) -> dict[str, Any]:
    """The challenge options a record names (its Options and Position tags)."""
    tokens = record.tag("Options").split()
    position = record.tag("Position")
    if position and game.has_position:
        default = game.position(game.start(game.parse_options(list(tokens)), len(record.seats) or game.players))
        if position != default:
            tokens.append(f"-position={position}")
    try:
        return game.parse_options(tokens)
    except GameError as exc:
        raise RecordError(record.tag_lines.get("Options", record.tag_lines.get("Position", 0)), str(exc)) from None


def replay(game: Game, record: GameRecord, upto: int | None = None) -> Replay:
    """Play the record's moves (the first ``upto``) from its start; RecordError names the line.

    The Result tag is checked too: where the rules end the game, the record
    must say so; a result the rules do not reach (a resignation, a forfeit,
    a draw agreed) must come after the last move and give its Reason.
    """
    if record.tag("Game").lower() not in (game.name, *game.aliases):
        raise RecordError(record.tag_lines.get("Game", 0),
                          f"this is a record of {clip_input(record.tag('Game'))!r}, not of {game.name}")
    plies = record.tag("Plies")
    if upto is None and plies.isdigit() and int(plies) != len(record.entries):
        raise RecordError(record.tag_lines.get("Plies", 0), f"the Plies tag says {plies} moves but the record "
                                                            f"has {len(record.entries)}: was it cut short?")
    players = len(record.seats) or game.players
    options = options_of(game, record)
    try:
        state = game.start(options, players)
    except GameError as exc:
        raise RecordError(record.tag_lines.get("Options", 0), str(exc)) from None
    entries = record.entries if upto is None else record.entries[:upto]
    states = [state]
    moves: list[tuple[int, str]] = []
    for ply, entry in enumerate(entries, start=1):
        to_move = game.to_move(state)
        where = f"move {ply} ({clip_input(entry.move)})"
        if to_move is None:
            out = game.outcome(state)
            raise RecordError(entry.line, f"{where}: the game is already over ({out.reason if out else 'ended'})")
        seat = to_move if entry.seat is None else entry.seat
        if not 0 <= seat < players:
            raise RecordError(entry.line, f"{where}: there is no seat {seat + 1}")
        try:
            if entry.move.lower() == RESIGN:
                after = game.resign(state, seat)
                if after is None:
                    raise GameError(f"in {game.title} a resignation ends the game: it is the Result, not a move")
                move = RESIGN
            else:
                if seat != to_move:
                    raise GameError(f"it is seat {to_move + 1}'s move, not seat {seat + 1}'s")
                after = game.play(state, seat, entry.move)
                move = canonical(game, state, entry.move)
        except GameError as exc:
            raise RecordError(entry.line, f"{where} is refused: {exc}") from None
        state = after
        states.append(state)
        moves.append((seat, move))
    if upto is None:
        _check_result(game, record, state, len(entries))
    return Replay(game, options, states, moves)


def canonical(game: Game, state: Any, move: str) -> str:
    """The legal move spelled as the game spells it (case and spaces aside), else as written."""
    key = "".join(move.split()).lower()
    same = [m for m in game.legal_moves(state) if "".join(m.split()).lower() == key]
    return same[0] if len(same) == 1 else move


def _check_result(game: Game, record: GameRecord, state: Any, plies: int) -> None:
    stated = outcome_of(record)
    ruled = game.outcome(state)
    line = record.tag_lines.get("Result", 0)
    if ruled is not None:
        if stated is None:
            raise RecordError(line, f"after move {plies} the game is over ({ruled.reason}), but the Result says *")
        if (set(stated.winners), set(stated.losers)) != (set(ruled.winners), set(ruled.losers)):
            raise RecordError(line, f"the Result {record.tag('Result')} is not how the game ended "
                                    f"({result_text(ruled, len(record.seats) or game.players)}: {ruled.reason})")
    elif stated is not None and not record.tag("Reason"):
        raise RecordError(line, "the rules did not end this game: a Result needs its Reason "
                                "(a resignation, a forfeit, a draw agreed)")
