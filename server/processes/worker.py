"""Applying stored mail: one message at a time, one transaction per command.

Each command's transaction locks the inbound row, checks that the command
has not been applied yet (``commands_done``), applies it, queues its replies
and moves ``commands_done`` on.  The first command's transaction is also the
one that claims the message, loads it and checks for a re-send, so a
one-command mail costs one commit.  A crash anywhere, or two workers taking
the same message, can neither lose a command nor apply it twice.  Claims
(``claimed_until``) only keep workers from doing the same work in parallel;
correctness never rests on them.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

import games
from games.digits import is_digits
from server.accounts import confirm, passwords
from server.accounts.reply_address import (
    REPLY_VERBS,
    command_for,
    invite,
    invite_sender,
    reply_token,
)
from server.accounts.throttle import AUTHENTICATED_KEY, SENDER_KEY
from server.commands import CommandError, Context, Request, Result, describe, dispatch
from server.commands.masking import log_line, mask_words, scrub, secret_words
from server.commands.subjects import canonical_words, names_a_board
from server.core.config import Settings
from server.mail import limits
from server.mail.authresults import from_authenticated
from server.mail.fairqueue import FairQueue
from server.mail.inbound import slim
from server.mail.parse import ParsedMail, parse_message
from server.mail.quota import clip_words, is_stranger, quote_for_stranger
from server.mail.replies import Mail, board_root, queue
from server.mail.taken import Taken
from server.mail.wrapping import wrap, wrap_indented
from server.pictures.cache import Picture, wanted_by
from server.store.database import Backoff, Database, worker_name
from server.store.model import Board, utcnow
from server.store.resources import render_template

log = logging.getLogger("pbmserv.worker")
MAX_TRIES = 3
#: Password checks made outside one step's transaction before it checks in place (masking tries up to 8 words).
MAX_PENDING = 16
T = TypeVar("T")
#: The longest word of a command echoed whole in an error reply (4 columns of indent, "..." after).
ECHO_WORD = 60


@dataclass
class StepResult:
    ok: bool
    text: str
    subject: str
    references: list[str]
    #: Board pictures for the sender's reply (already dropped when they turned pictures off).
    pictures: list[Picture] = field(default_factory=list)
    #: Text files for the sender's reply (a finished board's game record), (filename, text).
    attachments: list[tuple[str, str]] = field(default_factory=list)


def _error_board(words: list[str], exc: Exception) -> tuple[str | None, str | None, int | None]:
    """The game (title, command word) and board number a refused line is about, as far as known."""
    _, prefix, game = describe(words)
    title = getattr(exc, "title", None) or (game.title if game else None)
    board = getattr(exc, "board", None)
    name = board.game if board is not None else game.name if game is not None else None
    number = board.number if board is not None else None
    if number is None and game is not None and len(words) > prefix:
        head = words[prefix].split("#")[0]
        number = int(head) if is_digits(head) and len(head) < 10 else None
    return title, name, number


#: What a player hears when their line met a bug of the server or a game (the admin sees the traceback).
INTERNAL_ERROR = ("This command met an error in the server ({kind}) and was not carried out; nothing of it "
                  "was done. The server's admin can see the details in its log. Your other commands "
                  "in this mail are carried out as usual.")


@contextmanager
def refuse_internal_errors() -> Iterator[None]:
    """An unexpected exception in one line is that line's refusal, not the whole mail's failure.

    A bug in one command (``show ²`` once raised ValueError) made the worker
    retry the mail three times and set it aside, and a mover whose first
    line was already played only heard "could not be processed".  Database
    errors still propagate: they are not the line's fault and are retried.
    """
    try:
        yield
    except (CommandError, games.GameError, SQLAlchemyError):
        raise
    except Exception as exc:
        log.exception("a command failed with an internal error; it is refused and the mail goes on")
        raise CommandError(INTERNAL_ERROR.format(kind=type(exc).__name__)) from exc
def error_board_row(session: Session, words: list[str], exc: Exception) -> Board | None:
    """The stored board a refused line is about, if it names one that exists."""
    board = getattr(exc, "board", None)
    if board is not None:
        return board
    _, name, number = _error_board(words, exc)
    if name is None or number is None:
        return None
    return session.scalars(select(Board).where(Board.game == name, Board.number == number)).first()


def error_subject(words: list[str], exc: Exception) -> str:
    """``TITLE Board N Error`` whenever the line names a game and a board, however it failed."""
    title, _, number = _error_board(words, exc)
    if title and number is not None:
        return f"{title} Board {number} Error"
    return f"{title} Error" if title else "pbmserv Error"


def error_references(settings: Settings, words: list[str], exc: Exception) -> list[str]:
    """The board's References root, so an error about a board threads with its mail."""
    _, name, number = _error_board(words, exc)
    return [board_root(settings, name, number)] if name and number is not None else []


