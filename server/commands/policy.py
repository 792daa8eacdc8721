"""A player's standing settings: challenge policy (per game and per account), digest, pictures.

pbmserv kept the policy per game: ``GAME accept|reject USERID PASSWORD``
and ``GAME limit USERID PASSWORD [N]`` hold for that game (``GamePolicy``).
The plain forms (``accept``, ``reject``, ``limit`` with no game) are the
account's policy (``User.challenge_policy``, ``User.board_limit``) for every
game; ``accept``/``reject`` of the account also clear the per-game choices,
so "for every game" means what it says.  A per-game limit counts that
game's active boards, the account's limit all of them; both hold.

``refusal`` is the one check: challenges (``play.check_policies``) and
seeks (``seeks``) both ask it.
"""

from __future__ import annotations

from sqlalchemy import func, select, update

from games import Game
from games.digits import is_digits
from server.accounts import accounts, consent
from server.commands.base import Command, CommandError, Context, Result
from server.commands.registry import GENERAL, GameCommand, game_verb, general
from server.mail.wrapping import wrap
from server.store.model import Board, GamePolicy, Seat, User

MAX_LIMIT = 1000


def active_boards(ctx: Context, user: User, game: Game | None = None) -> int:
    query = select(func.count()).select_from(Board).join(Seat).where(Seat.user_id == user.id,
                                                                     Board.status == "active")
    if game is not None:
        query = query.where(Board.game == game.name)
    return ctx.session.scalar(query) or 0


def game_policy(ctx: Context, user: User, game: Game, create: bool = False) -> GamePolicy | None:
    row = ctx.session.scalars(select(GamePolicy).where(GamePolicy.user_id == user.id,
                                                       GamePolicy.game == game.name)).first()
    if row is None and create:
        row = GamePolicy(user_id=user.id, game=game.name)
        ctx.session.add(row)
    return row


def accepts(ctx: Context, user: User, game: Game) -> bool:
    row = game_policy(ctx, user, game)
    policy = row.policy if row is not None and row.policy else user.challenge_policy
    return policy != "reject"


def limit_of(ctx: Context, user: User, game: Game) -> int | None:
    row = game_policy(ctx, user, game)
    return row.board_limit if row is not None else None


def refusal(ctx: Context, user: User, game: Game) -> str | None:
    """Why ``user`` takes no new board of ``game`` now, or None."""
    if not accepts(ctx, user, game):
        return f"{user.userid} does not accept {game.title} challenges"
    limit = limit_of(ctx, user, game)
    if limit is not None:
        active = active_boards(ctx, user, game)
        if active >= limit:
            return f"{user.userid} plays at most {limit} {game.title} boards at a time and has {active}"
    account_limit = consent.board_limit(user)  # finite by default (issue 20)
    active = active_boards(ctx, user)
    if active >= account_limit:
        return f"{user.userid} plays at most {account_limit} boards at a time and has {active}"
    return None


def game_policy_text(ctx: Context, user: User, game: Game) -> str:
    verb = "accepts" if accepts(ctx, user, game) else "refuses"
    limit = limit_of(ctx, user, game)
    cap = "no limit of its own" if limit is None else f"at most {limit} active boards"
    text = (f"{user.userid} {verb} {game.title} challenges, {cap}; {user.userid} has "
            f"{active_boards(ctx, user, game)} active {game.title} boards now.")
    if user.board_limit is not None:
        text += f" Across all games: at most {user.board_limit} (has {active_boards(ctx, user)})."
    return text


def account_policy_text(ctx: Context, user: User) -> str:
    if user.challenge_policy == "reject":
        return f"{user.userid} refuses all challenges (in every game)."
    limit = (f"at most {consent.board_limit(user)} active boards"
             + (" (the default)" if user.board_limit is None else ""))
    return (f"{user.userid} accepts challenges (in every game), {limit}; "
            f"{user.userid} has {active_boards(ctx, user)} active boards now.")


#: The original's other words for "no limit of my own".
NO_LIMIT = ("none", "off", "inf", "all")
#: ``limit ... accept|reject``: the original's way to open or close one's door to challenges.
POLICY_WORDS = ("accept", "reject")


def parse_limit(word: str, title: str | None = None) -> int | None:
    """``N`` boards, or ``none``/``off``/``inf``/``all`` for no limit."""
    if word.lower() in NO_LIMIT:
        return None
    if not is_digits(word) or not 0 <= int(word) <= MAX_LIMIT:
        raise CommandError(f"{word!r}: the limit is a number of boards from 0 to {MAX_LIMIT}, 'none' (or "
                           "'inf'), or 'accept'/'reject' to take or refuse challenges", title=title)
    return int(word)


