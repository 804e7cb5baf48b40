"""The typer CLI through CliRunner: listings, run/grade/diff/validate, and clean failures.

Every run writes under tmp_path (``--out`` or ``--runs-dir``), never in the repository.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from simtenant.cli import app
from simtenant.grader.validate import TaskValidation
from simtenant.world import get_task, get_world

TASKS = ["commerce/billing-discrepancy", "commerce/order-status", "commerce/refund-damaged-item"]
COMMERCE = sorted(get_world("commerce").tasks)  # ServiceBench's three and the rest of the commerce world
REFUND = "commerce/refund-damaged-item"
GRADE_KEYS = {"task", "episode_db", "reward", "db_match", "partial_credit", "checks", "diff", "steps", "completed"}

runner = CliRunner()


def invoke(*args: Any) -> Any:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def flat(text: str) -> str:
    """Output with rich's line wrapping undone."""
    return " ".join(text.split())


def stdout_json(result: Any) -> Any:
    return json.loads(result.stdout)


def gold_actions(task_id: str = REFUND, **refund_args: Any) -> list[dict[str, Any]]:
    actions = [{"tool": call.tool, "args": copy.deepcopy(call.args)} for call in get_task(task_id).gold]
    for action in actions:
        if action["tool"] == "orders_process_refund":
            action["args"] = {**action["args"], **refund_args}
    return actions


def run_json(*args: Any) -> dict[str, Any]:
    result = invoke("run", *args, "--json")
    assert result.exit_code == 0, result.output
    return stdout_json(result)


def assert_clean_failure(result: Any) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


# --- listings ----------------------------------------------------------------------------------


def test_worlds_json():
    result = invoke("worlds", "--json")
    assert result.exit_code == 0, result.output
    rows = stdout_json(result)
    commerce = next(r for r in rows if r["world"] == "commerce")
    assert (commerce["tables"], commerce["tools"], commerce["tasks"]) == (14, 25, len(COMMERCE))
    assert commerce["title"] == "Commerce back office"


def test_worlds_table():
    result = invoke("worlds")
    assert result.exit_code == 0, result.output
    assert "commerce" in result.stdout
    assert "Commerce back office" in flat(result.stdout)


def test_tasks_lists_the_commerce_tasks():
    result = invoke("tasks", "commerce")
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()]  # into a pipe: one line a task, tabs
    assert [row[0] for row in rows] == COMMERCE and len({len(row) for row in rows}) == 1 and len(rows[0]) > 1
    listed = stdout_json(invoke("tasks", "commerce", "--json"))
    assert [t["task"] for t in listed] == COMMERCE
    assert all(t["description"] for t in listed)


def test_tools_openai_format():
    result = invoke("tools", "commerce", "--format", "openai")
    assert result.exit_code == 0, result.output
    specs = stdout_json(result)
    assert isinstance(specs, list)
    assert len(specs) == 26
    assert all(s["type"] == "function" for s in specs)
    names = [s["function"]["name"] for s in specs]
    assert "finish" in names
    assert "orders_process_refund" in names
    assert all(s["function"]["parameters"]["additionalProperties"] is False for s in specs)


def test_tools_json_format():
    result = invoke("tools", "commerce", "--format", "json")
    assert result.exit_code == 0, result.output
    tools = {t["name"]: t for t in stdout_json(result)}
    assert len(tools) == 26
    refund = tools["orders_process_refund"]
    assert (refund["service"], refund["method"], refund["path"]) == ("orders", "POST", "/orders/process-refund")
    assert set(refund["parameters"]["required"]) == {"order_id", "amount", "reason"}
    assert tools["finish"]["service"] == "harness"


def test_tools_table_format():
    result = invoke("tools", "commerce")
    assert result.exit_code == 0, result.output
    assert "orders_process_refund" in result.stdout
    assert "finish" in result.stdout


@pytest.mark.parametrize("fmt", ["bogus", "yaml", "OPENAI"])
def test_tools_bad_format_fails(fmt):
    result = invoke("tools", "commerce", "--format", fmt)
    assert_clean_failure(result)
    assert "error 400 invalid_format" in flat(result.output)


