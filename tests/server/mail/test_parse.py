"""Reading commands out of mail as clients really send it."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest

from server.mail.parse import clean_subject, html_to_text, normalise, parse_message

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


# --- Mail as clients write it, for the parts of the reader that mutation testing found unguarded (issue 18).


def wire(text: str) -> bytes:
    """A mail written here with "\\n" as it travels: CRLF line ends, UTF-8 bytes."""
    return text.replace("\n", "\r\n").encode("utf-8")


def test_normalise_maps_what_clients_and_keyboards_substitute() -> None:
    """Word processors, phones and French keyboards put these in; the command language is ASCII."""
    spaces = {"\u00a0": "no-break space", "\u2007": "figure space", "\u202f": "narrow no-break space",
              "\u2009": "thin space"}
    for char, name in spaces.items():
        assert normalise(f"tictactoe{char}show 101") == "tictactoe show 101", name
    assert normalise("\ufeffa1\u200bb2") == "a1b2"  # byte order mark, zero-width space: nothing
    assert normalise("\u2018a1\u2019 \u201cb2\u201d") == "'a1' \"b2\""
    assert normalise("a\u2013b\u2014c\u2212d") == "a-b-c-d"  # en dash, em dash, minus sign
    assert normalise("one\r\ntwo\rthree\n") == "one\ntwo\nthree\n"
    assert normalise("Cafe\u0301") == "Caf\u00e9"  # NFC: e + combining acute is one letter
    # Apple Mail in French: a thin space before the "!" of the comment.
    msg = mail("tictactoe move 101 alice pw a1", "Bien jou\u00e9\u2009!\n")
    assert parse(msg).comment == "Bien jou\u00e9 !"


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("tictactoe show\n101", "tictactoe show 101"),
        ("Re: Board XX\nXX", "Board XX XX"),
        ("Re:\r\nhelp", "help"),
    ],
)
def test_a_line_break_decoded_in_a_subject_is_a_space(subject: str, expected: str) -> None:
    """An RFC 2047 word can carry an encoded line break (=0A); the subject is still one line."""
    assert clean_subject(subject) == expected


def test_encoded_line_break_in_a_subject_on_the_wire() -> None:
    raw = wire("From: alice@example.org\nSubject: =?utf-8?q?tictactoe_show=0A101?=\n\n\n")
    assert parse_message(raw, "alice@example.org", OWN).commands == ["tictactoe show 101"]


def test_pre_is_a_block_that_keeps_its_lines() -> None:
    """HTML: <pre> starts and ends a line and keeps its line breaks; the text after it flows again."""
    html = "<div>My move, and the board as I see it:<pre>  A B\n1 . X\n</pre>Your turn,\n  Bob.</div>"
    assert html_to_text(html) == "My move, and the board as I see it:\n  A B\n1 . X\nYour turn, Bob.\n"


def test_thunderbird_html_signature_in_pre_ends_the_commands() -> None:
    """Thunderbird puts a plain-text signature into HTML mail as <pre class="moz-signature">."""
    raw = wire(
        "From: Alice Example <alice@example.org>\n"
        "To: pbmserv@games.test\n"
        "Subject: multiple\n"
        "Message-ID: <5c1e9a52-3f0e-4f57-9d1c-0a4bd1c1f1a2@example.org>\n"
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.7.1\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/html; charset=UTF-8\n"
        "Content-Transfer-Encoding: 7bit\n"
        "\n"
        "<!DOCTYPE html>\n"
        "<html>\n"
        "  <head>\n"
        '    <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">\n'
        "  </head>\n"
        "  <body>\n"
        "    <p>help<br>\n"
        "      help games</p>\n"
        '    <pre class="moz-signature" cols="72">-- \n'
        "Alice Example\n"
        "tictactoe challenge alice bob</pre>\n"
        "  </body>\n"
        "</html>\n"
    )
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.commands == ["help", "help games"]


def test_outlook_html_head_and_style_are_not_text() -> None:
    """Outlook's HTML-only mail: <head> with <style> (and <title>) before the body."""
    raw = wire(
        "From: Alice Example <alice@example.org>\n"
        "To: pbmserv@games.test\n"
        "Subject: multiple\n"
        "Message-ID: <AM0PR04MB6433C1A2B3@AM0PR04MB6433.eurprd04.prod.outlook.com>\n"
        "MIME-Version: 1.0\n"
        'Content-Type: text/html; charset="us-ascii"\n'
        "Content-Transfer-Encoding: 7bit\n"
        "\n"
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=us-ascii">'
        "<title>multiple</title>"
        '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style>'
        '</head><body dir="ltr"><div>help</div><div>help games</div></body></html>\n'
    )
    assert parse_message(raw, "alice@example.org", OWN).commands == ["help", "help games"]


