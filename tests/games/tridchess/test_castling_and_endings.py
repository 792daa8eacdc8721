"""Castling (spec §4.4), check, mate, stalemate and the draws (§4.5)."""

from __future__ import annotations

from games.tridchess import GAME
from tests.games.playout import assert_refused
from tests.games.tridchess.helpers import ST, legal, play, pos


def _pieces(state) -> list[str]:
    return GAME.position(state).split()[1].split(",")


def test_no_castling_on_first_move() -> None:
    s = GAME.start(GAME.parse_options([]), 2)
    assert_refused(GAME, s, 0, "O-O", "first move")
    s = play(s, "a2W-a3W")
    assert_refused(GAME, s, 1, "O-O", "first move")  # Black's first move too


def test_king_side_castling_from_second_move() -> None:
    s = play(GAME.start(GAME.parse_options([]), 2), "a2W-a3W", "a7B-a6B")
    assert "O-O" in legal(s)
    assert "O-O-O" not in legal(s)  # the queen still stands on a0
    after = play(s, "O-O")
    assert "Ke0KL1" in _pieces(after) and "Rd0KL1" in _pieces(after)
    assert GAME.position(after).split()[3] == "kq"
    assert "O-O" in legal(after)  # Black, on move 2, may castle too
    black = play(after, "0-0")  # zeros accepted
    assert "ke9KL6" in _pieces(black) and "rd9KL6" in _pieces(black)
    assert GAME.position(black).split()[3] == "-"


def test_queen_side_castling() -> None:
    s = pos(f"{ST} Rz0QL1,Kd0KL1,Re0KL1,kd9KL6,rz9QL6,re9KL6 w KQkq - 0 5")
    assert {"O-O", "O-O-O"} <= set(legal(s))
    after = play(s, "O-O-O")
    assert {"Ka0QL1", "Rd0KL1", "Re0KL1"} <= set(_pieces(after))
    assert GAME.position(after).split()[3] == "kq"
    assert {"O-O", "O-O-O"} <= set(legal(after))
    black = play(after, "o-o-o")
    assert {"ka9QL6", "rd9KL6", "re9KL6"} <= set(_pieces(black))


def test_castling_blocked_attacked_or_in_check() -> None:
    s = pos(f"{ST} Rz0QL1,Qa0QL1,Kd0KL1,Re0KL1,kd9KL6 w KQ - 0 5")
    assert_refused(GAME, s, 0, "O-O-O", "a0QL1", "not empty")
    # re1KL1 sees e0 (not the king on d0): king side refused, queen side fine
    s = pos(f"{ST} Rz0QL1,Kd0KL1,Re0KL1,re1KL1,kd9KL6 w KQ - 0 5")
    assert "O-O" not in legal(s) and "O-O-O" in legal(s)
    assert_refused(GAME, s, 0, "O-O", "attacked square")
    s = pos(f"{ST} Rz0QL1,Kd0KL1,Re0KL1,rd1KL1,kd9KL6 w KQ - 0 5")
    assert s.in_check()
    assert "O-O" not in legal(s) and "O-O-O" not in legal(s)
    assert_refused(GAME, s, 0, "O-O", "out of check")


def test_castling_rights_lost_when_king_or_rook_moves() -> None:
    s = pos(f"{ST} Rz0QL1,Kd0KL1,Re0KL1,kd9KL6 w KQ - 0 5")
    back = play(s, "Kd0KL1-d1KL1", "kd9KL6-d8KL6", "Kd1KL1-d0KL1", "kd8KL6-d9KL6")
    assert GAME.position(back).split()[3] == "-"
    assert_refused(GAME, back, 0, "O-O", "already moved")
    rook = play(s, "Re0KL1-e1KL1", "kd9KL6-d8KL6", "Re1KL1-e0KL1", "kd8KL6-d9KL6")
    assert GAME.position(rook).split()[3] == "Q"
    assert "O-O-O" in legal(rook) and "O-O" not in legal(rook)


# -- check, mate, stalemate ---------------------------------------------------------

MATE = f"{ST} Qa8QL6,Ra7B,Kb1W,kz9QL6 b - - 0 20"
STALEMATE = "WQ:KL5,WK:KL6i,BQ:QL6,BK:KL6 Qa7B,Bb8B,Kb1W,kz9QL6 b - - 0 30"


def test_checkmate() -> None:
    # kz9QL6 has z8QL6, a9QL6, a8QL6, a8B; the queen covers them all and the rook
    # on a7B guards her (stair step up); BK's board moves cannot block
    s = pos(MATE)
    assert s.in_check()
    assert GAME.legal_moves(s) == []
    out = GAME.outcome(s)
    assert out is not None and out.winners == (0,) and out.losers == (1,)
    assert "checkmate" in out.reason
    assert GAME.to_move(s) is None
    assert_refused(GAME, s, 1, "KL6-KL5", "game is over")


def test_stalemate_needs_immobile_boards() -> None:
    # BK on KL6 is boxed in: KL5 and KL6i hold White's boards, QL6 holds BQ
    s = pos(STALEMATE)
    assert not s.in_check()
    out = GAME.outcome(s)
    assert out is not None and out.is_draw and "stalemate" in out.reason
    # with BK free to move it is no stalemate
    free = pos(f"{ST} Qa7B,Bb8B,Kb1W,kz9QL6 b - - 0 30")
    assert GAME.outcome(free) is None
    assert sorted(GAME.legal_moves(free)) == ["KL6-KL5", "KL6-KL6i"]


