"""Proving tasks: every gold call succeeds, gold scores 1 (under every reward the
task defines), the untouched world scores 0, and two replays are byte-identical."""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import seeds
from ..errors import SimtenantError
from ..task import Task
from ..world import get_world
from .grade import gold_database, grade, rubric_of


@dataclass
class TaskValidation:
    task: str
    problems: list[str] = field(default_factory=list)
    gold_reward: float | None = None
    shaped_reward: float | None = None
    rubric_reward: float | None = None
    assertion_reward: float | None = None
    noop_reward: float | None = None
    identical_replays: bool | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "ok": self.ok,
            "gold_reward": self.gold_reward,
            "shaped_reward": self.shaped_reward,
            "rubric_reward": self.rubric_reward,
            "assertion_reward": self.assertion_reward,
            "noop_reward": self.noop_reward,
            "identical_replays": self.identical_replays,
            "problems": self.problems,
        }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _scope_problems(task: Task, snapshot: Path) -> list[str]:
    """The scope a task states, checked against the world's own answer for its acting user."""
    query = get_world(task.world).scope_query
    if not task.scope:
        return []
    if query is None:
        return [f"the task states a scope, but world {task.world} has no scope_query to check it"]
    connection = sqlite3.connect(f"file:{snapshot}?mode=ro", uri=True)
    try:
        actual = sorted(str(org) for (org,) in connection.execute(query, {"actor": task.actor}))
    finally:
        connection.close()
    if sorted(task.scope) != actual:
        return [
            f"the task states the scope {', '.join(sorted(task.scope))}, but {task.actor} holds roles in "
            f"{', '.join(actual) or 'none'}"
        ]
    return []


def validate_task(task: Task) -> TaskValidation:
    from ..agents import run

    report = TaskValidation(task.id)
    with tempfile.TemporaryDirectory(prefix="simtenant-validate-") as tmp:
        work = Path(tmp)
        try:
            snapshot = seeds.task_snapshot(get_world(task.world), task.seed_changes)
            report.problems.extend(_scope_problems(task, snapshot))
            gold_database(task, snapshot)
            first = run(task, "oracle", work / "oracle-1.db")
            second = run(task, "oracle", work / "oracle-2.db")
            noop = run(task, "noop", work / "noop.db")
            report.gold_reward = grade(first, "default", task).reward
            if task.shaped is not None:
                report.shaped_reward = grade(first, "shaped", task).reward
            if rubric_of(task):
                report.rubric_reward = grade(first, "rubric", task).reward
            if task.assertions:
                report.assertion_reward = grade(first, "assertions", task).reward
            report.noop_reward = grade(noop, None, task).reward  # under the task's own reward
            report.identical_replays = _sha256(first) == _sha256(second)
        except SimtenantError as exc:
            report.problems.append(f"{exc.error}: {exc.message}")
            return report
    if report.gold_reward != 1.0:
        report.problems.append(f"gold replay scores {report.gold_reward}, not 1")
    if report.rubric_reward not in (None, 1.0):
        report.problems.append(f"gold replay scores {report.rubric_reward} under the rubric, not 1")
    if report.assertion_reward not in (None, 1.0):
        report.problems.append(f"gold replay meets {report.assertion_reward} of the assertions, not all")
    if report.shaped_reward not in (None, 1.0):
        report.problems.append(f"gold replay scores {report.shaped_reward} under the shaped reward, not 1")
    if report.noop_reward != 0.0:
        report.problems.append(f"the untouched world already scores {report.noop_reward}: the task asks for nothing")
    if not report.identical_replays:
        report.problems.append("two replays of the gold calls gave different database bytes")
    return report
