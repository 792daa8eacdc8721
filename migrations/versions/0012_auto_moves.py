"""auto moves: moves.auto marks a move the server played for its owner

Revision ID: 0012_auto_moves
Revises: 0007_abuse_guards
Create Date: 2026-11-27 08:00:00

Issue 28 and issue 26 item 11: a queued or conditional move is shown as
"(auto)" in the move list, for good, so it is a column of the move (the
trees themselves are pending state and live in Board.pending, like the
one queued move).  Existing moves were all typed by their players.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0012_auto_moves'
down_revision: str | Sequence[str] | None = '0015_imap_state'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.add_column(sa.Column('auto', sa.Boolean(), server_default='0', nullable=False))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.drop_column('auto')
