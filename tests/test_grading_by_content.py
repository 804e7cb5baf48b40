"""Grading by content: accepted alternative golds, spreadsheet cells read as people read them,
homeservices graded by its outcome (quotes whose total is their lines, replies, the report),
validate proving wording does not move the reward, and the mutation engine."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from simtenant.agents import run
from simtenant.errors import InvalidArgument
from simtenant.grader import grade
from simtenant.grader.diff import same_cell
from simtenant.grader.mutation import mutate
from simtenant.grader.validate import validate_task
from simtenant.task import GoldCall, TextSpec
from simtenant.world import get_task, get_world

REFUND = "commerce/refund-damaged-item"
TOWING = "homeservices/towing-raleigh"


def replay(tmp_path: Path, task, calls: list[dict], name: str = "e.db") -> Path:
    actions = tmp_path / f"{name}.json"
    actions.write_text(json.dumps(calls))
    return run(task, "replay", tmp_path / name, actions=actions)


def gold_calls(task) -> list[dict]:
    return [{"tool": c.tool, "args": c.args} for c in task.gold]


def with_gold_call(task, index: int, **changes):
    gold = list(task.gold)
    gold[index] = gold[index].model_copy(update=changes)
    return task.model_copy(update={"gold": gold, "hash": "a" * 64})


# --- accepted alternatives ---------------------------------------------------------------------


def test_an_accepted_alternative_is_another_gold(tmp_path):
    task = get_task("commerce/refund-damaged-item")
    refund = next(i for i, c in enumerate(task.gold) if c.tool == "orders_process_refund")
    task = with_gold_call(task, refund, accept={"amount": [45.0]}).model_copy(update={"checks": []})
    calls = gold_calls(task)
    calls[refund] = {**calls[refund], "args": {**calls[refund]["args"], "amount": 45.0}}
    result = grade(replay(tmp_path, task, calls, "alternative.db"), task=task)
    assert (result.db_match, result.gold_variant, result.reward) == (1, 1, 1.0)
    calls[refund]["args"]["amount"] = 40.0
    wrong = grade(replay(tmp_path, task, calls, "wrong.db"), task=task)
    assert wrong.db_match == 0 and wrong.reward == 0.0


# --- spreadsheet cells -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        ("186.4", "186.40", True),
        ("58800", "$58,800", True),
        ("2026-09-15", "Sep 15, 2026", True),
        ("Submitted", " submitted ", True),
        ("Tom Becker", "tom  becker", True),
        ("186.4", "186.5", False),
        ("2026-09-15", "2026-09-16", False),
        ("Submitted", "Approved", False),
        ("", "x", False),
    ],
)
def test_spreadsheet_cells_compare_as_people_read_them(expected, actual, same):
    assert same_cell(expected, actual) is same


# --- homeservices: the outcome, not the conversation --------------------------------------------


def test_a_quote_total_that_is_not_its_lines_is_refused(start_episode):
    towing = start_episode(TOWING)
    lines = [
        {"item_id": "TOW-HOOK", "quantity": 1},
        {"item_id": "TOW-MILE", "quantity": 17},
        {"item_id": "TOW-AH", "quantity": 1},
    ]
    outcome = towing.call("send_quote", {"lead_id": "L-TOW-02", "line_items": lines, "total": 176.50})
    assert (outcome.ok, outcome.error["error"]) == (False, "total_mismatch")
    assert "221.50" in outcome.error["message"]


def test_homeservices_misses_that_the_rubric_alone_let_through_now_cost(tmp_path):
    task = get_task(TOWING)
    gold = gold_calls(task)
    no_report = gold[:-1]
    no_decline = [c for c in gold if not (c["tool"] == "reply_customer" and c["args"]["lead_id"] == "L-TOW-03")]
    for name, calls in {"no-report": no_report, "no-decline": no_decline}.items():
        result = grade(replay(tmp_path, task, calls, f"{name}.db"), task=task)
        assert result.reward < 1.0, name
    unreplied = grade(tmp_path / "no-decline.db", task=task)
    assert next(c for c in unreplied.rubric if c.name == "replied").score < 1.0


def test_a_conversation_held_in_other_messages_is_not_a_difference(tmp_path):
    """Asking the towing customer one thing at a time, with a greeting first: same outcome, reward 1."""
    task = get_task(TOWING)
    calls = gold_calls(task)
    ask = next(i for i, c in enumerate(calls) if c["tool"] == "reply_customer" and c["args"]["lead_id"] == "L-TOW-02")
    split = [
        {"tool": "reply_customer", "args": {"lead_id": "L-TOW-02", "message": "Hi! Sorry about the breakdown."}},
        {"tool": "reply_customer", "args": {"lead_id": "L-TOW-02", "message": "What vehicle is it?"}},
        {"tool": "reply_customer", "args": {"lead_id": "L-TOW-02", "message": "And where should we tow it to?"}},
    ]
    result = grade(replay(tmp_path, task, [*calls[:ask], *split, *calls[ask + 1 :]]), task=task)
    assert (result.reward, result.db_match) == (1.0, 1)


# --- validate: wording must not move the reward -------------------------------------------------


def test_validate_plays_paraphrases_and_texts_missing_a_fact():
    task = get_task(REFUND)
    report = validate_task(task)
    assert report.ok and report.paraphrases == 3 and report.missing >= 2
    refund = next(i for i, c in enumerate(task.gold) if c.tool == "orders_process_refund")
    spec = task.gold[refund].text["reason"]
    strict = spec.model_copy(update={"facts": [*spec.facts, "SKU-445"]})  # a fact the paraphrases may leave out
    report = validate_task(with_gold_call(task, refund, text={"reason": strict}))
    assert any(p.startswith("paraphrase 1 scores") and "missing: SKU-445" in p for p in report.problems)
    lax = spec.model_copy(update={"facts": []})  # nothing required: a text missing a fact cannot fail
    report = validate_task(with_gold_call(task, refund, text={"reason": lax}))
    assert any("missing text 1 still scores 1" in p for p in report.problems)


def test_validate_refuses_text_specs_on_what_is_not_free_text_and_too_few_paraphrases():
    task = get_task(REFUND)
    refund = next(i for i, c in enumerate(task.gold) if c.tool == "orders_process_refund")
    texts = {**task.gold[refund].text, "order_id": TextSpec(paraphrases=["a", "b", "c"])}
    report = validate_task(with_gold_call(task, refund, text=texts), wording=False)
    assert any("order_id is not a free text" in p for p in report.problems)
    report = validate_task(with_gold_call(task, refund, text={}), wording=False)
    assert any("fewer than 3 paraphrases" in p and f"{refund + 1}:reason" in p for p in report.problems)


def test_validate_warns_of_answer_facts_that_name_no_record():
    task = get_task("commerce/order-status")
    check = task.checks[0].model_copy(update={"facts": ["delivered"]})
    report = validate_task(task.model_copy(update={"checks": [check]}), wording=False)
    assert report.warnings == ["check answer-states-status: its facts name no record (no id or number)"]


# --- mutations -----------------------------------------------------------------------------------


def test_every_mutant_of_the_commerce_tasks_is_caught_and_every_benign_variant_scores_one():
    reports = [mutate(task) for task in get_world("commerce").tasks.values()]
    kinds = {o.variant.kind for r in reports for o in r.outcomes}
    assert {"number", "id", "text", "write_dropped", "extra_write", "reorder", "extra_read", "paraphrase"} <= kinds
    for report in reports:
        assert report.mutants and not report.missed, report.task
        assert report.benign and not report.benign_failures, report.task


def test_a_gold_with_a_mutated_value_that_changes_nothing_is_not_counted():
    report = mutate(get_task("commerce/order-status"))  # a read-only task: only its answer is graded
    assert all(o.differs for o in report.mutants)
    assert not report.missed


def test_a_text_mutant_of_a_free_text_without_facts_is_a_miss():
    task = get_task(REFUND)
    refund = next(i for i, c in enumerate(task.gold) if c.tool == "orders_process_refund")
    lax = task.gold[refund].text["reason"].model_copy(update={"facts": []})
    report = mutate(with_gold_call(task, refund, text={"reason": lax}))
    assert [(o.variant.kind, o.variant.where) for o in report.missed] == [
        ("text", f"call {refund + 1} reason: unrelated text")
    ]


def test_text_match_modes_facts_exact_and_judge_without_a_judge(tmp_path):
    """A reworded reason passes by facts and fails exactly; judge mode needs a judge (see test_judge)."""
    task = get_task(REFUND)
    calls = gold_calls(task)
    refund = next(i for i, c in enumerate(calls) if c["tool"] == "orders_process_refund")
    calls[refund]["args"] = {**calls[refund]["args"], "reason": "Damaged on arrival"}
    path = replay(tmp_path, task, calls)
    assert grade(path, task=task).reward == 1.0
    with pytest.raises(InvalidArgument, match="needs a judge model"):
        grade(path, task=task, text_match="judge")
    exact = grade(path, task=task, text_match="exact")
    assert exact.reward == 0.0 and [d.column for d in exact.diff.differences] == ["reason"]
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("SELECT count(*) FROM _judgments").fetchone() == (0,)
    finally:
        connection.close()


def test_gold_calls_take_text_and_accept_and_replays_do_not():
    assert GoldCall(tool="x", args={}, text={"a": {"paraphrases": ["p"]}}, accept={"b": [1]}).accept == {"b": [1]}


def test_two_texts_of_one_gold_call_can_each_prove_their_facts():
    task = get_task("itsm/cab-change-end-to-end")
    call = next(c for c in task.gold if len([s for s in c.text.values() if s.missing]) > 1)
    assert validate_task(task).ok and call is not None
