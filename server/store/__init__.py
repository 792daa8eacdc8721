"""Where state lives: the SQLAlchemy model, the engine and its transactions,
and the files shipped with the package (templates, migrations).

Stands on ``core`` only; every folder above reads and writes through it.
"""
