"""Reading commands out of mail as clients really send it."""

from __future__ import annotations

from email.message import EmailMessage

from server.parse import clean_subject, parse_message

OWN = {"pbmserv@games.test"}


def parse(msg: EmailMessage, envelope: str = "alice@example.org"):  # type: ignore[no-untyped-def]
    return parse_message(msg.as_bytes(), envelope, OWN)


def mail(subject: str, body: str = "", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alice <alice@example.org>"
    msg["To"] = "pbmserv@games.test"
    msg["Subject"] = subject
    for k, v in headers.items():
        msg[k.replace("_", "-")] = v
    msg.set_content(body or "\n")
    return msg


def test_subject_prefixes_and_stars_are_dropped() -> None:
    assert clean_subject("Re: RE: Fwd: AW: SV: ** warpandweft move 101 alice pw L11") == "warpandweft move 101 alice pw L11"
    assert clean_subject("Re[2]: tictactoe show 101") == "tictactoe show 101"
    assert clean_subject("warpandweft\u00a0move 101 alice pw L11") == "warpandweft move 101 alice pw L11"


def test_comment_drops_quotes_attribution_and_signature() -> None:
    body = ("Nice move!\n\nOn Tue, 3 Nov 2026, bob wrote:\n> old board\n> more\n\nSee you.\n-- \nAlice\nphone 123\n")
    parsed = parse(mail("tictactoe move 101 alice pw a1", body))
    assert parsed.commands == ["tictactoe move 101 alice pw a1"]
    assert parsed.comment == "Nice move!\n\nSee you."
    assert not parsed.multiple and parsed.reply_to == "alice@example.org"


def test_multiple_mode_stops_at_end_signature_and_quotes() -> None:
    for stop in ("end", "STOP", "-- ", "> quoted"):
        parsed = parse(mail("multiple", f"help\n\nhelp games\n{stop}\nsignup x y\n"))
        assert parsed.multiple and parsed.commands == ["help", "help games"], stop
    empty_subject = parse(mail("", "help\n"))
    assert empty_subject.multiple and empty_subject.commands == ["help"]


def test_command_count_is_capped() -> None:
    parsed = parse_message(mail("multiple", "help\n" * 80).as_bytes(), "a@example.org", OWN, max_commands=50)
    assert len(parsed.commands) == 50 and parsed.truncated


def test_html_only_mail_is_read_as_text() -> None:
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["Subject"] = "multiple"
    msg.set_content("<html><body><div>help&nbsp;games</div><div>tictactoe show 101</div>"
                    "<blockquote>quoted stuff</blockquote></body></html>", subtype="html")
    parsed = parse(msg)
    assert parsed.commands == ["help games", "tictactoe show 101"]


def test_text_part_preferred_and_charsets_decoded() -> None:
    msg = mail("", "tictactoe move 101 alice p\u00e4ss a1\n")
    msg.add_alternative("<p>ignored html</p>", subtype="html")
    assert parse(msg).commands == ["tictactoe move 101 alice p\u00e4ss a1"]
    latin = (b"From: alice@example.org\r\nSubject: multiple\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
             b"Content-Transfer-Encoding: quoted-printable\r\n\r\nsignup j=F6rg geheim=E9\r\n")
    assert parse_message(latin, "a@example.org", OWN).commands == ["signup j\u00f6rg geheim\u00e9"]


def test_smart_quotes_and_rfc2047_subject() -> None:
    msg = mail("=?utf-8?q?tictactoe_show_101?=")
    assert parse(msg).commands == ["tictactoe show 101"]
    assert clean_subject("help \u201cgames\u201d") == 'help "games"'


def test_reply_to_wins_over_from() -> None:
    parsed = parse(mail("help", Reply_To="Alice Other <other@example.org>"))
    assert parsed.reply_to == "other@example.org"


def test_no_reply_reasons() -> None:
    assert parse(mail("help"), envelope="").no_reply_reason
    assert parse(mail("help", Auto_Submitted="auto-generated")).no_reply_reason
    assert parse(mail("help", Auto_Submitted="no")).no_reply_reason is None
    assert parse(mail("help", Precedence="junk")).no_reply_reason
    assert parse(mail("help", List_Unsubscribe="<mailto:x@y>")).no_reply_reason
    assert parse(mail("help", X_Loop="pbmserv@games.test")).no_reply_reason
    bounce = mail("Undelivered Mail")
    bounce.replace_header("From", "MAILER-DAEMON@example.org")
    assert parse(bounce).no_reply_reason


def test_a_flood_of_headers_is_cut_and_not_answered() -> None:
    raw = (b"From: alice@example.org\r\nSubject: help\r\n" + b"X-Loop: somewhere@else\r\n" * 50_000
           + b"\r\nbody\r\n")
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.no_reply_reason == "more than 1000 header fields"
    assert parsed.subject == "help"
    normal = parse_message(b"From: alice@example.org\r\nSubject: help\r\n" + b"X-Note: x\r\n" * 900 + b"\r\n\r\n",
                           "alice@example.org", OWN)
    assert normal.no_reply_reason is None and normal.commands == ["help"]


def test_no_reply_reasons_word_for_word() -> None:
    """The reason is stored with the message and logged: each says which rule held it back."""

    def sent_by(address: str) -> EmailMessage:
        msg = mail("help")
        msg.replace_header("From", address)
        return msg

    cases = [
        (mail("help"), "", "null envelope sender (a bounce)"),
        (mail("help"), "<>", "null envelope sender (a bounce)"),
        (mail("help", X_Loop="PBMserv@games.test "), None, "carries our own X-Loop header"),
        (mail("help", Auto_Submitted="Auto-Replied"), None, "Auto-Submitted: auto-replied"),
        (mail("help", Precedence="Bulk"), None, "Precedence: bulk"),
        (mail("help", Precedence="list"), None, "Precedence: list"),
        (mail("help", List_Id="<games.example.org>"), None, "mailing-list mail (List-* headers)"),
        (mail("help", X_Ack="No"), None, "X-Ack: no"),
        (sent_by("pbmserv@games.test"), None, "mail from our own address"),
        (mail("help"), "PBMSERV@games.test", "mail from our own address"),
        (sent_by("MAILER-DAEMON@example.org"), None, "sent by mailer-daemon"),
        (sent_by("postmaster@example.org"), None, "sent by postmaster"),
        (sent_by("noreply@example.org"), None, "sent by noreply"),
        (sent_by("no-reply@example.org"), None, "sent by no-reply"),
    ]
    for msg, envelope, reason in cases:
        got = parse(msg) if envelope is None else parse(msg, envelope=envelope)
        assert got.no_reply_reason == reason, (reason, got.no_reply_reason)
    # What is not a reason: an X-Loop of someone else's, Precedence: first-class, X-Ack: yes.
    for ok in (mail("help", X_Loop="other@example.org"), mail("help", Precedence="first-class"),
               mail("help", X_Ack="yes"), sent_by("noreplies@example.org")):
        assert parse(ok).no_reply_reason is None
