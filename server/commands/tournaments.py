"""``GAME tournament join|leave|standings NAME ...`` and ``GAME tournaments``: tournaments by mail.

The tournament itself (kinds, pairing, standings, starting rounds) is
server.boards.tournaments'; these commands only check who asks and answer.
"""

from __future__ import annotations

from games import Game
from server.accounts import accounts, consent
from server.boards import standings, tournaments
from server.commands import policy
from server.commands.base import CommandError, Context, Result
from server.commands.registry import GameCommand, game_verb
from server.store.model import Tournament, User

USAGE = "tournament join|leave NAME USERID PASSWORD, or tournament standings NAME"


def announcement(game: Game, tournament: Tournament) -> tuple[str, str]:
    """The subject and text that invite players: a reply with userid and password added joins."""
    kind = standings.KIND_NAMES.get(tournament.kind, tournament.kind)
    subject = f"{game.name} tournament join {tournament.name}"
    lines = [f"A new {game.title} tournament: {tournament.name} ({kind}"
             + (f", {tournament.rounds} rounds" if tournament.rounds else "") + ")."]
    if tournament.tokens:
        lines.append(f"Options: {' '.join(tournament.tokens)}")
    if tournament.starts_at is not None:
        lines.append(f"It starts on {tournament.starts_at:%Y-%m-%d %H:%M} UTC.")
    if tournament.max_players is not None:
        lines.append(f"At most {tournament.max_players} players; it starts when full.")
    lines += [
        f"Timers: a reminder after {tournament.nagtime:g} day, a forfeit after {tournament.forfeittime:g} days.",
        "",
        "To join, reply to this mail with its subject edited to",
        "",
        f"    Re: {subject} USERID PASSWORD",
        "",
        f"or send '{game.name} tournament join {tournament.name} USERID PASSWORD'.",
        f"'{game.name} tournament leave {tournament.name} USERID PASSWORD' leaves it.",
        "Send 'help tournament' for how it runs.",
    ]
    return subject, "\n".join(lines) + "\n"


def check_limit(ctx: Context, user: User, game: Game) -> None:
    """A player at their board limit (of the game, or of the account) cannot join."""
    limit = policy.limit_of(ctx, user, game)
    if limit is not None and policy.active_boards(ctx, user, game) >= limit:
        raise CommandError(f"{user.userid} plays at most {limit} {game.title} boards at a time and has "
                           f"{policy.active_boards(ctx, user, game)}: finish some before joining", title=game.title)
    cap = consent.board_limit(user)
    if policy.active_boards(ctx, user) >= cap:
        raise CommandError(f"{user.userid} plays at most {cap} boards at a time and has "
                           f"{policy.active_boards(ctx, user)}: finish some before joining", title=game.title)


@game_verb
class TournamentCommand(GameCommand):
    name = "tournament"
    abbrev = 10
    argument_description = "join|leave NAME USERID PASSWORD | standings NAME"
    description = ("Join or leave a tournament (leaving after its start forfeits your remaining boards); "
                   "its standings. See 'help tournament'.")

    def password_positions(self, args: list[str]) -> tuple[int, ...]:
        return (3,) if args and args[0].lower() in ("join", "leave") else ()

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if not args:
            raise CommandError(f"Usage: {game.name} {USAGE}", title=game.title)
        verb = args[0].lower()
        if verb in ("standings", "show") and len(args) == 2:
            tournament = tournaments.find(ctx.session, args[1], game)
            body = standings.text(ctx.session, tournament)
            link = standings.web_link(ctx.settings, tournament)
            return Result(body + (f"\nOn the web: {link}\n" if link else ""),
                          subject=f"{game.name} tournament {tournament.name} standings")
        if verb not in ("join", "leave"):
            raise CommandError(f"Usage: {game.name} {USAGE}", title=game.title)
        if len(args) == 2:
            # The announcement's subject replied to as it is: say what to add.
            tournaments.find(ctx.session, args[1], game)
            raise CommandError(f"To {verb} add your userid and password: {game.name} tournament {verb} "
                               f"{args[1].lower()} USERID PASSWORD (as the subject: Re: {game.name} tournament "
                               f"{verb} {args[1].lower()} USERID PASSWORD)", title=game.title)
        if len(args) != 4:
            raise CommandError(f"Usage: {game.name} tournament {verb} NAME USERID PASSWORD", title=game.title)
        tournament = tournaments.find(ctx.session, args[1], game, lock=True)
        user = accounts.authenticate(ctx.session, args[2], args[3])
        subject = f"{game.name} tournament {tournament.name}"
        if verb == "join":
            tournaments.require_open(tournament, "entries")
            if tournaments.entry_of(tournament, user) is None:
                check_limit(ctx, user, game)
            return Result(tournaments.join(ctx.session, tournament, user, ctx.now), subject=subject + " join")
        if tournament.status == "open":
            return Result(tournaments.leave_open(ctx.session, tournament, user), subject=subject + " leave")
        text, mails = tournaments.withdraw(ctx, tournament, user)
        return Result(text, subject=subject + " withdrawal", mails=mails, confirm=True)


@game_verb
class TournamentsCommand(GameCommand):
    name = "tournaments"
    abbrev = 11
    argument_description = ""
    description = "The tournaments of that game: open for entries, running, finished."

    def run(self, ctx: Context, game: Game, args: list[str]) -> Result:
        if args:
            raise CommandError(f"Usage: {game.name} tournaments", title=game.title)
        return Result(tournaments.listing(ctx.session, game), subject=f"{game.title} tournaments")
