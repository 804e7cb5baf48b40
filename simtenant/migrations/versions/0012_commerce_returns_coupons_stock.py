"""World commerce, part 2: shipments, returns and exchanges, price adjustments, coupon terms, the
stock ledger and product styles (size and colour variants).

Revision ID: 0012
Revises: 0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
# On the commerce branch: a world's snapshot is built from "<schema>@head" (seeds.builder), so the
# commerce tables must descend from the commerce branch's head, 0002.
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "product_styles",
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("style", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_product_styles_sku_products")),
        sa.PrimaryKeyConstraint("sku", name=op.f("pk_product_styles")),
    )
    with op.batch_alter_table("product_styles", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_product_styles_style"), ["style"], unique=False)
    op.create_table(
        "shipments",
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("carrier", sa.String(), nullable=True),
        sa.Column("tracking_number", sa.String(), nullable=True),
        sa.Column("shipped_at", sa.String(), nullable=False),
        sa.Column("delivered_at", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_shipments_order_id_orders")),
        sa.PrimaryKeyConstraint("order_id", name=op.f("pk_shipments")),
    )
    with op.batch_alter_table("coupons", schema=None) as batch_op:
        batch_op.add_column(sa.Column("valid_from", sa.String(), nullable=True))
        batch_op.add_column(sa.Column("valid_until", sa.String(), nullable=True))
        batch_op.add_column(sa.Column("min_subtotal", sa.Float(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("stackable", sa.Boolean(), server_default="0", nullable=False))
    op.create_table(
        "stock_adjustments",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("delta", sa.Integer(), nullable=False),
        sa.Column("stock_after", sa.Integer(), nullable=False),
        sa.Column("reason_code", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("delta != 0", name=op.f("ck_stock_adjustments_delta_nonzero")),
        sa.CheckConstraint(
            "reason_code IN ('cycle_count', 'damaged', 'expired', 'lost', 'recalled')",
            name=op.f("ck_stock_adjustments_reason_code_enum"),
        ),
        sa.CheckConstraint("stock_after >= 0", name=op.f("ck_stock_adjustments_stock_after_nonneg")),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_stock_adjustments_sku_products")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stock_adjustments")),
        info={"id_format": "ADJ-{:04d}"},
    )
    with op.batch_alter_table("stock_adjustments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stock_adjustments_sku"), ["sku"], unique=False)
    op.create_table(
        "returns",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("reason_code", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("refund_id", sa.String(), nullable=True),
        sa.Column("exchange_order_id", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("kind IN ('refund', 'exchange')", name=op.f("ck_returns_kind_enum")),
        sa.CheckConstraint(
            "reason_code IN ('changed_mind', 'wrong_size', 'not_as_described', 'wrong_item', 'damaged', 'defective')",
            name=op.f("ck_returns_reason_code_enum"),
        ),
        sa.ForeignKeyConstraint(["exchange_order_id"], ["orders.id"], name=op.f("fk_returns_exchange_order_id_orders")),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_returns_order_id_orders")),
        sa.ForeignKeyConstraint(["refund_id"], ["refunds.id"], name=op.f("fk_returns_refund_id_refunds")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_returns")),
        info={"id_format": "RET-{:04d}"},
    )
    with op.batch_alter_table("returns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_returns_order_id"), ["order_id"], unique=False)
    op.create_table(
        "return_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("return_id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("restocked", sa.Boolean(), nullable=False),
        sa.CheckConstraint("amount >= 0", name=op.f("ck_return_items_amount_nonneg")),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_return_items_quantity_pos")),
        sa.ForeignKeyConstraint(["return_id"], ["returns.id"], name=op.f("fk_return_items_return_id_returns")),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_return_items_sku_products")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_return_items")),
    )
    with op.batch_alter_table("return_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_return_items_return_id"), ["return_id"], unique=False)
    op.create_table(
        "price_adjustments",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("paid_price", sa.Float(), nullable=False),
        sa.Column("new_price", sa.Float(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("refund_id", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_price_adjustments_amount_pos")),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_price_adjustments_quantity_pos")),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_price_adjustments_order_id_orders")),
        sa.ForeignKeyConstraint(["refund_id"], ["refunds.id"], name=op.f("fk_price_adjustments_refund_id_refunds")),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_price_adjustments_sku_products")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_price_adjustments")),
        sa.UniqueConstraint("order_id", "sku", name="order_sku"),
        info={"id_format": "PA-{:04d}"},
    )
    with op.batch_alter_table("price_adjustments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_price_adjustments_order_id"), ["order_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("price_adjustments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_price_adjustments_order_id"))
    op.drop_table("price_adjustments")
    with op.batch_alter_table("return_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_return_items_return_id"))
    op.drop_table("return_items")
    with op.batch_alter_table("returns", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_returns_order_id"))
    op.drop_table("returns")
    with op.batch_alter_table("stock_adjustments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stock_adjustments_sku"))
    op.drop_table("stock_adjustments")
    with op.batch_alter_table("coupons", schema=None) as batch_op:
        batch_op.drop_column("stackable")
        batch_op.drop_column("min_subtotal")
        batch_op.drop_column("valid_until")
        batch_op.drop_column("valid_from")
    op.drop_table("shipments")
    with op.batch_alter_table("product_styles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_product_styles_style"))
    op.drop_table("product_styles")
