"""Drawing.runs: what a renderer compares from one position to the next (issue 25)."""

from __future__ import annotations

from games.drawing import Circle, Drawing, Rect, Text


def test_each_add_and_extend_is_one_run_of_the_very_tuples_handed() -> None:
    """A game hands its kept tuples again for what did not change; the runs must be those objects (the PNG
    renderer tells changes apart by identity), every shape once in order, and no empty run."""
    board = tuple(Rect(x * 10, 0, 10, 10, fill="#ffffff") for x in range(3))
    square = (Circle(5, 5, 4, fill="#000000"), Text(5, 5, "K"))
    status = Text(15, 20, "Red to move")
    d = Drawing(30, 30)
    d.extend(board)
    d.mark_base("runs")
    d.add(status)
    d.extend_runs([square, (), board[:1]])
    d.extend(iter([status]))
    d.add()
    assert d.runs[0] is board and d.runs[2] is square
    assert d.base_runs == 1 and d.base_count == 3
    assert [len(run) for run in d.runs] == [3, 1, 2, 1, 1]
    assert [s for run in d.runs for s in run] == d.shapes
    assert all(a is b for a, b in zip((s for run in d.runs for s in run), d.shapes, strict=True))
