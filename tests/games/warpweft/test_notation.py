"""Reading moves (spec 3.7): coordinates, the state words and ``swap``.

Each parsed move must say what it is and write itself back the way the
game record writes it: a region by its centre in upper case, a switch by
the plural state word, a swap as ``swap``.
"""

from __future__ import annotations

import pytest

from games.warpweft.geometry import geometry
from games.warpweft.notation import Move, parse_move


@pytest.mark.parametrize(
    ("text", "kind", "record"),
    [
        # N=4: C3 is a Weft thread centre, O1 a Warp one, B2 a patch (spec 1.2 tables).
        (" c3 ", "place", "C3"),
        ("O1", "place", "O1"),
        ("b2", "place", "B2"),
        ("Threads", "switch", "threads"),
        ("thread", "switch", "threads"),
        ("PATCH", "switch", "patches"),
        ("patches", "switch", "patches"),
        ("Swap", "swap", "swap"),
    ],
)
def test_a_parsed_move_knows_its_kind_and_writes_its_record(
    text: str, kind: str, record: str
) -> None:
    """Parsing is case-insensitive; the record is the canonical spelling."""
    geo = geometry(4)
    move = parse_move(geo, text)
    assert move.kind == kind
    assert move.text(geo) == record
    if kind == "place":
        assert move == Move("place", region=geo.by_name[record])
    elif kind == "switch":
        assert move.state == record