def test_hundred_plies_unless_the_last_ply_mates() -> None:
    s = pos(f"{ST} Qb7B,Ra7B,Kb1W,kz9QL6 w - - 99 40")
    assert GAME.outcome(s) is None
    mate = play(s, "Qb7B-a8QL6")
    assert GAME.outcome(mate).reason == "checkmate"
    quiet = play(s, "Kb1W-b2W")
    out = GAME.outcome(quiet)
    assert out is not None and out.is_draw and "100" in out.reason


def test_threefold_repetition_survives_dump_and_load() -> None:
    s = pos(f"{ST} Kb1W,kc8B w - - 0 10")
    cycle = ["Kb1W-b2W", "kc8B-c7B", "Kb2W-b1W", "kc7B-c8B"]
    s = play(s, *cycle, *cycle[:3])
    assert GAME.outcome(s) is None
    again = GAME.load(GAME.dump(s))
    for state in (s, again):
        end = play(state, cycle[3])
        out = GAME.outcome(end)
        assert out is not None and out.is_draw and "repetition" in out.reason


def test_capture_leaving_two_kings_is_a_draw() -> None:
    s = pos(f"{ST} Kb1W,nb2W,kc8B w - - 0 10")
    out = GAME.outcome(play(s, "Kb1Wxb2W"))
    assert out is not None and out.is_draw and "two kings" in out.reason
    bare = pos(f"{ST} Kb1W,kc8B w - - 0 10")
    assert GAME.outcome(bare) is None  # loaded with two kings: played on


def test_repetition_counts_double_step_rights() -> None:
    # §4.5: the fresh pawn on a1QL1 loses its double step when carried, so the
    # start position differs from the same placement after a carry and back.
    s = pos("WQ:QL1,WK:KL4,BQ:QL6,BK:KL6 Pa1QL1,Kc1W,kc8B w - - 0 10")
    cycle = ["QL1-QL3i", "kc8B-c7B", "QL3i-QL1", "kc7B-c8B"]
    s = play(s, *cycle, *cycle)  # the first placement seen fresh once, moved twice
    assert GAME.position(s).split()[1] == "Pa1QL1*,Kc1W,kc8B"
    assert GAME.outcome(s) is None
    s = play(s, cycle[0])  # third time WQ on QL3i with a3QL3i*: a draw
    out = GAME.outcome(s)
    assert out is not None and out.is_draw and "repetition" in out.reason


def test_a_pinned_piece_still_attacks() -> None:
    # §4.5: rb7B is pinned to kb8B by Rb5B (it may only move along the b-file),
    # yet it still guards d7B, so the white king may not step there from d6N.
    s = pos(f"{ST} Kd6N,Rb5B,kb8B,rb7B w - - 0 10")
    kings = [m.split("-")[1] for m in legal(s) if m.startswith("Kd6N")]
    assert sorted(kings) == ["c5B", "c5N", "c6B", "c6N", "d5B", "d5N", "d6B"]
    assert_refused(GAME, s, 0, "Kd6N-d7B", "would put your king in check")
    black = pos(f"{ST} Kd6N,Rb5B,kb8B,rb7B b - - 0 10")
    assert sorted(m for m in legal(black) if m.startswith("Rb7B")) == ["Rb7B-b6B", "Rb7Bxb5B"]


def test_an_en_passant_square_that_cannot_be_used_legally_is_no_difference() -> None:
    """DECISION (issue 18): c7B-c5B makes c6B an en-passant square, but the
    only pawn that could take there, d5N, is pinned to its king by the rook
    on d6N: the position is the same as when it comes round again without
    the square, so the third occurrence draws (FIDE 9.2: legal captures)."""
    s = pos(f"{ST} Kd3N,Pd5N*,Nb1W,rd6N,pc7B,ka8B b - - 0 10")
    s = play(s, "c7B-c5B")
    assert GAME.position(s).split()[4] == "c6B"
    assert not any("e.p." in m for m in GAME.legal_moves(s))
    cycle = ["Nb1W-c3W", "Ka8B-b8B", "Nc3W-b1W", "Kb8B-a8B"]
    s = play(s, *cycle, *cycle[:3])
    assert GAME.outcome(s) is None
    out = GAME.outcome(play(s, cycle[3]))
    assert out is not None and out.reason == "draw by threefold repetition"


def test_an_en_passant_square_that_can_be_used_makes_the_position_different() -> None:
    """The same cycle with the pin gone: d5Nxc6B e.p. is legal right after
    the double step, so that position differs from its returns; the draw
    comes only when the position after the knight's move is seen a third time."""
    s = pos(f"{ST} Kd3N,Pd5N*,Nb1W,rb6N,pc7B,ka8B b - - 0 10")
    s = play(s, "c7B-c5B")
    assert "d5Nxc6B e.p." in GAME.legal_moves(s)
    cycle = ["Nb1W-c3W", "Ka8B-b8B", "Nc3W-b1W", "Kb8B-a8B"]
    s = play(s, *cycle, *cycle)
    assert GAME.outcome(s) is None
    out = GAME.outcome(play(s, cycle[0]))
    assert out is not None and out.reason == "draw by threefold repetition"
