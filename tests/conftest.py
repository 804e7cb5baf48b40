"""Shared fixtures: a private snapshot cache per test session, and episodes of real tasks."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simtenant.episode import Episode
from simtenant.world import get_task


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Snapshots and gold databases built fresh for the tests, in a temporary cache."""
    cache = tmp_path_factory.mktemp("simtenant-cache")
    patcher = pytest.MonkeyPatch()
    patcher.setenv("SIMTENANT_CACHE", str(cache))
    yield cache
    patcher.undo()


@pytest.fixture
def start_episode(tmp_path: Path) -> Iterator[Callable[..., Episode]]:
    """Start an episode of a task in the test's temporary folder; closed at the end."""
    opened: list[Episode] = []

    def start(task_id: str = "commerce/refund-damaged-item", name: str = "episode.db") -> Episode:
        episode = Episode.start(get_task(task_id), tmp_path / name)
        opened.append(episode)
        return episode

    yield start
    for episode in opened:
        episode.close()


def read_world_rows(path: Path) -> dict[str, list[tuple]]:
    connection = sqlite3.connect(path)
    try:
        names = [
            n
            for (n,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
            if not n.startswith("_") and not n.startswith("sqlite_") and n != "alembic_version"
        ]
        return {n: connection.execute(f'SELECT * FROM "{n}" ORDER BY 1').fetchall() for n in names}
    finally:
        connection.close()


@pytest.fixture
def world_rows() -> Callable[[Path], dict[str, list[tuple]]]:
    """Every row of every non-harness table of a database, for before/after comparisons."""
    return read_world_rows


TALLIES = {  # module: (its counter, what it counts): the figures docs/reliability.md reports
    "test_fuzz": ("CALLS", "generated calls"),
    "test_atomicity": ("FAULTS", "calls faulted between two writes"),
    "test_mutation": ("CAUGHT", "mutants caught"),
}
MERGED: dict[str, dict[str, Any]] = {}  # the workers' tallies, gathered by the controller (pytest-xdist)


def _local_tallies() -> dict[str, dict[str, Any]]:
    import sys

    found = {}
    for module, (name, _) in TALLIES.items():
        tally = getattr(sys.modules.get(module) or sys.modules.get(f"tests.{module}"), name, None)
        if tally:
            found[module] = dict(tally)
    return found


def _merge(into: dict[str, dict[str, Any]], tallies: dict[str, dict[str, Any]]) -> None:
    for module, per_world in tallies.items():
        mine = into.setdefault(module, {})
        for world, value in per_world.items():
            if isinstance(value, list | tuple):  # (caught, tried)
                old = mine.get(world, (0, 0))
                mine[world] = (old[0] + value[0], old[1] + value[1])
            else:
                mine[world] = mine.get(world, 0) + value


def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workeroutput"):  # a worker: hand its tallies to the controller
        session.config.workeroutput["tallies"] = json.dumps(_local_tallies())


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: the suite also runs without it (-p no:xdist)
def pytest_testnodedown(node: Any, error: Any) -> None:
    _merge(MERGED, json.loads(node.workeroutput.get("tallies", "{}")))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many cases the reliability tests tried, per world (from every worker)."""
    tallies: dict[str, dict[str, Any]] = {}
    _merge(tallies, MERGED)
    _merge(tallies, _local_tallies())
    for module, (_, what) in TALLIES.items():
        tally = tallies.get(module)
        if not tally:
            continue
        if module == "test_mutation":
            rates = ", ".join(f"{world} {c}/{n} = {c / n:.1%}" for world, (c, n) in sorted(tally.items()))
            terminalreporter.write_line(f"{module}: {what} ({rates})")
        else:
            per_world = ", ".join(f"{world} {count}" for world, count in sorted(tally.items()))
            terminalreporter.write_line(f"{module}: {sum(tally.values())} {what} ({per_world})")
