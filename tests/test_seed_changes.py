"""A task's own changes to the seed world: a cached snapshot variant that episodes and the gold share."""

from __future__ import annotations

import sqlite3

import pytest

from simtenant import seeds
from simtenant.agents import run
from simtenant.errors import TaskError
from simtenant.grader import grade
from simtenant.grader.validate import validate_task
from simtenant.world import get_task, get_world

WORLD = get_world("commerce")
CHANGES = {
    "products": [{"sku": "SKU-445", "stock": 0}],
    "users": [
        {"id": "USR-900", "email": "new.customer@example.com", "name": "New Customer", "created_at": "2026-03-01"}
    ],
    "refunds": [
        {"id": "RF-0100", "order_id": "ORD-1001", "amount": 1.0, "reason": "goodwill", "created_at": "2026-03-02"}
    ],
}


def one(path, sql):
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def test_a_variant_applies_updates_and_inserts_and_starts_clean():
    path = seeds.task_snapshot(WORLD, CHANGES)
    assert path != seeds.snapshot(WORLD) and seeds.task_snapshot(WORLD, CHANGES) == path
    assert one(path, "SELECT stock, name FROM products WHERE sku = 'SKU-445'") == [(0, "Ceramic Pour-Over Coffee Set")]
    assert one(path, "SELECT name, tier FROM users WHERE id = 'USR-900'") == [("New Customer", "standard")]
    assert one(path, "SELECT next_value FROM _sequences WHERE name = 'refunds'") == [(101,)]
    assert one(path, "SELECT count(*) FROM _changes") == [(0,)]
    assert seeds.task_snapshot(WORLD, {}) == seeds.snapshot(WORLD)


def test_episodes_and_gold_of_a_task_with_changes_share_the_variant(tmp_path):
    task = get_task("commerce/refund-damaged-item").model_copy(update={"seed_changes": CHANGES, "hash": "variant"})
    path = run(task, "oracle", tmp_path / "oracle.db")
    assert one(path, "SELECT id FROM refunds WHERE order_id = 'ORD-1005'") == [("RF-0101",)]
    assert grade(path, task=task).reward == 1.0
    report = validate_task(task)
    assert report.ok, report.problems


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"nope": [{"id": 1}]}, "does not have: nope"),
        ({"users": [{"email": "x@example.com"}]}, "give its primary key"),
        ({"users": [{"id": "USR-001", "colour": "red"}]}, "unknown column(s) colour"),
        ({"orders": [{"id": "ORD-1005", "user_id": "USR-999"}]}, "foreign key"),
        ({"orders": [{"id": "ORD-1005", "status": "lost"}]}, "CHECK constraint failed"),
    ],
)
def test_bad_changes_are_refused_clearly(changes, message):
    with pytest.raises(TaskError) as error:
        seeds.task_snapshot(WORLD, changes)
    assert message in str(error.value)
