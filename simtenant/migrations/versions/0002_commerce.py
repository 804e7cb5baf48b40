"""World commerce: users, orders and inventory.

Revision ID: 0002
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("commerce",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "coupons",
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("basis", sa.String(), nullable=False),
        sa.CheckConstraint("basis IN ('list_price', 'subtotal')", name=op.f("ck_coupons_basis_enum")),
        sa.CheckConstraint("kind IN ('percent', 'fixed')", name=op.f("ck_coupons_kind_enum")),
        sa.CheckConstraint("value > 0", name=op.f("ck_coupons_value_pos")),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_coupons")),
    )
    op.create_table(
        "products",
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("price", sa.Float(), nullable=False),
        sa.Column("list_price", sa.Float(), nullable=False),
        sa.Column("stock", sa.Integer(), nullable=False),
        sa.CheckConstraint("list_price >= 0", name=op.f("ck_products_list_price_nonneg")),
        sa.CheckConstraint("price >= 0", name=op.f("ck_products_price_nonneg")),
        sa.CheckConstraint("stock >= 0", name=op.f("ck_products_stock_nonneg")),
        sa.PrimaryKeyConstraint("sku", name=op.f("pk_products")),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("phone", sa.String(), nullable=True),
        sa.Column("address", sa.String(), nullable=True),
        sa.Column("tier", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("tier IN ('standard', 'gold', 'platinum')", name=op.f("ck_users_tier_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
    )
    op.create_table(
        "orders",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("placed_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.Column("shipping_address", sa.String(), nullable=False),
        sa.Column("subtotal", sa.Float(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.Column("return_eligible", sa.Boolean(), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'processing', 'shipped', 'delivered', 'cancelled', 'returned')",
            name=op.f("ck_orders_status_enum"),
        ),
        sa.CheckConstraint("subtotal >= 0", name=op.f("ck_orders_subtotal_nonneg")),
        sa.CheckConstraint("total >= 0", name=op.f("ck_orders_total_nonneg")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_orders_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_orders")),
    )
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_orders_user_id"), ["user_id"], unique=False)
    op.create_table(
        "price_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("effective_date", sa.String(), nullable=False),
        sa.Column("price", sa.Float(), nullable=False),
        sa.Column("note", sa.String(), nullable=True),
        sa.CheckConstraint("price >= 0", name=op.f("ck_price_history_price_nonneg")),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_price_history_sku_products")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_price_history")),
        sa.UniqueConstraint("sku", "effective_date", name="sku_date"),
    )
    with op.batch_alter_table("price_history", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_price_history_sku"), ["sku"], unique=False)
    op.create_table(
        "order_coupons",
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("coupon_code", sa.String(), nullable=False),
        sa.Column("adjustment", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["coupon_code"], ["coupons.code"], name=op.f("fk_order_coupons_coupon_code_coupons")),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_order_coupons_order_id_orders")),
        sa.PrimaryKeyConstraint("order_id", "coupon_code", name=op.f("pk_order_coupons")),
    )
    op.create_table(
        "order_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("sku", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("unit_price", sa.Float(), nullable=False),
        sa.Column("list_price", sa.Float(), nullable=False),
        sa.CheckConstraint("list_price >= 0", name=op.f("ck_order_items_list_price_nonneg")),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_order_items_quantity_pos")),
        sa.CheckConstraint("unit_price >= 0", name=op.f("ck_order_items_unit_price_nonneg")),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_order_items_order_id_orders")),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_order_items_sku_products")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_items")),
    )
    with op.batch_alter_table("order_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_order_items_order_id"), ["order_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_order_items_sku"), ["sku"], unique=False)
    op.create_table(
        "refunds",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("order_id", sa.String(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_refunds_amount_pos")),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_refunds_order_id_orders")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_refunds")),
        info={"id_format": "RF-{:04d}"},
    )
    with op.batch_alter_table("refunds", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_refunds_order_id"), ["order_id"], unique=False)

    # ### end Alembic commands ###


def downgrade() -> None:
    with op.batch_alter_table("refunds", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_refunds_order_id"))
    op.drop_table("refunds")
    with op.batch_alter_table("order_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_order_items_sku"))
        batch_op.drop_index(batch_op.f("ix_order_items_order_id"))
    op.drop_table("order_items")
    op.drop_table("order_coupons")
    with op.batch_alter_table("price_history", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_price_history_sku"))
    op.drop_table("price_history")
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_orders_user_id"))
    op.drop_table("orders")
    op.drop_table("users")
    op.drop_table("products")
    op.drop_table("coupons")
