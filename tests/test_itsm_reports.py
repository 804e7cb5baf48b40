"""ITSM reports: every aggregation agrees with a direct SQL count over the snapshot, within the
acting user's readable scope, and a user without read permission is refused."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.task import Task
from simtenant.world import get_world

MANAGER = "USR-0009"
REPORTER = "USR-0005"
NOW = "2026-05-18T09:00:00Z"


def task(actor: str) -> Task:
    return Task.model_validate(
        {
            "id": "itsm/test",
            "world": "itsm",
            "description": "t",
            "instruction": "t",
            "current_time": NOW,
            "actor": actor,
            "gold": [],
            "hash": "test",
        }
    )


@pytest.fixture(scope="module")
def snap() -> Path:
    return seeds.snapshot(get_world("itsm"))


@pytest.fixture
def ep(snap: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Episode]:
    episode = Episode.start(task(MANAGER), tmp_path_factory.mktemp("reports") / "e.db")
    yield episode
    episode.close()


def sql_counts(snap: Path, sql: str, *params: Any) -> list[tuple]:
    """``sql`` (selecting key, count, with ``{scope}`` for the manager's organizations), sorted by key."""
    scope = f"org_id IN (SELECT org_id FROM user_roles WHERE user_id = '{MANAGER}')"
    connection = sqlite3.connect(snap)
    try:
        rows = connection.execute(sql.format(scope=scope), params).fetchall()
    finally:
        connection.close()
    return sorted(rows, key=lambda r: (r[0] is None, r[0] if r[0] is not None else 0))


def counts(ep: Episode, tool: str, args: dict[str, Any] | None = None) -> list[tuple]:
    outcome = ep.call(tool, args or {})
    assert outcome.ok, outcome.error
    result = outcome.result
    assert result["total"] == sum(r["count"] for r in result["counts"])
    return [(r["key"], r["count"]) for r in result["counts"]]


CASES = [
    ("count_incidents_by_priority", {}, "SELECT priority, COUNT(*) FROM incidents WHERE {scope} GROUP BY 1"),
    (
        "count_incidents_by_priority",
        {"status": "in_progress"},
        "SELECT priority, COUNT(*) FROM incidents WHERE {scope} AND status = 'in_progress' GROUP BY 1",
    ),
    ("count_incidents_by_group", {}, "SELECT assignment_group_id, COUNT(*) FROM incidents WHERE {scope} GROUP BY 1"),
    ("count_incidents_by_status", {}, "SELECT status, COUNT(*) FROM incidents WHERE {scope} GROUP BY 1"),
    (
        "count_incidents_by_status",
        {"category": "network"},
        "SELECT status, COUNT(*) FROM incidents WHERE {scope} AND category = 'network' GROUP BY 1",
    ),
    (
        "count_open_incidents_by_assignee",
        {},
        "SELECT assigned_to_id, COUNT(*) FROM incidents WHERE {scope}"
        " AND status IN ('new', 'in_progress', 'on_hold') GROUP BY 1",
    ),
    (
        "count_breached_slas_by_stage",
        {},
        "SELECT stage, COUNT(*) FROM incident_slas WHERE {scope}"
        f" AND (breached OR (state = 'in_progress' AND breach_at < '{NOW}')) GROUP BY 1",
    ),
    ("count_notifications_by_channel", {}, "SELECT channel, COUNT(*) FROM notifications WHERE {scope} GROUP BY 1"),
    ("count_changes_by_state", {}, "SELECT status, COUNT(*) FROM change_requests WHERE {scope} GROUP BY 1"),
    (
        "count_changes_by_state",
        {"category": "normal"},
        "SELECT status, COUNT(*) FROM change_requests WHERE {scope} AND category = 'normal' GROUP BY 1",
    ),
    (
        "count_configuration_items_by_class",
        {},
        "SELECT ci_class, COUNT(*) FROM configuration_items WHERE {scope} GROUP BY 1",
    ),
    (
        "count_configuration_items_by_class",
        {"status": "in_use"},
        "SELECT ci_class, COUNT(*) FROM configuration_items WHERE {scope} AND status = 'in_use' GROUP BY 1",
    ),
]


@pytest.mark.parametrize(("tool", "args", "sql"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_count_agrees_with_sql(ep, snap, tool, args, sql):
    assert counts(ep, tool, args) == sql_counts(snap, sql)


def test_the_counts_are_not_empty(ep):
    for tool in ("count_incidents_by_priority", "count_changes_by_state", "count_configuration_items_by_class"):
        assert counts(ep, tool), f"{tool}: the seed should give something to count"


def test_average_sla_target_agrees_with_sql(ep, snap):
    expected = sql_counts(
        snap, "SELECT priority, ROUND(AVG(target_minutes), 2), COUNT(*) FROM sla_definitions WHERE {scope} GROUP BY 1"
    )
    result = ep.call("average_sla_target_by_priority", {}).result
    assert [(r["key"], r["average_target_minutes"], r["count"]) for r in result["counts"]] == expected
    by_stage = ep.call("average_sla_target_by_priority", {"stage": "resolution"}).result["counts"]
    assert [(r["key"], r["average_target_minutes"]) for r in by_stage] == [
        (p, float(m))
        for p, m, _ in sql_counts(
            snap,
            "SELECT priority, target_minutes, 1 FROM sla_definitions WHERE {scope} AND stage = 'resolution'",
        )
    ]


def test_named_groups_carry_their_names(ep, snap):
    names = dict(sql_counts(snap, "SELECT id, name FROM user_groups WHERE {scope}"))
    for row in ep.call("count_incidents_by_group", {}).result["counts"]:
        assert row["name"] == names.get(row["key"])


def test_reports_read_only_what_the_user_may_read(snap, tmp_path):
    with Episode.start(task(REPORTER), tmp_path / "e.db") as ep:
        assert counts(ep, "count_incidents_by_status") == sql_counts(
            snap, "SELECT status, COUNT(*) FROM incidents WHERE {scope} GROUP BY 1"
        )
        for tool in ("count_breached_slas_by_stage", "count_changes_by_state", "count_configuration_items_by_class"):
            outcome = ep.call(tool, {})
            assert not outcome.ok and outcome.error["code"] == 403, (tool, outcome.result)


@pytest.mark.parametrize(
    ("tool", "column"),
    [("count_incidents_by_priority", "priority"), ("count_incidents_by_group", "assignment_group_id")],
)
def test_open_only_counts_agree_with_sql(tmp_path, tool, column):
    task = Task.model_validate(
        {
            "id": "itsm/test",
            "world": "itsm",
            "description": "t",
            "instruction": "t",
            "current_time": "2026-05-18T09:00:00Z",
            "actor": "USR-0002",
            "gold": [],
            "hash": "open-only",
        }
    )
    with Episode.start(task, tmp_path / "e.db") as episode:
        counts = episode.call(tool, {"open_only": True}).result["counts"]
    connection = sqlite3.connect(seeds.snapshot(get_world("itsm")))
    try:
        expected = connection.execute(
            f"SELECT {column}, count(*) FROM incidents WHERE status IN ('new', 'in_progress', 'on_hold') "
            f"GROUP BY {column}"
        ).fetchall()
    finally:
        connection.close()
    assert sorted((c["key"], c["count"]) for c in counts if c["key"] is not None) == sorted(
        (k, n) for k, n in expected if k is not None
    )
    assert sum(c["count"] for c in counts) == sum(n for _, n in expected)