# --- run -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_run_oracle_scores_one(tmp_path, task):
    out = tmp_path / "oracle.db"
    report = run_json(task, "--agent", "oracle", "--out", out)
    assert set(report) >= GRADE_KEYS
    assert report["task"] == task
    assert report["episode_db"] == str(out)
    assert out.is_file()
    assert (report["reward"], report["db_match"], report["partial_credit"]) == (1.0, 1, 1.0)
    assert report["diff"] == []
    assert report["completed"] is True
    assert report["steps"] == len(get_task(task).gold)
    assert all(c["passed"] for c in report["checks"])


@pytest.mark.parametrize("task", TASKS)
def test_run_oracle_shaped_reward_is_one(tmp_path, task):
    report = run_json(task, "--reward", "shaped", "--out", tmp_path / "shaped.db")
    assert report["reward_mode"] == "shaped"
    assert report["reward"] == 1.0
    assert report["shaped_reward"] == 1.0


def test_run_summary_without_json(tmp_path):
    result = invoke("run", REFUND, "--out", tmp_path / "e.db")
    assert result.exit_code == 0, result.output
    text = flat(result.stdout)
    assert REFUND in text
    assert "reward 1 (default)" in text
    assert "db_match 1" in text


def test_run_noop_scores_zero(tmp_path):
    report = run_json(REFUND, "--agent", "noop", "--out", tmp_path / "noop.db")
    assert (report["reward"], report["db_match"], report["steps"], report["completed"]) == (0.0, 0, 1, True)


def test_run_writes_under_runs_dir(tmp_path):
    report = run_json(REFUND, "--runs-dir", tmp_path)
    path = Path(report["episode_db"])
    assert path.is_file()
    assert path.parent.parent == tmp_path
    assert path.parent.name.endswith("-oracle")
    assert path.name == "commerce__refund-damaged-item.db"
    again = Path(run_json(REFUND, "--runs-dir", tmp_path)["episode_db"])
    assert again != path
    assert again.is_file()


def write_json_list(path: Path, actions: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(actions, indent=2))
    return path


def write_jsonl(path: Path, actions: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(a) for a in actions) + "\n\n")
    return path


@pytest.mark.parametrize("writer", [write_json_list, write_jsonl], ids=["json-list", "jsonl"])
def test_run_replay_of_gold_calls_scores_one(tmp_path, writer):
    actions = writer(tmp_path / "actions.txt", gold_actions())
    report = run_json(REFUND, "--agent", "replay", "--actions", actions, "--out", tmp_path / "replay.db")
    assert (report["reward"], report["db_match"], report["steps"]) == (1.0, 1, 6)


@pytest.mark.parametrize("writer", [write_json_list, write_jsonl], ids=["json-list", "jsonl"])
def test_run_replay_wrong_refund_amount(tmp_path, writer):
    actions = writer(tmp_path / "wrong.txt", gold_actions(amount=45.00))
    report = run_json(REFUND, "--agent", "replay", "--actions", actions, "--out", tmp_path / "wrong.db")
    assert (report["reward"], report["db_match"]) == (0.0, 0)
    assert report["completed"] is True
    assert report["diff"] == [
        {
            "table": "refunds",
            "key": "RF-0007",
            "column": "amount",
            "expected": 49.99,
            "actual": 45.0,
            "kind": "changed",
            "detail": None,
        }
    ]
    checks = {c["name"]: c["passed"] for c in report["checks"]}
    assert checks == {"eligibility-checked-before-refund": True, "order-returned": True, "one-refund-of-49.99": False}


def test_run_replay_of_failing_calls_still_grades(tmp_path):
    actions = write_json_list(
        tmp_path / "bad-calls.json",
        [{"tool": "no_such_tool"}, {"tool": "orders_lookup", "args": {"order_id": 5}}, {"tool": "finish"}],
    )
    report = run_json(REFUND, "--agent", "replay", "--actions", actions, "--out", tmp_path / "e.db")
    assert (report["reward"], report["db_match"], report["steps"], report["completed"]) == (0.0, 0, 3, True)


