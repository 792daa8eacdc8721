"""outbox pictures: the board pictures a queued mail still needs drawn

Revision ID: 0009_outbox_pictures
Revises: 0007_abuse_guards
Create Date: 2026-11-27 07:45:00

Issue 25.  A command no longer draws the PNG of the board inside its
transaction (the write lock on SQLite, the board's row lock on PostgreSQL):
the rendered mail holds a placeholder per picture and this column what to
draw for it (game, stored state, players), filled in by the deliverer.
NULL for mail without pictures and for every row queued before.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0009_outbox_pictures'
down_revision: str | Sequence[str] | None = '0013_tournaments'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pictures', sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('pictures')
