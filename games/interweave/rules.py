"""Checking a mailed turn step by step, and the end-of-turn bookkeeping.

A turn is validated the way spec §4's "PBEM validation recipe" describes:
each written step must be one the generator offers for the moving piece, the
compulsory rule applies to the first step, later steps must capture, and a
turn may not stop while the piece can still capture.  When a step is not
offered, :func:`explain` works out which rule forbids it, so a player reads
"not on its own colour" rather than "illegal move".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.contract import IllegalMove, Outcome
from games.interweave.board import (
    BLACK,
    BLACK_PIECES,
    DARK,
    EMPTY,
    LAST_RANK,
    NAMES,
    ORTH_ADJ,
    PENULTIMATE_RANK,
    PIECE_NAMES,
    RESERVE_TYPES,
    SIDE_NAMES,
    WHITE,
    WHITE_PIECES,
    between,
    side_of,
)
from games.interweave.moves import (
    Step,
    Work,
    first_steps,
    has_step,
    legal_turn_texts,
    piece_steps,
    turn_text,
)
from games.interweave.notation import ParsedStep, ParsedTurn
from games.interweave.position import Position

#: Turns without capture or Pawn move after which the game is drawn (§5).
FIFTY_MOVE_TURNS = 100


@dataclass(frozen=True, eq=False)
class State:
    """A game in progress: the position plus what the end rules need.

    ``history`` counts repetition keys since the last irreversible turn
    (capture or Pawn move): older positions can never occur again, so
    dropping them changes nothing and keeps the stored state small.
    """

    pos: Position
    fifty: bool
    history: dict[str, int]
    result: Outcome | None = None
    last: str | None = None
    _legal: list[str] | None = field(default=None, compare=False, repr=False)

    def legal(self) -> list[str]:
        """Canonical legal turns, computed once per state (states never change)."""
        if self._legal is None:
            moves = [] if self.result is not None else legal_turn_texts(self.pos)
            object.__setattr__(self, "_legal", moves)
        return self._legal  # type: ignore[return-value]


def initial_state(pos: Position, fifty: bool) -> State:
    """A game starting at ``pos``: checked at once for stalemate and the move-count rule."""
    result = None
    if not has_step(pos):
        result = _stalemate(pos.side)
    elif fifty and pos.halfmove >= FIFTY_MOVE_TURNS:
        result = _fifty()
    return State(pos, fifty, {pos.key(): 1}, result)


def _stalemate(side: int) -> Outcome:
    code = "0-1" if side == WHITE else "1-0"
    return Outcome(
        winners=(1 - side,),
        losers=(side,),
        reason=f"{SIDE_NAMES[1 - side]} wins: {SIDE_NAMES[side]} has no legal move, and "
        f"stalemate loses ({code}, stalemate)",
    )


def _fifty() -> Outcome:
    return Outcome(
        winners=(),
        losers=(),
        reason="Draw by the fifty-move rule: 100 turns without a capture or a Pawn move "
        "(1/2-1/2, fifty-move)",
    )


def resolve(pos: Position, turn: ParsedTurn) -> tuple[list[Step], Work]:
    """The steps of a written turn, validated; IllegalMove names the broken rule."""
    side = pos.side
    s = turn.origin
    piece = pos.board[s]
    if piece == EMPTY:
        raise IllegalMove(f"There is no piece on {NAMES[s]}")
    kind = piece.upper()
    if side_of(piece) != side:
        raise IllegalMove(
            f"The {PIECE_NAMES[kind]} on {NAMES[s]} is {SIDE_NAMES[1 - side]}'s: "
            f"you play {SIDE_NAMES[side]}"
        )
    if turn.piece and turn.piece != kind:
        raise IllegalMove(
            f"There is a {PIECE_NAMES[kind]} on {NAMES[s]}, not a {PIECE_NAMES[turn.piece]}"
        )
    work = Work(pos)
    work.square = s
    done: list[Step] = []
    for i, ps in enumerate(turn.steps):
        if i:
            prefix = turn_text(done)
            if work.king_taken is not None:
                raise IllegalMove(
                    f"{prefix} captures a King, which ends the game: nothing may follow"
                )
            if not done[-1].victims:
                raise IllegalMove(f"{prefix} captures nothing, so the turn ends there")
        ep = pos.ep if i == 0 else None
        gen = piece_steps(work.board, work.square, ep, tuple(work.reserves[side]), False)
        match = next(
            (
                st
                for st in gen
                if st.star == ps.star and st.target == ps.square and st.promo == ps.promo
            ),
            None,
        )
        if match is None:
            raise IllegalMove(
                explain(work.board, work.square, ps, side, tuple(work.reserves[side]), ep, gen)
            )
        if not match.victims:
            if i == 0:
                captures, capturing = first_steps(pos)
                if capturing:
                    raise IllegalMove(
                        f"You must capture: {_complete(pos, captures, s)} is available"
                    )
            else:
                raise IllegalMove(
                    f"After a capture the turn may only go on capturing: "
                    f"{turn_text(done)}{match.text(False)} captures nothing"
                )
        work.apply(match, side)
        done.append(match)
    if done[-1].victims:
        conts = work.continuations(side)
        if conts:
            text = turn_text(done)
            raise IllegalMove(
                f"{text} stops a capture chain that can continue ({text}{conts[0].text(False)})"
            )
    if turn.captured is not None and turn.captured != set(work.captured):
        wrote = ",".join(sorted(NAMES[q] for q in turn.captured))
        real = ",".join(sorted(NAMES[q] for q in work.captured)) or "nothing"
        raise IllegalMove(
            f"The captured list {{{wrote}}} does not match what {turn_text(done)} captures: {real}"
        )
    return done, work


def _complete(pos: Position, captures: list[Step], origin: int) -> str:
    """One complete capturing turn to quote, preferring the piece the player chose."""
    own = [st for st in captures if st.origin == origin]
    st = (own or captures)[0]
    work = Work(pos)
    work.apply(st, pos.side)
    done = [st]
    while conts := work.continuations(pos.side):
        work.apply(conts[0], pos.side)
        done.append(conts[0])
    return turn_text(done)


def _reserve_words(reserve: tuple[int, int, int]) -> str:
    names = [PIECE_NAMES[t] for t, n in zip(RESERVE_TYPES, reserve, strict=True) for _ in range(n)]
    return ", ".join(names) if names else "empty"


_SUMMARY = {
    "K": "a King steps one square diagonally, or leaps over an orthogonally adjacent enemy",
    "S": "a Smasher slides diagonally, or orthogonally an even number of squares",
    "L": (
        "a Leaper slides diagonally or an even number of squares orthogonally, leaps "
        "over one enemy orthogonally, or makes a double knight's move"
    ),
    "R": "a Remover only slides diagonally (it captures with '*' without moving)",
    "P": "a Pawn steps diagonally forward (two squares from its start rank) or leaps straight forward over an enemy",
}


def explain(
    board: list[str],
    cur: int,
    ps: ParsedStep,
    side: int,
    reserve: tuple[int, int, int],
    ep: tuple[int, int] | None,
    gen: list[Step],
) -> str:
    """Why the piece on ``cur`` cannot make step ``ps`` (it is not in ``gen``)."""
    kind = board[cur].upper()
    name, at, t = PIECE_NAMES[kind], NAMES[cur], NAMES[ps.square]
    me = SIDE_NAMES[side]
    enemy = BLACK_PIECES if side == WHITE else WHITE_PIECES
    same = [st for st in gen if st.star == ps.star and st.target == ps.square]
    if same:  # only the promotion part is wrong
        if ps.promo:
            if kind != "P":
                return "Only a Pawn can promote"
            if ps.square >> 3 not in (LAST_RANK[side], PENULTIMATE_RANK[side]):
                return (
                    f"A Pawn promotes only when it arrives on its 7th or 8th rank, and {t} is not"
                )
            return (
                f"{me} has no captured {PIECE_NAMES[ps.promo]} to promote to "
                f"(reserve: {_reserve_words(reserve)})"
            )
        options = " or ".join(f"={st.promo}" for st in same)
        return f"A Pawn arriving on {t}, its last rank, must promote: add {options}"
    if kind == "P" and not ps.star:
        full = piece_steps(board, cur, ep, (1, 1, 1), False)
        if any(st.target == ps.square for st in full):
            if ps.promo:
                return (
                    f"{me} has no captured {PIECE_NAMES[ps.promo]} to promote to "
                    f"(reserve: {_reserve_words(reserve)})"
                )
            return (
                f"A Pawn may not enter the last rank while {me} has no captured piece to promote to"
            )
    if ps.star:
        if kind != "R":
            return f"Only a Remover captures with '*'; the {name} on {at} moves with '-' or 'x'"
        if ps.square not in ORTH_ADJ[cur]:
            return f"The Remover on {at} can only remove a piece orthogonally next to it, and {t} is not next to it"
        if board[ps.square] == EMPTY:
            return f"There is nothing on {t} for the Remover on {at} to remove"
        return f"The piece on {t} is your own: the Remover removes only enemy pieces"
    if kind == "R" and ps.square in ORTH_ADJ[cur] and board[ps.square] in enemy:
        return f"The Remover captures without moving: write {at}*{t}"
    if ps.square == cur:
        return f"The {name} on {at} must move"
    if DARK[ps.square] != DARK[cur]:
        return f"The {name} on {at} cannot land on {t}: it is not on its own colour"
    if board[ps.square] != EMPTY:
        # "Occupied" is the reason only if the piece could get there were the
        # square empty, or on an empty board; else say why it is out of reach.
        emptied = list(board)
        emptied[ps.square] = EMPTY
        alone = [EMPTY] * len(board)
        alone[cur] = board[cur]
        reach = piece_steps(emptied, cur, ep, (1, 1, 1), False)
        reach += piece_steps(alone, cur, None, (1, 1, 1), False)
        if not any(st.target == ps.square for st in reach):
            why = _why(emptied, cur, ps.square, kind, side)
            return f"The {name} on {at} cannot move to {t}: {why}"
        return (
            f"The {name} on {at} cannot land on {t}: the square is occupied "
            f"(pieces never capture by landing on a piece)"
        )
    return f"The {name} on {at} cannot move to {t}: {_why(board, cur, ps.square, kind, side)}"


def _why(board: list[str], cur: int, dest: int, kind: str, side: int) -> str:
    """The geometric reason a (same-colour, empty) square is out of reach."""
    friend = WHITE_PIECES if side == WHITE else BLACK_PIECES
    df, dr = dest % 8 - cur % 8, dest // 8 - cur // 8
    forward = 1 if side == WHITE else -1
    if kind == "P":
        if dr * forward <= 0:
            return "a Pawn only moves forward"
        return _SUMMARY["P"]
    if kind == "L" and sorted((abs(df), abs(dr))) == [2, 4]:
        mid = cur + dr // 2 * 8 + df // 2
        if board[mid] in friend:
            return f"the midpoint {NAMES[mid]} of the double knight's move holds your own piece"
    path = between(cur, dest)
    if kind == "K" or path is None:
        return _SUMMARY[kind]
    occupied = [q for q in path if board[q] != EMPTY]
    orth = df == 0 or dr == 0
    if orth and kind == "R":
        return _SUMMARY["R"]
    if not occupied:
        return _SUMMARY[kind]
    if kind == "L" and orth:
        if len(occupied) > 1:
            return "a Leaper leaps over exactly one piece"
        q = occupied[0]
        if board[q] in friend:
            return f"a Leaper cannot leap over its own piece on {NAMES[q]}"
        return f"the enemy on {NAMES[q]} is on the Leaper's own colour, so it cannot be leapt"
    return f"the way is blocked at {NAMES[occupied[0]]}"


def finish(state: State, steps: list[Step], work: Work, text: str) -> State:
    """The state after a validated turn: ep right, counters, repetition, result."""
    pos = state.pos
    side = pos.side
    first = steps[0]
    pawn = pos.board[first.origin].upper() == "P"
    ep = None
    if len(steps) == 1 and pawn and abs(first.dest % 8 - first.origin % 8) == 2:
        ep = ((first.origin + first.dest) // 2, first.dest)
    halfmove = 0 if (work.captured or pawn) else pos.halfmove + 1
    new = Position(
        tuple(work.board),
        1 - side,
        ep,
        (tuple(work.reserves[WHITE]), tuple(work.reserves[BLACK])),  # type: ignore[arg-type]
        halfmove,
        pos.fullmove + (1 if side == BLACK else 0),
    )
    key = new.key()
    if halfmove == 0:
        history = {key: 1}
    else:
        history = dict(state.history)
        history[key] = history.get(key, 0) + 1
    me, them = SIDE_NAMES[side], SIDE_NAMES[1 - side]
    result = None
    code = "1-0" if side == WHITE else "0-1"
    if work.king_taken is not None:
        result = Outcome(
            (side,),
            (1 - side,),
            f"{me} wins by king capture: {me} captured the {them} King on "
            f"{NAMES[work.king_taken]} ({code}, king-capture)",
        )
    elif history[key] >= 3:
        result = Outcome(
            (1 - side,),
            (side,),
            f"{them} wins: {me} made a position occur for the third time, and "
            f"repetition loses ({'0-1' if side == WHITE else '1-0'}, repetition)",
        )
    elif not has_step(new):
        result = _stalemate(1 - side)
    elif state.fifty and halfmove >= FIFTY_MOVE_TURNS:
        result = _fifty()
    return State(new, state.fifty, history, result, text)
