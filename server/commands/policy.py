"""A player's standing settings: challenge policy, reminder digest, board pictures.

The policy lives on the account (``User.challenge_policy`` and
``User.board_limit``) and so holds for challenges in every game, whichever
game's name the command was sent under; ``play.check_policies`` applies it
to every challenge.  The limit counts the player's active boards in all games.
"""

from __future__ import annotations

from sqlalchemy import func, select

from games import Game
from server import accounts
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
    limit = "no limit" if user.board_limit is None else f"at most {user.board_limit} active boards"
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
    description = "Challenge policy: at most N active boards (no N: no limit)."
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


class Switch(Command):
    """An on|off setting on the account: ``NAME USERID PASSWORD on|off``.

    Subclasses name the ``User`` column (``flag``) and the answer for each
    state (``said``), so every such setting reads and answers alike.
    """

    argument_description = "USERID PASSWORD on|off"
    password_args = (1,)
    flag = ""
    said: tuple[str, str] = ("", "")  # (off, on)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) != 3 or args[2].lower() not in ("on", "off"):
            raise CommandError(f"Usage: {self.name} USERID PASSWORD on|off")
        user = accounts.authenticate(ctx.session, args[0], args[1])
        value = args[2].lower() == "on"
        setattr(user, self.flag, value)
        return Result(self.said[value].format(userid=user.userid), subject=f"pbmserv: {self.name} {args[2].lower()}")


@general
class Digest(Switch):
    name = "digest"
    description = "On: one reminder mail listing every board waiting for your move, instead of one per board."
    flag = "digest"
    said = ("{userid} now gets one reminder per board when moves are overdue.",
            "{userid} now gets one digest mail listing all boards when moves are overdue.")


@general
class Pictures(Switch):
    name = "pictures"
    description = "On (the default): board mails show a picture of the board above the text board."
    flag = "pictures"
    said = ("{userid} now gets board mails without pictures (the text board only).",
            "{userid} now gets a picture of the board in every board mail.")
