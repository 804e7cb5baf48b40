"""World homeservices: a home-services front office.

Revision ID: 0003
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("homeservices",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "businesses",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("trade", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("phone", sa.String(), nullable=False),
        sa.Column("hours", sa.String(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=False),
        sa.Column("policy", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "trade IN ('towing', 'junk_removal', 'dumpster_rental', 'gutter_cleaning', 'window_cleaning', 'lawn_care', 'pressure_washing', 'moving')",
            name=op.f("ck_businesses_trade_enum"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_businesses")),
    )
    op.create_table(
        "leads",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("business_id", sa.String(), nullable=False),
        sa.Column("channel", sa.String(), nullable=False),
        sa.Column("received_at", sa.String(), nullable=False),
        sa.Column("customer_name", sa.String(), nullable=False),
        sa.Column("zip", sa.String(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("silent", sa.Boolean(), nullable=False),
        sa.CheckConstraint("channel IN ('email', 'sms', 'web_form', 'voicemail')", name=op.f("ck_leads_channel_enum")),
        sa.CheckConstraint(
            "status IN ('NEW', 'NEED_INFO', 'QUOTED', 'DECLINED', 'SPAM')", name=op.f("ck_leads_status_enum")
        ),
        sa.ForeignKeyConstraint(["business_id"], ["businesses.id"], name=op.f("fk_leads_business_id_businesses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leads")),
    )
    with op.batch_alter_table("leads", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_leads_business_id"), ["business_id"], unique=False)
    op.create_table(
        "price_items",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("business_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("applies_when", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('base', 'per_unit', 'tier', 'surcharge', 'minimum')", name=op.f("ck_price_items_kind_enum")
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_price_items_amount_pos")),
        sa.ForeignKeyConstraint(["business_id"], ["businesses.id"], name=op.f("fk_price_items_business_id_businesses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_price_items")),
    )
    with op.batch_alter_table("price_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_price_items_business_id"), ["business_id"], unique=False)
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("business_id", sa.String(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["business_id"], ["businesses.id"], name=op.f("fk_reports_business_id_businesses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    op.create_table(
        "service_areas",
        sa.Column("business_id", sa.String(), nullable=False),
        sa.Column("zip", sa.String(), nullable=False),
        sa.Column("place", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["business_id"], ["businesses.id"], name=op.f("fk_service_areas_business_id_businesses")
        ),
        sa.PrimaryKeyConstraint("business_id", "zip", name=op.f("pk_service_areas")),
    )
    op.create_table(
        "lead_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lead_id", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("redundant", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("kind IN ('message', 'quote')", name=op.f("ck_lead_messages_kind_enum")),
        sa.CheckConstraint("role IN ('agent', 'customer')", name=op.f("ck_lead_messages_role_enum")),
        sa.ForeignKeyConstraint(["lead_id"], ["leads.id"], name=op.f("fk_lead_messages_lead_id_leads")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lead_messages")),
    )
    with op.batch_alter_table("lead_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lead_messages_lead_id"), ["lead_id"], unique=False)
    op.create_table(
        "lead_facts",
        sa.Column("lead_id", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.Column("reveal", sa.Text(), nullable=False),
        sa.Column("triggers", sa.JSON(), nullable=False),
        sa.Column("given", sa.Boolean(), nullable=False),
        sa.Column("required", sa.Boolean(), nullable=False),
        sa.Column("available", sa.Boolean(), nullable=False),
        sa.Column("asked_message_id", sa.Integer(), nullable=True),
        sa.Column("revealed_message_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["asked_message_id"], ["lead_messages.id"], name=op.f("fk_lead_facts_asked_message_id_lead_messages")
        ),
        sa.ForeignKeyConstraint(["lead_id"], ["leads.id"], name=op.f("fk_lead_facts_lead_id_leads")),
        sa.ForeignKeyConstraint(
            ["revealed_message_id"], ["lead_messages.id"], name=op.f("fk_lead_facts_revealed_message_id_lead_messages")
        ),
        sa.PrimaryKeyConstraint("lead_id", "key", name=op.f("pk_lead_facts")),
    )
    op.create_table(
        "quotes",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("lead_id", sa.String(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("total >= 0", name=op.f("ck_quotes_total_nonneg")),
        sa.ForeignKeyConstraint(["lead_id"], ["leads.id"], name=op.f("fk_quotes_lead_id_leads")),
        sa.ForeignKeyConstraint(["message_id"], ["lead_messages.id"], name=op.f("fk_quotes_message_id_lead_messages")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quotes")),
        info={"id_format": "Q-{:04d}"},
    )
    with op.batch_alter_table("quotes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_quotes_lead_id"), ["lead_id"], unique=False)
    op.create_table(
        "quote_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("quote_id", sa.String(), nullable=False),
        sa.Column("price_item_id", sa.String(), nullable=False),
        sa.Column("quantity", sa.Float(), nullable=False),
        sa.Column("unit_amount", sa.Float(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_quote_lines_quantity_pos")),
        sa.ForeignKeyConstraint(
            ["price_item_id"], ["price_items.id"], name=op.f("fk_quote_lines_price_item_id_price_items")
        ),
        sa.ForeignKeyConstraint(["quote_id"], ["quotes.id"], name=op.f("fk_quote_lines_quote_id_quotes")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quote_lines")),
    )
    with op.batch_alter_table("quote_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_quote_lines_quote_id"), ["quote_id"], unique=False)

    # ### end Alembic commands ###


def downgrade() -> None:
    with op.batch_alter_table("quote_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quote_lines_quote_id"))
    op.drop_table("quote_lines")
    with op.batch_alter_table("quotes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quotes_lead_id"))
    op.drop_table("quotes")
    op.drop_table("lead_facts")
    with op.batch_alter_table("lead_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lead_messages_lead_id"))
    op.drop_table("lead_messages")
    op.drop_table("service_areas")
    op.drop_table("reports")
    with op.batch_alter_table("price_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_price_items_business_id"))
    op.drop_table("price_items")
    with op.batch_alter_table("leads", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_leads_business_id"))
    op.drop_table("leads")
    op.drop_table("businesses")
    # ### end Alembic commands ###
