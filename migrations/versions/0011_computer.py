"""computer opponent: the computer's work queue (moves, hints, reviews)

Revision ID: 0011_computer
Revises: 0007_abuse_guards
Create Date: 2026-11-27 08:00:00

Issue 27.  The computer players themselves are ordinary accounts
(computer-1 .. computer-3, made on first use), so no other table changes.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0011_computer'
down_revision: str | Sequence[str] | None = '0016_stranger_bytes'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('computer_jobs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('board_id', sa.Integer(), nullable=False),
    sa.Column('ply', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=320), nullable=True),
    sa.Column('message_id', sa.String(length=300), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('tries', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('claimed_until', sa.DateTime(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['board_id'], ['boards.id'], name=op.f('fk_computer_jobs_board_id_boards'),
                            ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_computer_jobs_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_computer_jobs')),
    sa.UniqueConstraint('board_id', 'kind', 'ply', 'user_id', name='uq_computer_jobs_board_kind_ply_user')
    )
    with op.batch_alter_table('computer_jobs', schema=None) as batch_op:
        batch_op.create_index('ix_computer_jobs_status_id', ['status', 'id'], unique=False)
        batch_op.create_index(batch_op.f('ix_computer_jobs_board_id'), ['board_id'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('computer_jobs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_computer_jobs_board_id'))
        batch_op.drop_index('ix_computer_jobs_status_id')
    op.drop_table('computer_jobs')
