"""The mailed board: geometry visible, pieces, turn, check and result."""

from __future__ import annotations

import random

from games.weavedungeon import GAME
from tests.games.weavedungeon.helpers import play_all, state


def start():
    return GAME.start(GAME.parse_options([]), 2)


def widths_ok(text):
    return max(len(line) for line in text.splitlines()) <= 79


def rank_line(board, rank):
    return next(line for line in board.splitlines() if line.startswith(f"{rank:>2}  "))


def test_start_board_shows_square_kinds_and_pieces():
    board = GAME.render(start())
    assert widths_ok(board)
    # Rank 1: V bridge, slope, H bridge, ... (spec 1.3) with the setup of section 2.
    assert "!P! -S- =T= -C- !K! -C- =T= -S- !P!" in rank_line(board, 1)
    assert "|D| #D# |D| #D# |D| #D# |D| #D# |D|" in rank_line(board, 2)
    assert "=+= - - !+! - - =+= - - !+! - - =+=" in rank_line(board, 3)
    assert "| | ### | | ### | | ### | | ### | |" in rank_line(board, 4)
    assert "!+! - - =+= - - !+! - - =+= - - !+!" in rank_line(board, 5)
    assert "!p! -s- =t= -c- !k! -c- =t= -s- !p!" in rank_line(board, 9)
    assert "vertical on top" in board and "horizontal on top" in board and "Dungeon cell" in board
    assert "White to move" in board
    assert "on its throne e1" in board


def test_turn_check_and_abdication_are_shown():
    st = GAME.play(start(), 0, "a2-a3")
    assert "Black to move (last move: White Da2-a3)" in GAME.render(st)
    assert "last move: White Da2-a3" in GAME.render(st, compact=True)
    st = state("Ke1 Dd2 Cc2", "Ka9 Se4")
    board = GAME.render(st)
    assert "White's Star is in CHECK" in board
    st = state("Kd4", "Kc3")
    board = GAME.render(st)
    assert "imprisoned in the Dungeon at d4" in board
    assert "abdicated" in board


def test_finished_game_shows_result_and_grade():
    st = GAME.play(state("Ke1 Cb7 Cc7 Cd7 Ca5", "Ka9"), 0, "Ca5-a7")
    for compact in (False, True):
        board = GAME.render(st, compact=compact)
        assert widths_ok(board)
        assert "Black is checkmated" in board and "White wins -- Triumph" in board
        assert "last move: White Ca5-a7" in board
        assert "to move" not in board


def test_compact_board():
    board = GAME.render(start(), compact=True)
    assert widths_ok(board)
    lines = board.splitlines()
    assert len(lines) < len(GAME.render(start()).splitlines())
    assert "9 p s t c k c t s p" in lines
    assert "7 = - ! - = - ! - =" in lines
    assert "6 | # | # | # | # |" in lines
    assert "White to move" in board


def test_pool_is_shown():
    st = play_all(state("Ki1 Ca3", "Ka9 Ta5"), "Ca3xa5")
    assert "Black T" in GAME.render(st)
    assert widths_ok(GAME.render(st, seat=1))


def test_every_board_of_a_random_game_fits_79_columns():
    rng = random.Random(3)
    st = start()
    while GAME.to_move(st) is not None:
        for compact in (False, True):
            assert widths_ok(GAME.render(st, compact=compact))
        st = GAME.play(st, GAME.to_move(st), rng.choice(GAME.legal_moves(st)))
    board = GAME.render(st)
    assert widths_ok(board) and "wins --" in board
