"""A long-time pbmserv player's habits, by real mail (issue 17, and issue 14's "did you mean").

Abbreviated command words and options, the queue aliases, ambiguous
prefixes, suggestions for mistyped words, and the timer checks of a
challenge.  Every refusal goes to the sender only and stores nothing.
"""

from __future__ import annotations

from datetime import timedelta

from click.testing import CliRunner
from sqlalchemy import func, select

import games
from server.processes.cli import main
from server.store.model import Board, Rating, Seek, Subscription, User
from tests.server.boards.test_ratings import Race
from tests.server.conftest import ADDRESS, Running


def flat(text: str) -> str:
    return " ".join(text.split())


def boards(running: Running) -> list[tuple[str, int, dict, float, float]]:
    with running.db.transaction() as s:
        return [(b.game, b.number, b.options, b.nagtime, b.forfeittime)
                for b in s.scalars(select(Board).order_by(Board.id))]


def refused(running: Running, sender: str, subject: str, *reasons: str) -> str:
    """Refused to the sender alone with every one of ``reasons``; nothing stored changes."""
    with running.db.transaction() as s:
        users = s.scalar(select(func.count()).select_from(User))
    before = boards(running)
    out = running.mail(sender, subject)
    assert [m.rcpt_tos for m in out] == [[sender]], [m.subject for m in out]
    assert out[0].subject.endswith("Error"), out[0].subject
    text = flat(out[0].text)
    for reason in reasons:
        assert reason in text, text
    assert boards(running) == before
    with running.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(User)) == users
    return text


def test_abbreviated_verbs_and_queue_aliases(sqlite_players: Running) -> None:
    p = sqlite_players
    p.mail("carol@example.org", "signup carol cherry3")
    out = p.mail("alice@example.org", "tictactoe chall alice bob")
    assert sorted(m.subject for m in out) == ["New Tic-Tac-Toe Board 101 alice"] * 2
    # bob queues with the old aliases while it is alice's move: stored, told only to bob.
    out = p.mail("bob@example.org", "ttt moveq 101 bob banana2 c3")
    assert [m.rcpt_tos for m in out] == [["bob@example.org"]] and "You have the following move queued on Tic-Tac-Toe Board 101: c3" in flat(out[0].text)
    out = p.mail("bob@example.org", "ttt qmove 101 bob banana2 a3")
    assert "replaces your earlier queued move c3" in flat(out[0].text)
    out = p.mail("alice@example.org", "tictactoe boardq 101 alice apple1 b2")  # her turn: a move
    assert "bob's queued move a3 is played" in flat(out[0].text)
    out = p.mail("alice@example.org", "tictactoe prev 101 c1")
    assert [m.rcpt_tos for m in out] == [["alice@example.org"]] and out[0].subject == "Tic-Tac-Toe Board 101 Preview"
    out = p.mail("carol@example.org", "tictactoe sub 101 carol cherry3")
    assert "carol now watches Tic-Tac-Toe Board 101" in flat(out[0].text)
    out = p.mail("carol@example.org", "TICTACTOE Unsub 101 carol cherry3")
    assert "carol no longer follows" in out[0].text
    with p.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Subscription)) == 0
    out = p.mail("carol@example.org", "tictactoe stand")
    assert out[0].subject == "Tic-Tac-Toe standings"
    # "sub" is subscribe (pbmserv's word), so submit needs "subm".
    out = p.mail("alice@example.org", "tictactoe subm 101 alice apple1 c1")
    assert out[0].subject == "Tic-Tac-Toe Board 101 submitted"


def test_abbreviated_options(sqlite_players: Running) -> None:
    p = sqlite_players
    out = p.mail("alice@example.org", "tictactoe chall alice bob -comp -sw --nag=2 --forf=9")
    assert out[0].subject == "New Tic-Tac-Toe Board 101 alice"
    assert boards(p) == [("tictactoe", 101, {"compact": True, "swap": True}, 2.0, 9.0)]
    out = p.mail("alice@example.org", "warpandweft chall alice bob -siz=3 -pat")
    with p.db.transaction() as s:
        board = s.scalars(select(Board).where(Board.game == "warpandweft")).one()
        assert (board.options["size"], board.options["primary"]) == (3, "patch")
    refused(p, "alice@example.org", "tictactoe chall alice bob --f=3",
            "--f is ambiguous: it could be --force, --forfeittime")


