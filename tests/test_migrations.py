"""Migrations: the Alembic chain builds exactly the ORM schema, names every
constraint, and downgrades and upgrades back to the same schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

from simtenant import db, schema

ORM_TABLES = sorted(schema.metadata.tables)


def schema_sql(path: Path) -> list[tuple]:
    """Every schema object of the file, as SQLite stores it."""
    connection = sqlite3.connect(path)
    try:
        return sorted(connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall())
    finally:
        connection.close()


def table_sql(path: Path, table: str) -> str:
    connection = sqlite3.connect(path)
    try:
        (sql,) = connection.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()
        return sql
    finally:
        connection.close()


def metadata_diff(path: Path, **opts: bool) -> list:
    engine = create_engine(f"sqlite:///{path}", poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return compare_metadata(MigrationContext.configure(connection, opts=opts), schema.metadata)
    finally:
        engine.dispose()


@pytest.fixture
def migrated(tmp_path: Path) -> Path:
    path = tmp_path / "tenant.db"
    db.upgrade(path)
    return path


@pytest.mark.parametrize("opts", [{}, {"compare_type": True}], ids=["default", "compare_type"])
def test_upgrade_gives_exactly_the_orm_metadata(migrated, opts):
    assert metadata_diff(migrated, **opts) == []


def test_upgrade_creates_the_orm_tables_and_nothing_else(migrated):
    names = {name for kind, name, _, _ in schema_sql(migrated) if kind == "table"}
    assert names == {*ORM_TABLES, "alembic_version"}


def test_empty_file_has_no_revision(tmp_path):
    assert db.current_revisions(tmp_path / "empty.db") == ()


def test_current_revisions_are_the_heads_after_upgrade(migrated):
    assert db.current_revisions(migrated) == db.migration_heads()
    assert len(db.migration_heads()) == 4  # one branch per world schema, on the core


@pytest.mark.parametrize("world_name", ["commerce", "homeservices", "itsm"])
def test_a_world_branch_creates_the_harness_and_that_world_only(tmp_path, world_name):
    from simtenant.world import get_world

    world = get_world(world_name)
    path = tmp_path / f"{world_name}.db"
    db.upgrade(path, f"{world.schema}@head")
    names = {name for kind, name, _, _ in schema_sql(path) if kind == "table"}
    harness = {t for t in ORM_TABLES if t.startswith("_")}
    assert names == {*harness, *(t.name for t in world.tables), "alembic_version"}
    assert db.current_revisions(path) == db.migration_heads(world.schema)


def test_downgrade_to_base_drops_every_table(migrated):
    db.downgrade(migrated, "base")
    names = {name for kind, name, _, _ in schema_sql(migrated) if kind == "table"}
    assert names == {"alembic_version"}
    assert db.current_revisions(migrated) == ()


def test_downgrade_then_upgrade_round_trips_the_schema(migrated):
    before = schema_sql(migrated)
    db.downgrade(migrated, "base")
    db.upgrade(migrated)
    assert schema_sql(migrated) == before
    assert db.current_revisions(migrated) == db.migration_heads()
    assert metadata_diff(migrated) == []


def test_upgrade_at_head_changes_nothing(migrated):
    before = schema_sql(migrated)
    db.upgrade(migrated)
    assert schema_sql(migrated) == before


@pytest.mark.parametrize("table", ORM_TABLES)
def test_every_table_has_a_named_primary_key(migrated, table):
    connection = sqlite3.connect(migrated)
    try:
        pk_columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")') if row[5] > 0]
    finally:
        connection.close()
    assert pk_columns
    assert pk_columns == [c.name for c in schema.metadata.tables[table].primary_key.columns]
    assert f"CONSTRAINT pk_{table} PRIMARY KEY" in table_sql(migrated, table)


@pytest.mark.parametrize(
    ("table", "constraint"),
    [
        ("orders", "CONSTRAINT ck_orders_status_enum CHECK"),
        ("orders", "CONSTRAINT ck_orders_total_nonneg CHECK"),
        ("orders", "CONSTRAINT fk_orders_user_id_users FOREIGN KEY(user_id) REFERENCES users (id)"),
        ("users", "CONSTRAINT ck_users_tier_enum CHECK"),
        ("users", "CONSTRAINT uq_users_email UNIQUE (email)"),
        ("refunds", "CONSTRAINT ck_refunds_amount_pos CHECK (amount > 0)"),
        ("refunds", "CONSTRAINT fk_refunds_order_id_orders FOREIGN KEY(order_id) REFERENCES orders (id)"),
        ("products", "CONSTRAINT ck_products_stock_nonneg CHECK (stock >= 0)"),
        ("order_coupons", "CONSTRAINT pk_order_coupons PRIMARY KEY (order_id, coupon_code)"),
        ("order_items", "CONSTRAINT fk_order_items_sku_products FOREIGN KEY(sku) REFERENCES products (sku)"),
        ("_episode", "CONSTRAINT ck__episode_status_enum CHECK"),
    ],
)
def test_named_constraints_appear_in_the_schema_sql(migrated, table, constraint):
    assert constraint in table_sql(migrated, table)


def test_every_metadata_constraint_and_index_is_named_in_sqlite(migrated):
    objects = schema_sql(migrated)
    indexes = {name for kind, name, _, _ in objects if kind == "index"}
    missing = []
    for table in schema.metadata.tables.values():
        sql = table_sql(migrated, table.name)
        for constraint in table.constraints:
            if f"CONSTRAINT {constraint.name} " not in sql:
                missing.append(f"{table.name}: {constraint.name}")
        missing += [f"{table.name}: index {i.name}" for i in table.indexes if i.name not in indexes]
    assert missing == []


@pytest.mark.parametrize(
    ("statement", "constraint"),
    [
        (
            "INSERT INTO orders VALUES ('O-1', 'U-1', 'lost', 't', 't', 'a', 1.0, 1.0, 0)",
            "ck_orders_status_enum",
        ),
        ("INSERT INTO orders VALUES ('O-1', 'U-1', 'pending', 't', 't', 'a', 1.0, -1.0, 0)", "ck_orders_total_nonneg"),
        ("INSERT INTO refunds VALUES ('RF-1', 'O-1', 0, 'r', 't')", "ck_refunds_amount_pos"),
        ("INSERT INTO products VALUES ('S-1', 'n', 'c', 1.0, 1.0, -1)", "ck_products_stock_nonneg"),
        ("INSERT INTO users VALUES ('U-1', 'e', 'n', NULL, NULL, 'diamond', 't')", "ck_users_tier_enum"),
    ],
)
def test_check_constraints_are_enforced_by_name(migrated, statement, constraint):
    connection = sqlite3.connect(migrated)
    try:
        with pytest.raises(sqlite3.IntegrityError, match=constraint):
            connection.execute(statement)
    finally:
        connection.close()
