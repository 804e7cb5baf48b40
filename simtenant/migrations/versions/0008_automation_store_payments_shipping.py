"""World automation, part 4: the online store, payments and shipping.

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pay_payouts",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("bank_account", sa.String(), nullable=False),
        sa.Column("arrival_date", sa.String(), nullable=False),
        sa.Column("failure_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'in_transit', 'paid', 'failed')", name=op.f("ck_pay_payouts_status_enum")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pay_payouts")),
        info={"id_format": "PYO-{:04d}"},
    )
    op.create_table(
        "ship_carriers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("mode", sa.String(), nullable=False),
        sa.Column("max_package_lb", sa.Float(), nullable=False),
        sa.Column("regions", sa.String(), nullable=False),
        sa.Column("account_number", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.CheckConstraint("mode IN ('parcel', 'freight')", name=op.f("ck_ship_carriers_mode_enum")),
        sa.CheckConstraint("status IN ('active', 'inactive')", name=op.f("ck_ship_carriers_status_enum")),
        sa.CheckConstraint("max_package_lb > 0", name=op.f("ck_ship_carriers_max_package_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ship_carriers")),
        sa.UniqueConstraint("code", name=op.f("uq_ship_carriers_code")),
        sa.UniqueConstraint("name", name=op.f("uq_ship_carriers_name")),
        info={"id_format": "CAR-{:02d}"},
    )
    op.create_table(
        "store_customers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("phone", sa.String(), nullable=True),
        sa.Column("address", sa.String(), nullable=True),
        sa.Column("tags", sa.String(), nullable=False),
        sa.Column("accepts_marketing", sa.Boolean(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_customers")),
        sa.UniqueConstraint("email", name=op.f("uq_store_customers_email")),
        info={"id_format": "SCU-{:04d}"},
    )
    op.create_table(
        "store_discounts",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("minimum_subtotal", sa.Float(), nullable=False),
        sa.Column("starts_on", sa.String(), nullable=False),
        sa.Column("ends_on", sa.String(), nullable=False),
        sa.Column("once_per_customer", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("times_used", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("kind IN ('percent', 'fixed')", name=op.f("ck_store_discounts_kind_enum")),
        sa.CheckConstraint("status IN ('active', 'disabled')", name=op.f("ck_store_discounts_status_enum")),
        sa.CheckConstraint("ends_on >= starts_on", name=op.f("ck_store_discounts_date_order")),
        sa.CheckConstraint("value > 0", name=op.f("ck_store_discounts_value_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_discounts")),
        sa.UniqueConstraint("code", name=op.f("uq_store_discounts_code")),
        info={"id_format": "DSC-{:03d}"},
    )
    op.create_table(
        "store_products",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("final_sale", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('active', 'draft', 'archived')", name=op.f("ck_store_products_status_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_products")),
        info={"id_format": "PRD-{:03d}"},
    )
    op.create_table(
        "ship_services",
        sa.Column("carrier_id", sa.String(), nullable=False),
        sa.Column("service", sa.String(), nullable=False),
        sa.Column("base_rate", sa.Float(), nullable=False),
        sa.Column("per_lb", sa.Float(), nullable=False),
        sa.Column("transit_days", sa.Integer(), nullable=False),
        sa.CheckConstraint("service IN ('ground', 'express', 'freight')", name=op.f("ck_ship_services_service_enum")),
        sa.CheckConstraint("base_rate >= 0 AND per_lb >= 0", name=op.f("ck_ship_services_rates_nonneg")),
        sa.CheckConstraint("transit_days > 0", name=op.f("ck_ship_services_transit_positive")),
        sa.ForeignKeyConstraint(
            ["carrier_id"], ["ship_carriers.id"], name=op.f("fk_ship_services_carrier_id_ship_carriers")
        ),
        sa.PrimaryKeyConstraint("carrier_id", "service", name=op.f("pk_ship_services")),
    )
    op.create_table(
        "store_orders",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("customer_id", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("payment_status", sa.String(), nullable=False),
        sa.Column("fulfillment_status", sa.String(), nullable=False),
        sa.Column("subtotal", sa.Float(), nullable=False),
        sa.Column("discount_code", sa.String(), nullable=True),
        sa.Column("discount_total", sa.Float(), nullable=False),
        sa.Column("shipping_total", sa.Float(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.Column("refunded_total", sa.Float(), nullable=False),
        sa.Column("shipping_address", sa.String(), nullable=False),
        sa.Column("on_hold", sa.Boolean(), nullable=False),
        sa.Column("hold_reason", sa.Text(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("placed_at", sa.String(), nullable=False),
        sa.Column("fulfilled_at", sa.String(), nullable=True),
        sa.Column("delivered_at", sa.String(), nullable=True),
        sa.Column("cancelled_at", sa.String(), nullable=True),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "fulfillment_status IN ('unfulfilled', 'fulfilled', 'delivered')",
            name=op.f("ck_store_orders_fulfillment_status_enum"),
        ),
        sa.CheckConstraint(
            "payment_status IN ('pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided')",
            name=op.f("ck_store_orders_payment_status_enum"),
        ),
        sa.CheckConstraint("status IN ('open', 'cancelled')", name=op.f("ck_store_orders_status_enum")),
        sa.CheckConstraint(
            "total >= 0 AND refunded_total >= 0 AND refunded_total <= total", name=op.f("ck_store_orders_amounts_range")
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["store_customers.id"], name=op.f("fk_store_orders_customer_id_store_customers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_orders")),
        info={"id_format": "SO-{:04d}"},
    )
    with op.batch_alter_table("store_orders", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_store_orders_customer_id"), ["customer_id"], unique=False)

    op.create_table(
        "store_variants",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("product_id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("option", sa.String(), nullable=False),
        sa.Column("price", sa.Float(), nullable=False),
        sa.Column("inventory", sa.Integer(), nullable=False),
        sa.Column("weight_lb", sa.Float(), nullable=False),
        sa.CheckConstraint("inventory >= 0", name=op.f("ck_store_variants_inventory_nonneg")),
        sa.CheckConstraint("price >= 0", name=op.f("ck_store_variants_price_nonneg")),
        sa.CheckConstraint("weight_lb > 0", name=op.f("ck_store_variants_weight_positive")),
        sa.ForeignKeyConstraint(
            ["product_id"], ["store_products.id"], name=op.f("fk_store_variants_product_id_store_products")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_variants")),
        sa.UniqueConstraint("sku", name=op.f("uq_store_variants_sku")),
        info={"id_format": "VAR-{:04d}"},
    )
    with op.batch_alter_table("store_variants", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_store_variants_product_id"), ["product_id"], unique=False)

    op.create_table(
        "pay_charges",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=True),
        sa.Column("invoice_id", sa.String(), nullable=True),
        sa.Column("customer_name", sa.String(), nullable=False),
        sa.Column("customer_email", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("amount_captured", sa.Float(), nullable=False),
        sa.Column("amount_refunded", sa.Float(), nullable=False),
        sa.Column("fee", sa.Float(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("card_brand", sa.String(), nullable=False),
        sa.Column("card_last4", sa.String(), nullable=False),
        sa.Column("failure_reason", sa.String(), nullable=True),
        sa.Column("payout_id", sa.String(), nullable=True),
        sa.Column("receipt_sent_to", sa.String(), nullable=True),
        sa.Column("receipt_sent_at", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("captured_at", sa.String(), nullable=True),
        sa.CheckConstraint(
            "status IN ('authorized', 'succeeded', 'failed', 'voided')", name=op.f("ck_pay_charges_status_enum")
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_pay_charges_amount_positive")),
        sa.CheckConstraint(
            "amount_captured >= 0 AND amount_captured <= amount AND amount_refunded >= 0 AND amount_refunded <= amount_captured",
            name=op.f("ck_pay_charges_amounts_range"),
        ),
        sa.ForeignKeyConstraint(
            ["invoice_id"], ["acct_invoices.id"], name=op.f("fk_pay_charges_invoice_id_acct_invoices")
        ),
        sa.ForeignKeyConstraint(["order_id"], ["store_orders.id"], name=op.f("fk_pay_charges_order_id_store_orders")),
        sa.ForeignKeyConstraint(["payout_id"], ["pay_payouts.id"], name=op.f("fk_pay_charges_payout_id_pay_payouts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pay_charges")),
        info={"id_format": "CHG-{:05d}"},
    )
    with op.batch_alter_table("pay_charges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pay_charges_customer_email"), ["customer_email"], unique=False)
        batch_op.create_index(batch_op.f("ix_pay_charges_invoice_id"), ["invoice_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_pay_charges_order_id"), ["order_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_pay_charges_payout_id"), ["payout_id"], unique=False)

    op.create_table(
        "store_order_lines",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("variant_id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("unit_price", sa.Float(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_store_order_lines_quantity_positive")),
        sa.ForeignKeyConstraint(
            ["order_id"], ["store_orders.id"], name=op.f("fk_store_order_lines_order_id_store_orders")
        ),
        sa.ForeignKeyConstraint(
            ["variant_id"], ["store_variants.id"], name=op.f("fk_store_order_lines_variant_id_store_variants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_order_lines")),
        info={"id_format": "SOL-{:05d}"},
    )
    with op.batch_alter_table("store_order_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_store_order_lines_order_id"), ["order_id"], unique=False)

    op.create_table(
        "pay_disputes",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("charge_id", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("claim", sa.Text(), nullable=True),
        sa.Column("evidence_due_by", sa.String(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=True),
        sa.Column("evidence_tracking_number", sa.String(), nullable=True),
        sa.Column("submitted_at", sa.String(), nullable=True),
        sa.Column("closed_at", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "reason IN ('fraudulent', 'product_not_received', 'product_unacceptable', 'duplicate', 'credit_not_processed', 'general')",
            name=op.f("ck_pay_disputes_reason_enum"),
        ),
        sa.CheckConstraint(
            "status IN ('needs_response', 'under_review', 'won', 'lost')", name=op.f("ck_pay_disputes_status_enum")
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_pay_disputes_amount_positive")),
        sa.ForeignKeyConstraint(["charge_id"], ["pay_charges.id"], name=op.f("fk_pay_disputes_charge_id_pay_charges")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pay_disputes")),
        info={"id_format": "DSP-{:04d}"},
    )
    with op.batch_alter_table("pay_disputes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pay_disputes_charge_id"), ["charge_id"], unique=False)

    op.create_table(
        "store_returns",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("line_id", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("restocked", sa.Boolean(), nullable=False),
        sa.Column("refund_amount", sa.Float(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "reason IN ('damaged', 'defective', 'wrong_item', 'not_as_described', 'changed_mind')",
            name=op.f("ck_store_returns_reason_enum"),
        ),
        sa.CheckConstraint(
            "status IN ('approved', 'received', 'refunded', 'cancelled')", name=op.f("ck_store_returns_status_enum")
        ),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_store_returns_quantity_positive")),
        sa.ForeignKeyConstraint(
            ["line_id"], ["store_order_lines.id"], name=op.f("fk_store_returns_line_id_store_order_lines")
        ),
        sa.ForeignKeyConstraint(["order_id"], ["store_orders.id"], name=op.f("fk_store_returns_order_id_store_orders")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_returns")),
        info={"id_format": "RMA-{:04d}"},
    )
    with op.batch_alter_table("store_returns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_store_returns_order_id"), ["order_id"], unique=False)

    op.create_table(
        "pay_refunds",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("charge_id", sa.String(), nullable=False),
        sa.Column("return_id", sa.String(), nullable=True),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("payout_id", sa.String(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "reason IN ('requested_by_customer', 'damaged_item', 'returned_item', 'duplicate', 'fraudulent', 'order_cancelled')",
            name=op.f("ck_pay_refunds_reason_enum"),
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_pay_refunds_amount_positive")),
        sa.ForeignKeyConstraint(["charge_id"], ["pay_charges.id"], name=op.f("fk_pay_refunds_charge_id_pay_charges")),
        sa.ForeignKeyConstraint(["payout_id"], ["pay_payouts.id"], name=op.f("fk_pay_refunds_payout_id_pay_payouts")),
        sa.ForeignKeyConstraint(
            ["return_id"], ["store_returns.id"], name=op.f("fk_pay_refunds_return_id_store_returns")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pay_refunds")),
        info={"id_format": "RFD-{:05d}"},
    )
    with op.batch_alter_table("pay_refunds", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pay_refunds_charge_id"), ["charge_id"], unique=False)

    op.create_table(
        "ship_shipments",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=True),
        sa.Column("return_id", sa.String(), nullable=True),
        sa.Column("replacement_of", sa.String(), nullable=True),
        sa.Column("carrier_id", sa.String(), nullable=False),
        sa.Column("service", sa.String(), nullable=False),
        sa.Column("direction", sa.String(), nullable=False),
        sa.Column("tracking_number", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("recipient_name", sa.String(), nullable=False),
        sa.Column("address", sa.String(), nullable=False),
        sa.Column("reference", sa.Text(), nullable=True),
        sa.Column("weight_lb", sa.Float(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("declared_value", sa.Float(), nullable=False),
        sa.Column("exception_reason", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("shipped_at", sa.String(), nullable=True),
        sa.Column("estimated_delivery", sa.String(), nullable=True),
        sa.Column("delivered_at", sa.String(), nullable=True),
        sa.CheckConstraint("direction IN ('outbound', 'return')", name=op.f("ck_ship_shipments_direction_enum")),
        sa.CheckConstraint("service IN ('ground', 'express', 'freight')", name=op.f("ck_ship_shipments_service_enum")),
        sa.CheckConstraint(
            "status IN ('label_created', 'in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned_to_sender', 'voided')",
            name=op.f("ck_ship_shipments_status_enum"),
        ),
        sa.CheckConstraint(
            "cost >= 0 AND declared_value >= 0 AND weight_lb > 0", name=op.f("ck_ship_shipments_amounts_range")
        ),
        sa.ForeignKeyConstraint(
            ["carrier_id"], ["ship_carriers.id"], name=op.f("fk_ship_shipments_carrier_id_ship_carriers")
        ),
        sa.ForeignKeyConstraint(
            ["order_id"], ["store_orders.id"], name=op.f("fk_ship_shipments_order_id_store_orders")
        ),
        sa.ForeignKeyConstraint(
            ["replacement_of"], ["ship_shipments.id"], name=op.f("fk_ship_shipments_replacement_of_ship_shipments")
        ),
        sa.ForeignKeyConstraint(
            ["return_id"], ["store_returns.id"], name=op.f("fk_ship_shipments_return_id_store_returns")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ship_shipments")),
        sa.UniqueConstraint("tracking_number", name=op.f("uq_ship_shipments_tracking_number")),
        info={"id_format": "SHP-{:05d}"},
    )
    with op.batch_alter_table("ship_shipments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ship_shipments_carrier_id"), ["carrier_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_ship_shipments_order_id"), ["order_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_ship_shipments_return_id"), ["return_id"], unique=False)

    op.create_table(
        "ship_claims",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("shipment_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("kind IN ('lost', 'damaged')", name=op.f("ck_ship_claims_kind_enum")),
        sa.CheckConstraint("status IN ('open', 'approved', 'denied', 'paid')", name=op.f("ck_ship_claims_status_enum")),
        sa.CheckConstraint("amount > 0", name=op.f("ck_ship_claims_amount_positive")),
        sa.ForeignKeyConstraint(
            ["shipment_id"], ["ship_shipments.id"], name=op.f("fk_ship_claims_shipment_id_ship_shipments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ship_claims")),
        info={"id_format": "CLM-{:04d}"},
    )
    with op.batch_alter_table("ship_claims", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ship_claims_shipment_id"), ["shipment_id"], unique=False)

    op.create_table(
        "ship_packages",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("shipment_id", sa.String(), nullable=False),
        sa.Column("weight_lb", sa.Float(), nullable=False),
        sa.Column("contents", sa.String(), nullable=False),
        sa.CheckConstraint("weight_lb > 0", name=op.f("ck_ship_packages_weight_positive")),
        sa.ForeignKeyConstraint(
            ["shipment_id"], ["ship_shipments.id"], name=op.f("fk_ship_packages_shipment_id_ship_shipments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ship_packages")),
        info={"id_format": "PKG-{:05d}"},
    )
    with op.batch_alter_table("ship_packages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ship_packages_shipment_id"), ["shipment_id"], unique=False)

    op.create_table(
        "ship_tracking_events",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("shipment_id", sa.String(), nullable=False),
        sa.Column("occurred_at", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("location", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('label_created', 'in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned_to_sender', 'voided')",
            name=op.f("ck_ship_tracking_events_status_enum"),
        ),
        sa.ForeignKeyConstraint(
            ["shipment_id"], ["ship_shipments.id"], name=op.f("fk_ship_tracking_events_shipment_id_ship_shipments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ship_tracking_events")),
        info={"id_format": "TRK-{:05d}"},
    )
    with op.batch_alter_table("ship_tracking_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ship_tracking_events_shipment_id"), ["shipment_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("ship_tracking_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ship_tracking_events_shipment_id"))

    op.drop_table("ship_tracking_events")
    with op.batch_alter_table("ship_packages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ship_packages_shipment_id"))

    op.drop_table("ship_packages")
    with op.batch_alter_table("ship_claims", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ship_claims_shipment_id"))

    op.drop_table("ship_claims")
    with op.batch_alter_table("ship_shipments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ship_shipments_return_id"))
        batch_op.drop_index(batch_op.f("ix_ship_shipments_order_id"))
        batch_op.drop_index(batch_op.f("ix_ship_shipments_carrier_id"))

    op.drop_table("ship_shipments")
    with op.batch_alter_table("pay_refunds", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pay_refunds_charge_id"))

    op.drop_table("pay_refunds")
    with op.batch_alter_table("store_returns", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_store_returns_order_id"))

    op.drop_table("store_returns")
    with op.batch_alter_table("pay_disputes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pay_disputes_charge_id"))

    op.drop_table("pay_disputes")
    with op.batch_alter_table("store_order_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_store_order_lines_order_id"))

    op.drop_table("store_order_lines")
    with op.batch_alter_table("pay_charges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pay_charges_payout_id"))
        batch_op.drop_index(batch_op.f("ix_pay_charges_order_id"))
        batch_op.drop_index(batch_op.f("ix_pay_charges_invoice_id"))
        batch_op.drop_index(batch_op.f("ix_pay_charges_customer_email"))

    op.drop_table("pay_charges")
    with op.batch_alter_table("store_variants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_store_variants_product_id"))

    op.drop_table("store_variants")
    with op.batch_alter_table("store_orders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_store_orders_customer_id"))

    op.drop_table("store_orders")
    op.drop_table("ship_services")
    op.drop_table("store_products")
    op.drop_table("store_discounts")
    op.drop_table("store_customers")
    op.drop_table("ship_carriers")
    op.drop_table("pay_payouts")
