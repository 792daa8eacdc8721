"""Everything that touches mail as mail, in the order a message travels.

In: ``listener`` (SMTP/LMTP, aiosmtpd) and ``guards`` refuse what must not
be stored; ``inbound`` stores what is accepted (group commit: 250 means on
disk) and ``fairqueue`` hands it to the workers sender by sender; ``dedupe``,
``parse``, ``mailtext`` and ``autoreply`` turn the stored bytes into command
lines.  Out: ``replies`` composes mails (``wrapping``, ``limits``), ``quota``
budgets them, ``outbox`` delivers them.  ``tokens`` are the HMAC tags in
reply addresses.

Knows nothing of boards, accounts or commands: it stands on ``pictures``,
``store`` and ``core``.
"""
