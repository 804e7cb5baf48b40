"""Task checks (facts in answers, SQL, trajectory rules), the predicate
language of call matchers, and the shaped per-step reward."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support import played

from simtenant.grader import grade
from simtenant.grader.checks import RecordedCall, run_check
from simtenant.task import (
    AnswerCheck,
    BeforeCheck,
    Bonus,
    CallMatcher,
    ForbidCheck,
    Milestone,
    NoDuplicatesCheck,
    ShapedReward,
    SqlCheck,
)
from simtenant.task.matching import call_matches, matches
from simtenant.task.shaping import ShapedTracker
from simtenant.tools import canonical_json
from simtenant.world import get_task

STATUS_TASK = "commerce/order-status"
BILLING_TASK = "commerce/billing-discrepancy"
REFUND_TASK = "commerce/refund-damaged-item"
TASK_IDS = [STATUS_TASK, BILLING_TASK, REFUND_TASK]

# calls of the refund and status tasks
USER = ("users_lookup", {"email": "jane.doe@example.com"})
USER_BY_ID = ("users_lookup", {"user_id": "USR-001"})
USER_BOTH = ("users_lookup", {"email": "jane.doe@example.com", "user_id": "USR-001"})
ORDER = ("orders_lookup", {"order_id": "ORD-1005"})
ITEM = ("inventory_lookup", {"sku": "SKU-445"})
REFUND = ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": "SKU-445 arrived damaged"})
LOW_REFUND = ("orders_process_refund", {"order_id": "ORD-1005", "amount": 40.0, "reason": "damaged"})
SMALL_REFUND = ("orders_process_refund", {"order_id": "ORD-1005", "amount": 10.0, "reason": "shipping"})
RETURNED = ("orders_update_status", {"order_id": "ORD-1005", "new_status": "returned"})
IRRELEVANT = ("inventory_check_stock", {"sku": "SKU-445"})
# calls of the billing task
USER_3 = ("users_lookup", {"user_id": "USR-003"})
ORDER_1009 = ("orders_lookup", {"order_id": "ORD-1009"})
ITEM_212 = ("inventory_lookup", {"sku": "SKU-212"})
ITEM_318 = ("inventory_lookup", {"sku": "SKU-318"})
REFUND_99 = ("orders_process_refund", {"order_id": "ORD-1009", "amount": 99.0, "reason": "SAVE20 added, not taken off"})
REFUND_49_50 = ("orders_process_refund", {"order_id": "ORD-1009", "amount": 49.5, "reason": "coupon"})


def recorded(path: Path) -> list[tuple[str, bool, float | None]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT tool, ok, reward FROM _calls ORDER BY seq").fetchall()
    finally:
        connection.close()


@pytest.fixture
def play(start_episode):
    """Play calls (then finish) in a new episode; returns the file and the outcomes."""
    count = iter(range(1000))

    def run(task_id, calls, answer="", finish=True):
        episode = start_episode(task_id, f"episode-{next(count)}.db")
        outcomes = [episode.call(tool, args) for tool, args in calls]
        if finish:
            episode.call("finish", {"answer": answer})
        episode.close()
        return episode.path, outcomes

    return run


# --- facts in answers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "answer", "passed", "detail"),
    [
        (["SAVE20", "99.00"], "SAVE20 was added; refunded $99", True, "all facts stated"),
        (["SAVE20", "99.00"], "SAVE20 was added; refunded 9.90", False, "missing: 99.00"),
        (["SAVE20", "99.00"], "", False, "missing: SAVE20, 99.00"),
        ([["returned", "refunded"], "49.99"], "Refunded 49.99", True, "all facts stated"),
        ([["returned", "refunded"], "49.99"], "Sent 49.99", False, "missing: returned or refunded"),
        ([], "", True, "all facts stated"),
    ],
)
def test_answer_check(facts, answer, passed, detail):
    result = run_check(AnswerCheck(kind="answer", name="facts", facts=facts), played(answer=answer))
    assert (result.passed, result.detail, result.kind) == (passed, detail, "answer")


def test_answer_check_of_no_answer_fails():
    check = AnswerCheck(kind="answer", name="facts", facts=["delivered"])
    assert not run_check(check, played()).passed


# --- the predicate language --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("predicate", "actual", "matched"),
    [
        ({"$approx": 49.99, "$tol": 0.01}, 50.0, True),
        ({"$approx": 49.99, "$tol": 0.01}, 49.98, True),
        ({"$approx": 49.99, "$tol": 0.01}, 50.001, False),
        ({"$approx": 49.99}, 49.995, True),  # default tolerance 0.005
        ({"$approx": 49.99}, 49.996, False),
        ({"$approx": 1}, True, False),
        ({"$approx": 1}, "1", False),
        ({"$approx": 99.0, "$tol": 0.01}, None, False),
        ({"$not": {"$approx": 99.0, "$tol": 0.01}}, 49.5, True),
        ({"$not": {"$approx": 99.0, "$tol": 0.01}}, 99.0, False),
        ({"$not": "returned"}, "delivered", True),
        ({"$any": {"sku": "SKU-445"}}, [{"sku": "SKU-447"}, {"sku": "SKU-445", "quantity": 1}], True),
        ({"$any": {"sku": "SKU-445"}}, [{"sku": "SKU-447"}], False),
        ({"$any": {}}, [{"code": "SAVE20"}], True),
        ({"$any": {}}, [], False),
        ({"$any": {}}, [1], False),
        ({"$any": "a"}, "abc", False),
        ({"$in": ["SKU-212", "SKU-318"]}, "SKU-318", True),
        ({"$in": ["SKU-212", "SKU-318"]}, "SKU-445", False),
        ({"$in": [1, 2]}, True, False),
        ({"$in": [True]}, 1, False),
        ({"$contains": "DAMAGED"}, "arrived damaged", True),
        ({"$contains": "late"}, "arrived damaged", False),
        ({"$contains": "5"}, 5, False),
        (
            {"id": "ORD-1005", "items": {"$any": {"sku": "SKU-445"}}},
            {"id": "ORD-1005", "items": [{"sku": "SKU-445"}]},
            True,
        ),
        ({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, True),
        ({"a": {"b": 1}}, {"a": {"b": 2}}, False),
        ({"a": {"b": 1}}, {"a": 1}, False),
        ({"a": 1}, {"b": 1}, False),
        ({"a": None}, {}, False),
        ({}, {"anything": 1}, True),
        ({}, [], False),
        (True, 1, False),
        (1, True, False),
        (False, 0, False),
        (True, True, True),
        ({"return_eligible": True}, {"return_eligible": 1}, False),
        (1, 1.0, True),
        ("returned", "returned", True),
        ([1, 2], [1, 2], True),
        (None, None, True),
    ],
)
def test_matches(predicate, actual, matched):
    assert matches(predicate, actual) is matched


def test_unknown_operator_is_an_error():
    with pytest.raises(ValueError, match="unknown operator"):
        matches({"$near": 1}, 1)


@pytest.mark.parametrize(
    ("matcher", "call", "matched"),
    [
        ({"tool": "orders_lookup"}, ("orders_lookup", {"order_id": "X"}, True, {}), True),
        ({"tool": "orders_lookup"}, ("orders_lookup", {}, False, None), False),  # ok defaults to True
        ({"tool": "orders_lookup", "ok": None}, ("orders_lookup", {}, False, None), True),
        ({"tool": "orders_lookup", "ok": False}, ("orders_lookup", {}, True, {}), False),
        ({"tool": ["users_lookup", "orders_lookup"]}, ("users_lookup", {}, True, {}), True),
        ({"tool": ["users_lookup", "orders_lookup"]}, ("orders_by_user", {}, True, {}), False),
        (
            {"tool": "orders_lookup", "args": {"order_id": "ORD-1005"}},
            ("orders_lookup", {"order_id": "ORD-1009"}, True, {}),
            False,
        ),
        (
            {"tool": "orders_lookup", "result": {"return_eligible": True}},
            ("orders_lookup", {}, True, {"return_eligible": True}),
            True,
        ),
        (
            {"tool": "orders_lookup", "result": {"return_eligible": True}},
            ("orders_lookup", {}, True, {"return_eligible": False}),
            False,
        ),
        ({"tool": "orders_lookup", "result": {"id": "X"}}, ("orders_lookup", {}, False, None), False),
    ],
)
def test_call_matches(matcher, call, matched):
    assert call_matches(CallMatcher(**matcher), *call) is matched


# --- checks, run directly ------------------------------------------------------------------------


def call(seq: int, tool: str, args: dict | None = None, ok: bool = True, result=None) -> RecordedCall:
    args = args or {}
    return RecordedCall(seq, tool, args, canonical_json(args), ok, result, None, None)


LOOKUP_1005 = call(1, "orders_lookup", {"order_id": "ORD-1005"})
REFUND_CALL = call(2, "orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": "r"})
BEFORE = BeforeCheck(
    kind="before",
    name="order-first",
    first=CallMatcher(tool="orders_lookup", args={"order_id": "ORD-1005"}),
    then=CallMatcher(tool="orders_process_refund"),
)


@pytest.mark.parametrize(
    ("calls", "passed"),
    [
        ([], True),
        ([LOOKUP_1005], True),
        ([call(1, "users_lookup", {"user_id": "USR-001"})], True),
        ([LOOKUP_1005, REFUND_CALL], True),
        ([call(1, "orders_process_refund", REFUND_CALL.args), call(2, "orders_lookup", LOOKUP_1005.args)], False),
        ([call(1, "orders_lookup", {"order_id": "ORD-1009"}), REFUND_CALL], False),
        ([call(1, "orders_lookup", LOOKUP_1005.args, ok=False), REFUND_CALL], False),
        # a failed refund is not a refund: the rule constrains nothing
        ([call(1, "orders_process_refund", REFUND_CALL.args, ok=False), LOOKUP_1005], True),
        # the first constrained call decides
        ([call(1, "orders_process_refund", REFUND_CALL.args), LOOKUP_1005, call(3, "orders_process_refund")], False),
    ],
    ids=[
        "nothing",
        "lookup-only",
        "unrelated",
        "in-order",
        "wrong-order",
        "other-order",
        "failed-lookup",
        "failed-refund",
        "first-decides",
    ],
)
def test_before_check(calls, passed):
    assert run_check(BEFORE, played(calls=calls)).passed is passed


@pytest.mark.parametrize(
    ("calls", "passed", "detail"),
    [
        ([], True, "none made"),
        ([LOOKUP_1005], True, "none made"),
        ([LOOKUP_1005, REFUND_CALL], False, "forbidden call at 2"),
        ([call(1, "orders_process_refund", {"order_id": "ORD-1009", "amount": 1.0})], True, "none made"),
        (
            [REFUND_CALL, call(3, "orders_process_refund", {"order_id": "ORD-1005", "amount": 1.0})],
            False,
            "forbidden call at 2, 3",
        ),
    ],
)
def test_forbid_check(calls, passed, detail):
    check = ForbidCheck(
        kind="forbid", name="no-refund", call=CallMatcher(tool="orders_process_refund", args={"order_id": "ORD-1005"})
    )
    result = run_check(check, played(calls=calls))
    assert (result.passed, result.detail) == (passed, detail)


@pytest.mark.parametrize(
    ("calls", "passed"),
    [
        ([], True),
        ([LOOKUP_1005, REFUND_CALL], True),
        ([LOOKUP_1005, call(2, "orders_lookup", {"order_id": "ORD-1009"})], True),
        ([LOOKUP_1005, call(2, "users_lookup", {"order_id": "ORD-1005"})], True),
        ([LOOKUP_1005, call(2, "orders_lookup", {"order_id": "ORD-1005"})], False),
        ([LOOKUP_1005, call(2, "orders_lookup", {"order_id": "ORD-1005"}, ok=False)], False),
    ],
)
def test_no_duplicates_check(calls, passed):
    assert run_check(NoDuplicatesCheck(kind="no_duplicates", name="once"), played(calls=calls)).passed is passed


@pytest.mark.parametrize(
    ("calls", "query", "expect", "passed"),
    [
        ([REFUND, RETURNED], "SELECT status FROM orders WHERE id = 'ORD-1005'", [["returned"]], True),
        ([REFUND], "SELECT status FROM orders WHERE id = 'ORD-1005'", [["returned"]], False),
        ([REFUND], "SELECT amount FROM refunds WHERE order_id = 'ORD-1005'", [[49.99]], True),
        ([LOW_REFUND], "SELECT amount FROM refunds WHERE order_id = 'ORD-1005'", [[49.99]], False),
        ([], "SELECT amount FROM refunds WHERE order_id = 'ORD-1005'", [], True),
        ([], "SELECT nope FROM nowhere", [], False),
    ],
)
def test_sql_check_on_an_episode(play, calls, query, expect, passed):
    path, _ = play(REFUND_TASK, calls)
    result = run_check(SqlCheck(kind="sql", name="q", query=query, expect=expect), played(path))
    assert result.passed is passed


def test_sql_check_reports_a_failing_query(play):
    path, _ = play(REFUND_TASK, [])
    result = run_check(SqlCheck(kind="sql", name="q", query="SELECT nope FROM nowhere", expect=[]), played(path))
    assert not result.passed
    assert result.detail.startswith("query failed: no such table: nowhere")


def test_sql_check_cannot_write(play, world_rows):
    path, _ = play(REFUND_TASK, [])
    before = world_rows(path)
    check = SqlCheck(kind="sql", name="q", query="DELETE FROM refunds", expect=[])
    assert not run_check(check, played(path)).passed
    assert world_rows(path) == before


# --- checks, through grading real episodes -----------------------------------------------------


def checks_of(path: Path) -> dict[str, bool]:
    return {c.name: c.passed for c in grade(path).checks}


@pytest.mark.parametrize(
    ("task_id", "calls", "answer", "failed"),
    [
        (REFUND_TASK, [USER, ORDER, ITEM, REFUND, RETURNED], "", set()),
        (REFUND_TASK, [REFUND, ORDER, RETURNED], "", {"eligibility-checked-before-refund"}),
        (REFUND_TASK, [ORDER, REFUND], "", {"order-returned"}),
        (REFUND_TASK, [ORDER, LOW_REFUND, RETURNED], "", {"one-refund-of-49.99"}),
        (REFUND_TASK, [ORDER, REFUND, SMALL_REFUND, RETURNED], "", {"one-refund-of-49.99"}),
        (STATUS_TASK, [ORDER], "ORD-1005 is delivered.", set()),
        (STATUS_TASK, [ORDER], "It is delivered.", {"answer-states-status"}),  # which order?
        (STATUS_TASK, [ORDER], "ORD-1005 is undelivered.", {"answer-states-status"}),
        (BILLING_TASK, [ORDER_1009, REFUND_99], "SAVE20 was added; refunded 99", set()),
        (BILLING_TASK, [ORDER_1009, REFUND_99], "refunded 99", {"answer-names-cause-and-amount"}),
        (BILLING_TASK, [REFUND_99, ORDER_1009], "SAVE20; 99.00", {"order-read-before-refund"}),
        (BILLING_TASK, [], "SAVE20; 99.00", set()),
    ],
)
def test_task_checks_on_real_episodes(play, task_id, calls, answer, failed):
    path, outcomes = play(task_id, calls, answer)
    assert all(o.ok for o in outcomes)
    results = checks_of(path)
    assert {name for name, passed in results.items() if not passed} == failed
    assert set(results) == {c.name for c in get_task(task_id).checks}


# --- shaped reward -------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_oracle_gets_full_shaped_reward(play, task_id):
    gold = [(c.tool, c.args) for c in get_task(task_id).gold]
    path, outcomes = play(task_id, gold, finish=False)
    rows = recorded(path)
    assert [reward for _, _, reward in rows] == [o.reward for o in outcomes]
    assert rows[-1][:2] == ("finish", 1) and rows[-1][2] == 0.0
    assert sum(reward for _, _, reward in rows) == pytest.approx(1.0)
    result = grade(path, "shaped")
    assert (result.reward, result.shaped_reward, result.reward_mode) == (1.0, 1.0, "shaped")


SHAPED_CASES = [
    # task 1: first relevant bonus + user milestone, then the status milestone and the step bonuses
    (STATUS_TASK, [USER, ORDER], [0.45, 0.55], 1.0),
    (STATUS_TASK, [USER, USER_BY_ID, ORDER], [0.45, 0.0, 0.5], 0.95),
    (STATUS_TASK, [USER, USER_BY_ID, USER_BOTH, ORDER], [0.45, 0.0, 0.0, 0.45], 0.9),
    (STATUS_TASK, [("orders_by_user", {"user_id": "USR-001"})], [0.7], 0.7),  # done in one step
    # clamping: an irrelevant first call leaves the total at 0, not -0.05
    (STATUS_TASK, [IRRELEVANT, USER], [0.0, 0.45], 0.45),
    (STATUS_TASK, [IRRELEVANT, IRRELEVANT, USER], [0.0, 0.0, 0.45], 0.45),
    (STATUS_TASK, [IRRELEVANT, USER, ORDER], [0.0, 0.45, 0.5], 0.95),
    (STATUS_TASK, [("no_such_tool", {}), USER], [0.0, 0.45], 0.45),
    # task 3: duplicates and irrelevant tools
    (REFUND_TASK, [ORDER, ORDER], [0.35, -0.1], 0.25),
    (REFUND_TASK, [ORDER, IRRELEVANT], [0.35, -0.05], 0.3),
    (REFUND_TASK, [ORDER, IRRELEVANT, IRRELEVANT], [0.35, -0.05, -0.1], 0.2),
    (REFUND_TASK, [("orders_lookup", {"order_id": "ORD-0000"})], [0.0], 0.0),
    # refund before the eligibility check is penalised
    (REFUND_TASK, [ORDER, REFUND], [0.35, 0.3], 0.65),
    (REFUND_TASK, [REFUND, ORDER], [0.15, 0.35], 0.5),
    # a wrong refund amount is penalised, every time
    (REFUND_TASK, [ORDER, LOW_REFUND], [0.35, -0.05], 0.3),
    (REFUND_TASK, [USER, ORDER, ITEM, REFUND, RETURNED], [0.05, 0.35, 0.15, 0.3, 0.15], 1.0),
    # task 2: the oracle, and a wrong refund first, which also loses the precision bonus
    (BILLING_TASK, [USER_3, ORDER_1009, ITEM_212, REFUND_99], [0.05, 0.15, 0.4, 0.4], 1.0),
    (BILLING_TASK, [USER_3, ORDER_1009, ITEM_212, ITEM_318, REFUND_99], [0.05, 0.15, 0.4, 0.05, 0.35], 1.0),
    # completing step: 0.05 progress + 0.30 adjustment + 0.10 efficiency, and no 0.10 precision
    (BILLING_TASK, [USER_3, ORDER_1009, ITEM_212, REFUND_49_50, REFUND_99], [0.05, 0.15, 0.4, -0.1, 0.45], 0.95),
    (BILLING_TASK, [USER_3, ORDER_1009, ITEM_212, REFUND_49_50], [0.05, 0.15, 0.4, -0.1], 0.5),
]


@pytest.mark.parametrize(("task_id", "calls", "steps", "total"), SHAPED_CASES)
def test_shaped_step_rewards(play, task_id, calls, steps, total):
    path, outcomes = play(task_id, calls)
    rows = recorded(path)
    assert [o.reward for o in outcomes] == pytest.approx(steps)
    assert [reward for _, _, reward in rows[:-1]] == pytest.approx(steps)
    assert rows[-1] == ("finish", 1, 0.0)
    assert sum(reward for _, _, reward in rows) == pytest.approx(total)
    result = grade(path, "shaped")
    assert result.shaped_reward == pytest.approx(total)  # ServiceBench's figure, step by step
    assert result.reward == pytest.approx(min(total, result.outcome_credit))  # capped by what was done


def test_a_full_shaped_reward_with_a_wrong_outcome_stays_below_one(play):
    """Every shaped milestone reached, but an extra refund the task never asked for: below 1."""
    extra = ("orders_process_refund", {"order_id": "ORD-1001", "amount": 5.0, "reason": "goodwill"})
    path, _ = play(BILLING_TASK, [USER_3, ORDER_1009, ITEM_212, REFUND_99, extra])
    result = grade(path, "shaped")
    assert result.shaped_reward == pytest.approx(1.0)
    assert result.db_match == 0 and result.reward < 1.0


def test_shaped_reward_is_recomputed_from_the_recorded_calls(play):
    path, _ = play(BILLING_TASK, [USER_3, ORDER_1009, ORDER_1009, ITEM_212, REFUND_49_50])
    result = grade(path, "shaped")
    assert result.shaped_reward == pytest.approx(sum(reward for _, _, reward in recorded(path)))
    assert grade(path).shaped_reward == result.shaped_reward  # computed in default mode too


def test_calls_after_finish_do_not_change_the_shaped_reward(start_episode):
    episode = start_episode(REFUND_TASK)
    episode.call(*ORDER)
    episode.call("finish", {"answer": ""})
    before = grade(episode.path, "shaped").reward
    late = episode.call(*ORDER)
    assert late.error["error"] == "episode_finished"
    assert late.reward in (None, 0.0)
    assert grade(episode.path, "shaped").reward == before


def tracker(**rules) -> ShapedTracker:
    return ShapedTracker(ShapedReward(relevant=["a", "b"], complete_when=["done"], **rules))


def steps_of(shaped: ShapedTracker, calls: list[tuple[str, dict, bool]]) -> list[float]:
    return [
        shaped.step(tool, canonical_json(args), ok, args, None, harness=tool == "finish") for tool, args, ok in calls
    ]


@pytest.mark.parametrize(
    ("rules", "calls", "steps", "total"),
    [
        # a repeat penalty fires on every matching call; a plain milestone once
        (
            {"milestones": [Milestone(name="seen-a", value=0.5, when=CallMatcher(tool="a"))]},
            [("a", {"x": 1}, True), ("a", {"x": 2}, True)],
            [0.5, 0.0],
            0.5,
        ),
        (
            {
                "milestones": [
                    Milestone(name="up", value=0.6, when=CallMatcher(tool="a")),
                    Milestone(name="bad", value=-0.2, repeat=True, when=CallMatcher(tool="b", ok=None)),
                ]
            },
            [("a", {}, True), ("b", {"x": 1}, False), ("b", {"x": 2}, True)],
            [0.6, -0.2, -0.2],
            0.2,
        ),
        # clamped at 1 and at 0 after every step
        (
            {
                "milestones": [
                    Milestone(
                        name="big", value=0.8, when=CallMatcher(tool="a", args={"x": {"$in": [1, 2]}}), repeat=True
                    )
                ]
            },
            [("a", {"x": 1}, True), ("a", {"x": 2}, True), ("c", {}, True)],
            [0.8, 0.2, -0.05],
            0.95,
        ),
        # composite milestones, then completion bonuses
        (
            {
                "milestones": [
                    Milestone(name="one", value=0.1, when=CallMatcher(tool="a")),
                    Milestone(name="two", value=0.1, when=CallMatcher(tool="b")),
                    Milestone(name="both", value=0.2, after=["one", "two"]),
                    Milestone(name="done", value=0.1, after=["both"]),
                ],
                "bonuses": [
                    Bonus(name="quick", value=0.3, max_steps=2),
                    Bonus(name="exact", value=0.05, exact_steps=3),
                ],
            },
            [("a", {}, True), ("finish", {}, True), ("b", {}, True)],
            [0.1, 0.0, 0.7],
            0.8,
        ),
        # "unless": a penalty only while the named milestone is not reached yet
        (
            {
                "milestones": [
                    Milestone(name="checked", value=0.3, when=CallMatcher(tool="a")),
                    Milestone(name="early", value=-0.2, when=CallMatcher(tool="b"), unless=["checked"]),
                ]
            },
            [("a", {}, True), ("b", {}, True)],
            [0.3, 0.0],
            0.3,
        ),
    ],
    ids=["once", "repeat-penalty", "clamp", "composite-and-bonus", "unless"],
)
def test_shaped_tracker_rules(rules, calls, steps, total):
    shaped = tracker(**rules)
    assert steps_of(shaped, calls) == pytest.approx(steps)
    assert shaped.total == pytest.approx(total)
