"""The optional judge: any OpenAI-compatible endpoint (here a scripted one on 127.0.0.1), verdicts
written into the episode file, and a judge that fails is skipped, never scored 0."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from simtenant.agents import run
from simtenant.grader import grade
from simtenant.grader.judge import JudgeConfig
from simtenant.task import JudgeCheck, Task
from simtenant.world import get_task

TASK = "homeservices/towing-raleigh"


class ScriptedModel(BaseHTTPRequestHandler):
    """Answers chat completions with a fixed verdict; records the requests it saw."""

    verdict = "good"
    status = 200
    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        content = json.dumps({"verdict": type(self).verdict, "reasoning": "Clear and polite."})
        answer = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        }
        data = json.dumps(answer if type(self).status == 200 else {"error": {"message": "down"}}).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    ScriptedModel.seen, ScriptedModel.verdict, ScriptedModel.status = [], "good", 200
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def judge(base_url: str) -> JudgeConfig:
    return JudgeConfig(model="scripted-judge", base_url=base_url, api_key_env="SIMTENANT_TEST_JUDGE_KEY", timeout=5)


def test_without_a_judge_the_component_is_skipped_and_said_so(tmp_path):
    result = grade(run(get_task(TASK), "oracle", tmp_path / "e.db"))
    communication = next(c for c in result.rubric if c.name == "communication")
    assert communication.score is None and "no judge configured" in communication.detail


def test_a_judge_grades_each_conversation_and_its_verdicts_are_kept(tmp_path, endpoint):
    path = run(get_task(TASK), "oracle", tmp_path / "e.db")
    ScriptedModel.verdict = "acceptable"
    result = grade(path, judge=judge(endpoint))
    communication = next(c for c in result.rubric if c.name == "communication")
    assert communication.score == 0.5
    # quote math 0.45, triage 0.25, discipline 0.15 and replied 0.10 at 1.0, communication 0.15 at 0.5
    assert result.reward == pytest.approx((0.45 + 0.25 + 0.15 + 0.10 + 0.15 * 0.5) / 1.10, abs=1e-6)
    prompt = ScriptedModel.seen[0]["messages"][1]["content"]
    assert "front-office agent" in prompt and "agent: " in prompt
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT name, model, verdict, score, reasoning FROM _judgments").fetchall()
    finally:
        connection.close()
    assert len(rows) == len(ScriptedModel.seen) == len(result.judgments) > 0
    assert set(rows) == {("communication", "scripted-judge", "acceptable", 0.5, "Clear and polite.")}


def test_a_failing_judge_is_skipped_not_scored_zero(tmp_path, endpoint):
    path = run(get_task(TASK), "oracle", tmp_path / "e.db")
    ScriptedModel.status = 500
    result = grade(path, judge=judge(endpoint))
    communication = next(c for c in result.rubric if c.name == "communication")
    assert communication.score is None and "the judge failed" in communication.detail
    assert result.reward == 1.0


# --- natural-language assertions: judge checks ---------------------------------------------------

REFUSAL = "itsm/unlock-refused-unverified"
ASSERTION = "The agent told the operator plainly that the account stays locked, and why."


def with_assertion(task_id: str) -> Task:
    """The task as registered plus one judge check (same id and hash: the same gold replay)."""
    task = get_task(task_id)
    check = JudgeCheck(kind="judge", name="explains-the-refusal", assertion=ASSERTION)
    return task.model_copy(update={"checks": [*task.checks, check]})


def test_without_a_judge_an_assertion_is_skipped_and_reported_not_passed(tmp_path):
    task = with_assertion(REFUSAL)
    result = grade(run(task, "oracle", tmp_path / "e.db"), task=task)
    check = next(c for c in result.checks if c.name == "explains-the-refusal")
    assert check.passed is None and check.skipped and "no judge configured" in check.detail
    assert check.to_dict()["skipped"] is True
    assert result.reward == 1.0  # the other checks and the diff decide
    assert any("explains-the-refusal" in w and "skipped" in w for w in result.warnings)


@pytest.mark.parametrize(("verdict", "reward"), [("good", 1.0), ("acceptable", 0.0), ("poor", 0.0)])
def test_a_judge_decides_an_assertion_and_its_verdict_is_kept(tmp_path, endpoint, verdict, reward):
    task = with_assertion(REFUSAL)
    path = run(task, "oracle", tmp_path / "e.db")
    ScriptedModel.verdict = verdict
    result = grade(path, task=task, judge=judge(endpoint))
    check = next(c for c in result.checks if c.name == "explains-the-refusal")
    assert check.passed is (verdict == "good") and verdict in check.detail
    assert result.reward == reward
    prompt = ScriptedModel.seen[-1]["messages"][1]["content"]
    assert ASSERTION in prompt and "OPERATOR: " in prompt and "AGENT: " in prompt and "FINAL ANSWER: " in prompt
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT name, key, verdict FROM _judgments").fetchall()
    finally:
        connection.close()
    assert rows == [("explains-the-refusal", "assertion", verdict)]


def test_a_failing_judge_skips_the_assertion(tmp_path, endpoint):
    task = with_assertion(REFUSAL)
    path = run(task, "oracle", tmp_path / "e.db")
    ScriptedModel.status = 500
    result = grade(path, task=task, judge=judge(endpoint))
    check = next(c for c in result.checks if c.name == "explains-the-refusal")
    assert check.skipped and "the judge failed" in check.detail
    assert result.reward == 1.0


def test_the_noop_agent_still_fails_a_task_with_an_assertion(tmp_path, endpoint):
    task = with_assertion(REFUSAL)
    ScriptedModel.verdict = "good"  # even a lenient judge cannot lift the other checks
    result = grade(run(task, "noop", tmp_path / "e.db"), task=task, judge=judge(endpoint))
    assert result.reward == 0.0


def test_text_judged_by_the_judge_model_against_the_gold(tmp_path, endpoint):
    """--text-match judge: the judge decides whether a reworded free text says what the gold's does;
    its verdict is kept; ids among the facts are still required without asking it."""
    task = get_task("commerce/refund-damaged-item")
    calls = [{"tool": c.tool, "args": dict(c.args)} for c in task.gold]
    refund = next(c for c in calls if c["tool"] == "orders_process_refund")
    refund["args"]["reason"] = "The customer got it in pieces."
    actions = tmp_path / "calls.json"
    actions.write_text(json.dumps(calls))
    path = run(task, "replay", tmp_path / "e.db", actions=actions)
    assert grade(path).reward == 0.0  # by facts: says neither damaged nor broken
    ScriptedModel.verdict = "good"
    judged = grade(path, judge=judge(endpoint), text_match="judge")
    assert (judged.reward, judged.text_match) == (1.0, "judge")
    asked = ScriptedModel.seen[-1]["messages"][1]["content"]
    assert "REFERENCE: SKU-445 arrived damaged" in asked and "The customer got it in pieces." in asked
    ScriptedModel.verdict = "poor"
    refused = grade(path, judge=judge(endpoint), text_match="judge")
    assert refused.reward == 0.0 and refused.diff.differences[0].detail.startswith("judge: poor")
    connection = sqlite3.connect(path)
    try:
        kept = connection.execute("SELECT name, key, verdict FROM _judgments").fetchall()
    finally:
        connection.close()
    assert kept == [("text:refunds.reason", "RF-0007", "poor")]