def test_gmail_html_quote_of_several_blocks_is_all_quote() -> None:
    """Gmail quotes an HTML mail with its <div>s inside one <blockquote>: every one of them is quote."""
    raw = wire(
        "From: Alice Example <alice@example.org>\n"
        "To: pbmserv@games.test\n"
        "Subject: Re: tictactoe move 101 alice apple1 a1\n"
        "Message-ID: <CAF3xZk8q=example@mail.gmail.com>\n"
        "MIME-Version: 1.0\n"
        'Content-Type: text/html; charset="UTF-8"\n'
        "\n"
        '<div dir="ltr">Your move.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        "On Tue, Mar 4, 2025 at 9:12 AM bob &lt;bob@example.org&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
        'rgb(204,204,204);padding-left:1ex"><div dir="ltr"><div>I take the centre.</div>'
        "<div>Beat that!</div></div></blockquote></div>\n"
    )
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.commands == ["tictactoe move 101 alice apple1 a1"]
    assert parsed.comment == "Your move."


def unknown_charset_mail(body: bytes) -> bytes:
    """8-bit text labelled ``unknown-8bit`` (RFC 1428), as gateways label mail of unknown charset."""
    return (b"From: alice@example.org\r\nTo: pbmserv@games.test\r\nSubject: multiple\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: text/plain; charset=unknown-8bit\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body)


def test_a_charset_python_does_not_know_is_read_as_utf8() -> None:
    raw = unknown_charset_mail(b"help\r\nsignup j\xc3\xb6rg geheim\r\n")
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.commands == ["help", "signup j\u00f6rg geheim"] and parsed.problems == []


def test_bytes_that_are_not_utf8_become_replacement_characters() -> None:
    # Latin-1 "é" (0xE9) is not UTF-8: one U+FFFD in its place, the rest of the mail still read.
    raw = unknown_charset_mail(b"help\r\nsignup ren\xe9 geheim\r\n")
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.commands == ["help", "signup ren\ufffd geheim"] and parsed.problems == []


def flowed_mail(params: str, body: str) -> bytes:
    """A text/plain part with format=flowed parameters (RFC 3676), 'multiple' subject."""
    return wire("From: alice@example.org\nTo: pbmserv@games.test\nSubject: multiple\nMIME-Version: 1.0\n"
                f"Content-Type: text/plain; charset=UTF-8; {params}\nContent-Transfer-Encoding: 7bit\n\n{body}")


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        # RFC 3676 4.2: a line ending in a space is joined to the next one; the space stays (DelSp=no).
        ("format=flowed", ["warpandweft challenge alice bob", "warpand weft help"]),
        ("format=flowed; delsp=no", ["warpandweft challenge alice bob", "warpand weft help"]),
        # 4.2 with DelSp=yes: the client added that space, and it is removed when joining.
        ("format=flowed; delsp=yes", ["warpandweft challenge alicebob", "warpandweft help"]),
        ("Format=Flowed; DelSp=Yes", ["warpandweft challenge alicebob", "warpandweft help"]),
        # Not flowed: every line is a line (format=fixed is the default, RFC 3676 4.1).
        ("format=fixed", ["warpandweft challenge alice", "bob", "warpand", "weft help"]),
        ("delsp=yes", ["warpandweft challenge alice", "bob", "warpand", "weft help"]),
    ],
)
def test_format_flowed_and_delsp(params: str, expected: list[str]) -> None:
    body = "warpandweft challenge alice \nbob\nwarpand \nweft help\n"
    assert parse_message(flowed_mail(params, body), "alice@example.org", OWN).commands == expected


