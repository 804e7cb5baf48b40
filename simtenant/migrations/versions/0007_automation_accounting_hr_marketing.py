"""World automation, part 3 of 3: accounting, HR and marketing.

Revision ID: 0007
Revises: 0006
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "acct_customers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("billing_address", sa.String(), nullable=False),
        sa.Column("payment_terms_days", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("payment_terms_days BETWEEN 0 AND 120", name=op.f("ck_acct_customers_payment_terms_range")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_acct_customers")),
        sa.UniqueConstraint("name", name=op.f("uq_acct_customers_name")),
        info={"id_format": "CUST-{:03d}"},
    )
    op.create_table(
        "hr_employees",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("department", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("manager_id", sa.String(), nullable=True),
        sa.Column("start_date", sa.String(), nullable=False),
        sa.Column("end_date", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("location", sa.String(), nullable=False),
        sa.Column("annual_vacation_days", sa.Integer(), nullable=False),
        sa.Column("termination_reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "department IN ('Executive', 'Sales', 'Marketing', 'Operations', 'Support', 'Finance', 'People', 'Engineering')",
            name=op.f("ck_hr_employees_department_enum"),
        ),
        sa.CheckConstraint("status IN ('active', 'on_leave', 'terminated')", name=op.f("ck_hr_employees_status_enum")),
        sa.CheckConstraint("annual_vacation_days BETWEEN 0 AND 60", name=op.f("ck_hr_employees_vacation_days_range")),
        sa.ForeignKeyConstraint(
            ["manager_id"], ["hr_employees.id"], name=op.f("fk_hr_employees_manager_id_hr_employees")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hr_employees")),
        sa.UniqueConstraint("email", name=op.f("uq_hr_employees_email")),
        info={"id_format": "EMP-{:03d}"},
    )
    with op.batch_alter_table("hr_employees", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hr_employees_manager_id"), ["manager_id"], unique=False)
    op.create_table(
        "mkt_lists",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mkt_lists")),
        sa.UniqueConstraint("name", name=op.f("uq_mkt_lists_name")),
        info={"id_format": "LIST-{:02d}"},
    )
    op.create_table(
        "acct_invoices",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("customer_id", sa.String(), nullable=False),
        sa.Column("issue_date", sa.String(), nullable=False),
        sa.Column("due_date", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.Column("balance", sa.Float(), nullable=False),
        sa.Column("memo", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.String(), nullable=True),
        sa.Column("void_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('draft', 'sent', 'partially_paid', 'paid', 'overdue', 'void')",
            name=op.f("ck_acct_invoices_status_enum"),
        ),
        sa.CheckConstraint("balance >= 0 AND balance <= total", name=op.f("ck_acct_invoices_balance_range")),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["acct_customers.id"], name=op.f("fk_acct_invoices_customer_id_acct_customers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_acct_invoices")),
        info={"id_format": "INV-{:04d}"},
    )
    with op.batch_alter_table("acct_invoices", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_acct_invoices_customer_id"), ["customer_id"], unique=False)
    op.create_table(
        "hr_time_off",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("employee_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("start_date", sa.String(), nullable=False),
        sa.Column("end_date", sa.String(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("approver_id", sa.String(), nullable=True),
        sa.Column("decision_note", sa.Text(), nullable=True),
        sa.Column("requested_at", sa.String(), nullable=False),
        sa.Column("decided_at", sa.String(), nullable=True),
        sa.CheckConstraint("kind IN ('vacation', 'sick', 'parental')", name=op.f("ck_hr_time_off_kind_enum")),
        sa.CheckConstraint("status IN ('pending', 'approved', 'denied')", name=op.f("ck_hr_time_off_status_enum")),
        sa.CheckConstraint("days > 0", name=op.f("ck_hr_time_off_days_positive")),
        sa.CheckConstraint("end_date >= start_date", name=op.f("ck_hr_time_off_date_order")),
        sa.ForeignKeyConstraint(
            ["approver_id"], ["hr_employees.id"], name=op.f("fk_hr_time_off_approver_id_hr_employees")
        ),
        sa.ForeignKeyConstraint(
            ["employee_id"], ["hr_employees.id"], name=op.f("fk_hr_time_off_employee_id_hr_employees")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hr_time_off")),
        info={"id_format": "PTO-{:04d}"},
    )
    with op.batch_alter_table("hr_time_off", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hr_time_off_employee_id"), ["employee_id"], unique=False)
    op.create_table(
        "mkt_campaigns",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("list_id", sa.String(), nullable=False),
        sa.Column("subject", sa.String(), nullable=True),
        sa.Column("body", sa.Text(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("scheduled_for", sa.String(), nullable=True),
        sa.Column("sent_at", sa.String(), nullable=True),
        sa.Column("recipients", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('draft', 'scheduled', 'sent', 'cancelled')", name=op.f("ck_mkt_campaigns_status_enum")
        ),
        sa.ForeignKeyConstraint(["list_id"], ["mkt_lists.id"], name=op.f("fk_mkt_campaigns_list_id_mkt_lists")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mkt_campaigns")),
        info={"id_format": "CMP-{:03d}"},
    )
    with op.batch_alter_table("mkt_campaigns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mkt_campaigns_list_id"), ["list_id"], unique=False)
    op.create_table(
        "mkt_subscribers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("list_id", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("subscribed_at", sa.String(), nullable=False),
        sa.Column("unsubscribed_at", sa.String(), nullable=True),
        sa.CheckConstraint(
            "source IN ('website', 'import', 'event', 'crm', 'manual')", name=op.f("ck_mkt_subscribers_source_enum")
        ),
        sa.CheckConstraint(
            "status IN ('subscribed', 'unsubscribed', 'bounced')", name=op.f("ck_mkt_subscribers_status_enum")
        ),
        sa.ForeignKeyConstraint(["list_id"], ["mkt_lists.id"], name=op.f("fk_mkt_subscribers_list_id_mkt_lists")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mkt_subscribers")),
        sa.UniqueConstraint("list_id", "email", name="list_email"),
        info={"id_format": "SUB-{:04d}"},
    )
    with op.batch_alter_table("mkt_subscribers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mkt_subscribers_list_id"), ["list_id"], unique=False)
    op.create_table(
        "acct_invoice_lines",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("invoice_id", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.Column("quantity", sa.Float(), nullable=False),
        sa.Column("unit_price", sa.Float(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_acct_invoice_lines_quantity_positive")),
        sa.ForeignKeyConstraint(
            ["invoice_id"], ["acct_invoices.id"], name=op.f("fk_acct_invoice_lines_invoice_id_acct_invoices")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_acct_invoice_lines")),
        info={"id_format": "LINE-{:05d}"},
    )
    with op.batch_alter_table("acct_invoice_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_acct_invoice_lines_invoice_id"), ["invoice_id"], unique=False)
    op.create_table(
        "acct_payments",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("invoice_id", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("paid_on", sa.String(), nullable=False),
        sa.Column("method", sa.String(), nullable=False),
        sa.Column("reference", sa.String(), nullable=True),
        sa.Column("recorded_by", sa.String(), nullable=False),
        sa.CheckConstraint(
            "method IN ('bank_transfer', 'card', 'check', 'cash')", name=op.f("ck_acct_payments_method_enum")
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_acct_payments_amount_positive")),
        sa.ForeignKeyConstraint(
            ["invoice_id"], ["acct_invoices.id"], name=op.f("fk_acct_payments_invoice_id_acct_invoices")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_acct_payments")),
        info={"id_format": "PAY-{:04d}"},
    )
    with op.batch_alter_table("acct_payments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_acct_payments_invoice_id"), ["invoice_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("acct_payments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_acct_payments_invoice_id"))
    op.drop_table("acct_payments")
    with op.batch_alter_table("acct_invoice_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_acct_invoice_lines_invoice_id"))
    op.drop_table("acct_invoice_lines")
    with op.batch_alter_table("mkt_subscribers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mkt_subscribers_list_id"))
    op.drop_table("mkt_subscribers")
    with op.batch_alter_table("mkt_campaigns", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mkt_campaigns_list_id"))
    op.drop_table("mkt_campaigns")
    with op.batch_alter_table("hr_time_off", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hr_time_off_employee_id"))
    op.drop_table("hr_time_off")
    with op.batch_alter_table("acct_invoices", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_acct_invoices_customer_id"))
    op.drop_table("acct_invoices")
    op.drop_table("mkt_lists")
    with op.batch_alter_table("hr_employees", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hr_employees_manager_id"))
    op.drop_table("hr_employees")
    op.drop_table("acct_customers")