def test_ambiguous_and_mistyped_words(sqlite_players: Running) -> None:
    p = sqlite_players
    refused(p, "dave@example.org", "sig dave secret9", "'sig' is ambiguous: it could be signoff, signup")
    text = refused(p, "dave@example.org", "singup dave secret9", "Unknown command 'singup'; did you mean 'signup'?")
    assert "secret9" not in text
    refused(p, "alice@example.org", "warpandwft challenge alice bob", "did you mean 'warpandweft'?")
    refused(p, "alice@example.org", "tictactoe chalenge alice bob",
            "Unknown Tic-Tac-Toe command 'chalenge'; did you mean 'challenge'?")
    # Too short for challenge (pbmserv wanted "chall"): not taken for it.
    refused(p, "alice@example.org", "tictactoe chal alice bob", "did you mean 'chat'?")
    refused(p, "alice@example.org", "tictactoe xyzzy 101", "Unknown Tic-Tac-Toe command 'xyzzy'. The commands are:")


def test_challenge_timers_are_checked(sqlite_players: Running) -> None:
    p = sqlite_players
    refused(p, "alice@example.org", "tictactoe challenge alice bob --nagtime=7 --forfeittime=7",
            "--nagtime=7 is not below --forfeittime=7")
    refused(p, "alice@example.org", "tictactoe challenge alice bob --forfeittime=5",
            "--nagtime=7 is not below --forfeittime=5")
    refused(p, "alice@example.org", "tictactoe challenge alice bob --nagtime=0.5", "give between 1 and 365 days")


def admin(running: Running, *args: str) -> str:
    """The admin's own tool, on the running server's database; its mails go out through the server."""
    result = CliRunner().invoke(main, ["--database-url", running.server.settings.database_url, "--address", ADDRESS,
                                       *args])
    running.quiesce()
    return result.output


def test_challenge_policy_is_per_game(sqlite_players: Running) -> None:
    p = sqlite_players
    out = p.mail("bob@example.org", "tictactoe reject bob banana2")
    assert "bob refuses Tic-Tac-Toe challenges, no limit of its own" in flat(out[0].text)
    refused(p, "alice@example.org", "tictactoe challenge alice bob", "bob does not accept Tic-Tac-Toe challenges")
    out = p.mail("alice@example.org", "warpandweft challenge alice bob")  # another game: still welcome
    assert out[0].subject == "New Warp and Weft Board 101 alice"
    out = p.mail("bob@example.org", "warpandweft limit bob banana2 1")
    assert "at most 1 active boards; bob has 1 active Warp and Weft boards now" in flat(out[0].text)
    refused(p, "alice@example.org", "warpandweft challenge alice bob",
            "bob plays at most 1 Warp and Weft boards at a time and has 1")
    # limit with no number reports the setting and changes nothing.
    out = p.mail("bob@example.org", "warpandweft limit bob banana2")
    assert "bob accepts Warp and Weft challenges, at most 1 active boards" in flat(out[0].text)
    # The admin can override a policy, and start an unrated board.
    assert "started Tic-Tac-Toe Board 101" in admin(p, "challenge", "tictactoe", "alice", "bob", "--force",
                                                    "--unrated")
    refused(p, "alice@example.org", "tictactoe challenge alice bob --force",
            "--force is for the server's admin (pbmserv challenge) only")
    for who, pw, move in [("alice", "apple1", "b2"), ("bob", "banana2", "a1"), ("alice", "apple1", "b1"),
                          ("bob", "banana2", "c1")]:
        p.mail(f"{who}@example.org", f"tictactoe move 101 {who} {pw} {move}")
    end = p.mail("alice@example.org", "tictactoe move 101 alice apple1 b3")
    assert {m.subject for m in end} == {"Tic-Tac-Toe Board 101 Finished"}
    assert all("This game was not rated." in m.text for m in end)
    with p.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Rating)) == 0
    # The plain form is the account's policy for every game: it clears the per-game reject.
    out = p.mail("bob@example.org", "accept bob banana2")
    assert "bob accepts challenges (in every game), at most 100 active boards (the default)" in flat(out[0].text)
    assert p.mail("alice@example.org", "tictactoe challenge alice bob")[0].subject == "New Tic-Tac-Toe Board 102 alice"