#: What a mail with no command line at all is told (in full: templates/no_command.txt).
NO_COMMAND = "Your mail held no command."


class Worker:
    def __init__(self, db: Database, settings: Settings, name: str | None = None,
                 on_claim: Callable[[int], None] | None = None) -> None:
        self.db = db
        #: Told the id of each message claimed (the supervisor of worker processes
        #: counts a failed try against it if the process dies while applying it).
        self.on_claim = on_claim
        self.settings = settings
        self.name = name or worker_name()
        self.own = {a.lower() for a in [*settings.addresses, settings.sender_address]}
        #: The message being applied (set once claimed): what a failure is counted against.
        self.current: int | None = None
        # The strangers' budget is the server's: each of its worker processes gets its share.
        self.queue = FairQueue(settings.unknown_per_minute / max(1, settings.workers))
        #: A file naming the message being applied (``pbmserv serve`` sets it; see count_crashed).
        self.inflight: Path | None = None
        #: Growing pauses while the database refuses a taken message's work (a full disk).
        self.outage = Backoff()
        #: Whether more work may be waiting after the last run_once: its claim saw another
        #: claimable message (FairQueue.more), or the run ended in a failure to be retried.
        #: False: the loop waits for its wake-up, which any mail stored since that claim has set.
        self.more_waiting = True

    # -- claiming ----------------------------------------------------------
    def _claim(self, session: Session) -> Taken | None:
        """The next message by the fair queue (server/mail/fairqueue.py), locked, in the caller's transaction.

        A message left in flight by a process that died (``inflight``) had
        its try counted at start-up; past MAX_TRIES it is set aside here.
        """
        now = utcnow()
        while True:
            row = self.queue.pick(session, now)
            if row is None or row.tries < MAX_TRIES:
                return row
            row.error = (row.error or "") + f"\n(set aside when taken after {row.tries} tries)"
            self._set_aside(session, row)
            row.save(session)

    # -- a process that died while applying a message ---------------------------
    def _mark_inflight(self, inbound_id: int | None) -> None:
        """Note (outside the database, which rolls back with the death) what is being applied."""
        if self.inflight is None:
            return
        try:
            if inbound_id is None:
                self.inflight.unlink(missing_ok=True)
            else:
                self.inflight.write_text(str(inbound_id))
        except OSError:
            log.warning("cannot write %s; a mail that kills the process is not counted", self.inflight)

    def count_crashed(self) -> None:
        """At start-up: the message the last process died applying gets its try counted.

        A mail that kills the process (out of memory, SIGKILL) never raises:
        before this it was taken again after every restart, for ever.  After
        MAX_TRIES deaths it is set aside and its sender told.
        """
        if self.inflight is None or not self.inflight.exists():
            return
        text = self.inflight.read_text().strip()
        if is_digits(text):
            self._failed(int(text), "the server process died while applying this message (killed or out of memory)")
        self._mark_inflight(None)

    def run_once(self, told: bool = False) -> bool:
        """Apply the next message if there is one; False when the queue is empty.

        The claim, the load, the re-send check, the message's first command,
        its replies and the "done" mark are one transaction: a single-command
        mail (nearly all of them) costs one commit.  Further commands of a
        multi-command mail follow in a transaction each.

        ``told``: the caller knows mail was stored since this worker last
        claimed (the only worker, woken by the listener): it claims without
        asking first whether anything waits.
        """
        return self._run(None, told)

    def process(self, inbound_id: int) -> None:
        """Apply one given message (``pbmserv process``, tests), the same way."""
        self._run(inbound_id)

    def drain(self) -> int:
        count = 0
        while self.run_once():
            count += 1
        return count

    def _run(self, inbound_id: int | None, told: bool = False) -> bool:
        self.current = None
        started = time.thread_time()
        # The last claim saw another message waiting, or the caller was told of new mail: claim
        # without asking first (a read transaction a move, issue 25); otherwise ask, as a wake-up
        # may be for nothing.
        known_waiting, self.more_waiting = (self.more_waiting or told) and inbound_id is None, True
        if inbound_id is None and not known_waiting and not self.db.peek(
                lambda session: self.queue.waiting(session, utcnow())):
            self.more_waiting = False
            return False  # woken for nothing (another worker took it): no write transaction
        try:
            with passwords.checked_outside():
                taken = self._passwords_outside(lambda: self.db.run(
                    lambda session: self._claim_and_apply(session, inbound_id if self.current is None
                                                          else self.current)))
                if taken is None:
                    self.more_waiting = False
                    return False
                if inbound_id is None:
                    self.more_waiting = self.queue.more
                target, parsed, done = taken
                for index in range(done, len(parsed.commands) if parsed else 0):
                    self._check_budget(parsed, started)  # type: ignore[arg-type]
                    self._passwords_outside(lambda: self._run_step(
                        target, index, parsed, parsed.commands[index]))  # type: ignore[union-attr]  # noqa: B023
            self.outage.recovered()
        except OperationalError as exc:
            if self.current is None:
                raise  # the database is away before any message was taken: the loop backs off
            # The database went away (connection killed, server down, file
            # locked): not the message's fault, so it is not a failed try --
            # three outages would otherwise set good mail aside.  Nothing of
            # the transaction stayed; the message is taken again once the
            # database is back.
            # Pause before the next try, longer each time it fails again (a
            # full disk once made 618 tries in 24 s: issue 32, item 15).
            delay = self.outage.pause()
            log.warning("inbound %d: database unavailable (%s); retried after %.2f s", self.current,
                        type(exc.orig).__name__, delay)
            return True
        except Exception:
            if self.current is None:
                raise
            self._failed(self.current, traceback.format_exc())
        finally:
            if self.current is not None:
                self._mark_inflight(None)
        return True

    @staticmethod
    def _passwords_outside(attempt: Callable[[], T]) -> T:
        """Run ``attempt`` (one transaction) with every argon2 check it needs made before it, outside it.

        A check the shared cache cannot answer rolls the transaction back
        (PasswordPending); argon2 runs here, with no lock held, and the step
        runs again, finding the verdict (issue 32, item 4: no argon2 under
        the write lock).  A step needs one check, a refused line's masking a
        few more; past MAX_PENDING (a password changed under it each time)
        the last try checks in place, as before.
        """
        for _ in range(MAX_PENDING):
            try:
                return attempt()
            except passwords.PasswordPending as pending:
                pending.settle()
        with passwords.checked_inline():
            return attempt()

    def _claim_and_apply(self, session: Session,
                         inbound_id: int | None) -> tuple[int, ParsedMail | None, int] | None:
        """Claim a message and apply its first pending command, in the caller's transaction.

        Returns None when there was nothing to do, else (id, parsed mail or
        None when it is not answered, commands done) so the caller applies
        the rest of a multi-command mail.
        """
        row = self._claim(session) if inbound_id is None else Taken.lock(session, inbound_id)
        if row is None or row.status != "new":
            return None
        self.current = row.id
        self._mark_inflight(row.id)
        if self.on_claim is not None:
            self.on_claim(row.id)
        # The row is marked with the worker's name, and its lease set, only
        # as the transaction ends (``_step``, ``_finish_quietly``): marked
        # now, the mark cost an UPDATE of its own before the first query,
        # and within the claiming transaction the row lock (PostgreSQL) or
        # the write lock (SQLite) already keeps every other worker off it.
        if row.commands_done == 0 and row.copied:
            reason = f"same Message-ID, sender and content as an earlier one ({row.dedupe_key[:40]})"
            log.info("inbound %d from %r dropped as a duplicate: %s", row.id, row.mail_from, reason)
            self._finish_quietly(session, row, "duplicate", reason)
            return row.id, None, 0
        parsed = parse_message(row.raw, row.mail_from, self.own, self.settings.max_commands,
                               reply_token(self.settings, list(row.rcpt_to or [])))
        rcpt_to = list(row.rcpt_to or [])
        if not parsed.no_reply_reason and confirm.tagged(self.settings, rcpt_to):
            mail = confirm.handle(session, self.settings, rcpt_to)
            if mail is not None:  # a reply to an address-confirmation mail (server/accounts/confirm.py)
                queue(session, self.settings, mail)
                row.results = [{"command": "(address confirmation)", "ok": True, "text": mail.body,
                                "subject": mail.subject, "references": []}]
                self._finish_quietly(session, row, "done", None)
                return row.id, None, 0
        if parsed.no_reply_reason or not parsed.reply_to:
            reason = parsed.no_reply_reason or "no address to answer"
            log.info("inbound %d from %r not answered: %s", row.id, row.mail_from, reason)
            self._finish_quietly(session, row, "ignored", reason)
            return row.id, None, 0
        parsed.from_authenticated = from_authenticated(row.raw, parsed.from_address, self.settings.trusted_authserv)
        parsed.stranger = not row.known
        if parsed.stranger and len(parsed.commands) > self.settings.stranger_commands:
            # A stranger's mail is read for a few commands only (issue 32: 50 costly lines a mail).
            parsed.commands, parsed.truncated = parsed.commands[:self.settings.stranger_commands], True
        commands = parsed.commands
        index = row.commands_done
        self._step(session, row, index, parsed, commands[index] if commands else None)
        return row.id, parsed, index + 1

    def _check_budget(self, parsed: ParsedMail, started: float) -> None:
        """Once the mail has used its CPU budget, the rest of its lines are refused (issue 32).

        One 2 KB stranger mail once cost a minute of CPU (50 costly lines)
        and an honest player's ``show`` waited seconds behind it.  The lines
        already done are answered as usual.
        """
        if parsed.over_budget is not None:
            return
        budget = self.settings.stranger_cpu_seconds if parsed.stranger else self.settings.mail_cpu_seconds
        spent = time.thread_time() - started
        if spent > budget:
            parsed.over_budget = (f"Not carried out: this mail used up its share of the server's time "
                                  f"({budget:g} CPU seconds). Send the rest in another mail.")
            log.warning("inbound %s from %r: CPU budget of %g s spent after %.1f s; the rest is refused",
                        self.current, parsed.reply_to, budget, spent)

    def _finish_quietly(self, session: Session, row: Taken, status: str, reason: str | None) -> None:
        row.claimed_by = self.name
        slim(row)
        row.status = status
        row.error = reason
        row.done_at = utcnow()
        row.claimed_until = None
        row.tries = 0
        row.save(session)

    def _run_step(self, inbound_id: int, index: int, parsed: ParsedMail, line: str | None) -> None:
        """Apply command ``index`` of the message, in one transaction, once."""

        def work(session: Session) -> None:
            row = Taken.lock(session, inbound_id)
            if row is None or row.status != "new" or row.commands_done != index:
                return  # applied already (by us before a crash, or by another worker)
            self._step(session, row, index, parsed, line)

        self.db.run(work)

    def _step(self, session: Session, row: Taken, index: int, parsed: ParsedMail, line: str | None) -> None:
        """Run command ``index`` on the locked row: result, replies, progress (the caller commits)."""
        started = time.perf_counter()
        result = self._execute(session, parsed, line)
        # A board's picture is kept only with its latest result: the combined
        # reply shows each board once, as it stands after the last command.
        shown = {p.filename for p in result[1].pictures}
        earlier = [{**r, "pictures": [p for p in r.get("pictures", []) if p["filename"] not in shown]}
                   for r in row.results] if shown else row.results
        text = result[1].text
        if parsed.multiple:  # the combined reply stops growing once it is full
            text = limits.fit_result(text, sum(len(r["text"]) for r in row.results))
        row.results = [*earlier, {"command": result[0], "ok": result[1].ok, "text": text,
                                  "subject": result[1].subject, "references": result[1].references,
                                  "pictures": [p.to_json() for p in result[1].pictures],
                                  **({"attachments": [list(a) for a in result[1].attachments]}
                                     if result[1].attachments else {})}]
        row.commands_done = index + 1
        row.claimed_by = self.name
        last = index + 1 >= max(1, len(parsed.commands))
        if not last:
            # Only a hint (the row lock and commands_done are what keep a
            # command from running twice): a crashed worker's message waits
            # out the lease before its next command is taken by another.
            row.claimed_until = utcnow() + timedelta(seconds=self.settings.lease_seconds)
        if not parsed.multiple or not parsed.commands:  # a mail with no command: its own plain answer
            if result[2]:
                queue(session, self.settings, result[2])
        elif last:
            queue(session, self.settings, self._combined(parsed, row.results))
        if last:
            slim(row)
            row.status = "done"
            row.done_at = utcnow()
            row.claimed_until = None
            row.tries = 0
        row.save(session)
        ms = (time.perf_counter() - started) * 1000
        log.info("command from=%s cmd=%r result=%s ms=%.1f", parsed.reply_to, log_line(result[0]),
                 "ok" if result[1].ok else "refused: " + result[1].text.splitlines()[0][:120], ms)

    def _execute(self, session: Session, parsed: ParsedMail, line: str | None) -> tuple[str, StepResult, Mail | None]:
        """Run one command; returns (masked line, outcome, reply to the sender or None)."""
        if line is None and parsed.reply_token:
            line = ""  # command_for says what a reply lacks, once its address is checked
        if line is None:
            reason = NO_COMMAND
            mail = Mail(to=[parsed.reply_to], subject="pbmserv Error", body=render_template("no_command.txt"),
                        in_reply_to=parsed.message_id or None)
            return "", StepResult(False, reason, "pbmserv Error", []), mail
        words = canonical_words(line.split())
        # A reply to play, unless the player typed a whole command (then it is
        # that command, password and all, as if mailed to the bare address).
        # Judged on the words as typed: the subject-edit form ("Re: TITLE Board N MOVE"),
        # which canonical_words makes a full command, is a reply's subject here.
        typed = line.split()
        by_reply = bool(parsed.reply_token) and (describe(typed)[0] is None or typed[0].lower() in REPLY_VERBS
                                                 or (parsed.from_subject and names_a_board(typed)))
        # Nothing a reply says is quoted before its address is checked: it may hold a password.
        checked = not by_reply
        # The From address, not the Reply-To (which anyone sets to the victim's): for the guess throttle.
        session.info[SENDER_KEY] = parsed.from_address or parsed.reply_to
        session.info[AUTHENTICATED_KEY] = parsed.from_authenticated
        try:
            with session.begin_nested(), refuse_internal_errors():
                identity, comment, rewritten = None, parsed.comment, None
                if parsed.over_budget is not None and line:
                    raise CommandError(parsed.over_budget)
                if by_reply:  # the same command, proven by the reply address instead of a password
                    assert parsed.reply_token is not None
                    rewritten = command_for(session, parsed.reply_token, line, parsed.from_subject, comment,
                                            sender=parsed.from_address)
                    words, identity, comment = rewritten.words, rewritten.identity, rewritten.comment
                    checked = True
                request = Request(words=words, line=line, sender=parsed.reply_to, comment=comment,
                                  message_id=parsed.message_id, identity=identity, document=parsed.document)
                ctx = Context(session=session, settings=self.settings, request=request, now=utcnow())
                result = dispatch(ctx, words)
                if rewritten is not None and rewritten.note:
                    self._add_note(parsed, result, rewritten.note)
                sender_copy = self._queue_mails(session, parsed, result)
        except (CommandError, games.GameError) as exc:
            aftermath = getattr(exc, "aftermath", None)
            for mail in aftermath(session) if aftermath else []:
                queue(session, self.settings, mail)
            secrets = secret_words(session, words, parsed.reply_to, refused=True)
            # A reply is quoted as the player typed it, not as the command it was read as.
            typed_words = rewritten.shown.split() if rewritten is not None else words
            quoted = getattr(exc, "quoted", None)  # refused by command_for, once its address was proven
            if quoted is not None and quoted.strip():
                typed_words, checked = quoted.split(), True
                secrets |= secret_words(session, typed_words, parsed.reply_to, refused=True)
            shown = mask_words(typed_words, secrets) if checked else "(a reply to a board mail)"
            reason = scrub(str(exc), secrets)
            subject, refs = error_subject(words, exc), error_references(self.settings, words, exc)
            mail = self._error_mail(parsed, shown, reason, subject, refs, session)
            board = None if parsed.multiple else error_board_row(session, words, exc)
            if board is not None:  # replying to the error with the corrected move just works
                mail = invite_sender(session, self.settings, mail, parsed.reply_to, board)
            return shown, StepResult(False, reason, subject, refs), mail
        shown = mask_words(words, secret_words(session, words, parsed.reply_to, refused=False))
        pictures = result.pictures if result.pictures and wanted_by(session, [parsed.reply_to]) else []
        # Files for the sender: the command's own, and those of a mail to the sender that a
        # 'multiple' reply stands in for (a finished board's game record).
        sender = parsed.reply_to.lower()
        files = list(result.attachments)
        files += [a for m in result.mails if sender in (t.lower() for t in m.to) for a in m.attachments
                  if a not in files]
        outcome = StepResult(True, result.text, result.subject, result.references, pictures, files)
        if sender_copy:
            return shown, outcome, None
        reply = Mail(to=[parsed.reply_to], subject=result.subject, body=result.text,
                     in_reply_to=parsed.message_id or None, references=result.references, pictures=pictures,
                     attachments=files, fixed=result.fixed)
        if result.invite is not None and not parsed.multiple:
            invite(session, self.settings, reply, *result.invite)
        return shown, outcome, reply

    @staticmethod
    def _add_note(parsed: ParsedMail, result: Result, note: str) -> None:
        """Put ``note`` (about the sender's own words) at the top of what the sender alone gets."""
        text = wrap(note) + "\n\n"
        result.text = text + result.text
        sender = parsed.reply_to.lower()
        for mail in result.mails:
            if sender in (a.lower() for a in mail.to) and len(mail.to) == 1:
                mail.body = text + mail.body

    def _queue_mails(self, session: Session, parsed: ParsedMail, result: Result) -> bool:
        """Queue the command's mails; True when one of them already goes to the sender."""
        sender = parsed.reply_to.lower()
        copy = False
        mails = []
        for mail in result.mails:
            if sender in (a.lower() for a in mail.to):
                if parsed.multiple:
                    continue  # the combined reply carries it
                copy = copy or not result.confirm
                mail.in_reply_to = parsed.message_id or None
            mails.append(mail)
        queue(session, self.settings, *mails)  # together: one statement counts, one writes (issue 25)
        return copy and not parsed.multiple

    def _error_mail(self, parsed: ParsedMail, shown: str, reason: str, subject: str,
                    references: list[str] | None = None, session: Session | None = None) -> Mail:
        if session is not None and is_stranger(session, parsed.reply_to):
            # Anyone can set a Reply-To: no attacker text reflected to a third party.
            shown, reason = quote_for_stranger(shown), clip_words(reason)[:300]
        else:
            # A word longer than a line (a pasted board, a 300-column "move") is cut,
            # so the echo fits in 78 columns like every other line of a reply.
            shown = clip_words(shown, ECHO_WORD)
        body = render_template("error.txt", command=wrap_indented(shown, indent="    ").strip(), reason=wrap_indented(reason, indent="    "))
        return Mail(to=[parsed.reply_to], subject=subject, body=body, in_reply_to=parsed.message_id or None,
                    references=references or [])

    def _combined(self, parsed: ParsedMail, results: list[dict]) -> Mail:
        ok = sum(1 for r in results if r["ok"])
        lines = [f"Results of your {len(results)} commands ({ok} done, {len(results) - ok} refused):", ""]
        for r in results:
            lines.append(f"> {r['command']}")
            lines.append(r["text"].rstrip() if r["ok"] else wrap_indented("Refused: " + r["text"]))
            lines.append("")
        if parsed.truncated and parsed.stranger:  # on top: a stranger's reply is cut short
            lines[1:1] = [f"Unprocessed: only the first {len(parsed.commands)} commands of a mail from an",
                          "address without an account are read.", ""]
        elif parsed.truncated:
            lines.append(f"Unprocessed: only the first {self.settings.max_commands} commands of a mail are read.")
        refs = [ref for r in results for ref in r.get("references", [])]
        subject = "pbmserv results" if ok else "pbmserv Error"
        pictures = [Picture.from_json(p) for r in results for p in r.get("pictures", [])]
        attachments = [(name, text) for r in results for name, text in r.get("attachments", [])]
        return Mail(to=[parsed.reply_to], subject=subject, body="\n".join(lines),
                    in_reply_to=parsed.message_id or None, references=list(dict.fromkeys(refs))[:5],
                    pictures=pictures, attachments=attachments)

    # -- failures -----------------------------------------------------------
    def _failed(self, inbound_id: int, error: str) -> None:
        """An unexpected error (or a death, see count_crashed): count the try; after MAX_TRIES set it aside."""
        log.error("inbound %d failed:\n%s", inbound_id, error)

        def work(session: Session) -> None:
            row = Taken.lock(session, inbound_id)
            if row is None or row.status != "new":
                return
            row.tries += 1
            row.error = error[-4000:]
            row.claimed_until = utcnow() + timedelta(seconds=min(60, 2**row.tries))
            if row.tries >= MAX_TRIES:
                self._set_aside(session, row)
            row.save(session)

        self.db.run(work)

    def _set_aside(self, session: Session, row: Taken) -> None:
        """Shunt ``row`` and tell its sender (the notice may fail; the shunt may not; the caller saves it)."""
        row.status = "shunted"
        row.claimed_until = None
        log.error("inbound %d set aside after %d tries", row.id, row.tries)
        parsed = parse_message(row.raw, row.mail_from, self.own, self.settings.max_commands)
        if parsed.reply_to and not parsed.no_reply_reason:
            try:
                with session.begin_nested():
                    # The Subject is quoted back: its command's password is masked, as in every reply.
                    secrets = {w for line in parsed.commands for w in secret_words(
                        session, canonical_words(line.split()), parsed.reply_to, refused=True)}
                    subject = scrub(parsed.subject, secrets)[:200]
                    body = render_template("shunted.txt", subject=subject, tries=row.tries)
                    if row.results:  # lines already applied: their results are always told
                        done = self._combined(parsed, list(row.results))
                        done.body = body.rstrip("\n") + "\n\n" + done.body
                        done.subject = "pbmserv Error"
                        queue(session, self.settings, done)
                    else:
                        queue(session, self.settings, Mail(to=[parsed.reply_to], subject="pbmserv Error",
                                                           body=body, in_reply_to=parsed.message_id or None))
            except Exception:
                # The notice must not keep the message from being set aside:
                # if it cannot be composed, the message is retried forever.
                log.exception("inbound %d: cannot compose the set-aside notice", row.id)
