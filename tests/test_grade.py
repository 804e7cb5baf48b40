"""Grading episode files: gold replay and its cache, rewards of the oracle and
of doing nothing, refused files, and task validation."""

from __future__ import annotations

import dataclasses
import itertools
import json
import sqlite3
from pathlib import Path

import pytest

from simtenant import db, seeds
from simtenant.agents import noop, oracle
from simtenant.db import reading_unchanging
from simtenant.episode import Episode
from simtenant.errors import InvalidArgument, NotFound, TaskError
from simtenant.grader import EpisodeFile, gold_database, grade
from simtenant.grader.validate import validate_task
from simtenant.task import GoldCall
from simtenant.tools import REGISTRY
from simtenant.world import get_task, get_world

WORLD = get_world("commerce")
TASK_IDS = ["commerce/order-status", "commerce/billing-discrepancy", "commerce/refund-damaged-item"]
FINISH = GoldCall(tool="finish", args={"answer": "done"})


@pytest.fixture(scope="module")
def snap() -> Path:
    return seeds.snapshot(WORLD)


def played(start_episode, task_id: str, agent, name: str = "episode.db") -> Path:
    episode = start_episode(task_id, name)
    agent(episode)
    episode.close()
    return episode.path


def sql(path: Path, statement: str, params: tuple = ()) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(statement, params).fetchall()
        connection.commit()
        return rows
    finally:
        connection.close()


# --- oracle and noop ---------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_oracle_episode_grades_one(start_episode, task_id):
    task = get_task(task_id)
    result = grade(played(start_episode, task_id, oracle))
    assert (result.reward, result.db_match, result.partial_credit) == (1.0, 1, 1.0)
    assert result.diff.differences == []
    assert [c.passed for c in result.checks] == [True] * len(task.checks)
    assert result.completed
    assert result.steps == len(task.gold)
    assert result.answer == task.gold[-1].args["answer"]
    assert (result.task, result.reward_mode, result.warnings) == (task_id, "default", [])
    json.dumps(result.to_dict())


@pytest.mark.parametrize(
    ("task_id", "db_match", "failed_checks"),
    [
        # read-only task: the untouched world matches the gold, the answer check makes it 0
        ("commerce/order-status", 1, ["answer-states-status"]),
        ("commerce/billing-discrepancy", 0, ["answer-names-cause-and-amount"]),
        ("commerce/refund-damaged-item", 0, ["order-returned", "one-refund-of-49.99"]),
    ],
)
def test_noop_episode_grades_zero(start_episode, task_id, db_match, failed_checks):
    path = played(start_episode, task_id, noop)
    result = grade(path)
    assert result.reward == 0.0
    assert result.db_match == db_match
    assert result.db_credit == float(db_match)
    assert result.partial_credit == result.outcome_credit < 1.0  # the default mode's own partial score
    assert [c.name for c in result.checks if not c.passed] == failed_checks
    assert grade(path, "shaped").reward == 0.0


def test_unfinished_episode_is_graded_as_not_completed(start_episode):
    episode = start_episode("commerce/refund-damaged-item")
    episode.call("orders_lookup", {"order_id": "ORD-1005"})
    episode.close()
    result = grade(episode.path)
    assert (result.completed, result.answer, result.steps, result.reward) == (False, None, 1, 0.0)


@pytest.mark.parametrize("mode", ["sparse", "SHAPED", "binary"])
def test_unknown_reward_mode_is_refused(start_episode, mode):
    path = played(start_episode, "commerce/order-status", oracle)
    with pytest.raises(InvalidArgument) as caught:
        grade(path, mode)
    assert caught.value.error == "invalid_reward"


@pytest.mark.parametrize(("mode", "expected"), [(None, "default"), ("default", "default"), ("shaped", "shaped")])
def test_reward_mode_defaults_to_the_task_s(start_episode, mode, expected):
    path = played(start_episode, "commerce/order-status", oracle)
    assert grade(path, mode).reward_mode == expected


def test_grade_warns_when_the_task_file_changed(start_episode):
    path = played(start_episode, "commerce/order-status", oracle)
    sql(path, "UPDATE _episode SET task_hash = 'stale'")
    result = grade(path)
    assert result.reward == 1.0
    assert result.warnings == ["the task file changed since this episode ran; graded against the current task"]


def test_grade_refuses_an_episode_whose_snapshot_is_gone(start_episode):
    path = played(start_episode, "commerce/order-status", oracle)
    sql(path, "UPDATE _episode SET snapshot_hash = ?", ("0" * 64,))
    with pytest.raises(NotFound) as caught:
        grade(path)
    assert caught.value.error == "snapshot_missing"


# --- the gold replay -------------------------------------------------------------------------------


