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

EXTRA_WRITES = {
    "commerce": [
        Call(tool="inventory_update_stock", args={"sku": "SKU-445", "adjustment": -1}),
        Call(tool="users_update", args={"user_id": "USR-002", "updates": {"phone": "+1-555-0100"}}),
        Call(tool="orders_process_refund", args={"order_id": "ORD-1001", "amount": 1.0, "reason": "goodwill"}),
        Call(tool="orders_update_status", args={"order_id": "ORD-1005", "new_status": "returned"}),
    ],
}


def _perturbed(call: Call) -> Call:
    args = {k: round(v + 0.5, 2) if isinstance(v, float) else v for k, v in call.args.items()}
    return Call(tool=call.tool, args=args)


def ending(task) -> Call:
    """The gold's own last call when it ends the episode (a report is graded), else a plain one."""
    world = get_world(task.world)
    if task.gold and task.gold[-1].tool == world.finish_tool:
        return task.gold[-1]
    return Call(tool=world.finish_tool, args={world.finish_answer: "done"})


def trajectories(task) -> dict[str, list[Call]]:
    """The gold calls and deliberately wrong variants: a write left out, a write with other
    numbers, a write made twice, extra writes, everything in reverse."""
    world = get_world(task.world)
    writes_of_world = {t.name for t in world.tools if t.writes and not t.ends}
    gold = [c for c in task.gold if c.tool != world.finish_tool]
    writes = [i for i, c in enumerate(gold) if c.tool in writes_of_world]
    if len(writes) > 6:  # keep the suite quick: the first three writes and the last three
        writes = writes[:3] + writes[-3:]
    found = {"gold": gold, "nothing": []}
    for i in writes:
        found[f"without-{i}"] = gold[:i] + gold[i + 1 :]
        found[f"perturbed-{i}"] = [*gold[:i], _perturbed(gold[i]), *gold[i + 1 :]]
    if writes:
        found["first-write-twice"] = [*gold, gold[writes[0]]]
        found["last-write-twice"] = [*gold, gold[writes[-1]]]
    for j, extra in enumerate(EXTRA_WRITES.get(task.world, [])):
        found[f"extra-{j}"] = [*gold, extra]
    found["reversed"] = list(reversed(gold))
    return found


CASES = [(task, name) for task in all_tasks() for name in trajectories(task)]


def play(task, calls, path, scale=1):
    with Episode.start(task, path, scale=scale) as episode:
        for call in [*calls, ending(task)]:
            episode.call(call.tool, call.args)
    return path


def as_rows(result):
    return sorted(map(repr, (d.to_dict() for d in result.differences))), result.partial_credit


@pytest.mark.parametrize(("task", "name"), CASES, ids=[f"{t.id}:{n}" for t, n in CASES])
def test_changed_key_diff_equals_full_diff(tmp_path, task, name):
    world = get_world(task.world)
    snapshot = seeds.task_snapshot(world, task.seed_changes)
    gold = gold_database(task, snapshot)
    episode = play(task, trajectories(task)[name], tmp_path / "episode.db")
    by_changes = diff_databases(gold, episode, world.tables, base=snapshot)
    full = diff_databases(gold, episode, world.tables, base=snapshot, full=True)
    assert as_rows(by_changes) == as_rows(full)
    if name == "gold":
        assert by_changes.match


@pytest.mark.parametrize("task", all_tasks(), ids=lambda t: t.id)
def test_changed_key_diff_equals_full_diff_on_a_scaled_world(tmp_path, task):
    world = get_world(task.world)
    snapshot = seeds.task_snapshot(world, task.seed_changes, 10)
    cases = trajectories(task)
    gold = play(task, cases["gold"], tmp_path / "gold.db", scale=10)
    wrong = play(task, cases["nothing"], tmp_path / "wrong.db", scale=10)
    writes = {t.name for t in world.tools if t.writes and not t.ends}
    read_only = not any(call.tool in writes for call in cases["gold"])  # then doing nothing is right
    for actual, matches in ((gold, True), (wrong, read_only)):
        by_changes = diff_databases(gold, actual, world.tables, base=snapshot)
        assert as_rows(by_changes) == as_rows(diff_databases(gold, actual, world.tables, base=snapshot, full=True))
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


WORLDS = ["commerce", "homeservices"]


@pytest.mark.parametrize("world_name", WORLDS)
@pytest.mark.parametrize("scale", [2, 10])
def test_same_scale_gives_the_same_bytes(tmp_path, scale, world_name):
    world = get_world(world_name)
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    seeds.builder.build(world, first, scale)
    seeds.builder.build(world, second, scale)
    assert sha256(first) == sha256(second)
    assert seeds.snapshot_hash(world, scale) != seeds.snapshot_hash(world)


@pytest.mark.parametrize("world_name", WORLDS)
def test_a_scaled_world_keeps_every_relation_and_the_seed_rows(world_name):
    world = get_world(world_name)
    scaled, base = sqlite3.connect(seeds.snapshot(world, 10)), sqlite3.connect(seeds.snapshot(world))
    try:
        assert scaled.execute("PRAGMA foreign_key_check").fetchall() == []
        assert scaled.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        for table in world.tables:
            count = f'SELECT count(*) FROM "{table.name}"'
            assert scaled.execute(count).fetchone()[0] == 10 * base.execute(count).fetchone()[0]
            every_seed_row = f'SELECT * FROM "{table.name}" ORDER BY 1, 2'
            seed_rows = base.execute(every_seed_row).fetchall()
            assert set(seed_rows) <= set(scaled.execute(every_seed_row).fetchall())
    finally:
        scaled.close()
        base.close()
