"""docs/record-format.md: every example is a record the rules accept, one for each game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import available, load_game
from games.record import outcome_of, parse, replay

DOC = Path(__file__).resolve().parents[2] / "docs" / "record-format.md"
EXAMPLES = [block for block in re.findall(r"```text\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
            if block.startswith("[Record ")]
GAMES = sorted(g.name for g in available() if g.name != "tictactoe")


def test_one_example_per_game() -> None:
    assert sorted(parse(text).tag("Game") for text in EXAMPLES) == GAMES


@pytest.mark.parametrize("text", EXAMPLES, ids=lambda t: parse(t).tag("Game"))
def test_example_replays(text: str) -> None:
    record = parse(text)
    game = load_game(record.tag("Game"))
    played = replay(game, record)
    assert len(played.moves) == int(record.tag("Plies"))
    # A finished example ended by the rules: its Result is the rules' outcome.
    stated = outcome_of(record)
    if stated is not None:
        ruled = game.outcome(played.final)
        assert ruled is not None and (ruled.winners, ruled.losers) == (stated.winners, stated.losers)
    assert max(len(line) for line in text.splitlines()) <= 78
