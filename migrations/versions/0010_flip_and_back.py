"""flip (each player sees the board from their own side) and vacation's "back" half-state

Revision ID: 0010_flip_and_back
Revises: 0007_abuse_guards
Create Date: 2026-11-27 08:25:00

Issue 26 items 8 and 17.  ``flip`` is on by default (server_default true):
Black at the bottom for Black, as players expect.  ``vacation_back`` is set
by "vacation off" and cleared by the player's next move: reminders resume at
once, forfeits only after that move.  ``boards.totaltime`` is the original's
``--totaltime=DAYS`` clock (each player's time used, from the move times).
(The lead chains this after the other branches' revisions at merge.)
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0010_flip_and_back'
down_revision: str | Sequence[str] | None = '0008_stranger_pool'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('flip', sa.Boolean(), server_default=sa.true(), nullable=False))
        batch_op.add_column(sa.Column('vacation_back', sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.add_column(sa.Column('totaltime', sa.Float(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.drop_column('totaltime')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('vacation_back')
        batch_op.drop_column('flip')
