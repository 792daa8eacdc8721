"""The read-only board pages (``pbmserv web``, Starlette): a sibling of the
commands, reading boards and drawing them as SVG.
"""
