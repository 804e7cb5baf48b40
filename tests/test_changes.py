"""Change capture: the diff by changed keys equals the full scan and grades what a trajectory left, and
scaled worlds are deterministic.

The sweep's cases each differ from their task's gold: a sample of the tasks played without their writes, and, for the
first gold write of every operation of every world, that write left out, made twice, and changed in one
value of each kind its arguments hold (a number, a flag, a choice, an id). In every case the diff by the
change log equals the full scan, an episode whose graded rows equal the gold's matches, and one with a
gold write changed or missing is graded as differing."""

from __future__ import annotations

import copy
import hashlib
import re
import sqlite3
from typing import Any

import pytest
from support import task_sample

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.grader import diff_databases, gold_database, grade
from simtenant.task import Call
from simtenant.world import World, all_tasks, get_world

ID = re.compile(r"^([A-Z][A-Z0-9]*-)(\d+)$")


def operation(world: World, call: Call) -> str:
    """The name of the operation a call runs (``api_fetch``: the one it names)."""
    tool = world.operation(call)
    return tool.name if tool is not None else call.tool


def writes(world: World, call: Call) -> bool:
    tool = world.operation(call)
    return tool is not None and tool.writes and not tool.ends and not tool.harness  # the world's own writes


def _enums(world: World, call: Call) -> dict[str, list[Any]]:
    tool = world.operation(call)
    assert tool is not None
    schema = tool.arguments.model_json_schema()
    defs = schema.get("$defs", {})
    found = {}
    for name, prop in schema.get("properties", {}).items():
        for option in [prop, *prop.get("anyOf", [])]:
            if "$ref" in option:
                option = defs[option["$ref"].rsplit("/", 1)[-1]]
            if "enum" in option:
                found[name] = option["enum"]
    return found


def perturbations(world: World, call: Call) -> dict[str, Call]:
    """One changed value of each kind the call's arguments hold — a number, a flag, a choice, an id — each
    a different call from the gold's (free text is left alone: its wording is not what is graded)."""
    enums = _enums(world, call)
    found: dict[str, Call] = {}

    def changed(value: Any, name: str) -> tuple[str, Any] | None:
        if isinstance(value, bool):
            return "flag", not value
        if isinstance(value, int):
            return "number", value + 1
        if isinstance(value, float):
            return "number", round(value + 0.5, 2)
        if isinstance(value, str) and name in enums and len(enums[name]) > 1:
            return "choice", next(v for v in enums[name] if v != value)
        if isinstance(value, str) and (match := ID.match(value)):
            return "id", f"{match[1]}{int(match[2]) + 1:0{len(match[2])}d}"
        return None

    def visit(args: dict[str, Any], path: tuple[str, ...]) -> None:
        for name, value in args.items():
            if isinstance(value, dict):
                visit(value, (*path, name))
                continue
            change = changed(value, name)
            if change is None or change[0] in found or (not path and name == "endpoint"):
                continue
            new_args = copy.deepcopy(call.args)
            target = new_args
            for step in path:
                target = target[step]
            target[name] = change[1]
            found[change[0]] = Call(tool=call.tool, args=new_args)

    visit(call.args, ())
    return found


def ending(task) -> Call:
    """The gold's own last call when it ends the episode (a report is graded), else a plain one."""
    world = get_world(task.world)
    if task.gold and task.gold[-1].tool == world.finish_tool:
        return task.gold[-1]
    return Call(tool=world.finish_tool, args={world.finish_answer: "done"})


def gold_calls(task) -> list[Call]:
    return [c for c in task.gold if c.tool != get_world(task.world).finish_tool]


def sweep() -> dict[str, tuple[Any, list[Call]]]:
    """The sweep's cases, each a trajectory differing from its task's gold: a sample of each world's tasks
    (``support.task_sample``) played without their writes; and for the first gold write of every operation
    in every world, that write left out, made twice, and changed in one value of each kind its arguments hold."""
    cases: dict[str, tuple[Any, list[Call]]] = {}
    seen: set[tuple[str, str]] = set()
    sample = {t.id for t in task_sample()}
    for task in all_tasks():
        world, gold = get_world(task.world), gold_calls(task)
        if task.id in sample:
            cases[f"{task.id}:nothing"] = (task, [])
        for i, call in enumerate(gold):
            if not writes(world, call) or (task.world, operation(world, call)) in seen:
                continue
            seen.add((task.world, operation(world, call)))
            name = f"{task.id}:{operation(world, call)}"
            cases[f"{name}:left-out"] = (task, gold[:i] + gold[i + 1 :])
            cases[f"{name}:twice"] = (task, [*gold[: i + 1], call, *gold[i + 1 :]])
            for kind, changed in perturbations(world, call).items():
                cases[f"{name}:changed-{kind}"] = (task, [*gold[:i], changed, *gold[i + 1 :]])
    return cases


CASES = sweep()


def play(task, calls, path, scale=1):
    with Episode.start(task, path, scale=scale) as episode:
        for call in [*calls, ending(task)]:
            episode.call(call.tool, call.args)
    return path


def as_rows(result):
    return sorted(map(repr, (d.to_dict() for d in result.differences))), result.partial_credit


def graded_rows(path, world: World) -> dict[str, list[tuple]]:
    """Every graded column of every graded world table, row by row: what the grader compares."""
    connection = sqlite3.connect(path)
    try:
        found = {}
        for table in world.tables:
            if table.info.get("graded") is False:
                continue
            columns = [c.name for c in table.columns if c.info.get("graded", True) is not False]
            listed = ", ".join(f'"{c}"' for c in columns)
            found[table.name] = sorted(connection.execute(f'SELECT {listed} FROM "{table.name}"').fetchall(), key=repr)
        return found
    finally:
        connection.close()


@pytest.mark.parametrize("name", list(CASES))
def test_a_trajectory_that_differs_from_gold_is_graded_by_what_it_left(tmp_path, name):
    """The diff by changed keys equals the full scan; an episode whose graded rows equal the gold's matches;
    one with a gold write changed or left out, and rows that differ, does not. (A write made twice may be
    harmless: rows created in another order are aligned by content.)"""
    task, calls = CASES[name]
    world = get_world(task.world)
    snapshot = seeds.task_snapshot(world, task.seed_changes)
    gold = gold_database(task, snapshot)
    episode = play(task, calls, tmp_path / "episode.db")
    by_changes = diff_databases(gold, episode, world.tables, base=snapshot)
    assert as_rows(by_changes) == as_rows(diff_databases(gold, episode, world.tables, base=snapshot, full=True))
    if graded_rows(episode, world) == graded_rows(gold, world):
        assert by_changes.match  # the gold's rows, however they came about (a changed write may leave them)
    elif ":changed-" in name or ":left-out" in name:
        # a gold write changed or missing, and rows that show it, are never the gold's outcome: the diff tells,
        # or (a free text no fact is asked of, as a drafted letter) the task's own reward does
        assert not by_changes.match or grade(episode).reward < 1


SCALED = [
    next(t for t in all_tasks() if t.world == w and any(writes(get_world(w), c) for c in t.gold))
    for w in sorted({t.world for t in all_tasks()})
]


@pytest.mark.parametrize("task", SCALED, ids=lambda t: t.id)
def test_changed_key_diff_equals_full_diff_on_a_scaled_world(tmp_path, task):
    world = get_world(task.world)
    snapshot = seeds.task_snapshot(world, task.seed_changes, 10)
    gold = play(task, gold_calls(task), tmp_path / "gold.db", scale=10)
    wrong = play(task, [], tmp_path / "wrong.db", scale=10)
    for actual, matches in ((gold, True), (wrong, False)):
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
