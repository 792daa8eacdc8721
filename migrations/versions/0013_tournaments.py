"""tournaments: round robins, Swiss and TriMac pools by mail

Revision ID: 0013_tournaments
Revises: 0007_abuse_guards
Create Date: 2026-11-27 07:45:00

Issue 29.  Boards gain the tournament and round they belong to (None for
every existing board).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0013_tournaments'
down_revision: str | Sequence[str] | None = '0012_auto_moves'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('tournaments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('game', sa.String(length=40), nullable=False),
    sa.Column('kind', sa.String(length=12), nullable=False),
    sa.Column('rounds', sa.Integer(), nullable=True),
    sa.Column('tokens', sa.JSON(), nullable=False),
    sa.Column('starts_at', sa.DateTime(), nullable=True),
    sa.Column('max_players', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('current_round', sa.Integer(), nullable=False),
    sa.Column('nagtime', sa.Float(), nullable=False),
    sa.Column('forfeittime', sa.Float(), nullable=False),
    sa.Column('vacation_days', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournaments')),
    sa.UniqueConstraint('name', name=op.f('uq_tournaments_name'))
    )
    op.create_table('tournament_players',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('tournament_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('joined_at', sa.DateTime(), nullable=False),
    sa.Column('withdrawn_at', sa.DateTime(), nullable=True),
    sa.Column('byes', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'],
                            name=op.f('fk_tournament_players_tournament_id_tournaments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_tournament_players_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournament_players')),
    sa.UniqueConstraint('tournament_id', 'user_id', name='uq_tournament_players_tournament_id')
    )
    with op.batch_alter_table('tournament_players', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tournament_players_user_id'), ['user_id'], unique=False)
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tournament_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('tournament_round', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_boards_tournament_id'), ['tournament_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_boards_tournament_id_tournaments'), 'tournaments',
                                    ['tournament_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_boards_tournament_id_tournaments'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_boards_tournament_id'))
        batch_op.drop_column('tournament_round')
        batch_op.drop_column('tournament_id')
    with op.batch_alter_table('tournament_players', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_players_user_id'))
    op.drop_table('tournament_players')
    op.drop_table('tournaments')