# --- grade and diff ------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_grade_matches_run(tmp_path, task):
    out = tmp_path / "e.db"
    ran = run_json(task, "--out", out)
    result = invoke("grade", out, "--json")
    assert result.exit_code == 0, result.output
    graded = stdout_json(result)
    assert graded == ran
    assert graded["reward"] == 1.0


def test_grade_of_a_wrong_replay_and_in_shaped_mode(tmp_path):
    actions = write_json_list(tmp_path / "wrong.json", gold_actions(amount=45.00))
    out = tmp_path / "wrong.db"
    ran = run_json(REFUND, "--agent", "replay", "--actions", actions, "--out", out)
    graded = stdout_json(invoke("grade", out, "--json"))
    assert graded == ran
    assert graded["reward"] == 0.0
    shaped = stdout_json(invoke("grade", out, "--reward", "shaped", "--json"))
    assert shaped["reward_mode"] == "shaped"
    assert 0.0 < shaped["reward"] < 1.0


def test_grade_summary_without_json(tmp_path):
    out = tmp_path / "e.db"
    run_json(REFUND, "--out", out)
    result = invoke("grade", out)
    assert result.exit_code == 0, result.output
    assert "db_match 1" in flat(result.stdout)


@pytest.fixture
def oracle_and_wrong(tmp_path: Path) -> tuple[Path, Path]:
    oracle = tmp_path / "oracle.db"
    run_json(REFUND, "--out", oracle)
    actions = write_json_list(tmp_path / "wrong.json", gold_actions(amount=45.00))
    wrong = tmp_path / "wrong.db"
    run_json(REFUND, "--agent", "replay", "--actions", actions, "--out", wrong)
    return oracle, wrong


def test_diff_lists_the_refund_amount(oracle_and_wrong):
    oracle, wrong = oracle_and_wrong
    result = invoke("diff", oracle, wrong)
    assert result.exit_code == 1
    text = flat(result.stdout)
    for fragment in ("refunds", "RF-0007", "amount", "49.99", "45.0", "changed"):
        assert fragment in text


def test_diff_json_lists_the_refund_amount(oracle_and_wrong):
    oracle, wrong = oracle_and_wrong
    body = stdout_json(invoke("diff", oracle, wrong, "--json"))
    assert body == {
        "match": False,
        "diff": [
            {
                "table": "refunds",
                "key": "RF-0007",
                "column": "amount",
                "expected": 49.99,
                "actual": 45.0,
                "kind": "changed",
                "detail": None,
            }
        ],
    }


def test_diff_of_two_oracle_runs_has_no_differences(tmp_path):
    first, second = tmp_path / "one.db", tmp_path / "two.db"
    run_json(REFUND, "--out", first)
    run_json(REFUND, "--out", second)
    result = invoke("diff", first, second)
    assert result.exit_code == 0, result.output
    assert "no differences" in result.stdout
    assert stdout_json(invoke("diff", first, second, "--json")) == {"match": True, "diff": []}


# --- validate ------------------------------------------------------------------------------------


def test_validate_commerce_json():
    result = invoke("validate", "commerce", "--json")
    assert result.exit_code == 0, result.output
    body = stdout_json(result)
    assert body["ok"] is True
    assert [t["task"] for t in body["tasks"]] == COMMERCE
    assert all(t["gold_reward"] == 1.0 and t["noop_reward"] == 0.0 for t in body["tasks"])
    assert all(t["identical_replays"] is True and t["problems"] == [] for t in body["tasks"])


def test_proofs_in_worker_processes_equal_the_proofs_in_one():
    tasks = ["commerce/refund-damaged-item", "commerce/billing-discrepancy", "homeservices/towing-raleigh"]
    for command in ("validate", "mutate"):
        alone, parallel = (invoke(command, *tasks, "--json", "--workers", n) for n in ("1", "2"))
        assert alone.exit_code == parallel.exit_code == 0, alone.output + parallel.output
        assert stdout_json(alone) == stdout_json(parallel)


def test_mutate_fails_a_world_that_catches_too_few(monkeypatch):
    monkeypatch.setattr("simtenant.cli.proofs.CATCH_RATE", 1.01)  # no world can catch more than all
    result = invoke("mutate", "commerce/refund-damaged-item", "--workers", "1")
    assert result.exit_code == 1 and "Traceback" not in result.output


