"""The floor every other folder stands on: settings and the one error type.

Nothing here imports any other part of ``server``.
"""
