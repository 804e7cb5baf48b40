"""The snapshot builder: byte-identical builds, a content-hash cache, clean
integrity, the seed data the tasks rely on, and broken seeds refused."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from simtenant import db, seeds
from simtenant.errors import TaskError
from simtenant.seeds import builder
from simtenant.world import World, get_world

COMMERCE = get_world("commerce")


def world_copy(root: Path, world: World = COMMERCE) -> World:
    """A world like ``world`` whose folder is a copy under ``root`` (same folder name)."""
    folder = root / world.folder.name
    shutil.copytree(world.folder, folder)
    return World(
        name=world.name, title=world.title, description=world.description, services=world.services, folder=folder
    )


def query(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def append(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


@pytest.fixture(scope="module")
def snap() -> Path:
    return seeds.snapshot(COMMERCE)


def test_two_builds_are_byte_identical(tmp_path, snap):
    first, second = tmp_path / "one" / "a.db", tmp_path / "two" / "b.db"
    first.parent.mkdir()
    second.parent.mkdir()
    builder.build(COMMERCE, first)
    builder.build(COMMERCE, second)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() == snap.read_bytes()


def test_build_leaves_only_the_destination(tmp_path):
    builder.build(COMMERCE, tmp_path / "out.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.db", "out.db.sha256"]


@pytest.mark.skipif(sys.platform != "linux", reason="clones are asked of Linux file systems")
def test_a_copy_has_the_same_bytes_and_a_folder_that_refuses_clones_is_not_asked_again(tmp_path, snap, monkeypatch):
    asked = []

    def refuse(_fd: int, request: int, _arg: int) -> None:
        asked.append(request)
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(db.fcntl, "ioctl", refuse)
    monkeypatch.setattr(db, "_UNCLONABLE", set())
    for name in ("first.db", "second.db"):
        db.copy_file(snap, tmp_path / name)
        assert (tmp_path / name).read_bytes() == snap.read_bytes()
    assert asked == [db.FICLONE]


def test_snapshot_is_cached_by_content_hash(monkeypatch, snap):
    content_hash = seeds.snapshot_hash(COMMERCE)
    assert snap == seeds.snapshot_path(COMMERCE, content_hash)
    assert snap.name == f"commerce-{content_hash}.db"
    assert seeds.hash_of(COMMERCE, snap) == content_hash
    mtime = snap.stat().st_mtime_ns

    def no_rebuild(*_args: object) -> None:
        raise AssertionError("the cached snapshot was rebuilt")

    monkeypatch.setattr(builder, "build", no_rebuild)
    again = seeds.snapshot(COMMERCE)
    assert again == snap
    assert again.stat().st_mtime_ns == mtime


def test_snapshot_hash_is_stable_and_ignores_the_folder_location(tmp_path):
    here = seeds.snapshot_hash(COMMERCE)
    # another process, another hash seed, another working folder, no cache: the same hash
    code = "from simtenant import seeds; from simtenant.world import get_world; "
    code += "print(seeds.snapshot_hash(get_world('commerce')))"
    env = {**os.environ, "PYTHONHASHSEED": "4242", "SIMTENANT_CACHE": str(tmp_path / "other-cache")}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert other.returncode == 0, other.stderr
    assert other.stdout.strip() == here
    assert seeds.snapshot_hash(world_copy(tmp_path)) == here  # the world's files moved elsewhere


@pytest.mark.parametrize(
    ("file", "old", "new"),
    [
        ("data/users.yaml", "name: Jane Doe", "name: Jane Q. Doe"),
        ("data/products.yaml", "stock: 37", "stock: 38"),
        ("data/refunds.yaml", "amount: 7.5", "amount: 7.25"),
        ("world.yaml", "title: Commerce back office", "title: Commerce"),
    ],
)
def test_snapshot_hash_changes_when_a_seed_file_changes(tmp_path, file, old, new):
    world = world_copy(tmp_path)
    path = world.folder / file
    original = path.read_text()
    assert old in original
    path.write_text(original.replace(old, new, 1))
    assert seeds.snapshot_hash(world) != seeds.snapshot_hash(COMMERCE)
    path.write_text(original)
    assert seeds.snapshot_hash(world) == seeds.snapshot_hash(COMMERCE)


@pytest.mark.parametrize("change", ["remove", "add"])
def test_snapshot_hash_changes_when_a_seed_file_comes_or_goes(tmp_path, change):
    world = world_copy(tmp_path)
    refunds = world.folder / "data" / "refunds.yaml"
    if change == "remove":
        refunds.rename(refunds.with_suffix(".off"))
    else:
        (world.folder / "data" / "price_history_extra.yaml").write_text("[]\n")
    assert seeds.snapshot_hash(world) != seeds.snapshot_hash(COMMERCE)


def test_edited_seed_gives_a_new_snapshot_with_the_edit(tmp_path, snap):
    world = world_copy(tmp_path)
    users = world.folder / "data" / "users.yaml"
    users.write_text(users.read_text().replace("name: Jane Doe", "name: Jane Q. Doe", 1))
    edited = seeds.snapshot(world)
    assert edited != snap
    assert edited == seeds.snapshot_path(world, seeds.snapshot_hash(world))
    assert query(edited, "SELECT name FROM users WHERE id = 'USR-001'") == [("Jane Q. Doe",)]
    assert query(snap, "SELECT name FROM users WHERE id = 'USR-001'") == [("Jane Doe",)]


@pytest.mark.parametrize(
    ("pragma", "expected"),
    [
        ("PRAGMA journal_mode", [("delete",)]),
        ("PRAGMA integrity_check", [("ok",)]),
        ("PRAGMA foreign_key_check", []),
        ("PRAGMA freelist_count", [(0,)]),
    ],
)
def test_snapshot_pragmas(snap, pragma, expected):
    assert query(snap, pragma) == expected


def test_snapshot_is_clean_at_head(snap):
    assert db.integrity_problems(snap) == []
    assert db.current_revisions(snap) == db.migration_heads(COMMERCE.schema)


@pytest.mark.parametrize("table", [t.name for t in COMMERCE.tables])
def test_every_seed_row_is_loaded(snap, table):
    rows = yaml.safe_load((COMMERCE.folder / "data" / f"{table}.yaml").read_text())
    assert query(snap, f'SELECT COUNT(*) FROM "{table}"') == [(len(rows),)]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT user_id, status, return_eligible FROM orders WHERE id = 'ORD-1005'", [("USR-001", "delivered", 1)]),
        ("SELECT email FROM users WHERE id = 'USR-001'", [("jane.doe@example.com",)]),
        (
            "SELECT sku, quantity, unit_price FROM order_items WHERE order_id = 'ORD-1005' ORDER BY sku",
            [("SKU-445", 1, 49.99), ("SKU-447", 1, 28.0)],
        ),
        (
            "SELECT u.email FROM orders o JOIN users u ON u.id = o.user_id WHERE o.id = 'ORD-1009'",
            [("marcus.webb@example.com",)],
        ),
        ("SELECT user_id, subtotal, total FROM orders WHERE id = 'ORD-1009'", [("USR-003", 198.0, 247.5)]),
        (
            "SELECT c.code, c.kind, c.value, c.basis, oc.adjustment FROM order_coupons oc "
            "JOIN coupons c ON c.code = oc.coupon_code WHERE oc.order_id = 'ORD-1009'",
            [("SAVE20", "percent", 20.0, "list_price", 49.5)],
        ),
        ("SELECT name, next_value FROM _sequences WHERE name = 'refunds'", [("refunds", 7)]),
        ("SELECT MAX(id) FROM refunds", [("RF-0006",)]),
        ("SELECT COUNT(*) FROM _episode", [(0,)]),
        ("SELECT COUNT(*) FROM _calls", [(0,)]),
    ],
)
def test_seed_data_the_tasks_rely_on(snap, sql, expected):
    assert query(snap, sql) == expected


def test_ord_1009_overbilling_is_derivable_from_the_rows(snap):
    lines = query(snap, "SELECT quantity, unit_price, list_price FROM order_items WHERE order_id = 'ORD-1009'")
    [(subtotal, charged)] = query(snap, "SELECT subtotal, total FROM orders WHERE id = 'ORD-1009'")
    [(percent, adjustment)] = query(
        snap,
        "SELECT c.value, oc.adjustment FROM order_coupons oc JOIN coupons c ON c.code = oc.coupon_code "
        "WHERE oc.order_id = 'ORD-1009' AND c.code = 'SAVE20'",
    )
    d = Decimal
    sold = sum(q * d(str(u)) for q, u, _ in lines)
    list_value = sum(q * d(str(lp)) for q, _, lp in lines)
    discount = d(str(percent)) / 100 * list_value
    assert (sold, d(str(subtotal)), list_value) == (d("198.00"), d("198.00"), d("247.50"))
    assert discount == d("49.50")
    assert d(str(adjustment)) == discount  # applied with the wrong sign: added, not subtracted
    assert d(str(charged)) == d(str(subtotal)) + d(str(adjustment)) == d("247.50")
    should_be = d(str(subtotal)) - discount
    assert should_be == d("148.50")
    assert d(str(charged)) - should_be == d("99.00")


def _fk_to_missing_user(folder: Path) -> None:
    append(
        folder / "data" / "orders.yaml",
        "- {id: ORD-9999, user_id: USR-999, status: delivered, placed_at: x, updated_at: x,"
        " shipping_address: x, subtotal: 1.0, total: 1.0, return_eligible: false}\n",
    )


def _unknown_table(folder: Path) -> None:
    (folder / "data" / "widgets.yaml").write_text("- {id: 1}\n")


def _duplicate_key(folder: Path) -> None:
    append(
        folder / "data" / "coupons.yaml", "- {code: SAVE20, description: d, kind: fixed, value: 1.0, basis: subtotal}\n"
    )


def _check_violation(folder: Path) -> None:
    path = folder / "data" / "products.yaml"
    path.write_text(path.read_text().replace("stock: 37", "stock: -1", 1))


def _not_a_list(folder: Path) -> None:
    (folder / "data" / "users.yaml").write_text("id: USR-001\n")


@pytest.mark.parametrize(
    ("breakage", "fragments"),
    [
        (_fk_to_missing_user, ["seed data breaks integrity", "foreign key: orders", "-> users"]),
        (_unknown_table, ["seed files for tables it does not have", "widgets"]),
        (_duplicate_key, ["seed rows rejected", "UNIQUE constraint failed: coupons.code"]),
        (_check_violation, ["seed rows rejected", "ck_products_stock_nonneg"]),
        (_not_a_list, ["users.yaml", "list of rows"]),
    ],
    ids=["fk-to-missing-user", "unknown-table", "duplicate-key", "check-violation", "not-a-list"],
)
def test_broken_seed_is_refused_and_leaves_no_file(tmp_path, breakage: Callable[[Path], None], fragments: list[str]):
    world = world_copy(tmp_path / "src")
    breakage(world.folder)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(TaskError) as caught:
        builder.build(world, out / "snapshot.db")
    assert caught.value.code == 422
    for fragment in fragments:
        assert fragment in caught.value.message
    assert list(out.iterdir()) == []


def test_broken_seed_leaves_nothing_in_the_snapshot_cache(tmp_path):
    world = world_copy(tmp_path)
    _fk_to_missing_user(world.folder)
    target = seeds.snapshot_path(world, seeds.snapshot_hash(world))
    with pytest.raises(TaskError):
        seeds.snapshot(world)
    assert not target.exists()
    assert not list(target.parent.glob(f"{target.name}*"))


def test_seed_row_with_unknown_column_is_refused(tmp_path):
    world = world_copy(tmp_path / "src")
    append(
        world.folder / "data" / "coupons.yaml",
        "- {code: NEW10, description: d, kind: fixed, value: 10.0, basis: subtotal, colour: red}\n",
    )
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(TaskError, match="colour"):
        builder.build(world, out / "snapshot.db")
    assert list(out.iterdir()) == []


def _task_of(template: Path) -> str:
    connection = sqlite3.connect(template)
    try:
        return connection.execute("SELECT task FROM _episode").fetchone()[0]
    finally:
        connection.close()


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:4096])


def _drop_the_checksum(path: Path) -> None:
    path.with_name(f"{path.name}.sha256").unlink()


@pytest.mark.parametrize("damage", [_flip_a_byte, _truncate, _drop_the_checksum])
def test_a_damaged_snapshot_is_detected_and_rebuilt_never_used(damage):
    """A cached snapshot edited by hand, truncated or without its checksum is rebuilt before use,
    in this process (which had already checked it) and in any other."""
    path = seeds.snapshot(COMMERCE)
    good = path.read_bytes()
    damage(path)
    assert not builder.intact(path)
    assert seeds.snapshot(COMMERCE) == path
    assert path.read_bytes() == good and builder.intact(path)


def test_damaged_task_snapshots_templates_and_gold_databases_are_rebuilt(tmp_path, monkeypatch):
    from simtenant.agents import run
    from simtenant.grader import grade
    from simtenant.grader.grade import gold_database
    from simtenant.world import get_task

    monkeypatch.setenv("SIMTENANT_CACHE", str(tmp_path / "cache"))  # every cached file here is this test's
    task = get_task("itsm/unlock-refused-unverified")
    variant = seeds.task_snapshot(get_world("itsm"), {"sys_users": [{"id": "USR-0011", "title": "Analyst"}]})
    gold = gold_database(task, seeds.snapshot(get_world("itsm")))
    episode = run(task, "oracle", tmp_path / "e.db")  # made from a cached template
    templates = sorted((seeds.cache_dir() / "templates").glob("*.db"))
    assert [_task_of(t) for t in templates] == [task.id]
    for path in (variant, gold, *templates):
        good = path.read_bytes()
        _flip_a_byte(path)
        assert not builder.intact(path), path
        if path == variant:
            seeds.task_snapshot(get_world("itsm"), {"sys_users": [{"id": "USR-0011", "title": "Analyst"}]})
        elif path == gold:
            assert grade(episode).reward == 1.0  # graded against a rebuilt gold, not the damaged one
        else:
            run(task, "oracle", tmp_path / f"again-{path.stem}.db")
        assert builder.intact(path) and path.read_bytes() == good, path


def test_copies_relabel_every_value_a_unique_constraint_holds_alone_without_colliding():
    """A one-column unique constraint (not only a column's ``unique``) is relabelled in every copy, and a
    value never becomes another seed value (LP-ADR-TK's 24th copy is not LP-ADR-TK-24)."""
    from sqlalchemy import Column, MetaData, String, UniqueConstraint
    from sqlalchemy import Table as SqlTable

    from simtenant.seeds.builder import _scaled

    table = SqlTable("variants", MetaData(), Column("id", String, primary_key=True), Column("sku", String),
                     UniqueConstraint("sku"))  # fmt: skip
    seed = {"variants": [{"id": "V-1", "sku": "LP-ADR-TK"}, {"id": "V-2", "sku": "LP-ADR-TK-24"}]}
    rows = _scaled({"variants": table}, seed, 100)["variants"]
    assert len({r["sku"] for r in rows}) == len({r["id"] for r in rows}) == 200
