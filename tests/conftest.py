"""Shared fixtures: a private snapshot cache per test session, and episodes of real tasks."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

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
}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many cases the reliability tests tried, per world."""
    import sys

    for module, (name, what) in TALLIES.items():
        tally = getattr(sys.modules.get(module) or sys.modules.get(f"tests.{module}"), name, None)
        if tally:
            per_world = ", ".join(f"{world} {count}" for world, count in sorted(tally.items()))
            terminalreporter.write_line(f"{module}: {sum(tally.values())} {what} ({per_world})")
    caught = getattr(sys.modules.get("test_mutation") or sys.modules.get("tests.test_mutation"), "CAUGHT", None)
    if caught:
        rates = ", ".join(f"{world} {c}/{n} = {c / n:.1%}" for world, (c, n) in sorted(caught.items()))
        terminalreporter.write_line(f"test_mutation: mutants caught ({rates})")
