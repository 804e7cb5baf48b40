"""World homeservices: scripted adversarial customers (lead twists, piecemeal answers).

Revision ID: 0013
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # ALTER TABLE ADD COLUMN (not batch mode, which would rebuild the table and reorder its constraints)
    op.add_column("leads", sa.Column("piecemeal", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table(
        "lead_twists",
        sa.Column("lead_id", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("cue", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("fact_key", sa.String(), nullable=True),
        sa.Column("value", sa.String(), nullable=True),
        sa.Column("reveal", sa.Text(), nullable=True),
        sa.Column("made_message_id", sa.Integer(), nullable=True),
        sa.Column("answered_message_id", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "(kind = 'change') = (fact_key IS NOT NULL AND value IS NOT NULL AND reveal IS NOT NULL)",
            name=op.f("ck_lead_twists_change_names_a_fact"),
        ),
        sa.CheckConstraint("cue IN ('first_answer', 'quote')", name=op.f("ck_lead_twists_cue_enum")),
        sa.CheckConstraint("kind != 'haggle' OR cue = 'quote'", name=op.f("ck_lead_twists_haggle_on_quote")),
        sa.CheckConstraint("kind IN ('haggle', 'change', 'exception')", name=op.f("ck_lead_twists_kind_enum")),
        sa.ForeignKeyConstraint(
            ["answered_message_id"],
            ["lead_messages.id"],
            name=op.f("fk_lead_twists_answered_message_id_lead_messages"),
        ),
        sa.ForeignKeyConstraint(["lead_id"], ["leads.id"], name=op.f("fk_lead_twists_lead_id_leads")),
        sa.ForeignKeyConstraint(
            ["made_message_id"], ["lead_messages.id"], name=op.f("fk_lead_twists_made_message_id_lead_messages")
        ),
        sa.PrimaryKeyConstraint("lead_id", "key", name=op.f("pk_lead_twists")),
    )


def downgrade() -> None:
    op.drop_table("lead_twists")
    op.drop_column("leads", "piecemeal")
