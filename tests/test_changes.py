"""Change capture: the diff by changed keys equals the full scan, and scaled worlds are deterministic."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.grader import diff_databases, gold_database
from simtenant.task import Call
from simtenant.world import all_tasks, get_world

WORLD = get_world("commerce")
FINISH = Call(tool="finish", args={"answer": "done"})
EXTRA_WRITES = [
    Call(tool="inventory_update_stock", args={"sku": "SKU-445", "adjustment": -1}),
    Call(tool="users_update", args={"user_id": "USR-002", "updates": {"phone": "+1-555-0100"}}),
    Call(tool="orders_process_refund", args={"order_id": "ORD-1001", "amount": 1.0, "reason": "goodwill"}),
    Call(tool="orders_update_status", args={"order_id": "ORD-1005", "new_status": "returned"}),
]


def _perturbed(call: Call) -> Call:
    args = {k: round(v + 0.5, 2) if isinstance(v, float) else v for k, v in call.args.items()}
    return Call(tool=call.tool, args=args)


def trajectories(task) -> dict[str, list[Call]]:
    """The gold calls and deliberately wrong variants of them."""
    gold = [c for c in task.gold if c.tool != "finish"]
    writes = [i for i, c in enumerate(gold) if c.tool in WRITE_TOOLS]
    found = {"gold": gold, "nothing": []}
    for i in writes:
        found[f"without-{i}"] = gold[:i] + gold[i + 1 :]
        found[f"perturbed-{i}"] = [*gold[:i], _perturbed(gold[i]), *gold[i + 1 :]]
    for j, extra in enumerate(EXTRA_WRITES):
        found[f"extra-{j}"] = [*gold, extra]
    found["reversed"] = list(reversed(gold))
    return found


WRITE_TOOLS = {t.name for t in WORLD.tools if t.writes}
CASES = [(task, name) for task in all_tasks() for name in trajectories(task)]


def play(task, calls, path, scale=1):
    with Episode.start(task, path, scale=scale) as episode:
        for call in [*calls, FINISH]:
            episode.call(call.tool, call.args)
    return path


def as_rows(result):
    return sorted(map(repr, (d.to_dict() for d in result.differences))), result.partial_credit


@pytest.mark.parametrize(("task", "name"), CASES, ids=[f"{t.id}:{n}" for t, n in CASES])
def test_changed_key_diff_equals_full_diff(tmp_path, task, name):
    snapshot = seeds.snapshot(WORLD)
    gold = gold_database(task, snapshot)
    episode = play(task, trajectories(task)[name], tmp_path / "episode.db")
    by_changes = diff_databases(gold, episode, WORLD.tables, base=snapshot)
    full = diff_databases(gold, episode, WORLD.tables, base=snapshot, full=True)
    assert as_rows(by_changes) == as_rows(full)
    if name == "gold":
        assert by_changes.match


@pytest.mark.parametrize("task", [t for t in all_tasks()], ids=lambda t: t.id)
def test_changed_key_diff_equals_full_diff_on_a_scaled_world(tmp_path, task):
    snapshot = seeds.snapshot(WORLD, 10)
    gold = play(task, [c for c in task.gold if c.tool != "finish"], tmp_path / "gold.db", scale=10)
    wrong = play(task, trajectories(task)["extra-2"], tmp_path / "wrong.db", scale=10)
    for actual, matches in ((gold, True), (wrong, False)):
        by_changes = diff_databases(gold, actual, WORLD.tables, base=snapshot)
        assert as_rows(by_changes) == as_rows(diff_databases(gold, actual, WORLD.tables, base=snapshot, full=True))
        assert by_changes.match is matches


def test_changes_record_every_written_row_and_nothing_else(tmp_path):
    task = next(t for t in all_tasks() if t.id == "commerce/refund-damaged-item")
    path = play(task, [c for c in task.gold if c.tool != "finish"], tmp_path / "episode.db")
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT tbl, pk FROM _changes ORDER BY tbl, pk").fetchall()
    finally:
        connection.close()
    assert rows == [("orders", '["ORD-1005"]'), ("refunds", '["RF-0007"]')]


def test_a_failed_call_records_no_change(tmp_path):
    task = next(t for t in all_tasks() if t.id == "commerce/refund-damaged-item")
    path = play(
        task,
        [Call(tool="orders_process_refund", args={"order_id": "ORD-1005", "amount": 999.0, "reason": "x"})],
        tmp_path / "episode.db",
    )
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("SELECT count(*) FROM _changes").fetchone() == (0,)
    finally:
        connection.close()


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("scale", [2, 10])
def test_same_scale_gives_the_same_bytes(tmp_path, scale):
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    seeds.builder.build(WORLD, first, scale)
    seeds.builder.build(WORLD, second, scale)
    assert sha256(first) == sha256(second)
    assert seeds.snapshot_hash(WORLD, scale) != seeds.snapshot_hash(WORLD)


def test_a_scaled_world_keeps_every_relation_and_the_seed_rows(tmp_path):
    path = seeds.snapshot(WORLD, 10)
    connection = sqlite3.connect(path)
    try:
        counts = {t.name: connection.execute(f'SELECT count(*) FROM "{t.name}"').fetchone()[0] for t in WORLD.tables}
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        order = connection.execute("SELECT user_id, total FROM orders WHERE id = 'ORD-1009'").fetchone()
    finally:
        connection.close()
    base = sqlite3.connect(seeds.snapshot(WORLD))
    try:
        for table, count in counts.items():
            assert count == 10 * base.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    finally:
        base.close()
    assert order == ("USR-003", 247.5)