def test_apple_mail_delsp_keeps_a_space_it_did_not_add() -> None:
    """Apple Mail (delsp=yes) breaks after a real space by adding a second one: one goes, one stays."""
    body = "warpandweft challenge alice  \nbob -compact\n"
    raw = flowed_mail("format=flowed; delsp=yes", body)
    assert parse_message(raw, "alice@example.org", OWN).commands == ["warpandweft challenge alice bob -compact"]


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        # Exchange's vacation reply without Auto-Submitted: only its subject gives it away.
        ("Subject: Automatic reply: Warp and Weft Board 101 bob\nThread-Topic: Warp and Weft Board 101 bob\n",
         "an out-of-office subject"),
        ("Subject: Re: help\nX-Autoreply: yes\n", "X-Autoreply header (an auto-responder)"),
        ("Subject: Re: help\nPrecedence: auto_reply\n", "Precedence: auto_reply"),
    ],
)
def test_auto_responders_that_do_not_say_so_the_rfc_3834_way(headers: str, reason: str) -> None:
    raw = wire(f"From: Bob <bob@example.org>\nTo: pbmserv@games.test\n{headers}MIME-Version: 1.0\n"
               "Content-Type: text/plain; charset=us-ascii\n\nI am out of the office until Monday.\n")
    assert parse_message(raw, "bob@example.org", OWN).no_reply_reason == reason


@pytest.mark.parametrize("newline", [b"\r\n", b"\n"], ids=["crlf", "lf-only"])
def test_body_lines_are_not_header_fields(newline: bytes) -> None:
    """Mail piped from a local MDA (procmail, maildrop) has LF line ends: its body is still a body."""
    raw = (b"From: alice@example.org\nSubject: help\n" + b"X-Note: x\n" * 900 + b"\n"
           + b"A long comment line.\n" * 300).replace(b"\n", newline)
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.no_reply_reason is None and parsed.problems == []
    assert parsed.commands == ["help"]
    assert parsed.comment == "\n".join(["A long comment line."] * 300)


@pytest.mark.parametrize("newline", [b"\r\n", b"\n"], ids=["crlf", "lf-only"])
def test_a_header_flood_keeps_its_body(newline: bytes) -> None:
    """Only the header fields past the first 1000 are dropped: the body is read (and stored) as sent."""
    raw = (b"From: alice@example.org\nSubject: multiple\n" + b"X-Loop: somewhere@else\n" * 5000
           + b"\nhelp\nhelp games\n").replace(b"\n", newline)
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.no_reply_reason == "more than 1000 header fields"
    assert parsed.commands == ["help", "help games"]


def reply_mail(body: str) -> bytes:
    """An iPhone reply to a reply address: the move on the first line, above the quote."""
    return wire(
        "From: Alice Example <alice@example.org>\n"
        "To: Warp and Weft Board 101 <pbmserv+r.k3j9x2@games.test>\n"
        "Subject: Re: Warp and Weft Board 101 alice\n"
        "Message-Id: <6E2B1C4D-9F8A-4B3E-A1D2-7C5E3F9B0A11@example.org>\n"
        "Mime-Version: 1.0 (1.0)\n"
        "X-Mailer: iPhone Mail (22D72)\n"
        "Content-Type: text/plain; charset=us-ascii\n"
        "Content-Transfer-Encoding: 7bit\n"
        "\n" + body
    )


def test_reply_mode_first_line_is_the_command_the_rest_the_comment() -> None:
    body = ("C1\nGood luck with that thread.\nSee you at the club.\n\nSent from my iPhone\n\n"
            "> On 4 Mar 2025, at 09:12, pbmserv <pbmserv@games.test> wrote:\n>\n> bob played G1.\n")
    parsed = parse_message(reply_mail(body), "alice@example.org", OWN, reply_token="k3j9x2")
    assert parsed.commands == ["C1"] and not parsed.from_subject and not parsed.multiple
    assert parsed.comment == "Good luck with that thread.\nSee you at the club."
    assert parsed.reply_token == "k3j9x2"


