"""Conditional moves: "if they play C3, I play E5", several branches deep.

A player mails branches, one a line, in turn order from the next move on:
the others' moves and their own answer, again and again (``C3 E5 G7 A1``:
if C3 then E5; then if G7 then A1).  Lines that share a beginning form a
tree.  In TriMac both other players' moves come before each answer: the
game's own ``to_move`` says whose move each word is, so nothing here counts
players.

The tree is a trie of moves in the game's spelling, rooted at the board's
current position and kept in ``Board.pending["conditional"][seat]`` (the
row is locked by every command that changes it, and ``boards.finish``
drops it with the rest of the pending state).  Where the owner is to move,
a node has exactly one child: their answer.  After every stored move the
trees step down to the child that move was; a move no tree child names
clears that tree and tells its owner.  When a tree's root is the owner's
turn, :func:`answer` is what ``lifecycle.apply_queued`` plays for them.

Every move is checked when the tree is sent, against the position it would
meet, so an answer is legal when it is played (positions follow from the
moves alone); a take-back, a resignation, a swap and the end of the game
clear the trees, because they change what the moves were checked against.

A tree is its owner's alone: only :func:`own_line` shows it, and only in
mail addressed to the owner.  Nothing here logs.

This module knows the game only through the plugin contract; the board
layer passes in how it spells a move (``boards.canonical_move``), so that
the trees and the move list use one spelling.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from games import Game, GameError
from server.mail.wrapping import WIDTH
from server.store.model import Board

#: Most lines (branches) one tree may hold, and most moves on one line: at
#: most 20 x 12 = 240 plays to check a tree, and a few kilobytes stored.
MAX_BRANCHES = 20
MAX_DEPTH = 12
#: Words the server handles itself: not moves of the game, so not in a tree.
SERVER_WORDS = ("resign", "propose", "undo", "accept", "reject")
#: Words of the friendly form (``if C3 then E5``) that are not moves.
FILLER = ("if", "then", "and", "else", "otherwise", "i", "play", "plays", "they", "->", "=>", ",", ";")
#: The one spelling function the board layer passes in (boards.canonical_move).
Spell = Callable[[Game, Any, int, str, Any], str]
Tree = dict[str, Any]

_KEY = "conditional"


class TreeRefused(Exception):
    """A line of a tree that cannot be kept: which line and why (nothing is stored)."""

    def __init__(self, number: int, line: str, why: str) -> None:
        super().__init__(why)
        self.number = number
        self.line = line
        self.why = why


@dataclass
class Checked:
    """A tree that passed every check, and how many lines (branches) it has."""

    tree: Tree
    lines: int


def branch_lines(text: str) -> list[str]:
    """The non-empty lines of a tree's text (the body, or the command's own words)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def line_moves(line: str) -> list[str]:
    """The moves of one line: split on white space; ``if``/``then`` and commas dropped."""
    words = line.replace(",", " ").replace(";", " ").split()
    return [w for w in words if w.lower() not in FILLER]


def check(game: Game, state: Any, owner: int, lines: list[str], spell: Spell) -> Checked:
    """Build the tree of ``lines`` for ``owner`` from ``state``; TreeRefused at the first bad line.

    Every move is played on the position it would meet: the game's own
    reason is given for an illegal one.  Two different answers to one
    position are refused (the tree must say one thing), as is a line that
    does not end with the owner's answer (it would answer nothing).
    """
    if owner_first(game, state, owner):
        raise TreeRefused(1, lines[0] if lines else "", "It is your move now: play it first; conditional "
                          "moves answer the others' moves")
    if len(lines) > MAX_BRANCHES:
        raise TreeRefused(MAX_BRANCHES + 1, lines[MAX_BRANCHES],
                          f"A tree holds at most {MAX_BRANCHES} lines; this one has {len(lines)}")
    root: Tree = {}
    # The positions met so far, by path: shared beginnings are played once.
    seen: dict[tuple[str, ...], Any] = {(): state}
    for number, line in enumerate(lines, start=1):
        moves = line_moves(line)
        if not moves:
            raise TreeRefused(number, line, "It holds no move")
        if len(moves) > MAX_DEPTH:
            raise TreeRefused(number, line, f"It has {len(moves)} moves; a line holds at most {MAX_DEPTH}")
        node, path, here = root, (), state
        seat: int | None = None
        for move in moves:
            seat = game.to_move(here)
            before = " ".join(path)
            where = f"after {before}" if path else "now"
            if seat is None:
                raise TreeRefused(number, line, f"The game is over after {before}, so {move} cannot follow")
            word = move.lower()
            if word in SERVER_WORDS or word == "swap":
                why = ("a swap changes sides, and that clears conditional moves" if word == "swap" else
                       f"{move} is not a move of the game: send it with the move command")
                raise TreeRefused(number, line, f"{move} cannot be a conditional move ({why})")
            try:
                after = game.play(here, seat, move)
            except GameError as exc:
                reason = str(exc).rstrip(".")
                raise TreeRefused(number, line, f"{move} is not legal {where}: {reason}") from None
            key = spell(game, here, seat, move, after)
            if seat == owner and node and key not in node:
                other = next(iter(node))
                raise TreeRefused(number, line, f"After {before} your answer is {other} on an earlier "
                                  f"line and {key} here: give one answer to each position")
            node = node.setdefault(key, {})
            path = (*path, key)
            here = seen.setdefault(path, after)
        if seat != owner:
            raise TreeRefused(number, line, f"It ends with {moves[-1]}, which is not your move: end every "
                              "line with your answer")
    return Checked(root, len(list(paths(root))))


