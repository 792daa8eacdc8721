"""stranger pool: outbox rows for strangers only, counted against their own hourly budget

Revision ID: 0008_stranger_pool
Revises: 0007_abuse_guards
Create Date: 2026-11-27 08:20:00

Issue 32, item 5: strangers' sign-ups spent the one hourly outbound budget
and players' board mails waited.  Mail whose every recipient is a stranger
is marked, and the deliverer gives it a pool of its own.  Existing rows are
players' (server_default false): nothing already queued is held back.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0008_stranger_pool'
down_revision: str | Sequence[str] | None = '0009_outbox_pictures'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('stranger', sa.Boolean(), server_default='0', nullable=False))
        batch_op.create_index('ix_outbox_stranger_sent_at', ['stranger', 'sent_at'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_stranger_sent_at')
        batch_op.drop_column('stranger')
