"""Helpers the tool tests share: a bare task to start episodes of, a module-wide episode fixture,
calls that must succeed or be refused, and rows read straight from a database file."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simtenant.db import open_readonly
from simtenant.episode import Episode
from simtenant.grader.checks import Played
from simtenant.grader.grade import EpisodeFile
from simtenant.task import Task
from simtenant.world import all_tasks


def sweep_task(world: str, name: str, actor: str | None, **extra: Any) -> Task:
    """A task with no gold calls, ``{world}/{name}``, acting as ``actor``; ``extra`` adds or overrides fields."""
    return Task.model_validate(
        {
            "id": f"{world}/{name}",
            "world": world,
            "description": "t",
            "instruction": "t",
            "current_time": "2026-09-14T09:00:00Z",
            "actor": actor,
            "gold": [],
            "hash": name,
            **extra,
        }
    )


def episode_fixture(folder: str, world: str, name: str, actor: str | None, **extra: Any) -> Any:
    """An ``episode`` fixture: a fresh episode of ``sweep_task(world, name, actor, **extra)`` for each test
    (so no test sees another's writes, whatever the order)."""

    @pytest.fixture
    def episode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Episode]:
        task = sweep_task(world, name, actor, **extra)
        with Episode.start(task, tmp_path_factory.mktemp(folder) / "e.db") as opened:
            yield opened

    return episode


def ok(episode: Episode, tool: str, args: dict[str, Any] | None = None, actor: str | None = None) -> Any:
    """Call a tool (as ``actor`` if given) and return its result; the call must succeed."""
    if actor is not None:
        episode.actor = actor
    outcome = episode.call(tool, args or {})
    assert outcome.ok, outcome.error
    return outcome.result


def refused(
    episode: Episode,
    tool: str,
    args: dict[str, Any],
    code: int,
    error: str,
    state: Callable[[Episode], Any] | None = None,
    actor: str | None = None,
) -> None:
    """Call a tool (as ``actor`` if given); it must be refused with ``code`` and ``error``, and what
    ``state`` reads of the episode, if given, must be the same after the call as before."""
    if actor is not None:
        episode.actor = actor
    before = state(episode) if state is not None else None
    outcome = episode.call(tool, args)
    assert not outcome.ok
    assert (outcome.error["code"], outcome.error["error"]) == (code, error), outcome.error
    if state is not None:
        assert state(episode) == before


def rows(path: Path | str, query: str, *params: Any) -> list[tuple]:
    """Every row a query returns from a database file."""
    connection = sqlite3.connect(path)
    try:
        return connection.execute(query, params).fetchall()
    finally:
        connection.close()


def played(path: Path | None = None, answer: str | None = None, calls: list[Any] | None = None) -> Played:
    """What a check reads of an episode: the file at ``path`` (its database and conversation; an empty
    database without one), with ``answer`` and ``calls``."""
    if path is None:
        return Played(sqlite3.connect(":memory:"), answer, list(calls or []))
    return Played(open_readonly(path), answer, list(calls or []), EpisodeFile.read(path).messages)


SAMPLE_EACH = 4  # tasks of each world and difficulty that the task-by-task tests play


def task_sample() -> list[Task]:
    """A stable sample of the tasks, for the tests that play tasks one by one (isolation, atomicity,
    mutation, kill): the first tasks of each world and difficulty by the SHA-256 of their ids.
    `simtenant validate` and `simtenant mutate` prove every task in CI; set SIMTENANT_TEST_TASKS=all
    to have these tests play every task too."""
    tasks = all_tasks()
    if os.environ.get("SIMTENANT_TEST_TASKS") == "all":
        return tasks
    groups: dict[tuple[str, str], list[Task]] = {}
    for task in sorted(tasks, key=lambda t: hashlib.sha256(t.id.encode()).hexdigest()):
        groups.setdefault((task.world, task.difficulty), []).append(task)
    chosen = {t.id for group in groups.values() for t in group[:SAMPLE_EACH]}
    return [t for t in tasks if t.id in chosen]
