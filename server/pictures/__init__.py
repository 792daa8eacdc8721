"""Drawing a position for a person: PNG for mail, SVG for the web page, and
the cache that lets the players and watchers of one move share one PNG.

Stands on ``store`` and on ``games`` (a game draws itself; this folder turns
the drawing into bytes).
"""