def test_gold_database_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTENANT_CACHE", str(tmp_path / "cache"))
    task = get_task("commerce/refund-damaged-item")
    snapshot = seeds.snapshot(WORLD)
    first = gold_database(task, snapshot)
    assert first.parent == tmp_path / "cache" / "gold"
    assert sorted(p.name for p in first.parent.iterdir()) == [first.name, f"{first.name}.sha256"]
    mtime = first.stat().st_mtime_ns

    def no_replay(*_args: object, **_kwargs: object) -> Episode:
        raise AssertionError("the gold calls were replayed again")

    monkeypatch.setattr(Episode, "start", no_replay)
    second = gold_database(task, snapshot)
    assert second == first
    assert second.stat().st_mtime_ns == mtime
    assert sql(first, "SELECT order_id, amount FROM refunds WHERE id = 'RF-0007'") == [("ORD-1005", 49.99)]
    assert sql(first, "SELECT status, answer FROM _episode") == [("finished", task.gold[-1].args["answer"])]


def test_a_file_replaced_where_a_kept_connection_read_it_is_read_anew(tmp_path):
    """Snapshots and golds are read through connections kept open between grades; a file put in place of
    one (a rebuilt cache entry) is another file, and is read as it now is."""
    path = tmp_path / "kept.db"
    for value in ("first", "second"):
        made = tmp_path / f"{value}.db"
        sql(made, "CREATE TABLE t (v TEXT)")
        sql(made, f"INSERT INTO t VALUES ('{value}')")
        made.replace(path)  # as the cache places a rebuilt file: a rename over the old one
        with reading_unchanging(path) as connection:
            assert connection.execute("SELECT v FROM t").fetchall() == [(value,)]
    with reading_unchanging(path) as connection:  # the kept one serves the next reader
        kept = connection
    with reading_unchanging(path) as connection:
        assert connection is kept


def test_what_is_read_once_from_an_unchanging_file_is_read_anew_from_a_replaced_one(tmp_path):
    """Grading reads a gold's and a snapshot's change log, counts and rows once per file (``db.remembered``);
    a file put in place of one is another file, and what it holds is read again."""
    path = tmp_path / "kept.db"
    reads = []
    for value in ("first", "second"):
        made = tmp_path / f"{value}.db"
        sql(made, f"CREATE TABLE t_{value} (v TEXT)")
        made.replace(path)

        def read(value: str = value) -> str:
            reads.append(value)
            return value

        for _ in range(2):
            assert db.remembered(db.file_identity(path), "what", read) == value
    assert reads == ["first", "second"]


def test_kept_connections_stay_bounded_while_one_is_in_use(tmp_path):
    """More files than the pool keeps, returned while one file's only kept connection is out: the oldest
    are closed, and nothing fails (threads grading different tasks do this)."""
    files = []
    for n in range(db.IDLE_LIMIT + 4):
        files.append(tmp_path / f"{n}.db")
        sql(files[-1], "CREATE TABLE t (v INTEGER)")
    with reading_unchanging(files[0]):
        pass  # kept
    with reading_unchanging(files[0]) as held:  # taken out again: its file has none left in the pool
        for other in files[1:]:
            with reading_unchanging(other) as connection:
                assert connection.execute("SELECT count(*) FROM t").fetchone() == (0,)
        assert held.execute("SELECT count(*) FROM t").fetchone() == (0,)
    assert sum(len(kept) for kept in db._idle.values()) <= db.IDLE_LIMIT


def test_gold_cache_is_keyed_by_task_and_snapshot_hash(snap, world_rows):
    task = get_task("commerce/refund-damaged-item")
    path = gold_database(task, snap)
    assert seeds.hash_of(WORLD, snap)[:16] in path.name
    changed = gold_database(task.model_copy(update={"hash": "f" * 64}), snap)
    assert changed != path
    assert world_rows(changed) == world_rows(path)
    assert sql(changed, "SELECT task_hash FROM _episode") == [("f" * 64,)]


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        (
            [
                GoldCall(tool="orders_process_refund", args={"order_id": "ORD-9999", "amount": 1.0, "reason": "x"}),
                FINISH,
            ],
            "gold call 1 (orders_process_refund) failed: not_found",
        ),
        (
            [
                GoldCall(tool="orders_lookup", args={"order_id": "ORD-1005"}),
                GoldCall(tool="orders_process_refund", args={"order_id": "ORD-1005", "amount": 500.0, "reason": "x"}),
                FINISH,
            ],
            "gold call 2 (orders_process_refund) failed: exceeds_refundable",
        ),
        (
            [GoldCall(tool="orders_cancel_everything"), FINISH],
            "gold call 1 (orders_cancel_everything) failed: unknown_tool",
        ),
        ([GoldCall(tool="orders_lookup", args={"id": "ORD-1005"}), FINISH], "failed: invalid_arguments"),
        (
            [GoldCall(tool="orders_update_status", args={"order_id": "ORD-1005", "new_status": "pending"}), FINISH],
            "failed: illegal_transition",
        ),
        (
            [GoldCall(tool="orders_lookup", args={"order_id": "ORD-1005"})],
            "the gold calls must end the episode (with finish)",
        ),
        (
            [
                FINISH,
                GoldCall(tool="orders_process_refund", args={"order_id": "ORD-1005", "amount": 1.0, "reason": "x"}),
            ],
            "gold call 2 (orders_process_refund) is never played: the episode ended before it",
        ),
    ],
    ids=["not-found", "exceeds", "unknown-tool", "bad-args", "illegal-transition", "no-finish", "after-the-end"],
)
def test_a_failing_gold_call_makes_the_task_invalid(snap, gold, message):
    task = get_task("commerce/refund-damaged-item").model_copy(update={"gold": gold, "hash": "e" * 64})
    with pytest.raises(TaskError) as caught:
        gold_database(task, snap)
    assert caught.value.code == 422
    assert caught.value.message.startswith("commerce/refund-damaged-item: ")
    assert message in caught.value.message
    assert list((seeds.cache_dir() / "gold").glob("*-eeeeeeeeeeeeeeee.db*")) == []


