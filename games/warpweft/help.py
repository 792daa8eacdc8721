"""The help text mailed for ``WarpAndWeft help`` (plain text, <= 79 columns)."""

HELP = """\
Warp and Weft (Phil Bordelon, 2004)

WarpAndWeft challenge [-size=N] [-compact] [-threads|-patches] user1 user2

  -size=N    threads of one direction along an edge, 2 to 6 (default 4).
  -compact   a denser board drawing (1 character per square).
  -threads   Thread-Primary (the default); -thread is accepted too.
  -patches   Patch-Primary; -patch is accepted too.  Not with -threads.

Board width: the standard drawing of a size-5 board is 91 columns wide and
that of a size-6 board 107, past the 80-column limit of mail (as it was on
pbmserv).  Use -compact for those sizes: every compact board fits in 57
columns or fewer.

The board.  Threads are the long 1x3 pieces, Patches the small squares
between them.  Warp (Vert) threads run up and down; Weft (Horz) threads run
left to right.  user1 plays Warp (V), moves first and connects the top and
bottom edges; user2 plays Weft (H) and connects the left and right edges.
The edges are the threads whose ends stick out of that side of the board.

On your turn you either claim one region allowed by your state, or switch
state.  Both players start Threading (Thread-Primary) or Patching
(Patch-Primary).

  Thread-Primary:
    Threading: claim any free thread of your own direction.
    Patching:  claim a free patch that touches a thread you own.
  Patch-Primary:
    Patching:  claim any free patch.
    Threading: claim a free thread of your direction touching your patch.

You can never claim a thread of the other direction, nor anything already
claimed.  A switch takes your whole turn, must go to the other state, and is
allowed only if that state offers you a placement right now.

You win as soon as a chain of your threads and patches, each touching the
next, joins your two edges.  A player who has no valid play (no placement
in either state) at the start of their turn loses.  There are no draws.

Swap: right after move 1 the second player may swap sides, once.  The
swapper then plays Warp and owns Warp's first piece; the first player plays
Weft and moves next.  The swap is not counted as a move.

Moves:
  WarpAndWeft move board user password L11
      claims the patch or thread at L11; name a thread by its centre
      square (its middle one of three).
  WarpAndWeft move board user password threads
  WarpAndWeft move board user password patches
      switch to Threading or Patching.
  WarpAndWeft swap board user password
      (or the move "swap") swaps sides, as above.

On the board, claimed regions are filled with V (Warp) or H (Weft), and the
lines under it show each side's state and who is to move.
"""
