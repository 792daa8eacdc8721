"""pbmserv players' habits: per-game challenge policy, seeks, game-wide follows, unrated boards, vote clocks

Revision ID: 0006_game_habits
Revises: 0005_user_pictures
Create Date: 2026-11-25 03:00:00

Issue 17: ``GAME accept|reject|limit`` hold for one game (game_policies),
``GAME seek`` (seeks), ``GAME notify USERID PASSWORD`` and ``GAME subscribe
USERID PASSWORD all`` (game_follows), the admin's ``challenge --unrated``
(boards.rated) and stalled votes (boards.vote_since).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0006_game_habits'
down_revision: str | Sequence[str] | None = '0005_user_pictures'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rated', sa.Boolean(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('vote_since', sa.DateTime(), nullable=True))
    op.create_table('game_policies',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=40), nullable=False),
    sa.Column('policy', sa.String(length=10), nullable=True),
    sa.Column('board_limit', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_game_policies_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_policies')),
    sa.UniqueConstraint('user_id', 'game', name='uq_game_policies_user_game')
    )
    op.create_table('seeks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=40), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('tokens', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_seeks_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_seeks')),
    sa.UniqueConstraint('game', 'user_id', name='uq_seeks_game_user')
    )
    op.create_table('game_follows',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=40), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_game_follows_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_follows')),
    sa.UniqueConstraint('game', 'user_id', 'kind', name='uq_game_follows_game_user_kind')
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('game_follows')
    op.drop_table('seeks')
    op.drop_table('game_policies')
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.drop_column('vote_since')
        batch_op.drop_column('rated')
