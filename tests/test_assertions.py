"""Assertions: partial credit over statements about the final database, on a real task's episodes.

commerce/refund-damaged-item gets assertions in place of its checks: the refund exists, the order
is returned, no second refund, a count and an equality, plus two guards that hold at the start.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table

from simtenant.agents import run
from simtenant.errors import TaskError
from simtenant.grader import grade
from simtenant.grader.assertions import _condition
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
    {"name": "jane-still-there", "kind": "exists", "table": "users", "where": {"email": "jane.doe@example.com"},
     "guard": True},
    {"name": "no-refund-elsewhere", "kind": "not_exists", "table": "refunds", "guard": True,
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
    assert gold.reward == gold.partial_credit == gold.assertion_share == 1.0 and gold.task_completed_correctly is True
    found = by_name(gold)
    # guards: true at the start and kept, so left out of the score
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
    assert validate_task(task, wording=False).ok
    # the reason's paraphrases prove the "contains damaged" assertion grades wording: one says "broken"
    worded = validate_task(task)
    assert [p.split(":")[0] for p in worded.problems] == ["paraphrase 3 scores 0.75"]
    assert "reason-says-damaged" in worded.problems[0]


def test_partial_credit_is_the_share_of_scored_assertions_that_hold(tmp_path):
    task = with_assertions()
    calls = tmp_path / "calls.json"
    calls.write_text(
        '[{"tool": "orders_process_refund", "args": {"order_id": "ORD-1005", "amount": 49.99, "reason": "late"}}]'
    )
    result = grade(run(task, "replay", tmp_path / "e.db", actions=calls), task=task)
    assert by_name(result)["refunded"].holds and by_name(result)["one-refund"].holds
    assert not by_name(result)["returned"].holds and not by_name(result)["reason-says-damaged"].holds
    assert result.partial_credit == result.assertion_share == 0.5 and result.task_completed_correctly is False
    assert result.db_match == 0 and result.diff.differences  # the diff is reported beside
    # the reward is the share, capped by the outcome credit: nothing returned, no ending call
    assert result.reward == min(0.5, result.outcome_credit) < 0.5


def test_a_full_share_with_a_collateral_write_or_no_ending_stays_below_one(tmp_path):
    task = with_assertions()
    gold = [{"tool": c.tool, "args": c.args} for c in task.gold]
    extra = {"tool": "inventory_update_stock", "args": {"sku": "SKU-212", "adjustment": 3}}
    for name, calls in {"collateral": [*gold[:-1], extra, gold[-1]], "unfinished": gold[:-1]}.items():
        actions = tmp_path / f"{name}.json"
        actions.write_text(json.dumps(calls))
        result = grade(run(task, "replay", tmp_path / f"{name}.db", actions=actions), task=task)
        assert result.assertion_share == 1.0
        assert result.reward < 1.0 and result.task_completed_correctly is False, name


def test_validate_requires_an_assertion_true_at_the_start_to_be_a_guard():
    unguarded = [{**a, "guard": False} if a["name"] == "jane-still-there" else a for a in ASSERTIONS]
    report = validate_task(with_assertions(unguarded), wording=False)
    assert any("jane-still-there already holds" in p for p in report.problems)
    false_guard = [*ASSERTIONS, {"name": "bogus", "kind": "exists", "table": "refunds", "where": {"id": "RF-9999"},
                                 "guard": True}]  # fmt: skip
    report = validate_task(with_assertions(false_guard), wording=False)
    assert any("guard bogus does not hold" in p for p in report.problems)
    assert validate_task(with_assertions(), wording=False).guards == ["jane-still-there", "no-refund-elsewhere"]


def test_an_assertion_true_at_the_start_counts_as_a_failure_once_broken(tmp_path):
    task = with_assertions(
        [
            *ASSERTIONS[:1],
            {"name": "jane-active", "kind": "equals", "table": "orders", "where": {"id": "ORD-1005"},
             "column": "status", "value": "delivered", "guard": True},
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
    assert result.partial_credit == 0.5


@pytest.mark.parametrize(
    ("assertion", "message"),
    [
        ({"name": "x", "kind": "exists", "table": "nowhere"}, "no table"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"nope": 1}}, "no column"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"amount": {"near": 1}}}, "a condition is"),
        ({"name": "x", "kind": "count", "table": "refunds"}, "needs expect"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"id": {"in": "RF-0007"}}}, "a list of values"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"id": {"in": [["RF-0007"]]}}}, "a list of"),
        ({"name": "x", "kind": "exists", "table": "refunds", "where": {"id": {"contains": {"a": 1}}}}, "a value"),
        ({"name": "x", "kind": "equals", "table": "orders", "where": {"id": "ORD-1005"}}, "needs a column"),
    ],
)
def test_a_malformed_assertion_is_a_task_error(tmp_path, assertion, message):
    task = with_assertions([assertion])
    path = run(task, "oracle", tmp_path / "e.db")
    with pytest.raises(TaskError, match=message):
        grade(path, task=task)


def test_not_negates_a_condition_and_a_null_is_none_of_a_list(tmp_path):
    task = with_assertions(
        [{"name": "refund-elsewhere", "kind": "exists", "table": "refunds",
          "where": {"order_id": {"not": {"in": ["ORD-9999", "ORD-9998"]}}}},
         {"name": "reason-not-damaged", "kind": "exists", "table": "refunds",
          "where": {"order_id": "ORD-1005", "reason": {"not": {"contains": "damaged"}}}}]
    )  # fmt: skip
    result = by_name(grade(run(task, "oracle", tmp_path / "e.db"), task=task))
    assert result["refund-elsewhere"].holds
    assert not result["reason-not-damaged"].holds  # the gold's reason says damaged
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("tag", String))
    database = sqlite3.connect(":memory:")
    database.executescript(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, tag TEXT); INSERT INTO t VALUES (1, 'a'), (2, NULL)"
    )
    clause, values = _condition(table, "tag", {"not": {"in": ["a", "b"]}})
    assert database.execute(f"SELECT id FROM t WHERE {clause}", values).fetchall() == [(2,)]


def test_values_are_bound_never_spliced(tmp_path):
    task = with_assertions(
        [{"name": "inject", "kind": "exists", "table": "refunds", "where": {"reason": {"contains": "' OR 1=1 --"}}}]
    )
    result = grade(run(task, "oracle", tmp_path / "e.db"), task=task)
    assert not by_name(result)["inject"].holds


def test_an_assertion_can_ask_a_text_to_state_facts(tmp_path):
    task = with_assertions(
        [{"name": "reason-states", "kind": "exists", "table": "refunds",
          "where": {"order_id": "ORD-1005", "reason": {"states": [["damaged", "broken"], "SKU-445"]}}}]
    )  # fmt: skip
    calls = tmp_path / "calls.json"
    for reason, holds in {"SKU-445 arrived broken": True, "Damage to sku-445": True, "Arrived broken": False}.items():
        args = {"order_id": "ORD-1005", "amount": 49.99, "reason": reason}
        calls.write_text(json.dumps([{"tool": "orders_process_refund", "args": args}]))
        path = run(task, "replay", tmp_path / f"{len(reason)}.db", actions=calls)
        assert by_name(grade(path, task=task))["reason-states"].holds is holds, reason
