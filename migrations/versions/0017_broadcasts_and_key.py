"""broadcasts (opt-in, default off) and the TriMac coordinate key (default on)

Revision ID: 0017_broadcasts_and_key
Revises: 0011_computer
Create Date: 2026-11-28 09:00:00

Issue 26 items 14 and 9.  ``users.broadcasts``: the user receives other
players' ``broadcast`` mail; off by default, so nobody gets mail they did
not ask for.  ``users.coordinates``: board mails whose game has a
coordinate key (TriMac's §6.3 layout, each point showing its file and rank)
print it under the board; on by default, for a newcomer who has not found
the help page, ``coordinates USERID PASSWORD off`` drops it.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0017_broadcasts_and_key'
down_revision: str | Sequence[str] | None = '0011_computer'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('broadcasts', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('coordinates', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('coordinates')
        batch_op.drop_column('broadcasts')