class GamePolicyCommand(GameCommand):
    password_args = (1,)
    policy = ""
    argument_description = "USERID PASSWORD"

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) != 2:
            raise CommandError(f"Usage: {game.name} {self.name} USERID PASSWORD", title=game.title)
        user = accounts.authenticate(ctx.session, args[0], args[1])
        row = game_policy(ctx, user, game, create=True)
        assert row is not None
        row.policy = self.policy
        ctx.session.flush()
        return Result(wrap(game_policy_text(ctx, user, game)), subject=f"{game.title}: challenges {self.name}ed")


@game_verb
class AcceptChallenges(GamePolicyCommand):
    name = "accept"
    description = "Accept challenges in this game (the default; any limit still holds)."
    policy = "accept"


@game_verb
class RejectChallenges(GamePolicyCommand):
    name = "reject"
    description = "Refuse every challenge in this game (a challenge names the reason and creates nothing)."
    policy = "reject"


@game_verb
class Limit(GameCommand):
    name = "limit"
    argument_description = "USERID PASSWORD [N|none|inf|all|accept|reject]"
    description = ("At most N active boards of this game ('none', 'inf', 'all': no limit; 'accept'/'reject': "
                   "take or refuse its challenges); nothing: report the setting.")
    password_args = (1,)

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if len(args) not in (2, 3):
            raise CommandError(f"Usage: {game.name} limit USERID PASSWORD [N|none|inf|all|accept|reject]",
                               title=game.title)
        word = args[2].lower() if len(args) == 3 else ""
        limit = parse_limit(word, game.title) if word and word not in POLICY_WORDS else None
        user = accounts.authenticate(ctx.session, args[0], args[1])
        if word:
            row = game_policy(ctx, user, game, create=True)
            assert row is not None
            if word in POLICY_WORDS:
                row.policy = word
            else:
                row.board_limit = limit
            ctx.session.flush()
        return Result(wrap(game_policy_text(ctx, user, game)), subject=f"{game.title}: board limit")


class AccountPolicyCommand(Command):
    password_args = (1,)
    policy = ""
    argument_description = "USERID PASSWORD"

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) != 2:
            raise CommandError(f"Usage: {self.name} USERID PASSWORD")
        user = accounts.authenticate(ctx.session, args[0], args[1])
        user.challenge_policy = self.policy
        ctx.session.execute(update(GamePolicy).where(GamePolicy.user_id == user.id).values(policy=None))
        return Result(wrap(account_policy_text(ctx, user)), subject=f"pbmserv: challenges {self.name}ed")


@general
class AcceptAll(AccountPolicyCommand):
    name = "accept"
    description = "Accept challenges in every game (clears each game's own accept/reject)."
    policy = "accept"


@general
class RejectAll(AccountPolicyCommand):
    name = "reject"
    description = "Refuse challenges in every game (clears each game's own accept/reject)."
    policy = "reject"


@general
class LimitAll(Command):
    name = "limit"
    argument_description = "USERID PASSWORD [N|none|inf|all|accept|reject]"
    description = (f"At most N active boards across all games ('none', 'inf', 'all': the default, "
                   f"{consent.DEFAULT_BOARD_LIMIT}; 'accept'/'reject': as those commands); nothing: report it.")
    password_args = (1,)

    def process(self, ctx: Context, args: list[str]) -> Result:
        if len(args) not in (2, 3):
            raise CommandError("Usage: limit USERID PASSWORD [N|none|inf|all|accept|reject]")
        word = args[2].lower() if len(args) == 3 else ""
        if word in POLICY_WORDS:
            return GENERAL[word].process(ctx, args[:2])
        limit = parse_limit(word) if word else None
        user = accounts.authenticate(ctx.session, args[0], args[1])
        if word:
            user.board_limit = limit
        return Result(wrap(account_policy_text(ctx, user)), subject="pbmserv: board limit")


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


@general
class Flip(Switch):
    name = "flip"
    description = ("On (the default): boards are drawn from your side (Black at the bottom for Black, your "
                   "own TriMac army nearest); off: always from the first player's side.")
    flag = "flip"
    said = ("{userid} now sees every board from the first player's side.",
            "{userid} now sees each board from their own side.")


@general
class Broadcasts(Switch):
    name = "broadcasts"
    description = ("On: you receive other players' 'broadcast' mail (off by default: nobody gets one "
                   "without asking).")
    flag = "broadcasts"
    said = ("{userid} no longer receives broadcasts.",
            "{userid} now receives players' broadcasts ('broadcasts {userid} PASSWORD off' stops them).")


@general
class Coordinates(Switch):
    name = "coordinates"
    description = ("On (the default): board mails of games whose points are hard to name from the board "
                   "alone (TriMac) carry a key showing every point's name; off: the board only.")
    flag = "coordinates"
    said = ("{userid} now gets board mails without the coordinate key.",
            "{userid} now gets the coordinate key under boards that have one (TriMac).")
