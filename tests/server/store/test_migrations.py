"""The Alembic history: every revision up and down, and the models match the head."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from server.store.database import alembic_config, make_engine
from server.store.model import Base


def test_walk_every_revision_up_and_down(db_url: str) -> None:
    engine = make_engine(db_url)
    config = alembic_config(engine)
    script = ScriptDirectory.from_config(config)
    assert len(script.get_heads()) == 1, "the migration history must have one head"
    revisions = [r.revision for r in reversed(list(script.walk_revisions()))]
    with engine.connect() as conn:
        config.attributes["connection"] = conn
        for rev in revisions:
            command.upgrade(config, rev)
        command.downgrade(config, "base")
        command.upgrade(config, "head")
        conn.commit()
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations differ: {diff}"
