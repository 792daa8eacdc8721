"""abuse guards: inbound sender/known, address confirmation, password throttle, reply quota

Revision ID: 0007_abuse_guards
Revises: 0006_game_habits
Create Date: 2026-11-25 02:50:00

Issue 20.  Existing addresses count as confirmed (server_default true): they
were given by their owners before confirmation existed, and taking them away
would silence every running game.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0007_abuse_guards'
down_revision: str | Sequence[str] | None = '0006_game_habits'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.add_column(sa.Column('sender', sa.String(length=320), server_default='', nullable=False))
        batch_op.add_column(sa.Column('known', sa.Boolean(), server_default='0', nullable=False))
        batch_op.create_index('ix_inbound_sender_received_at', ['sender', 'received_at'], unique=False)
        batch_op.create_index('ix_inbound_status_known', ['status', 'known'], unique=False)
    with op.batch_alter_table('addresses', schema=None) as batch_op:
        batch_op.add_column(sa.Column('confirmed', sa.Boolean(), server_default='1', nullable=False))
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('guesses', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('guesses_since', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('guesses_told', sa.Boolean(), server_default='0', nullable=False))
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.create_index('ix_outbox_sent_at', ['sent_at'], unique=False)
    op.create_table('reply_quota',
    sa.Column('address', sa.String(length=320), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('address', 'day', name=op.f('pk_reply_quota'))
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('reply_quota')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_sent_at')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('guesses_told')
        batch_op.drop_column('guesses_since')
        batch_op.drop_column('guesses')
    with op.batch_alter_table('addresses', schema=None) as batch_op:
        batch_op.drop_column('confirmed')
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.drop_index('ix_inbound_status_known')
        batch_op.drop_index('ix_inbound_sender_received_at')
        batch_op.drop_column('known')
        batch_op.drop_column('sender')
