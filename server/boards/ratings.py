"""Ratings per game, computed as the original pbmserv computed them.

The formula, so a player (and a test) can check every number by hand.
R1, g1 are the player's rating and rated games before the game; R2, g2
the opponent's (in a game of three, the *average* rating and the
*average* game count of the others).  Everyone starts at R = 1600, g = 0.
A player with g < 20 is *provisional*, otherwise *established*.

* **Provisional** player::

      perf = (R1 + R2) / 2 ± 200     against a provisional opponent
      perf = R2 ± 400                against an established one
      new  = (R1 · g1 + perf) / (g1 + 1) + (1720 − R1) / 5

  with + for a win, − for a loss and nothing for a draw.  So two new
  players after one decisive game stand at 1800 + 24 = 1824 and
  1400 + 24 = 1424; after a draw both at 1624.

* **Established** player: Elo with K = 32::

      E   = 1 / (1 + 10^((R2 − R1) / 400))
      new = R1 + K · (S − E)        S = 1 win, 0 loss, ½ draw

  where K is scaled by g2 / 20 when the opponent is provisional (a new
  player's result moves an established rating less).

* **Who scores what.**  The winner scores a win and everyone else a loss;
  in a draw the players still in the game tie and those who resigned
  before it lose.  A userid filling several seats counts once (it wins
  if any of its seats wins; in a draw it ties unless every one of its
  seats had resigned), and is rated against the other userids only.

* Everyone is rated from the ratings *before* the game, so seat order does
  not matter.  Not rated: removed boards (a resign before one's first
  move), boards that end before any move was made, boards with fewer than
  two distinct players, and the admin's ``challenge --unrated`` boards.

Ratings change in the same transaction as the game's end: ``boards.finish``
calls :func:`rate_board`, so a finished board and its ratings are stored
together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.store.model import Board, Rating

START = 1600.0
PROVISIONAL_GAMES = 20
K = 32.0
#: The point a provisional rating is drawn towards, by a fifth of the distance each game.
PULL_TO = 1720.0
PULL = 5.0
#: What a win adds to (a loss takes from) the performance: against a provisional / an established opponent.
SPREAD_PROVISIONAL = 200.0
SPREAD_ESTABLISHED = 400.0

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True)
class Change:
    """One player's rating change from one game (``seat``: the player's first seat)."""

    seat: int
    user_id: int
    before: float
    after: float
    score: float


def is_provisional(games: float) -> bool:
    return games < PROVISIONAL_GAMES


def expected(rating: float, opponent: float) -> float:
    """Elo's expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def performance(rating: float, opponent: float, opponent_games: float, score: float) -> float:
    sign = (score - DRAW) * 2.0  # +1 win, 0 draw, -1 loss
    if is_provisional(opponent_games):
        return (rating + opponent) / 2.0 + SPREAD_PROVISIONAL * sign
    return opponent + SPREAD_ESTABLISHED * sign


def updated(rating: float, games: int, opponent: float, opponent_games: float, score: float) -> float:
    """The rating after one more game (``games``: rated games before it)."""
    if is_provisional(games):
        perf = performance(rating, opponent, opponent_games, score)
        return (rating * games + perf) / (games + 1) + (PULL_TO - rating) / PULL
    k = K * (opponent_games / PROVISIONAL_GAMES if is_provisional(opponent_games) else 1.0)
    return rating + k * (score - expected(rating, opponent))


def player_scores(seat_users: list[int], winners: list[int], losers: list[int]) -> dict[int, float]:
    """Each distinct user's score, from the seats (see the module docstring)."""
    scores: dict[int, float] = {}
    for seat, uid in enumerate(seat_users):
        decisive = WIN if seat in winners else LOSS
        score = decisive if winners else (LOSS if seat in losers else DRAW)
        scores[uid] = max(scores.get(uid, LOSS), score)
    return scores


def changes(before: dict[int, tuple[float, int]], scores: dict[int, float]) -> dict[int, float]:
    """Each user's new rating, from every user's (rating, games) before the game."""
    out = {}
    for uid, (rating, games) in before.items():
        others = [v for other, v in before.items() if other != uid]
        opponent = sum(r for r, _ in others) / len(others)
        opponent_games = sum(g for _, g in others) / len(others)
        out[uid] = updated(rating, games, opponent, opponent_games, scores[uid])
    return out


def rate_board(session: Session, board: Board) -> list[Change]:
    """Rate a board that has just finished; nothing for one that is not rated.

    The players' rating rows are locked (in user order, so two boards ending
    at once cannot deadlock each other) before they are read.
    """
    seat_users = [s.user_id for s in board.seats]
    user_ids = list(dict.fromkeys(seat_users))
    if (board.status != "finished" or board.outcome is None or board.ply == 0 or len(user_ids) < 2
            or board.rated is False):
        return []
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
    before = {uid: (rows[uid].rating, rows[uid].games) for uid in user_ids}
    scores = player_scores(seat_users, board.outcome["winners"], board.outcome["losers"])
    after = changes(before, scores)
    result = []
    for uid in user_ids:
        row = rows[uid]
        row.rating = after[uid]
        row.games += 1
        if scores[uid] == WIN:
            row.wins += 1
        elif scores[uid] == LOSS:
            row.losses += 1
        else:
            row.draws += 1
        result.append(Change(seat_users.index(uid), uid, before[uid][0], after[uid], scores[uid]))
    session.flush()
    return result