# --- bad input: exit 1, a clear message, no traceback ---------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "not-json.json").write_text("this is not json\n")
    (tmp_path / "not-json-list.json").write_text('[{"tool": "finish"},')
    (tmp_path / "no-tool.json").write_text(json.dumps([{"args": {}}]))
    (tmp_path / "no-tool.jsonl").write_text('{"tool": "users_list"}\n{"args": {}}\n')
    (tmp_path / "args-list.json").write_text(json.dumps([{"tool": "finish", "args": ["x"]}]))
    (tmp_path / "not-object.json").write_text(json.dumps(["finish"]))
    (tmp_path / "extra-key.json").write_text(json.dumps([{"tool": "finish", "args": {}, "why": 1}]))
    (tmp_path / "existing.db").write_text("keep me")
    (tmp_path / "text.db").write_text("hello, not sqlite\n")
    connection = sqlite3.connect(tmp_path / "plain.db")
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    return {"tmp": str(tmp_path)}


BAD_INPUT = [
    # unknown task ids and ids that are not world/name
    (["run", "commerce/nope"], 404, "unknown_task", "'commerce/nope'"),
    (["run", "commerce/../commerce/refund-damaged-item"], 404, "unknown_task", "not a task id"),
    (["run", "../commerce/refund-damaged-item"], 404, "unknown_task", "not a task id"),
    (["run", "commerce/refund-damaged-item/x"], 404, "unknown_task", "not a task id"),
    (["run", "/etc/passwd"], 404, "unknown_task", "not a task id"),
    (["run", "commerce\\refund-damaged-item"], 404, "unknown_task", "not a task id"),
    (["run", "commerce"], 404, "unknown_task", "not a task id"),
    (["run", "Commerce/Refund-Damaged-Item"], 404, "unknown_task", "not a task id"),
    # unknown world
    (["run", "nope/refund-damaged-item"], 404, "unknown_world", "'nope'"),
    (["tasks", "nope"], 404, "unknown_world", "'nope'"),
    (["validate", "nope"], 404, "unknown_world", "'nope'"),
    # malformed replay files
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/not-json.json"], 400, "invalid_replay_file", "JSON"),
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/not-json-list.json"], 400, "invalid_replay_file", "JSON"),
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/no-tool.json"], 400, "invalid_replay_file", "tool"),
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/no-tool.jsonl"], 400, "invalid_replay_file", "item 2"),
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/args-list.json"], 400, "invalid_replay_file", "args"),
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/not-object.json"], 400, "invalid_replay_file", "item 1"),
    (["run", REFUND, "--agent", "replay", "--actions", "{tmp}/extra-key.json"], 400, "invalid_replay_file", "why"),
    (
        ["run", REFUND, "--agent", "replay", "--actions", "{tmp}/missing.json"],
        400,
        "invalid_replay_file",
        "cannot read",
    ),
    # agents
    (["run", REFUND, "--agent", "replay"], 400, "missing_argument", "--actions"),
    (["run", REFUND, "--agent", "gpt"], 400, "unknown_agent", "'gpt'"),
    # grade of things that are not episodes
    (["grade", "{tmp}/missing.db"], 404, "not_an_episode", "no such file"),
    (["grade", "{tmp}"], 404, "not_an_episode", "no such file"),
    (["grade", "{tmp}/text.db"], 400, "not_an_episode", "not an episode file"),
    (["grade", "{tmp}/plain.db"], 400, "not_an_episode", "not an episode file"),
    (["grade", "{tmp}/existing.db"], 400, "not_an_episode", "not an episode file"),
    # diff of missing files
    (["diff", "{tmp}/missing.db", "{tmp}/plain.db"], 400, "not_a_database", "no such file"),
    # run refuses to overwrite, and an unknown reward mode
    (["run", REFUND, "--out", "{tmp}/existing.db"], 409, "file_exists", "already exists"),
    (["run", REFUND, "--reward", "bogus"], 400, "invalid_reward", "default, shaped"),
]


