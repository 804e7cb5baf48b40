"""Atomicity: a fault between two writes of a call leaves no partial write.

A failpoint on the episode's connection (SQLAlchemy's ``before_cursor_execute``, and the one method
through which tools' ``Rows`` run their statements) counts the statements a call writes with —
INSERT, UPDATE, DELETE, the id sequences included; the call's own ``_calls`` record left out — and
raises before the k-th. Every gold call of a sample of every world's tasks (``support.task_sample``)
is played with the fault at its 2nd write, then its 3rd, and so on until the call runs out of writes
and succeeds: each faulted attempt must answer a structured error and leave every world table
exactly as it was. Since nothing of an attempt survives, the episode goes on, and its final world
must equal the gold database, row for row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event
from support import task_sample

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.grader.diff import diff_databases
from simtenant.grader.grade import gold_database
from simtenant.tools.engine.rows import Rows, Statement
from simtenant.world import get_world

pytestmark = pytest.mark.slow  # a stress run: CI runs it; -m "not slow" skips it while developing

FAULTS: dict[str, int] = {}  # world -> faulted attempts (reported by conftest's terminal summary)
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class InjectedFault(Exception):
    """Raised by the failpoint in place of a write."""


class Failpoint:
    """Raise before the ``fire_at``-th write statement of the connection, when armed."""

    def __init__(self) -> None:
        self.fire_at: int | None = None
        self.writes = 0
        self.fired = False

    def arm(self, fire_at: int | None) -> None:
        self.fire_at, self.writes, self.fired = fire_at, 0, False

    def __call__(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        text = statement.lstrip().upper()
        if self.fire_at is None or not text.startswith(WRITES) or "INTO _CALLS" in text:
            return
        self.writes += 1
        if self.writes == self.fire_at:
            self.fired = True
            raise InjectedFault(f"failpoint before write {self.fire_at}")


@contextmanager
def watching(episode: Episode, failpoint: Failpoint, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The failpoint sees every statement the episode runs: the session's (its event) and ``Rows``'."""
    original = Rows.execute

    def execute(rows: Rows, statement: Statement, values: Any) -> Any:
        failpoint(None, None, statement.sql)
        return original(rows, statement, values)

    monkeypatch.setattr(Rows, "execute", execute)
    event.listen(episode.connection, "before_cursor_execute", failpoint)
    try:
        yield
    finally:
        event.remove(episode.connection, "before_cursor_execute", failpoint)
        monkeypatch.setattr(Rows, "execute", original)


def world_state(path: Any) -> dict[str, list[tuple]]:
    """Every world table's rows, read through a connection of their own."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' "
                "AND name NOT LIKE 'sqlite%' ORDER BY name"
            )
        ]
        return {t: connection.execute(f'SELECT * FROM "{t}" ORDER BY rowid').fetchall() for t in tables}
    finally:
        connection.close()


@pytest.mark.parametrize("task", task_sample(), ids=lambda t: t.id)
def test_a_fault_between_two_writes_leaves_no_partial_write(tmp_path, task, monkeypatch):
    world = get_world(task.world)
    failpoint = Failpoint()
    with Episode.start(task, tmp_path / "episode.db") as episode, watching(episode, failpoint, monkeypatch):
        for call in task.gold:
            fire_at = 2
            while True:
                before = world_state(episode.path)
                failpoint.arm(fire_at)
                outcome = episode.call(call.tool, call.args)
                if not failpoint.fired:
                    assert outcome.ok, (call.tool, outcome.error)  # the real call, fault never reached
                    break
                FAULTS[task.world] = FAULTS.get(task.world, 0) + 1
                assert not outcome.ok and set(outcome.error) == {"code", "error", "message"}, outcome
                assert world_state(episode.path) == before, f"{call.tool}: partial write before write {fire_at}"
                fire_at += 1
            failpoint.arm(None)
            if episode.done:
                break
    snapshot = seeds.task_snapshot(world, task.seed_changes)
    gold = gold_database(task, snapshot)
    assert diff_databases(gold, episode.path, world.tables, base=snapshot).match


@pytest.mark.parametrize("world", sorted({t.world for t in task_sample()}))
def test_every_world_has_gold_calls_with_several_writes_to_fault(tmp_path, world, monkeypatch):
    """The sweep above reaches calls with two writes or more in every world (so a fault lands between
    two of them), shown by counting the writes of gold calls (without faulting them)."""
    counter = Failpoint()
    for task in (t for t in task_sample() if t.world == world):
        path = tmp_path / f"{task.id.replace('/', '__')}.db"
        with Episode.start(task, path) as episode, watching(episode, counter, monkeypatch):
            for call in task.gold:
                counter.arm(10**9)  # counts, never fires
                assert episode.call(call.tool, call.args).ok
                if counter.writes >= 2:
                    return
                if episode.done:
                    break
    pytest.fail(f"no gold call of {world} writes twice: the sweep faults nothing there")