def owner_first(game: Game, state: Any, owner: int) -> bool:
    return game.to_move(state) == owner


def paths(tree: Tree, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every branch of ``tree``, root to leaf, in the order they were given."""
    for move, child in tree.items():
        if child:
            yield from paths(child, (*prefix, move))
        else:
            yield (*prefix, move)


# -- stored on the board -----------------------------------------------------------------


def tree_of(board: Board, seat: int) -> Tree:
    return dict((board.pending or {}).get(_KEY, {}).get(str(seat), {}))


def owners(board: Board) -> list[int]:
    return sorted(int(s) for s in (board.pending or {}).get(_KEY, {}))


def store(board: Board, seat: int, tree: Tree) -> None:
    """Keep ``tree`` as ``seat``'s conditional moves (an empty tree clears them)."""
    pending = dict(board.pending or {})
    trees = dict(pending.get(_KEY, {}))
    if tree:
        trees[str(seat)] = tree
    else:
        trees.pop(str(seat), None)
    if trees:
        pending[_KEY] = trees
    else:
        pending.pop(_KEY, None)
    board.pending = pending


def clear_all(board: Board, why: str) -> dict[int, str]:
    """Drop every tree on the board; a note for each owner that says why."""
    gone = owners(board)
    pending = dict(board.pending or {})
    pending.pop(_KEY, None)
    board.pending = pending
    return {seat: f"Your conditional moves are cleared: {why}." for seat in gone}


def cleared_since(board: Board, before: list[int], why: str) -> dict[int, str]:
    """Notes for the owners in ``before`` whose trees are gone now (a take-back agreed by vote)."""
    if board.status != "active":
        return {}
    now = owners(board)
    return {seat: f"Your conditional moves are cleared: {why}." for seat in before if seat not in now}


def answer(board: Board, seat: int) -> str | None:
    """The move ``seat``'s tree plays now (its root is their turn), or None."""
    tree = tree_of(board, seat)
    if board.to_move != seat or len(tree) != 1:
        return None
    return next(iter(tree))


def advance(game: Game, board: Board, before: Any, seat: int, move: str, name: str) -> dict[int, str]:
    """Step every tree past ``move`` (just stored for ``seat``, named ``name``); notes for owners.

    A tree whose root names the move steps down to it (by spelling, else by
    the position it leads to); one that does not is cleared, and its owner
    told.  A swap clears every tree.  A tree played to its end is dropped.
    """
    notes: dict[int, str] = {}
    if move.lower() == "swap":
        return clear_all(board, f"{name} swapped sides")
    for owner in owners(board):
        tree = tree_of(board, owner)
        key = _matching(game, tree, before, seat, move)
        if key is not None:
            store(board, owner, tree[key])
            continue
        store(board, owner, {})
        if owner != seat:
            notes[owner] = f"Your conditional moves did not answer {name}'s {move}: they are cleared."
    return notes


def _matching(game: Game, tree: Tree, before: Any, seat: int, move: str) -> str | None:
    squash = "".join(move.split()).lower()
    for key in tree:
        if "".join(key.split()).lower() == squash:
            return key
    try:  # another spelling of the same move: the position it leads to decides
        target = game.dump(game.play(before, seat, move))
        for key in tree:
            try:
                if game.dump(game.play(before, seat, key)) == target:
                    return key
            except GameError:
                continue
    except GameError:
        return None
    return None


def own_line(board: Board, seat: int | None) -> str:
    """``Your conditional moves: ...`` for the owner's own board mail (nobody else's)."""
    if seat is None or board.status != "active":
        return ""
    tree = tree_of(board, seat)
    if not tree:
        return ""
    lines = ["Your conditional moves (each line: the others' moves, then your answer;",
             "'conditional ... clear' drops them):"]
    for branch in paths(tree):  # a long branch goes on under a deeper indent, never as a new one
        lines += textwrap.wrap(" ".join(branch), WIDTH, initial_indent="  ", subsequent_indent="      ",
                               break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)
