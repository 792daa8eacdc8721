"""users.pictures: board pictures in mail, on unless the user turns them off

Revision ID: 0005_user_pictures
Revises: 0004_server_secrets
Create Date: 2026-11-25 03:10:00

Every board mail carries an inline PNG of the board (issue 16); the mail
command ``pictures USERID PASSWORD on|off`` and ``pbmserv user pictures``
switch it per user.  Existing users get pictures (server default true).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0005_user_pictures'
down_revision: str | Sequence[str] | None = '0004_server_secrets'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pictures', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('pictures')
