"""World automation, part 4: inventory (ERP) and the status page.

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inv_vendors",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("contact_name", sa.String(), nullable=True),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("phone", sa.String(), nullable=True),
        sa.Column("payment_terms_days", sa.Integer(), nullable=False),
        sa.Column("lead_time_days", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('active', 'inactive')", name=op.f("ck_inv_vendors_status_enum")),
        sa.CheckConstraint("lead_time_days BETWEEN 0 AND 365", name=op.f("ck_inv_vendors_lead_time_range")),
        sa.CheckConstraint("payment_terms_days BETWEEN 0 AND 120", name=op.f("ck_inv_vendors_payment_terms_range")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inv_vendors")),
        sa.UniqueConstraint("name", name=op.f("uq_inv_vendors_name")),
        info={"id_format": "VEN-{:03d}"},
    )
    op.create_table(
        "inv_warehouses",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("address", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('active', 'closed')", name=op.f("ck_inv_warehouses_status_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inv_warehouses")),
        sa.UniqueConstraint("name", name=op.f("uq_inv_warehouses_name")),
        info={"id_format": "WH-{:02d}"},
    )
    op.create_table(
        "status_components",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance')",
            name=op.f("ck_status_components_status_enum"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_components")),
        sa.UniqueConstraint("name", name=op.f("uq_status_components_name")),
        info={"id_format": "COMP-{:02d}"},
    )
    op.create_table(
        "status_incidents",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("impact", sa.String(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("started_at", sa.String(), nullable=False),
        sa.Column("resolved_at", sa.String(), nullable=True),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "impact IN ('none', 'minor', 'major', 'critical')", name=op.f("ck_status_incidents_impact_enum")
        ),
        sa.CheckConstraint(
            "status IN ('investigating', 'identified', 'monitoring', 'resolved')",
            name=op.f("ck_status_incidents_status_enum"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_incidents")),
        info={"id_format": "INC-{:04d}"},
    )
    op.create_table(
        "status_maintenances",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("starts_at", sa.String(), nullable=False),
        sa.Column("ends_at", sa.String(), nullable=False),
        sa.Column("notified", sa.Integer(), nullable=False),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('scheduled', 'in_progress', 'completed', 'cancelled')",
            name=op.f("ck_status_maintenances_status_enum"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_maintenances")),
        info={"id_format": "MNT-{:04d}"},
    )
    op.create_table(
        "inv_items",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("unit_cost", sa.Float(), nullable=False),
        sa.Column("vendor_id", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('active', 'discontinued')", name=op.f("ck_inv_items_status_enum")),
        sa.CheckConstraint("unit_cost >= 0", name=op.f("ck_inv_items_unit_cost_nonneg")),
        sa.ForeignKeyConstraint(["vendor_id"], ["inv_vendors.id"], name=op.f("fk_inv_items_vendor_id_inv_vendors")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inv_items")),
        sa.UniqueConstraint("sku", name=op.f("uq_inv_items_sku")),
        info={"id_format": "ITM-{:04d}"},
    )
    with op.batch_alter_table("inv_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inv_items_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "inv_purchase_orders",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("vendor_id", sa.String(), nullable=False),
        sa.Column("warehouse_id", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("buyer_email", sa.String(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.Column("expected_date", sa.String(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("submitted_at", sa.String(), nullable=True),
        sa.Column("approved_by", sa.String(), nullable=True),
        sa.Column("ordered_at", sa.String(), nullable=True),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('draft', 'pending_approval', 'ordered', 'partially_received', 'received', 'cancelled')",
            name=op.f("ck_inv_purchase_orders_status_enum"),
        ),
        sa.CheckConstraint("total >= 0", name=op.f("ck_inv_purchase_orders_total_nonneg")),
        sa.ForeignKeyConstraint(
            ["vendor_id"], ["inv_vendors.id"], name=op.f("fk_inv_purchase_orders_vendor_id_inv_vendors")
        ),
        sa.ForeignKeyConstraint(
            ["warehouse_id"], ["inv_warehouses.id"], name=op.f("fk_inv_purchase_orders_warehouse_id_inv_warehouses")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inv_purchase_orders")),
        info={"id_format": "PO-{:04d}"},
    )
    with op.batch_alter_table("inv_purchase_orders", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inv_purchase_orders_buyer_email"), ["buyer_email"], unique=False)
        batch_op.create_index(batch_op.f("ix_inv_purchase_orders_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "status_incident_components",
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("component_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["component_id"],
            ["status_components.id"],
            name=op.f("fk_status_incident_components_component_id_status_components"),
        ),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["status_incidents.id"],
            name=op.f("fk_status_incident_components_incident_id_status_incidents"),
        ),
        sa.PrimaryKeyConstraint("incident_id", "component_id", name=op.f("pk_status_incident_components")),
    )
    with op.batch_alter_table("status_incident_components", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_status_incident_components_component_id"), ["component_id"], unique=False)

    op.create_table(
        "status_incident_updates",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("notified", sa.Integer(), nullable=False),
        sa.Column("posted_by", sa.String(), nullable=False),
        sa.Column("posted_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('investigating', 'identified', 'monitoring', 'resolved')",
            name=op.f("ck_status_incident_updates_status_enum"),
        ),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["status_incidents.id"],
            name=op.f("fk_status_incident_updates_incident_id_status_incidents"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_incident_updates")),
        info={"id_format": "UPD-{:05d}"},
    )
    with op.batch_alter_table("status_incident_updates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_status_incident_updates_incident_id"), ["incident_id"], unique=False)

    op.create_table(
        "status_maintenance_components",
        sa.Column("maintenance_id", sa.String(), nullable=False),
        sa.Column("component_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["component_id"],
            ["status_components.id"],
            name=op.f("fk_status_maintenance_components_component_id_status_components"),
        ),
        sa.ForeignKeyConstraint(
            ["maintenance_id"],
            ["status_maintenances.id"],
            name=op.f("fk_status_maintenance_components_maintenance_id_status_maintenances"),
        ),
        sa.PrimaryKeyConstraint("maintenance_id", "component_id", name=op.f("pk_status_maintenance_components")),
    )
    with op.batch_alter_table("status_maintenance_components", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_status_maintenance_components_component_id"), ["component_id"], unique=False
        )

    op.create_table(
        "status_subscribers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("component_id", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("unsubscribed_at", sa.String(), nullable=True),
        sa.CheckConstraint("status IN ('active', 'unsubscribed')", name=op.f("ck_status_subscribers_status_enum")),
        sa.ForeignKeyConstraint(
            ["component_id"],
            ["status_components.id"],
            name=op.f("fk_status_subscribers_component_id_status_components"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_subscribers")),
        info={"id_format": "SBR-{:04d}"},
    )
    with op.batch_alter_table("status_subscribers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_status_subscribers_email"), ["email"], unique=False)

    op.create_table(
        "inv_movements",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("item_id", sa.String(), nullable=False),
        sa.Column("warehouse_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("po_id", sa.String(), nullable=True),
        sa.Column("reference", sa.String(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('receipt', 'shipment', 'adjustment', 'transfer_out', 'transfer_in')",
            name=op.f("ck_inv_movements_kind_enum"),
        ),
        sa.CheckConstraint("quantity != 0", name=op.f("ck_inv_movements_quantity_nonzero")),
        sa.ForeignKeyConstraint(["item_id"], ["inv_items.id"], name=op.f("fk_inv_movements_item_id_inv_items")),
        sa.ForeignKeyConstraint(
            ["po_id"], ["inv_purchase_orders.id"], name=op.f("fk_inv_movements_po_id_inv_purchase_orders")
        ),
        sa.ForeignKeyConstraint(
            ["warehouse_id"], ["inv_warehouses.id"], name=op.f("fk_inv_movements_warehouse_id_inv_warehouses")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inv_movements")),
        info={"id_format": "MOV-{:05d}"},
    )
    with op.batch_alter_table("inv_movements", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inv_movements_item_id"), ["item_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_inv_movements_po_id"), ["po_id"], unique=False)

    op.create_table(
        "inv_po_lines",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("po_id", sa.String(), nullable=False),
        sa.Column("item_id", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("unit_cost", sa.Float(), nullable=False),
        sa.Column("received_qty", sa.Integer(), nullable=False),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_inv_po_lines_quantity_positive")),
        sa.CheckConstraint(
            "received_qty >= 0 AND received_qty <= quantity", name=op.f("ck_inv_po_lines_received_range")
        ),
        sa.CheckConstraint("unit_cost >= 0", name=op.f("ck_inv_po_lines_unit_cost_nonneg")),
        sa.ForeignKeyConstraint(["item_id"], ["inv_items.id"], name=op.f("fk_inv_po_lines_item_id_inv_items")),
        sa.ForeignKeyConstraint(
            ["po_id"], ["inv_purchase_orders.id"], name=op.f("fk_inv_po_lines_po_id_inv_purchase_orders")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inv_po_lines")),
        sa.UniqueConstraint("po_id", "item_id", name="po_item"),
        info={"id_format": "POL-{:05d}"},
    )
    with op.batch_alter_table("inv_po_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inv_po_lines_po_id"), ["po_id"], unique=False)

    op.create_table(
        "inv_stock",
        sa.Column("item_id", sa.String(), nullable=False),
        sa.Column("warehouse_id", sa.String(), nullable=False),
        sa.Column("on_hand", sa.Integer(), nullable=False),
        sa.Column("reorder_point", sa.Integer(), nullable=False),
        sa.Column("bin", sa.String(), nullable=True),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint("on_hand >= 0", name=op.f("ck_inv_stock_on_hand_nonneg")),
        sa.CheckConstraint("reorder_point >= 0", name=op.f("ck_inv_stock_reorder_point_nonneg")),
        sa.ForeignKeyConstraint(["item_id"], ["inv_items.id"], name=op.f("fk_inv_stock_item_id_inv_items")),
        sa.ForeignKeyConstraint(
            ["warehouse_id"], ["inv_warehouses.id"], name=op.f("fk_inv_stock_warehouse_id_inv_warehouses")
        ),
        sa.PrimaryKeyConstraint("item_id", "warehouse_id", name=op.f("pk_inv_stock")),
    )
    with op.batch_alter_table("inv_stock", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inv_stock_warehouse_id"), ["warehouse_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("inv_stock", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inv_stock_warehouse_id"))

    op.drop_table("inv_stock")
    with op.batch_alter_table("inv_po_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inv_po_lines_po_id"))

    op.drop_table("inv_po_lines")
    with op.batch_alter_table("inv_movements", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inv_movements_po_id"))
        batch_op.drop_index(batch_op.f("ix_inv_movements_item_id"))

    op.drop_table("inv_movements")
    with op.batch_alter_table("status_subscribers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_status_subscribers_email"))

    op.drop_table("status_subscribers")
    with op.batch_alter_table("status_maintenance_components", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_status_maintenance_components_component_id"))

    op.drop_table("status_maintenance_components")
    with op.batch_alter_table("status_incident_updates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_status_incident_updates_incident_id"))

    op.drop_table("status_incident_updates")
    with op.batch_alter_table("status_incident_components", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_status_incident_components_component_id"))

    op.drop_table("status_incident_components")
    with op.batch_alter_table("inv_purchase_orders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inv_purchase_orders_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_inv_purchase_orders_buyer_email"))

    op.drop_table("inv_purchase_orders")
    with op.batch_alter_table("inv_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inv_items_vendor_id"))

    op.drop_table("inv_items")
    op.drop_table("status_maintenances")
    op.drop_table("status_incidents")
    op.drop_table("status_components")
    op.drop_table("inv_warehouses")
    op.drop_table("inv_vendors")