def test_reply_mode_with_only_a_quote_takes_the_subject() -> None:
    body = "\n\nSent from my iPhone\n\n> On 4 Mar 2025, at 09:12, pbmserv wrote:\n> bob played G1.\n"
    parsed = parse_message(reply_mail(body), "alice@example.org", OWN, reply_token="k3j9x2")
    assert parsed.from_subject and parsed.commands == ["Warp and Weft Board 101 alice"]
    assert parsed.comment == ""


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Message-ID: <CAF3xZk8q=example@mail.gmail.com>\n", "<CAF3xZk8q=example@mail.gmail.com>"),
        ("Message-Id: <6E2B1C4D-9F8A@example.org>\n", "<6E2B1C4D-9F8A@example.org>"),
        ("Message-ID: not-in-angle-brackets@example.org\n", ""),
        ("Message-ID: <two words@example.org>\n", ""),
        ("", ""),
    ],
)
def test_message_id_is_kept_only_when_it_is_one(header: str, expected: str) -> None:
    """Our answer echoes it in In-Reply-To/References (RFC 5322 3.6.4): only a msg-id in <...>."""
    raw = wire(f"From: alice@example.org\nTo: pbmserv@games.test\nSubject: help\n{header}\nhelp\n")
    assert parse_message(raw, "alice@example.org", OWN).message_id == expected


def test_a_content_type_the_modern_parser_chokes_on_still_gives_its_body() -> None:
    """A parameter cut short (``format*`` with no value) makes CPython's policy.default parser raise.

    The reader parses with compat32 (fields raw until read, server/mail/headers.py),
    so nothing raises and nothing is reported; the part then has no charset,
    and its bytes are read as UTF-8 (what nearly every client sends today).
    """
    raw = (b"From: alice@example.org\r\nTo: pbmserv@games.test\r\nSubject: multiple\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; format*\r\n\r\nhelp\r\nsignup j\xc3\xb6rg geheim\r\n")
    with pytest.raises(IndexError):  # the premise: the stdlib's modern header parser fails on it
        BytesParser(policy=policy.default).parsebytes(raw)
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.commands == ["help", "signup j\u00f6rg geheim"]
    assert parsed.problems == []


@pytest.mark.parametrize("params", ["charset=us-ascii", "charset=us-ascii; format*"], ids=["parsed", "fallback"])
def test_a_declared_charset_is_honoured_by_either_parser(params: str) -> None:
    """UTF-8 bytes in a part labelled us-ascii: each byte that is not ASCII is one U+FFFD.

    The label is what the sender declared (RFC 2045 5.1); the reader does not
    guess past it, whether the modern parser or the compat32 fallback read the mail.
    """
    raw = (b"From: alice@example.org\r\nTo: pbmserv@games.test\r\nSubject: multiple\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; " + params.encode() + b"\r\n\r\nsignup j\xc3\xb6rg geheim\r\n")
    assert parse_message(raw, "alice@example.org", OWN).commands == ["signup j\ufffd\ufffdrg geheim"]


def test_a_text_attachment_is_not_the_body() -> None:
    """Webmail sending HTML only, with a .txt file attached: the commands are in the HTML, not the file."""
    raw = wire(
        "From: Alice Example <alice@example.org>\n"
        "To: pbmserv@games.test\n"
        "Subject: multiple\n"
        "MIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="=_b1f3c0a9"\n'
        "\n"
        "--=_b1f3c0a9\n"
        "Content-Type: text/html; charset=UTF-8\n"
        "\n"
        "<html><body><div>help</div><div>help games</div></body></html>\n"
        "--=_b1f3c0a9\n"
        'Content-Type: text/plain; charset=UTF-8; name="notes.txt"\n'
        'Content-Disposition: attachment; filename="notes.txt"\n'
        "\n"
        "signup mallory secret1\n"
        "--=_b1f3c0a9--\n"
    )
    assert parse_message(raw, "alice@example.org", OWN).commands == ["help", "help games"]


