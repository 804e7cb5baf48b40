"""Determinism: one trajectory, run 10 times in 10 separate processes, each with its own
``PYTHONHASHSEED`` (ten seeds show what fifty did: a dict or set order that leaks into the file differs
between most pairs of seeds), gives byte-identical episode databases and identical grades.

The trajectory is a task's gold calls with mistakes mixed in (an unknown id, a malformed call, a
refused write), so error paths are covered too. Each process plays it with the replay agent and
grades it; the parent compares the SHA-256 of every episode file and every grade.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simtenant import seeds
from simtenant.grader.grade import gold_database
from simtenant.world import get_task, get_world

pytestmark = pytest.mark.slow  # a stress run: CI runs it; -m "not slow" skips it while developing

RUNS = 10
PARALLEL = 2
TASK = "itsm-msp/inc-atlas-plotter-log-assign-start"
CHILD = """
import hashlib, json, sys
from pathlib import Path
from simtenant.agents import run
from simtenant.grader import grade
from simtenant.world import get_task

path = run(get_task(sys.argv[1]), "replay", Path(sys.argv[2]), actions=Path(sys.argv[3]))
result = grade(path).to_dict()
result.pop("episode_db")
print(json.dumps({"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "grade": result}, sort_keys=True))
"""


def trajectory(task_id: str) -> list[dict]:
    gold = [{"tool": c.tool, "args": c.args} for c in get_task(task_id).gold]
    mistakes = [
        {"tool": "get_incident_by_number", "args": {"incident_number": "INC9999999"}},
        {"tool": "create_incident", "args": {"caller_id": 42}},
        {"tool": "close_incident", "args": {"incident_number": "INC0000088", "close_notes": "done"}},
    ]
    return [*gold[:2], *mistakes, *gold[2:]]


def test_ten_processes_with_different_hash_seeds_give_identical_bytes_and_grades(tmp_path):
    task = get_task(TASK)
    gold_database(task, seeds.task_snapshot(get_world(task.world), task.seed_changes))  # built once, shared
    actions = tmp_path / "trajectory.json"
    actions.write_text(json.dumps(trajectory(TASK)))
    outputs: list[str] = []
    pending = list(range(RUNS))
    while pending:
        batch, pending = pending[:PARALLEL], pending[PARALLEL:]
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, TASK, str(tmp_path / f"run-{i}.db"), str(actions)],
                env={**os.environ, "PYTHONHASHSEED": str(i * 7919 + 1)},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in batch
        ]
        for process in processes:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
            outputs.append(out.strip().splitlines()[-1])
    runs = [json.loads(o) for o in outputs]
    assert len(runs) == RUNS
    assert len({r["sha256"] for r in runs}) == 1
    assert all(r["grade"] == runs[0]["grade"] for r in runs)
    assert runs[0]["grade"]["steps"] == len(trajectory(TASK)) and runs[0]["grade"]["db_match"] == 1
    assert len(list(Path(tmp_path).glob("run-*.db"))) == RUNS
