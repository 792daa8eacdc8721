"""server_secrets: the HMAC key of reply tokens (issue 15), made on first use

Revision ID: 0004_server_secrets
Revises: 0003_inbound_sender_index
Create Date: 2026-11-25 02:40:00

Written by hand to match server.store.model.ServerSecret; runs on SQLite and
PostgreSQL alike.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0004_server_secrets'
down_revision: str | Sequence[str] | None = '0003_inbound_sender_index'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('server_secrets',
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('value', sa.String(length=128), nullable=False),
    sa.Column('previous', sa.String(length=128), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_server_secrets'))
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('server_secrets')