def test_what_a_board_mail_tells(sqlite_players: Running) -> None:
    p = sqlite_players
    p.mail("carol@example.org", "signup carol cherry3")
    p.mail("dave@example.org", "signup dave damson4")
    out = p.mail("alice@example.org", "tictactoe challenge alice bob --nagtime=2 --forfeittime=5")
    new = flat(out[0].text)
    assert "Reminders after 2 days without a move, forfeit after 5 days." in new
    with p.db.transaction() as s:
        since = s.scalars(select(Board.turn_since)).one()
    assert (f"alice is reminded {since + timedelta(days=2):%Y-%m-%d %H:%M} UTC and forfeits "
            f"{since + timedelta(days=5):%Y-%m-%d %H:%M} UTC.") in new
    p.mail("carol@example.org", "tictactoe subscribe 101 carol cherry3")
    p.mail("dave@example.org", "tictactoe notify 101 dave damson4")
    out = p.mail("alice@example.org", "tictactoe move 101 alice apple1 b2", "Your move, bob.")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 bob **"}  # it carries a comment
    text = out[0].text
    assert "Subscribers: carol" in text and "Notifiers: dave" in text and "Timing:" in text
    out = p.mail("bob@example.org", "tictactoe move 101 bob banana2 a1")  # no comment: no mark
    assert {m.subject for m in out} == {"Tic-Tac-Toe Board 101 alice"}
    p.mail("alice@example.org", "tictactoe move 101 alice apple1 b1")
    p.mail("bob@example.org", "tictactoe move 101 bob banana2 c1")
    end = p.mail("alice@example.org", "tictactoe move 101 alice apple1 b3")
    assert sorted(m.rcpt_tos[0] for m in end) == ["alice@example.org", "bob@example.org", "carol@example.org",
                                                  "dave@example.org"]
    for mail in end:
        lines = mail.text.splitlines()
        assert "Rating changes:" in lines and "  alice: 1600 -> 1824 (+224)" in lines
        assert "  bob: 1600 -> 1424 (-176)" in lines
        assert max(len(line) for line in lines) <= 78, [line for line in lines if len(line) > 78]
    # A board with the default timers shows its timing only on whole-board mails (show, new, finished).
    p.mail("alice@example.org", "tictactoe challenge alice bob")
    out = p.mail("alice@example.org", "tictactoe move 102 alice apple1 b2")
    assert "Timing:" not in out[0].text
    assert "Reminders after 7 days without a move" in p.mail("dave@example.org", "tictactoe show 102")[0].text


def seeks_of(running: Running) -> list[tuple[str, str, list]]:
    with running.db.transaction() as s:
        return [(k.game, k.user.userid, k.tokens) for k in s.scalars(select(Seek).order_by(Seek.id))]