# --- files that are not episodes -------------------------------------------------------------------


def _text_file(tmp: Path) -> Path:
    path = tmp / "notes.txt"
    path.write_text("not a database at all\n" * 50)
    return path


def _empty_file(tmp: Path) -> Path:
    path = tmp / "empty.db"
    path.write_bytes(b"")
    return path


def _other_database(tmp: Path) -> Path:
    path = tmp / "other.db"
    sql(path, "CREATE TABLE things (id INTEGER PRIMARY KEY)")
    return path


def _snapshot(_tmp: Path) -> Path:
    return seeds.snapshot(WORLD)


@pytest.mark.parametrize(
    ("make", "error_type", "code", "fragment"),
    [
        (lambda tmp: tmp / "missing.db", NotFound, 404, "no such file"),
        (lambda tmp: tmp, NotFound, 404, "no such file"),
        (_text_file, InvalidArgument, 400, "not an episode file (file is not a database)"),
        (_empty_file, InvalidArgument, 400, "not an episode file (no such table: _episode)"),
        (_other_database, InvalidArgument, 400, "not an episode file (no such table: _episode)"),
        (_snapshot, InvalidArgument, 400, "not an episode file (no _episode record)"),
    ],
    ids=["missing", "directory", "text", "empty", "other-database", "snapshot"],
)
def test_reading_a_file_that_is_not_an_episode(tmp_path, make, error_type, code, fragment):
    path = make(tmp_path)
    with pytest.raises(error_type) as caught:
        EpisodeFile.read(path)
    assert caught.value.to_dict() == {"code": code, "error": "not_an_episode", "message": caught.value.message}
    assert fragment in caught.value.message
    assert str(path) in caught.value.message
    with pytest.raises(error_type):
        grade(path)


def test_reading_an_episode_file(start_episode):
    task = get_task("commerce/refund-damaged-item")
    path = played(start_episode, task.id, oracle)
    episode = EpisodeFile.read(path)
    assert (episode.task, episode.world, episode.status, episode.task_hash) == (
        task.id,
        "commerce",
        "finished",
        task.hash,
    )
    assert episode.snapshot_hash == seeds.snapshot_hash(WORLD)
    assert [(c.seq, c.tool, c.args, c.ok) for c in episode.calls] == [
        (i, c.tool, c.args, True) for i, c in enumerate(task.gold, start=1)
    ]
    assert episode.calls[3].result["id"] == "RF-0007"


# --- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_the_commerce_tasks_validate(task_id):
    report = validate_task(get_task(task_id))
    assert report.problems == []
    assert (report.gold_reward, report.shaped_reward, report.noop_reward, report.identical_replays) == (
        1.0,
        1.0,
        0.0,
        True,
    )


def test_validation_reports_a_task_the_untouched_world_satisfies(monkeypatch):
    task = get_task("commerce/order-status").model_copy(
        update={"id": "commerce/order-status-without-checks", "checks": [], "aliases": []}
    )
    monkeypatch.setitem(WORLD.tasks, task.id, task)
    report = validate_task(task, wording=False)
    assert report.noop_reward == 1.0
    assert report.problems == ["the untouched world already scores 1.0: the task asks for nothing"]


def test_validation_grades_the_task_it_was_given():
    task = get_task("commerce/order-status").model_copy(update={"checks": []})
    report = validate_task(task, wording=False)
    assert report.problems == ["the untouched world already scores 1.0: the task asks for nothing"]


def test_validation_reports_a_failing_gold_call():
    task = get_task("commerce/refund-damaged-item").model_copy(
        update={"gold": [GoldCall(tool="orders_lookup", args={"order_id": "ORD-9999"}), FINISH], "hash": "d" * 64}
    )
    report = validate_task(task)
    assert not report.ok
    assert len(report.problems) == 1
    assert report.problems[0].startswith("invalid_task: commerce/refund-damaged-item: gold call 1 (orders_lookup)")


def test_validation_reports_replays_that_differ(monkeypatch):
    original = REGISTRY["users_lookup"]
    served = itertools.count()

    def counting(ctx, **kwargs):  # a tool whose answer changes from call to call
        return {**original.fn(ctx, **kwargs), "served": next(served)}

    monkeypatch.setitem(REGISTRY, "users_lookup", dataclasses.replace(original, fn=counting))
    report = validate_task(get_task("commerce/order-status"))
    assert report.identical_replays is False
    assert report.gold_reward == 1.0
    assert report.problems == ["two replays of the gold calls gave different database bytes"]
