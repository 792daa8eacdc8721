"""stranger bytes: the size of each received message, for the strangers' hourly byte cap

Revision ID: 0016_stranger_bytes
Revises: 0008_stranger_pool
Create Date: 2026-11-27 09:10:00

Issue 32, item 9: strangers could fill the disk.  Their mail is capped per
message (--max-stranger-size) and, now, per server and hour: the listener
sums what senders without an account stored in the last hour.  The raw body
of a handled stranger's mail is dropped early, so the size is kept apart.
Existing rows have no size (NULL): the sum reads their stored length.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0016_stranger_bytes'
down_revision: str | Sequence[str] | None = '0010_flip_and_back'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.add_column(sa.Column('size', sa.Integer(), nullable=True))
        batch_op.create_index('ix_inbound_known_received_at', ['known', 'received_at'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.drop_index('ix_inbound_known_received_at')
        batch_op.drop_column('size')
