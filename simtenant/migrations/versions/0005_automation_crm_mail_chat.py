"""World automation, part 1 of 3: CRM, mail and chat.

Revision ID: 0005
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("automation",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "crm_companies",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("domain", sa.String(), nullable=False),
        sa.Column("industry", sa.String(), nullable=False),
        sa.Column("owner_email", sa.String(), nullable=False),
        sa.Column("lifecycle", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "lifecycle IN ('prospect', 'customer', 'churned')", name=op.f("ck_crm_companies_lifecycle_enum")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crm_companies")),
        sa.UniqueConstraint("domain", name=op.f("uq_crm_companies_domain")),
    )
    op.create_table(
        "crm_contacts",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("company_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=True),
        sa.Column("phone", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"], ["crm_companies.id"], name=op.f("fk_crm_contacts_company_id_crm_companies")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crm_contacts")),
        sa.UniqueConstraint("email", name=op.f("uq_crm_contacts_email")),
    )
    with op.batch_alter_table("crm_contacts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_crm_contacts_company_id"), ["company_id"], unique=False)
    op.create_table(
        "crm_deals",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("company_id", sa.String(), nullable=False),
        sa.Column("contact_id", sa.String(), nullable=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("stage", sa.String(), nullable=False),
        sa.Column("owner_email", sa.String(), nullable=False),
        sa.Column("close_date", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "stage IN ('prospecting', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost')",
            name=op.f("ck_crm_deals_stage_enum"),
        ),
        sa.CheckConstraint("amount >= 0", name=op.f("ck_crm_deals_amount_nonneg")),
        sa.ForeignKeyConstraint(
            ["company_id"], ["crm_companies.id"], name=op.f("fk_crm_deals_company_id_crm_companies")
        ),
        sa.ForeignKeyConstraint(["contact_id"], ["crm_contacts.id"], name=op.f("fk_crm_deals_contact_id_crm_contacts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crm_deals")),
    )
    with op.batch_alter_table("crm_deals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_crm_deals_company_id"), ["company_id"], unique=False)
    op.create_table(
        "crm_notes",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("company_id", sa.String(), nullable=False),
        sa.Column("contact_id", sa.String(), nullable=True),
        sa.Column("deal_id", sa.String(), nullable=True),
        sa.Column("author_email", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"], ["crm_companies.id"], name=op.f("fk_crm_notes_company_id_crm_companies")
        ),
        sa.ForeignKeyConstraint(["contact_id"], ["crm_contacts.id"], name=op.f("fk_crm_notes_contact_id_crm_contacts")),
        sa.ForeignKeyConstraint(["deal_id"], ["crm_deals.id"], name=op.f("fk_crm_notes_deal_id_crm_deals")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crm_notes")),
    )
    with op.batch_alter_table("crm_notes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_crm_notes_company_id"), ["company_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_crm_notes_deal_id"), ["deal_id"], unique=False)
    op.create_table(
        "mail_messages",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("mailbox", sa.String(), nullable=False),
        sa.Column("folder", sa.String(), nullable=False),
        sa.Column("from_address", sa.String(), nullable=False),
        sa.Column("to_addresses", sa.String(), nullable=False),
        sa.Column("cc_addresses", sa.String(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("thread_id", sa.String(), nullable=False),
        sa.Column("in_reply_to", sa.String(), nullable=True),
        sa.Column("sent_at", sa.String(), nullable=False),
        sa.Column("read", sa.Boolean(), nullable=False),
        sa.CheckConstraint(
            "folder IN ('inbox', 'sent', 'archive', 'trash')", name=op.f("ck_mail_messages_folder_enum")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_messages")),
    )
    with op.batch_alter_table("mail_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mail_messages_mailbox"), ["mailbox"], unique=False)
        batch_op.create_index(batch_op.f("ix_mail_messages_thread_id"), ["thread_id"], unique=False)
    op.create_table(
        "chat_channels",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("topic", sa.String(), nullable=False),
        sa.Column("is_private", sa.Boolean(), nullable=False),
        sa.Column("is_direct", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_channels")),
        sa.UniqueConstraint("name", name=op.f("uq_chat_channels_name")),
    )
    op.create_table(
        "chat_members",
        sa.Column("channel_id", sa.String(), nullable=False),
        sa.Column("member_email", sa.String(), nullable=False),
        sa.Column("joined_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["chat_channels.id"], name=op.f("fk_chat_members_channel_id_chat_channels")
        ),
        sa.PrimaryKeyConstraint("channel_id", "member_email", name=op.f("pk_chat_members")),
    )
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("channel_id", sa.String(), nullable=False),
        sa.Column("author_email", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("parent_id", sa.String(), nullable=True),
        sa.Column("posted_at", sa.String(), nullable=False),
        sa.Column("edited_at", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["chat_channels.id"], name=op.f("fk_chat_messages_channel_id_chat_channels")
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"], ["chat_messages.id"], name=op.f("fk_chat_messages_parent_id_chat_messages")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
    )
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_messages_channel_id"), ["channel_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_chat_messages_parent_id"), ["parent_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_messages_parent_id"))
        batch_op.drop_index(batch_op.f("ix_chat_messages_channel_id"))
    op.drop_table("chat_messages")
    op.drop_table("chat_members")
    op.drop_table("chat_channels")
    with op.batch_alter_table("mail_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mail_messages_thread_id"))
        batch_op.drop_index(batch_op.f("ix_mail_messages_mailbox"))
    op.drop_table("mail_messages")
    with op.batch_alter_table("crm_notes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_crm_notes_deal_id"))
        batch_op.drop_index(batch_op.f("ix_crm_notes_company_id"))
    op.drop_table("crm_notes")
    with op.batch_alter_table("crm_deals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_crm_deals_company_id"))
    op.drop_table("crm_deals")
    with op.batch_alter_table("crm_contacts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_crm_contacts_company_id"))
    op.drop_table("crm_contacts")
    op.drop_table("crm_companies")