def bad_input_id(case: tuple) -> str:
    return " ".join(case[0]).replace("{tmp}/", "")


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize(("argv", "code", "error", "fragment"), BAD_INPUT, ids=[bad_input_id(c) for c in BAD_INPUT])
def test_bad_input_fails_cleanly(files, tmp_path, argv, code, error, fragment, as_json):
    args = [a.format(**files) for a in argv]
    if args[0] == "run" and "--out" not in args:
        args += ["--out", str(tmp_path / "out.db")]
    if as_json:
        args.append("--json")
    result = invoke(*args)
    assert_clean_failure(result)
    if as_json:
        body = stdout_json(result)
        assert set(body) == {"error"}
        assert set(body["error"]) == {"code", "error", "message"}
        assert (body["error"]["code"], body["error"]["error"]) == (code, error)
        assert fragment in body["error"]["message"]
    else:
        assert result.stdout == ""
        text = flat(result.stderr)
        assert text.startswith(f"error {code} {error}: ")
        assert fragment in text
    assert (tmp_path / "existing.db").read_text() == "keep me"


@pytest.mark.parametrize("fmt", ["table", "openai"])
def test_tools_of_unknown_world(fmt):
    result = invoke("tools", "nope", "--format", fmt)
    assert_clean_failure(result)
    assert "error 404 unknown_world" in flat(result.stderr)


def test_unknown_command_and_option_are_usage_errors(tmp_path):
    assert invoke("frobnicate").exit_code == 2
    result = invoke("run", REFUND, "--out", tmp_path / "e.db", "--frob")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert not (tmp_path / "e.db").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "commerce/nope"],
        ["run", REFUND, "--agent", "gpt"],
        ["run", REFUND, "--agent", "replay", "--actions", "{tmp}/not-json.json"],
        ["run", REFUND, "--agent", "replay", "--actions", "{tmp}/missing.json"],
    ],
)
def test_rejected_runs_write_no_episode_file(files, tmp_path, argv):
    out = tmp_path / "out.db"
    result = invoke(*[a.format(**files) for a in argv], "--out", out)
    assert_clean_failure(result)
    assert not out.exists()


# --- fixed bugs, kept as regressions ---


@pytest.mark.parametrize("extra", [["--agent", "replay"], ["--reward", "bogus"]], ids=["replay-no-actions", "reward"])
def test_bad_run_options_write_no_episode_file(tmp_path, extra):
    out = tmp_path / "out.db"
    result = invoke("run", REFUND, *extra, "--out", out)
    assert_clean_failure(result)
    assert not out.exists()


def test_diff_with_differences_prints_no_spurious_error(oracle_and_wrong):
    oracle, wrong = oracle_and_wrong
    result = invoke("diff", oracle, wrong)
    assert result.exit_code == 1
    assert "internal_error" not in result.output


def test_diff_json_exits_one_on_differences(oracle_and_wrong):
    oracle, wrong = oracle_and_wrong
    result = invoke("diff", oracle, wrong, "--json")
    assert stdout_json(result)["match"] is False
    assert result.exit_code == 1


@pytest.mark.parametrize("name", ["text.db", "plain.db"])
def test_diff_of_a_non_tenant_file_is_a_400(files, oracle_and_wrong, name):
    oracle, _ = oracle_and_wrong
    result = invoke("diff", oracle, Path(files["tmp"]) / name, "--json")
    assert_clean_failure(result)
    assert stdout_json(result)["error"]["code"] == 400


@pytest.mark.parametrize("name", ["[/x].db", "[bold]y.db"])
def test_error_message_with_brackets_is_printed_verbatim(tmp_path, name):
    result = invoke("grade", tmp_path / name)
    assert_clean_failure(result)
    assert name in flat(result.stderr)


def test_validate_json_with_an_invalid_task_prints_one_report(monkeypatch):
    monkeypatch.setattr(
        "simtenant.cli.proofs.validate_task", lambda task: TaskValidation(task.id, problems=["injected"])
    )
    result = invoke("validate", "commerce", "--json")
    assert result.exit_code == 1
    body = stdout_json(result)
    assert body["ok"] is False
    assert all(t["problems"] == ["injected"] for t in body["tasks"])
