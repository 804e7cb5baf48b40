"""What a hostile or unlucky user does to files: odd names, cache folders, damaged caches, tampered
episode files. Each test states what a user relies on, and fails on the code that broke it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from simtenant.errors import SimtenantError
from simtenant.grader import grade
from simtenant.world import get_task

REFUND = "commerce/refund-damaged-item"
SIMTENANT = str(Path(sys.executable).with_name("simtenant"))
# each odd name, and the name an unescaped URI would read it as (where the oracle's episode waits)
ODD_NAMES = [
    ("x%41.db", "xA.db"),
    ("what?.db", "what"),
    ("no#1.db", "no"),
    ("with space.db", "with%20space.db"),
    ("é ü 中.db", "decoy.db"),
    ("%2e%2e.db", "...db"),
]


def cli(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SIMTENANT, *map(str, args)], capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}
    )


@pytest.mark.parametrize(("name", "misread"), ODD_NAMES)
def test_an_episode_file_of_any_name_is_graded_itself(tmp_path: Path, name: str, misread: str) -> None:
    # An oracle episode sits at the name an unescaped URI would read: the noop episode must be graded
    # from its own file, and nothing else be written.
    decoy = tmp_path / misread
    assert cli("run", REFUND, "--agent", "oracle", "--out", decoy).returncode == 0
    noop = tmp_path / name
    played = cli("run", REFUND, "--agent", "noop", "--out", noop, "--json")
    assert played.returncode == 0, played.stdout + played.stderr
    assert json.loads(played.stdout)["reward"] == 0.0
    assert grade(noop).reward == 0.0 and grade(decoy).reward == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({decoy.name, noop.name})


def test_a_cache_folder_of_any_name_builds_and_grades(tmp_path: Path) -> None:
    cache = tmp_path / "ca?ch#e %41 é"
    played = cli(
        "run", REFUND, "--agent", "oracle", "--out", tmp_path / "e.db", "--json", env={"SIMTENANT_CACHE": str(cache)}
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert json.loads(played.stdout)["reward"] == 1.0
    assert any(cache.glob("snapshots/commerce-*.db")) and not (tmp_path / "ca").exists()


def test_a_checksum_that_is_a_folder_is_rebuilt_not_a_permanent_failure(tmp_path: Path) -> None:
    env = {"SIMTENANT_CACHE": str(tmp_path / "cache")}
    assert cli("run", REFUND, "--agent", "noop", "--out", tmp_path / "a.db", env=env).returncode == 0
    for checksum in (tmp_path / "cache" / "snapshots").glob("commerce-*.sha256"):
        checksum.unlink()
        checksum.mkdir()
    again = cli("run", REFUND, "--agent", "oracle", "--out", tmp_path / "b.db", "--json", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["reward"] == 1.0


def test_a_task_id_changed_in_the_file_is_refused_unless_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    assert cli("run", REFUND, "--agent", "noop", "--out", path).returncode == 0
    tampered(path, "UPDATE _episode SET task = 'commerce/order-status'")
    with pytest.raises(SimtenantError) as refused:
        grade(path)
    assert refused.value.error == "task_mismatch" and REFUND in refused.value.message
    assert grade(path, task=get_task(REFUND)).reward == 0.0  # asked for: graded as the task it was played on


def tampered(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


def test_a_write_hidden_from_the_change_log_is_still_graded(tmp_path: Path) -> None:
    # An extra refund, its log entry deleted: the log no longer names every row, and the grader scans.
    path = tmp_path / "e.db"
    assert cli("run", REFUND, "--agent", "oracle", "--out", path).returncode == 0
    extra = "INSERT INTO refunds (id, order_id, amount, reason, created_at) "
    extra += "SELECT 'RF-9999', order_id, 5, reason, created_at FROM refunds LIMIT 1"
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        tampered(path, extra, "DELETE FROM _changes WHERE pk = '[\"RF-9999\"]'")
    tampered(path, 'DROP TRIGGER "_guard_changes_delete"', extra, "DELETE FROM _changes WHERE pk = '[\"RF-9999\"]'")
    result = grade(path)
    assert result.reward < 1.0 and any(d.key == "RF-9999" for d in result.diff.differences)
    assert "change log was tampered with" in " ".join(result.warnings)
    assert grade(path, full=True).reward == result.reward
