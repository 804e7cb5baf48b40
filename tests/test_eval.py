"""Batch evaluation: pass^k / pass@k arithmetic, `simtenant eval` in worker processes, resume, report.

Every run is written under tmp_path. Fake agents are registered with monkeypatch before the workers
are forked, so the workers inherit them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from openai_stub import OpenAIStub, call, error, tool_calls
from typer.testing import CliRunner

from simtenant import agents, evaluation
from simtenant.cli import app
from simtenant.world import all_tasks, get_task

runner = CliRunner()
COMMERCE = ["commerce/billing-discrepancy", "commerce/order-status", "commerce/refund-damaged-item"]  # ServiceBench's
SERVICEBENCH = ("--tasks", COMMERCE[0], "--tasks", COMMERCE[1], "--tasks", COMMERCE[2])
HOMESERVICES = sorted(t.id for t in all_tasks() if t.world == "homeservices")
REFUND = "commerce/refund-damaged-item"


def invoke(*args: Any) -> Any:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def eval_json(*args: Any) -> dict[str, Any]:
    result = invoke("eval", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def results(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def assert_structured_failure(result: Any, code: int, error: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert f"error {code} {error}" in " ".join(result.output.split())


def record(task: str, trial: int, reward: float | None, infra_ok: bool = True, steps: int = 3) -> dict[str, Any]:
    return {"task": task, "trial": trial, "reward": reward, "infra_ok": infra_ok, "steps": steps}


# --- pass^k and pass@k ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "c", "k", "hat", "at"),
    [
        (4, 2, 1, 0.5, 0.5),
        (4, 2, 2, 1 / 6, 5 / 6),  # C(2,2)/C(4,2); 1 - C(2,2)/C(4,2)
        (4, 2, 3, 0.0, 1.0),  # C(2,3) = 0; C(2,3) = 0
        (4, 4, 4, 1.0, 1.0),
        (4, 0, 2, 0.0, 0.0),
        (3, 1, 2, 0.0, 2 / 3),  # 1 - C(2,2)/C(3,2)
        (5, 3, 2, 0.3, 0.9),  # C(3,2)/C(5,2) = 3/10; 1 - C(2,2)/C(5,2)
    ],
)
def test_pass_k_formulas(n, c, k, hat, at):
    assert evaluation.pass_hat_k(n, c, k) == pytest.approx(hat)
    assert evaluation.pass_at_k(n, c, k) == pytest.approx(at)


def test_summary_averages_over_tasks_and_leaves_out_infra_failures():
    records = [
        *(record("w/a", t, r) for t, r in zip(range(1, 5), [1.0, 0.0, 1.0, 0.0], strict=True)),
        # w/b: trial 2 failed for infrastructure reasons: 3 valid trials, all passed
        record("w/b", 1, 1.0),
        record("w/b", 2, None, infra_ok=False, steps=None),
        record("w/b", 3, 1.0),
        record("w/b", 4, 1.0),
        # an agent that reported an infra failure in its sidecar: graded, but not counted
        *(record("w/c", t, 0.0, infra_ok=t != 1) for t in range(1, 5)),
    ]
    summary = evaluation.summarize(records, trials=4)
    assert (summary["episodes"], summary["valid_episodes"], summary["infra_failures"]) == (12, 10, 2)
    assert summary["mean_reward"] == pytest.approx(5 / 10)
    assert summary["tasks_at_k"] == {"1": 3, "2": 3, "3": 3, "4": 1}
    # k=1: a 2/4, b 3/3, c 0/3
    assert summary["pass_hat_k"]["1"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert summary["pass_hat_k"]["2"] == pytest.approx((1 / 6 + 1 + 0) / 3)
    assert summary["pass_at_k"]["2"] == pytest.approx((5 / 6 + 1 + 0) / 3)
    assert summary["pass_hat_k"]["3"] == pytest.approx((0 + 1 + 0) / 3)
    assert summary["pass_at_k"]["3"] == pytest.approx((1 + 1 + 0) / 3)
    # only w/a has 4 valid trials
    assert summary["pass_hat_k"]["4"] == 0.0
    assert summary["pass_at_k"]["4"] == 1.0
    tasks = {t["task"]: t for t in summary["tasks"]}
    assert (tasks["w/b"]["trials"], tasks["w/b"]["successes"], tasks["w/b"]["infra_failures"]) == (3, 3, 1)
    assert tasks["w/a"]["mean_reward"] == 0.5


def test_summary_with_no_valid_episode_has_no_scores():
    summary = evaluation.summarize([record("w/a", 1, None, infra_ok=False)], trials=2)
    assert summary["mean_reward"] is None
    assert summary["pass_hat_k"] == {"1": None, "2": None}


def test_a_rubric_reward_just_below_one_is_not_a_success():
    assert evaluation.succeeded(record("w/a", 1, 1.0))
    assert not evaluation.succeeded(record("w/a", 1, 0.99))
    assert not evaluation.succeeded(record("w/a", 1, 1.0, infra_ok=False))


# --- eval ----------------------------------------------------------------------------------------


def test_oracle_passes_every_commerce_and_homeservices_task(tmp_path):
    out = tmp_path / "oracle"
    args = [*SERVICEBENCH, "--tasks", "homeservices/*", "--trials", 2, "--workers", 2, "--out", out]
    summary = eval_json(*args)
    tasks = COMMERCE + HOMESERVICES
    assert summary["episodes"] == summary["valid_episodes"] == 2 * len(tasks)
    assert summary["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert summary["pass_at_k"] == {"1": 1.0, "2": 1.0}
    assert summary["mean_reward"] == 1.0
    assert [t["task"] for t in summary["tasks"]] == tasks
    lines = results(out)
    assert sorted((r["task"], r["trial"]) for r in lines) == sorted((t, n) for t in tasks for n in (1, 2))
    line = lines[0]
    assert {"reward", "db_match", "partial_credit", "checks", "diff", "steps", "completed"} <= set(line)
    assert (line["seed"], line["tokens"], line["infra_ok"], line["episode_completed"]) == (
        line["trial"],
        None,
        True,
        True,
    )
    assert line["duration_s"] >= 0
    for r in lines:
        assert Path(r["episode_db"]) == out / "episodes" / f"{r['task'].replace('/', '__')}__t{r['trial']}.db"
        assert Path(r["episode_db"]).is_file()
    assert json.loads((out / "summary.json").read_text())["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    # completion, the means of the grade's numbers, tokens, reward modes and the episode files
    assert summary["mean_completion"] == 1.0 and summary["tokens"]["total_tokens"] == 0
    assert summary["metric_means"]["db_match"] == 1.0 and summary["metric_means"]["checks_passed"] == 1.0
    assert [t["reward_mode"] for t in summary["tasks"]] == [get_task(t).reward for t in tasks]
    assert all(
        r["episode"] == str(out / "episodes" / Path(r["episode"]).name) for t in summary["tasks"] for r in t["results"]
    )
    assert line["metrics"]["db_match"] == 1.0 and line["metrics"]["reward"] == 1.0
    page = invoke("report", out).stdout and (out / "report.html").read_text()
    assert f"Passed episodes ({len(lines)})" in page and page.count("<details>") == len(lines)  # collapsed
    assert 'href="episodes/commerce__order-status__t2.db"' in page and "<th>completed</th>" in page


def test_noop_scores_zero(tmp_path):
    summary = eval_json(*SERVICEBENCH, "--agent", "noop", "--trials", 2, "--workers", 2, "--out", tmp_path / "n")
    assert summary["mean_reward"] == 0.0
    assert summary["pass_hat_k"] == {"1": 0.0, "2": 0.0}
    assert summary["pass_at_k"] == {"1": 0.0, "2": 0.0}
    assert all(t["successes"] == 0 for t in summary["tasks"])


def test_the_table_summary(tmp_path):
    result = invoke("eval", "--tasks", "commerce/order-status", "--trials", 2, "--workers", 1, "--out", tmp_path / "t")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "pass^k" in text and "commerce/order-status" in text and "mean reward 1.000" in text


def counting_oracle(log: Path) -> Any:
    def agent(episode: Any, **_: Any) -> Any:
        with log.open("a") as f:  # every worker appends one line per play
            f.write(f"{episode.path.name}\n")
        return agents.oracle(episode)

    return agent


def test_resume_replays_only_the_unfinished_episodes(tmp_path, monkeypatch):
    log = tmp_path / "plays.log"
    monkeypatch.setitem(agents.AGENTS, "counting", counting_oracle(log))
    out = tmp_path / "run"
    eval_json(*SERVICEBENCH, "--agent", "counting", "--trials", 2, "--workers", 2, "--out", out)
    assert len(log.read_text().splitlines()) == 6
    # an interruption: two episodes never recorded, one of them left half-written, a torn last line
    lines = (out / "results.jsonl").read_text().splitlines()
    lost = [json.loads(line) for line in lines[-2:]]
    (out / "results.jsonl").write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:40])
    torn = Path(lost[0]["episode_db"])
    torn.write_bytes(torn.read_bytes()[:1000])
    Path(lost[1]["episode_db"]).unlink()
    kept = {
        Path(json.loads(line)["episode_db"]): Path(json.loads(line)["episode_db"]).stat().st_mtime_ns
        for line in lines[:-2]
    }
    log.write_text("")

    summary = eval_json(
        *SERVICEBENCH, "--tasks", "homeservices/towing-*", "--agent", "counting",
        "--trials", 2, "--workers", 2, "--out", out, "--resume",
    )  # fmt: skip
    towing = [t for t in HOMESERVICES if t.startswith("homeservices/towing-")]
    replayed = sorted(log.read_text().splitlines())
    expected = [Path(r["episode_db"]).name for r in lost]
    expected += [evaluation.episode_name(t, n) for t in towing for n in (1, 2)]
    assert replayed == sorted(expected)
    assert {path: path.stat().st_mtime_ns for path in kept} == kept
    records = results(out)
    keys = [(r["task"], r["trial"]) for r in records]
    assert len(keys) == len(set(keys)) == 6 + 2 * len(towing)
    assert (summary["episodes"], summary["infra_failures"]) == (len(keys), 0)
    assert summary["pass_hat_k"] == {"1": 1.0, "2": 1.0}

    # resuming a finished run plays nothing
    log.write_text("")
    eval_json(*SERVICEBENCH, "--agent", "counting", "--trials", 2, "--out", out, "--resume")
    assert log.read_text() == ""


def test_an_agent_that_raises_is_an_infra_failure_not_a_crash(tmp_path, monkeypatch):
    def flaky(episode: Any, **_: Any) -> Any:
        if episode.task.id == "commerce/order-status":
            raise RuntimeError("provider unreachable")
        return agents.oracle(episode)

    monkeypatch.setitem(agents.AGENTS, "flaky", flaky)
    out = tmp_path / "flaky"
    summary = eval_json(*SERVICEBENCH, "--agent", "flaky", "--trials", 2, "--workers", 2, "--out", out)
    assert (summary["episodes"], summary["infra_failures"]) == (6, 2)
    assert summary["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert summary["tasks_at_k"] == {"1": 2, "2": 2}
    failed = [r for r in results(out) if not r["infra_ok"]]
    assert {r["task"] for r in failed} == {"commerce/order-status"}
    assert failed[0]["error"] == {
        "code": 500,
        "error": "RuntimeError",
        "message": "provider unreachable",
        "stage": "agent",
    }
    assert failed[0]["reward"] is None and failed[0]["episode_completed"] is False


def test_the_agent_sidecar_gives_tokens_and_infra_status(tmp_path, monkeypatch):
    def noted(episode: Any, **_: Any) -> Any:
        outcomes = agents.oracle(episode)
        sidecar = {"usage": {"total_tokens": 15}, "infra_ok": episode.task.id != REFUND}
        episode.path.with_suffix(".agent.json").write_text(json.dumps(sidecar))
        return outcomes

    monkeypatch.setitem(agents.AGENTS, "noted", noted)
    out = tmp_path / "noted"
    summary = eval_json(*SERVICEBENCH, "--agent", "noted", "--workers", 2, "--out", out)
    assert summary["infra_failures"] == 1
    by_task = {r["task"]: r for r in results(out)}
    assert all(r["tokens"] == {"total_tokens": 15} for r in by_task.values())
    assert by_task[REFUND]["infra_ok"] is False and by_task[REFUND]["reward"] == 1.0


def test_the_llm_agent_with_its_options_and_its_infra_failure(tmp_path):
    gold = [tool_calls(call(c.tool, c.args)) for c in get_task(REFUND).gold]
    with OpenAIStub() as stub:
        stub.add(*gold, error(401, "bad key", repeat=True))  # trial 1 plays the gold, trial 2 fails at once
        out = tmp_path / "llm"
        summary = eval_json(
            "--tasks", REFUND, "--agent", "llm", "--model", "scripted", "--base-url", stub.base_url,
            "--max-steps", 10, "--trials", 2, "--workers", 1, "--out", out,
        )  # fmt: skip
    assert {r["model"] for r in stub.requests} == {"scripted"}
    first, second = sorted(results(out), key=lambda r: r["trial"])
    assert (first["reward"], first["infra_ok"], first["episode_completed"]) == (1.0, True, True)
    assert first["tokens"] == {"prompt_tokens": 60, "completion_tokens": 30, "total_tokens": 90}
    assert (second["infra_ok"], second["episode_completed"]) == (False, False)
    assert second["error"]["code"] == 502 and "bad key" in second["error"]["message"]
    assert (summary["infra_failures"], summary["pass_hat_k"]) == (1, {"1": 1.0, "2": None})
    assert json.loads((out / "eval.json").read_text())["options"]["max_steps"] == 10


# --- report --------------------------------------------------------------------------------------


def test_report_shows_every_task_and_the_failed_episodes_diff(tmp_path):
    actions = [{"tool": call.tool, "args": copy.deepcopy(call.args)} for call in get_task(REFUND).gold]
    for action in actions:
        if action["tool"] == "orders_process_refund":
            action["args"]["amount"] = 45.0
        if action["tool"] == "finish":
            action["args"]["answer"] = "<script>alert(1)</script> refunded"
    replay = tmp_path / "wrong.json"
    replay.write_text(json.dumps(actions))
    out = tmp_path / "wrong"
    summary = eval_json(*SERVICEBENCH, "--agent", "replay", "--actions", replay, "--trials", 2, "--out", out)
    assert summary["pass_hat_k"]["1"] == 0.0

    result = invoke("report", out)
    assert result.exit_code == 0, result.output
    assert "report written to" in result.stdout
    page = (out / "report.html").read_text()
    for task in COMMERCE:
        assert task in page
    assert (
        "<svg" in page
        and "<script" not in page
        and "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    failed = next(r for r in results(out) if r["task"] == REFUND)
    change = next(d for d in failed["diff"] if d["table"] == "refunds" and d["column"] == "amount")
    assert (change["expected"], change["actual"]) == (49.99, 45.0)
    assert "refunds" in page and "RF-0007" in page and "45.0" in page and "49.99" in page
    assert "orders_process_refund" in page  # the transcript's calls
    assert page.count("<details>") == 6
    assert json.loads((out / "summary.json").read_text())["episodes"] == 6
    report = json.loads(invoke("report", out, "--json").stdout)
    assert report["report"] == str(out / "report.html") and report["pass_hat_k"]["2"] == 0.0


# --- refusals ------------------------------------------------------------------------------------


def test_a_pattern_that_matches_nothing_is_a_404(tmp_path):
    result = invoke("eval", "--tasks", "nope/*", "--out", tmp_path / "x")
    assert_structured_failure(result, 404, "no_matching_tasks")
    assert not (tmp_path / "x").exists()
    as_json = invoke("eval", "--tasks", "commerce/refund", "--out", tmp_path / "x", "--json")
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout)["error"]["code"] == 404


def test_an_existing_run_needs_resume(tmp_path):
    out = tmp_path / "run"
    eval_json("--tasks", "commerce/order-status", "--workers", 1, "--out", out)
    before = (out / "results.jsonl").read_text()
    assert_structured_failure(invoke("eval", "--tasks", "commerce/order-status", "--out", out), 409, "run_exists")
    assert (out / "results.jsonl").read_text() == before
    mismatch = invoke("eval", "--tasks", "commerce/order-status", "--agent", "noop", "--out", out, "--resume")
    assert_structured_failure(mismatch, 409, "run_mismatch")


def test_other_refusals(tmp_path):
    assert_structured_failure(
        invoke("eval", *SERVICEBENCH, "--agent", "bogus", "--out", tmp_path / "a"), 400, "unknown_agent"
    )
    assert_structured_failure(
        invoke("eval", *SERVICEBENCH, "--agent", "replay", "--out", tmp_path / "b"), 400, "missing_argument"
    )
    assert_structured_failure(
        invoke("eval", *SERVICEBENCH, "--reward", "rubric", "--out", tmp_path / "c"), 400, "invalid_reward"
    )
    assert_structured_failure(invoke("report", tmp_path / "nothing"), 404, "not_a_run")
    oracle_with_model = invoke("eval", *SERVICEBENCH, "--model", "m", "--out", tmp_path / "d")
    assert_structured_failure(oracle_with_model, 400, "unsupported_option")
    llm_without_model = invoke("eval", *SERVICEBENCH, "--agent", "llm", "--out", tmp_path / "e")
    assert_structured_failure(llm_without_model, 400, "missing_argument")
    assert not any(tmp_path.iterdir())