def test_a_bounce_with_an_unreadable_from_has_no_from_address() -> None:
    """A From of 1000 nested comments is past what the stdlib's address parser can recurse into.

    The Content-Type makes the modern parser fail, so the compat32 fallback hands
    the raw From to ``parseaddr``, which raises RecursionError: the mail has no
    From address (not a made-up one), and as a bounce (null envelope sender) it
    gets no answer.
    """
    raw = (b"From: " + b"(" * 1000 + b"mailer-daemon@example.org\r\nTo: pbmserv@games.test\r\n"
           b"Subject: Undelivered Mail Returned to Sender\r\nContent-Type: text/plain; format*\r\n\r\nhi\r\n")
    parsed = parse_message(raw, "", OWN)
    assert parsed.from_address == "" and parsed.reply_to == ""
    assert parsed.no_reply_reason == "null envelope sender (a bounce)"


@pytest.mark.parametrize("newline", [b"\r\n", b"\n"], ids=["crlf", "lf-only"])
def test_the_header_field_limit_is_exactly_1000(newline: bytes) -> None:
    """MAX_HEADER_FIELDS says 1000 fields are read at most (a regression: 1001 were, unflagged).

    Field 1000 is the Subject: it is read whole; field 1001 is not read at all.
    """
    fields = [b"From: alice@example.org"] + [b"X-Note: x"] * 998 + [b"Subject: help"]
    exactly = newline.join([*fields, b"", b"body", b""])
    parsed = parse_message(exactly, "alice@example.org", OWN)
    assert parsed.no_reply_reason is None and parsed.problems == [] and parsed.subject == "help"
    one_more = newline.join([*fields, b"Reply-To: mallory@example.org", b"", b"body", b""])
    parsed = parse_message(one_more, "alice@example.org", OWN)
    assert parsed.no_reply_reason == "more than 1000 header fields"
    assert parsed.subject == "help" and parsed.reply_to == "alice@example.org"


def test_an_unreadable_from_does_not_make_the_reader_raise() -> None:
    """Regression: the From check for our own address re-read the field and raised RecursionError.

    Same mail as above but from an ordinary envelope sender: it is read, its
    command kept, and the answer goes to the envelope sender (no From address).
    """
    raw = (b"From: " + b"(" * 1000 + b"alice@example.org\r\nTo: pbmserv@games.test\r\n"
           b"Subject: help\r\nContent-Type: text/plain; format*\r\n\r\nhi\r\n")
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.from_address == "" and parsed.reply_to == "alice@example.org"
    assert parsed.commands == ["help"] and parsed.no_reply_reason is None
    assert parsed.problems == []  # compat32 reads the structure; only the From is unreadable


def test_a_mail_whose_headers_are_not_read_has_nobody_to_answer() -> None:
    """A field over 32 KB: nothing of the headers is read, so no address may be trusted or answered."""
    raw = (b"From: alice@example.org\r\nReply-To: carol@example.org\r\nSubject: help\r\n"
           b"X-Padding: " + b"a" * (40 * 1024) + b"\r\n\r\nhelp\r\n")
    parsed = parse_message(raw, "alice@example.org", OWN)
    assert parsed.no_reply_reason == "headers not read: a header field longer than 32 KB"
    assert (parsed.reply_to, parsed.from_address, parsed.subject, parsed.message_id) == ("", "", "", "")
    assert parsed.commands == [] and parsed.comment == ""


def test_reply_mode_with_no_line_and_no_subject_is_no_command() -> None:
    """A reply with an empty Subject and only a quote: there is nothing to play, not an empty command."""
    raw = reply_mail("\n\n> On 4 Mar 2025, at 09:12, pbmserv wrote:\n> bob played G1.\n").replace(
        b"Subject: Re: Warp and Weft Board 101 alice\r\n", b"Subject: \r\n")
    assert b"Subject: \r\n" in raw
    parsed = parse_message(raw, "alice@example.org", OWN, reply_token="k3j9x2")
    assert parsed.commands == [] and parsed.from_subject
