"""pbmserv: the mail-facing application."""
