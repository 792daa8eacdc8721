"""The processes and their wiring: ``serve`` (the supervisor of listener,
workers and deliverer), ``worker`` (stored mail to command results), and
``cli`` (the admin's ``pbmserv`` tool).

The top of the house: it may import any folder; nothing imports it.
"""
