"""World itsm: what the desk's configuration tools need — active flags and addresses of locations,
descriptions and active flags of groups, descriptions and criticality of services, a service and an
active flag on incident templates, and the delivery state of notifications (scheduled, sent, read,
failed; when a scheduled one goes out and when one was read).

The columns are added with SQLite's ALTER TABLE ADD COLUMN, each with its named constraint written
in the column, so the tables keep every row and no table is copied.

Revision ID: 0014
Revises: 0004 (the itsm branch: the snapshots of itsm and itsm-msp are built from ``itsm@head``)
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, column, its definition): every column is added at the end of its table
COLUMNS = [
    ("locations", "address", "VARCHAR"),
    ("locations", "active", "BOOLEAN DEFAULT 1 NOT NULL"),
    ("user_groups", "description", "TEXT"),
    ("user_groups", "active", "BOOLEAN DEFAULT 1 NOT NULL"),
    ("services", "description", "TEXT"),
    (
        "services",
        "criticality",
        "VARCHAR DEFAULT 'medium' NOT NULL CONSTRAINT ck_services_criticality_enum "
        "CHECK (criticality IN ('critical', 'high', 'medium', 'low'))",
    ),
    (
        "incident_templates",
        "service_id",
        "VARCHAR CONSTRAINT fk_incident_templates_service_id_services REFERENCES services (id)",
    ),
    ("incident_templates", "active", "BOOLEAN DEFAULT 1 NOT NULL"),
    (
        "notifications",
        "status",
        "VARCHAR DEFAULT 'sent' NOT NULL CONSTRAINT ck_notifications_status_enum "
        "CHECK (status IN ('scheduled', 'sent', 'read', 'failed'))",
    ),
    ("notifications", "scheduled_for", "VARCHAR"),
    ("notifications", "read_at", "VARCHAR"),
]


def upgrade() -> None:
    for table, column, definition in COLUMNS:
        op.execute(f'ALTER TABLE "{table}" ADD COLUMN "{column}" {definition}')


def downgrade() -> None:
    for table, column, _ in reversed(COLUMNS):
        if table == "incident_templates" and column == "service_id":  # a foreign key: the table is copied
            with op.batch_alter_table(table, recreate="always") as batch_op:
                batch_op.drop_column(column)
        else:
            op.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
