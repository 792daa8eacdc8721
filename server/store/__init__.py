"""Where state lives: the SQLAlchemy model, the engine and its transactions,
and the files shipped with the package (templates, migrations).

The move path's statements run past SQLAlchemy's execution layer
(``prepared``: compiled and typed by SQLAlchemy, run on the driver's
cursor), and plain column updates past the unit of work (``light_flush``).

Stands on ``core`` only; every folder above reads and writes through it.
"""
