"""imap_state: what the IMAP receiver knows of its mailbox (UID bookkeeping, state, last error)

Revision ID: 0015_imap_state
Revises: 0007_abuse_guards
Create Date: 2026-11-27 07:45:00

Issue 31.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0015_imap_state'
down_revision: str | Sequence[str] | None = '0007_abuse_guards'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('imap_state',
    sa.Column('mailbox', sa.String(length=400), nullable=False),
    sa.Column('uidvalidity', sa.Integer(), nullable=False),
    sa.Column('last_uid', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('since', sa.DateTime(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('last_error_at', sa.DateTime(), nullable=True),
    sa.Column('stored', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('mailbox', name=op.f('pk_imap_state'))
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('imap_state')
