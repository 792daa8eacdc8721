"""The server's side of a game: boards and their text, one ``lifecycle``
(moves applied, queued moves, resignations, votes, finishing, clocks),
notes, watchers, ratings, and the timers (reminders and forfeits).

Commands and timers both call ``lifecycle``; it calls no command.  Stands on
``accounts``, ``mail``, ``pictures``, ``store`` and ``core``.
"""