def test_two_seeks_meet(players: Running) -> None:
    p = players
    for name, pw in (("carol", "cherry3"), ("dave", "damson4"), ("erin", "elder5"), ("frank", "fig6")):
        p.mail(f"{name}@example.org", f"signup {name} {pw}")
    out = p.mail("alice@example.org", "tictactoe seek alice apple1 -comp")
    assert [m.rcpt_tos for m in out] == [["alice@example.org"]]
    assert "alice's seek for Tic-Tac-Toe -compact is open" in flat(out[0].text)
    listing = p.mail("zed@example.org", "tictactoe seeks")[0].text
    assert any(line.split()[:3] == ["alice", "1600", "P"] and line.endswith("-compact") for line in listing.splitlines())
    table = p.mail("zed@example.org", "tictactoe standings")[0].text
    assert ["1", "alice", "1600", "P", "0", "0", "0", "0", "0", "-", "yes"] in [line.split() for line in
                                                                               table.splitlines()]
    out = p.mail("bob@example.org", "tictactoe seek bob banana2 -swap")  # compatible: different options
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org"]
    assert {m.subject for m in out} == {"New Tic-Tac-Toe Board 101 alice"}
    assert ("Seeks met: alice and bob start Tic-Tac-Toe Board 101; alice (the earliest seek) moves first."
            in flat(out[0].text))
    assert boards(p) == [("tictactoe", 101, {"compact": True, "swap": True}, 7.0, 21.0)]
    assert seeks_of(p) == []
    # Incompatible wishes wait side by side (4 is the default size, but dave asked for it); "off" withdraws.
    p.mail("carol@example.org", "warpandweft seek carol cherry3 -size=3")
    p.mail("dave@example.org", "warpandweft seek dave damson4 -siz=4")
    assert seeks_of(p) == [("warpandweft", "carol", ["-size=3"]), ("warpandweft", "dave", ["-size=4"])]
    out = p.mail("dave@example.org", "warpandweft seek dave damson4 off")
    assert "dave's Warp and Weft seek is withdrawn." in out[0].text
    assert seeks_of(p) == [("warpandweft", "carol", ["-size=3"])]
    # Seeks respect the challenge policy: no seek against one's own reject or limit ...
    p.mail("bob@example.org", "tictactoe reject bob banana2")
    with p.db.transaction() as s:
        before = s.scalar(select(func.count()).select_from(Seek))
    refused(p, "bob@example.org", "tictactoe seek bob banana2",
            "No seek entered: bob does not accept Tic-Tac-Toe challenges")
    # ... and an open seek whose owner has reached a limit since is passed over.
    p.mail("erin@example.org", "tictactoe seek erin elder5")
    p.mail("erin@example.org", "tictactoe limit erin elder5 0")
    out = p.mail("frank@example.org", "tictactoe seek frank fig6")
    assert [m.rcpt_tos for m in out] == [["frank@example.org"]] and "is open" in out[0].text
    with p.db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(Seek)) == before + 2


def test_following_a_game(sqlite_players: Running) -> None:
    p = sqlite_players
    p.mail("carol@example.org", "signup carol cherry3")
    p.mail("dave@example.org", "signup dave damson4")
    out = p.mail("carol@example.org", "tictactoe sub carol cherry3 all")
    assert "carol now gets the mail of every new Tic-Tac-Toe board" in flat(out[0].text)
    out = p.mail("dave@example.org", "tictactoe notify dave damson4")
    assert "dave will be told of the end of every Tic-Tac-Toe board" in flat(out[0].text)
    bad = p.mail("carol@example.org", "tictactoe subscribe carol wrongpw all")[0].text
    assert "tictactoe subscribe carol ******** all" in bad and "wrongpw" not in bad
    out = p.mail("alice@example.org", "tictactoe challenge alice bob")
    assert sorted(m.rcpt_tos[0] for m in out) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    out = p.mail("alice@example.org", "tictactoe move 101 alice apple1 b2")
    assert "carol@example.org" in [m.rcpt_tos[0] for m in out]
    assert "Subscribers: carol" in out[0].text and "Notifiers: dave" in out[0].text
    # show USERID [next|active|all] and show board N
    mine = p.mail("zed@example.org", "tictactoe show bob next")
    assert mine[0].subject == "Tic-Tac-Toe boards of bob" and "Tic-Tac-Toe Board 101" in mine[0].text
    assert "alice has no Tic-Tac-Toe boards waiting for their move." in p.mail("zed@example.org",
                                                                                "tictactoe show alice next")[0].text
    assert p.mail("zed@example.org", "tictactoe show board 101")[0].subject == "Tic-Tac-Toe Board 101 bob"
    out = p.mail("carol@example.org", "tictactoe unsub carol cherry3 all")
    assert "carol no longer follows every Tic-Tac-Toe board." in out[0].text
    moved = p.mail("bob@example.org", "tictactoe move 101 bob banana2 a1")
    assert "carol@example.org" not in [m.rcpt_tos[0] for m in moved]
    # Following "all" again holds for boards started from now on, not for 101.
    p.mail("carol@example.org", "tictactoe subscribe carol cherry3 all")
    for who, pw, move in [("alice", "apple1", "b1"), ("bob", "banana2", "c1")]:
        assert "carol@example.org" not in [m.rcpt_tos[0] for m in p.mail(f"{who}@example.org",
                                                                          f"tictactoe move 101 {who} {pw} {move}")]
    end = p.mail("alice@example.org", "tictactoe move 101 alice apple1 b3")
    assert sorted(m.rcpt_tos[0] for m in end) == ["alice@example.org", "bob@example.org", "dave@example.org"]
    out = p.mail("bob@example.org", "tictactoe challenge bob alice")
    assert "carol@example.org" in [m.rcpt_tos[0] for m in out]
    assert "alice" in p.mail("zed@example.org", "tictactoe show alice all")[0].text
    assert "no longer told" in p.mail("dave@example.org", "tictactoe notify dave damson4")[0].text


