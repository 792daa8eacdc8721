"""A player's standing settings: challenge policy and reminder digest.

The policy lives on the account (``User.challenge_policy`` and
``User.board_limit``) and so holds for challenges in every game, whichever
game's name the command was sent under; ``play.check_policies`` applies it
to every challenge.  The limit counts the player's active boards in all games.
"""

from __future__ import annotations

from sqlalchemy import func, select

from games import Game
from server import accounts, consent
from server.commands.base import Command, CommandError, Context, Result
from server.commands.registry import GameCommand, game_verb, general
from server.model import Board, Seat, User

MAX_LIMIT = 1000


def active_boards(ctx: Context, user: User) -> int:
    return ctx.session.scalar(
        select(func.count()).select_from(Board).join(Seat).where(Seat.user_id == user.id, Board.status == "active")
    ) or 0


def policy_text(ctx: Context, user: User) -> str:
    if user.challenge_policy == "reject":
        return f"{user.userid} refuses all challenges (in every game)."
    limit = (f"at most {consent.board_limit(user)} active boards"
             + (" (the default)" if user.board_limit is None else ""))
    return (f"{user.userid} accepts challenges (in every game), {limit}; "
            f"{user.userid} has {active_boards(ctx, user)} active boards now.")


class PolicyCommand(GameCommand):
    password_args = (1,)
    policy = ""

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) != 2:
            raise CommandError(f"Usage: {game.name} {self.name} USERID PASSWORD", title=game.title)
        user = accounts.authenticate(ctx.session, args[0], args[1])
        user.challenge_policy = self.policy
        return Result(policy_text(ctx, user), subject=f"pbmserv: challenges {self.name}ed")


@game_verb
class AcceptChallenges(PolicyCommand):
    name = "accept"
    argument_description = "USERID PASSWORD"
    description = "Challenge policy: accept challenges (the default; any limit still holds)."
    policy = "accept"


@game_verb
class RejectChallenges(PolicyCommand):
    name = "reject"
    argument_description = "USERID PASSWORD"
    description = "Challenge policy: refuse every challenge (a challenge names the reason and creates nothing)."
    policy = "reject"


@game_verb
class Limit(GameCommand):
    name = "limit"
    argument_description = "USERID PASSWORD [N]"
    description = (f"Challenge policy: at most N active boards (no N: the default, "
                   f"{consent.DEFAULT_BOARD_LIMIT}).")
    password_args = (1,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) not in (2, 3):
            raise CommandError(f"Usage: {game.name} limit USERID PASSWORD [N]", title=game.title)
        limit = None
        if len(args) == 3:
            if not args[2].isdigit() or not 0 <= int(args[2]) <= MAX_LIMIT:
                raise CommandError(f"{args[2]!r}: the limit is a number of boards from 0 to {MAX_LIMIT}",
                                   title=game.title)
            limit = int(args[2])
        user = accounts.authenticate(ctx.session, args[0], args[1])
        user.board_limit = limit
        return Result(policy_text(ctx, user), subject="pbmserv: board limit")


@general
class Digest(Command):
    name = "digest"
    argument_description = "USERID PASSWORD on|off"
    description = "On: one reminder mail listing every board waiting for your move, instead of one per board."
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) != 3 or args[2].lower() not in ("on", "off"):
            raise CommandError("Usage: digest USERID PASSWORD on|off")
        user = accounts.authenticate(ctx.session, args[0], args[1])
        user.digest = args[2].lower() == "on"
        what = "one digest mail listing all boards" if user.digest else "one reminder per board"
        return Result(f"{user.userid} now gets {what} when moves are overdue.",
                      subject=f"pbmserv: digest {args[2].lower()}")
