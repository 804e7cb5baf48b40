"""Assertions: partial credit over statements about the final database, on a real task's episodes.

commerce/refund-damaged-item gets assertions in place of its checks: the refund exists, the order
is returned, no second refund, a count and an equality, plus one that already holds at the start.
"""

from __future__ import annotations

import pytest

from simtenant.agents import run
from simtenant.errors import TaskError
from simtenant.grader import grade
from simtenant.grader.validate import validate_task
from simtenant.task import Assertion
from simtenant.world import get_task

TASK = "commerce/refund-damaged-item"
ASSERTIONS = [
    {"name": "refunded", "kind": "exists", "table": "refunds", "where": {"order_id": "ORD-1005", "amount": 49.99}},
    {"name": "returned", "kind": "equals", "table": "orders", "where": {"id": "ORD-1005"}, "column": "status",
     "value": "returned"},
    {"name": "one-refund", "kind": "count", "table": "refunds", "where": {"order_id": "ORD-1005"}, "expect": 1},
    {"name": "reason-says-damaged", "kind": "exists", "table": "refunds",
     "where": {"order_id": "ORD-1005", "reason": {"contains": "DAMAGED"}}},
    {"name": "jane-still-there", "kind": "exists", "table": "users", "where": {"email": "jane.doe@example.com"}},
    {"name": "no-refund-elsewhere", "kind": "not_exists", "table": "refunds",
     "where": {"order_id": {"not": "ORD-1005"}, "id": {"in": ["RF-0007", "RF-0008"]}}},
]  # fmt: skip


def with_assertions(assertions: list[dict] = ASSERTIONS):
    task = get_task(TASK)
    return task.model_copy(
        update={"reward": "assertions", "assertions": [Assertion(**a) for a in assertions], "checks": []}
    )


def by_name(result):
    return {a.name: a for a in result.assertions}


def test_gold_has_full_credit_and_the_untouched_world_none(tmp_path):
    task = with_assertions()
    gold = grade(run(task, "oracle", tmp_path / "gold.db"), task=task)
    assert gold.reward == gold.assertion_credit == 1.0 and gold.task_completed_correctly is True
    found = by_name(gold)
    # already true at the start and kept: left out of the score; "no refund elsewhere" too
    assert not found["jane-still-there"].scored and found["jane-still-there"].held_before
    assert not found["no-refund-elsewhere"].scored
    noop = grade(run(task, "noop", tmp_path / "noop.db"), task=task)
    assert noop.reward == 0.0 and noop.task_completed_correctly is False
    assert [a.name for a in noop.assertions if a.scored] == [
        "refunded",
        "returned",
        "one-refund",
        "reason-says-damaged",
    ]
    assert validate_task(task).ok


def test_partial_credit_is_the_share_of_scored_assertions_that_hold(tmp_path):
    task = with_assertions()
    calls = tmp_path / "calls.json"
    calls.write_text(
        '[{"tool": "orders_process_refund", "args": {"order_id": "ORD-1005", "amount": 49.99, "reason": "late"}}]'
    )
    result = grade(run(task, "replay", tmp_path / "e.db", actions=calls), task=task)
    assert by_name(result)["refunded"].holds and by_name(result)["one-refund"].holds
    assert not by_name(result)["returned"].holds and not by_name(result)["reason-says-damaged"].holds
    assert result.reward == 0.5 and result.task_completed_correctly is False
    assert result.db_match == 0 and result.diff.differences  # the diff is reported beside


def test_an_assertion_true_at_the_start_counts_as_a_failure_once_broken(tmp_path):
    task = with_assertions(
        [
            *ASSERTIONS[:1],
            {"name": "jane-active", "kind": "equals", "table": "orders", "where": {"id": "ORD-1005"},
             "column": "status", "value": "delivered"},
        ]
    )  # fmt: skip
    calls = tmp_path / "calls.json"
    calls.write_text(
        '[{"tool": "orders_process_refund", "args": {"order_id": "ORD-1005", "amount": 49.99, "reason": "x"}},'
        ' {"tool": "orders_update_status", "args": {"order_id": "ORD-1005", "new_status": "returned"}}]'
    )
    result = grade(run(task, "replay", tmp_path / "e.db", actions=calls), task=task)
    broken = by_name(result)["jane-active"]
    assert broken.held_before and not broken.holds and broken.scored
    assert result.reward == 0.5


@pytest.mark.parametrize(
    ("assertion", "message"),
    [
        ({"name": "x", "kind": "exists", "table": "nowhere"}, "no table"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"nope": 1}}, "no column"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"amount": {"near": 1}}}, "a condition is"),
        ({"name": "x", "kind": "count", "table": "refunds"}, "needs expect"),
        ({"name": "x", "kind": "equals", "table": "orders", "where": {"id": "ORD-1005"}}, "needs a column"),
    ],
)
def test_a_malformed_assertion_is_a_task_error(tmp_path, assertion, message):
    task = with_assertions([assertion])
    path = run(task, "oracle", tmp_path / "e.db")
    with pytest.raises(TaskError, match=message):
        grade(path, task=task)


def test_values_are_bound_never_spliced(tmp_path):
    task = with_assertions(
        [{"name": "inject", "kind": "exists", "table": "refunds", "where": {"reason": {"contains": "' OR 1=1 --"}}}]
    )
    result = grade(run(task, "oracle", tmp_path / "e.db"), task=task)
    assert not by_name(result)["inject"].holds