def test_stalled_votes(sqlite_players: Running) -> None:
    p = sqlite_players
    games.register(Race())
    try:
        p.mail("carol@example.org", "signup carol carolpw1")
        p.mail("alice@example.org", "race3 challenge alice bob carol --nagtime=2 --forfeittime=5")
        p.mail("alice@example.org", "race3 move 101 alice apple1 1")
        out = p.mail("bob@example.org", "race3 move 101 bob banana2 propose")
        assert "bob proposes a draw; waiting for alice and carol to accept or reject." in out[0].text
        out = p.mail("alice@example.org", "race3 move 101 alice apple1 accept")
        assert "bob proposes a draw; waiting for carol to accept or reject." in out[0].text
        p.mail("bob@example.org", "vacation bob banana2 on")  # bob, to move, is not forfeited meanwhile
        with p.db.transaction() as s:
            since = s.scalars(select(Board.vote_since)).one()

        def remind(days: float) -> tuple[str, list]:
            before = len(p.sink.messages)
            output = admin(p, "remind", "--now", (since + timedelta(days=days)).isoformat())
            return output, p.sink.messages[before:]

        output, mails = remind(2.5)
        assert "vote reminders 1" in output
        assert [(m.rcpt_tos, m.subject) for m in mails] == [(["carol@example.org"], "Race to Ten Board 101 Reminder")]
        assert "your vote is still missing" in mails[0].text and "race3 move 101 carol PASSWORD accept" in mails[0].text
        assert remind(3.9)[1] == []  # once per nag period
        output, mails = remind(5.5)
        assert "offers settled by silence 1" in output
        assert sorted(m.rcpt_tos[0] for m in mails) == ["alice@example.org", "bob@example.org", "carol@example.org"]
        assert {m.subject for m in mails} == {"Race to Ten Board 101 Finished"}
        assert ("carol did not answer bob's offer of a draw within 5 days: silence counts as accept, so the game "
                "is drawn by agreement.") in flat(mails[0].text)
        with p.db.transaction() as s:
            board = s.scalars(select(Board)).one()
            assert (board.status, board.vote_since, board.outcome["winners"]) == ("finished", None, [])
    finally:
        games.unregister("race3")


def test_help_commands_lists_every_new_form(sqlite_players: Running) -> None:
    sqlite_players.mail("zed@example.org", "signup zed zedpw1")  # a player: the full help (issue 20)
    text = sqlite_players.mail("zed@example.org", "help commands")[0].text
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 78
    flat_text = flat(text)
    for form in ("GAME chall[enge] USER1", "--force", "--unrated", "GAME prev[iew] BOARD",
                 "GAME sub[scribe] BOARD USERID PASSWORD | USERID PASSWORD all",
                 "GAME unsub[scribe] BOARD USERID PASSWORD | USERID PASSWORD all",
                 "GAME stand[ings]|ratings", "GAME que[ue]|qmove|moveq|qboard|boardq BOARD",
                 "GAME seek USERID PASSWORD [-OPTION[=VALUE] ...] | USERID PASSWORD off", "GAME seeks",
                 "GAME not[ify] BOARD USERID PASSWORD | USERID PASSWORD",
                 "GAME sho[w] [board] BOARD[#N] ... | USERID [next|active|all]",
                 "GAME acc[ept] USERID PASSWORD", "GAME rej[ect] USERID PASSWORD",
                 "GAME lim[it] USERID PASSWORD [N|none|inf|all|accept|reject]"):
        assert form in flat_text, form
    # The plain (account-wide) forms are general commands.
    for form in ("  lim[it] USERID PASSWORD [N|none|inf|all|accept|reject]", "  acc[ept] USERID PASSWORD", "  rej[ect] USERID PASSWORD"):
        assert form in lines, form
