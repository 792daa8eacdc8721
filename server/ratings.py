"""Ratings per game: everyone starts at 1600, provisional for 20 games, then Elo.

The numbers, so a player (and a test) can check them by hand:

* A player's *score* in a finished game is 1 for a winner, 0 for a loser and
  ½ otherwise (a draw, or a seat an outcome names neither way).
* The *opponent rating* is the other player's rating before the game; in a
  three-player game it is the average of the two others' ratings before it.
* **Provisional** (the first 20 rated games of a player in a game): the
  rating is the average of the player's *performances* so far, a performance
  being the opponent rating + 400 for a win, − 400 for a loss, ± 0 for a
  draw.  So after the first game it is that game's performance (the starting
  1600 only shows until then), and after n games
  ``new = (old · (n − 1) + performance) / n``.
* **Established** (from the 21st game on): Elo with K = 32,
  ``new = old + 32 · (score − 1 / (1 + 10^((opponent − old) / 400)))``.
* Everyone is rated from the ratings *before* the game, so the order of the
  seats does not matter.  Not rated: removed boards (a resign before one's
  first move), and boards that end before any move was made.

Ratings change in the same transaction as the game's end: ``boards.finish``
calls :func:`rate_board`, so a finished board and its ratings are stored
together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.model import Board, Rating

START = 1600.0
PROVISIONAL_GAMES = 20
K = 32.0
#: What a win adds to (a loss takes from) the opponent rating in a performance.
PERFORMANCE_SPREAD = 400.0


@dataclass(frozen=True)
class Change:
    """One player's rating change from one game."""

    seat: int
    user_id: int
    before: float
    after: float
    score: float


def expected(rating: float, opponent: float) -> float:
    """Elo's expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def performance(opponent: float, score: float) -> float:
    return opponent + PERFORMANCE_SPREAD * (2.0 * score - 1.0)


def updated(rating: float, games: int, opponent: float, score: float) -> float:
    """The rating after one more game; ``games`` is the number rated before it."""
    if games < PROVISIONAL_GAMES:
        return (rating * games + performance(opponent, score)) / (games + 1)
    return rating + K * (score - expected(rating, opponent))


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def seat_scores(players: int, winners: list[int], losers: list[int]) -> list[float]:
    return [1.0 if s in winners else 0.0 if s in losers else 0.5 for s in range(players)]


def changes(before: list[tuple[float, int]], scores: list[float]) -> list[tuple[float, float]]:
    """(before, after) per seat, from each seat's (rating, games) before the game."""
    out = []
    for seat, (rating, games) in enumerate(before):
        others = [r for i, (r, _) in enumerate(before) if i != seat]
        opponent = sum(others) / len(others)
        out.append((rating, updated(rating, games, opponent, scores[seat])))
    return out


def rate_board(session: Session, board: Board) -> list[Change]:
    """Rate a board that has just finished; nothing for one that is not rated.

    The players' rating rows are locked (in user order, so two boards ending
    at once cannot deadlock each other) before they are read.
    """
    if board.status != "finished" or board.outcome is None or board.ply == 0 or len(board.seats) < 2:
        return []
    user_ids = [s.user_id for s in board.seats]
    rows = {
        r.user_id: r
        for r in session.scalars(
            select(Rating)
            .where(Rating.game == board.game, Rating.user_id.in_(user_ids))
            .order_by(Rating.user_id)
            .with_for_update(of=Rating)
        )
    }
    for uid in user_ids:
        if uid not in rows:
            rows[uid] = Rating(game=board.game, user_id=uid, rating=START, games=0, wins=0, losses=0, draws=0)
            session.add(rows[uid])
    before = [(rows[uid].rating, rows[uid].games) for uid in user_ids]
    scores = seat_scores(len(user_ids), board.outcome["winners"], board.outcome["losers"])
    result = []
    for seat, (uid, (old, new)) in enumerate(zip(user_ids, changes(before, scores), strict=True)):
        row = rows[uid]
        row.rating = new
        row.games += 1
        if scores[seat] == 1.0:
            row.wins += 1
        elif scores[seat] == 0.0:
            row.losses += 1
        else:
            row.draws += 1
        result.append(Change(seat, uid, old, new, scores[seat]))
    session.flush()
    return result
