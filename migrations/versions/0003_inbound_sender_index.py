"""inbound: index (mail_from, received_at) for the per-sender rate limit

Revision ID: 0003_inbound_sender_index
Revises: 0002_reminders
Create Date: 2026-11-22 00:20:00

The listener counts a sender's messages of the last hour before every 250
(server/mail/inbound.py).  Without this index that count read the whole inbound
table: bench/bench_storage.py measured store() at 3.1 ms with 1k boards
(2k stored messages) and 23 ms with 20k boards (40k messages); with it,
3.5 ms and 1.9 ms.
"""
from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0003_inbound_sender_index'
down_revision: str | Sequence[str] | None = '0002_reminders'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.create_index('ix_inbound_mail_from_received_at', ['mail_from', 'received_at'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.drop_index('ix_inbound_mail_from_received_at')
