"""The benchmark runs end to end and reports every figure beside the baseline (no timing is asserted)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from simtenant import seeds
from simtenant.cli import app
from simtenant.episode import Episode
from simtenant.evaluation.bench import Floor, InMemoryWorld, Workload, read_target
from simtenant.tools.engine.rows import driver
from simtenant.world import get_world, worlds

FIGURES = ("reset", "read_call", "write_call", "grade")
FLOORS = ("copy_and_open", "floor_raw_select", "floor_recorded_select", "floor_recorded_update", "floor_first_update")


def test_bench_reports_every_figure_and_ratio(tmp_path):
    out = tmp_path / "bench.json"
    result = CliRunner().invoke(
        app, ["bench", "--scales", "1", "--budget", "0.02", "--world", "commerce", "--out", str(out), "--markdown"]
    )
    assert result.exit_code == 0, result.output
    results = json.loads(out.read_text())
    figures = results["worlds"]["commerce"]["scales"]["1"]
    for side in ("simtenant", "baseline"):
        for figure in FIGURES:
            assert figures[side][figure]["median_ms"] > 0
            assert figures[side][figure]["p95_ms"] >= figures[side][figure]["median_ms"]
        assert set(figures[side]["episodes_per_second"]) == {"1", "2"}
        assert figures[side]["memory_kib_per_episode"] != 0
    assert all(figures["simtenant"][floor]["median_ms"] > 0 for floor in FLOORS)  # measured in the same run
    assert set(figures["ratios"]) >= {*FIGURES, "episodes_per_second_1", "episodes_per_second_2", "memory"}
    assert {t["target"] for t in results["targets"]} >= {
        "indexed lookup call median at 1x (ms)",
        "oracle episodes/s on 2 workers at 1x",
        "read call / recorded select at 1x",
        "write call / first recorded update at 1x",
        "reset / copy+open at 1x",
        "grade / reset at 1x",
        "the HTTP door's added time a call, keep-alive (ms)",
        "steps/s one server answers 8 clients",
    }
    assert "| commerce | 1x | reset median / p95 (ms) |" in result.output
    assert "| commerce | 1x | floor: update + _calls insert + commit (ms) |" in result.output
    door = results["http"]["commerce"]  # the same read through the HTTP server, and 8 clients at once
    assert door["call_direct_ms"] > 0 and door["call_http_ms"] > 0 and door["steps_per_second_8_clients"] > 0
    # the workload, its write and the rows that write changes (the floor under it changes one)
    measured = results["worlds"]["commerce"]
    assert (measured["write"], measured["write_rows"]) == ("orders_process_refund", 1)
    assert "| commerce | `commerce/billing-discrepancy` | `orders_process_refund` | 1 |" in result.output
    # the door's table, in Markdown too
    assert re.search(r"\| commerce \| `commerce/billing-discrepancy` \| [0-9.]+ \| [0-9.]+ \|", result.output)


def test_the_baseline_does_the_same_work(tmp_path):
    """Its write touches the rows the real write call touched, and its grade tells right from wrong."""
    load = Workload.of(get_world("commerce"))
    assert load is not None
    world = InMemoryWorld(load, seeds.snapshot(load.world))
    assert [(table, key) for table, key, _ in world.write_rows] == [("refunds", "RF-0007")]
    assert world.episode(load) is True
    state = world.reset()
    assert world.digest(state) != world.digest({**state, "refunds": {}})
    table, key = world.read_target
    found = world.read(state)
    assert (table, found["id"]) == ("users", key)
    assert found["orders"] and all(order["user_id"] == key for order in found["orders"])


def test_bench_refuses_bad_scales():
    result = CliRunner().invoke(app, ["bench", "--scales", "0"])
    assert result.exit_code == 1
    assert "invalid_scales" in result.output


@pytest.mark.parametrize("world_name", sorted(worlds()))
def test_every_world_has_a_workload_the_bench_can_measure(world_name):
    """A read of a record by its id and a write (through api_fetch too), both found in the baseline's copy
    of the task's own starting world, and the baseline's episode ends where simtenant's does."""
    load = Workload.of(get_world(world_name))
    assert load is not None
    world = InMemoryWorld(load, seeds.task_snapshot(load.world, load.task.seed_changes))
    table, key = world.read_target
    assert key in world.reset()[table] and world.write_rows
    assert world.episode(load) is True


@pytest.mark.parametrize("world_name", sorted(worlds()))
def test_every_world_has_a_floor_the_bench_can_measure(world_name, tmp_path):
    """The floor under the read call (its record's select, recorded, and a recorded update of it) runs on a
    copy of the episode, leaving one more call recorded each time and the record changed nowhere else."""
    load = Workload.of(get_world(world_name))
    assert load is not None
    with Episode.start(load.task, tmp_path / "e.db") as episode:
        assert episode.call(load.read.tool, load.read.args).ok
        table, key = read_target(load.world, load.read, load.task.actor, driver(episode.session))
        floor = Floor(episode.path, tmp_path / "floor.db", table, key)
    try:
        before = floor.seq
        floor.raw_select()
        floor.recorded_select()
        floor.recorded_update()
        assert floor.connection.execute("SELECT max(seq) FROM _calls").fetchone() == (before + 2,)
        logged = floor.connection.execute("SELECT tbl, pk FROM _changes").fetchall()
        assert logged == [(table.name, json.dumps([key]))]  # the update's trigger fired, as a tool's write does
    finally:
        floor.close()
    # the same update as an episode's first write, on a fresh copy it removes again
    episode_bytes = episode.path.read_bytes()
    assert Floor.first_update(episode.path, tmp_path / "first.db", table, key, calls_before=True) > 0
    assert not (tmp_path / "first.db").exists() and episode.path.read_bytes() == episode_bytes
