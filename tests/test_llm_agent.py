"""The LLM agent against a scripted OpenAI-compatible endpoint on 127.0.0.1 (tests/openai_stub.py):
tool calls through the one dispatcher, retries, infrastructure failures, malformed calls, the step
budget, token usage, operators (scripted and model-played) and the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai_stub import OpenAIStub, call, error, message, tool_calls
from support import rows
from typer.testing import CliRunner

from simtenant.agents import run
from simtenant.agents.chat import ChatClient, Endpoint, EndpointFailure
from simtenant.agents.llm import read_report, report_path
from simtenant.cli import app
from simtenant.grader import grade
from simtenant.task import Operator, OperatorFact, Task
from simtenant.tools import canonical_json
from simtenant.world import get_task, get_world

REFUND = "commerce/refund-damaged-item"
OPERATOR = Operator(
    persona="Jane Doe, a customer who writes short messages.",
    opening="Hi, my coffee set arrived broken. Can you help?",
    facts=[
        OperatorFact(
            key="order", value="ORD-1005", reveal="It's order ORD-1005.", triggers=["order number", "which order"]
        ),
        OperatorFact(key="item", value="SKU-445", reveal="The pour-over set, SKU-445.", triggers=["which item", "sku"]),
    ],
    done_when=["refund has been issued"],
)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def refund_task(user: Operator | None = None) -> Task:
    task = get_task(REFUND)
    return task if user is None else task.model_copy(update={"user": user})


def gold_turns(task: Task, finish: bool = True) -> list[Any]:
    """The task's gold calls, one tool call per assistant turn."""
    return [tool_calls(call(c.tool, c.args)) for c in task.gold if finish or c.tool != "finish"]


def play(stub: OpenAIStub, tmp_path: Path, task: Task | None = None, **options: Any) -> tuple[Path, dict[str, Any]]:
    """Play an LLM episode against the stub (no waits between retries); the file and its report."""
    settings = {"model": "scripted", "base_url": stub.base_url, "backoff": 0, "attempts": 3, **options}
    path = run(task or refund_task(), "llm", tmp_path / "episode.db", **settings)
    report = read_report(path)
    assert report is not None
    return path, report


def test_scripted_gold_calls_complete_the_episode_graded_one(stub, tmp_path):
    task = refund_task()
    lookups, rest = task.gold[:3], task.gold[3:]
    stub.add(tool_calls(*(call(c.tool, c.args) for c in lookups)))  # three calls in one turn
    stub.add(*(tool_calls(call(c.tool, c.args)) for c in rest))
    path, report = play(stub, tmp_path)
    assert report_path(path) == tmp_path / "episode.agent.json"
    assert report == {
        "model": "scripted",
        "infra_ok": True,
        "error": None,
        "steps": 6,
        "ended": "finished",
        "usage": {"prompt_tokens": 40, "completion_tokens": 20, "total_tokens": 60},
    }
    result = grade(path)
    assert (result.reward, result.db_match, result.completed, result.steps) == (1.0, 1, True, 6)
    assert rows(path, "SELECT tool FROM _calls ORDER BY seq") == [(c.tool,) for c in task.gold]

    first = stub.requests[0]
    system = first["messages"][0]
    assert system["role"] == "system" and task.instruction in system["content"]
    assert task.notes not in system["content"]  # the notes give the answer away
    assert first["messages"][1]["role"] == "user"
    assert "send_message_to_user" not in {t["function"]["name"] for t in first["tools"]}
    # the second request answers each of the three calls with its result, by call id
    assistant, *answers = stub.requests[1]["messages"][2:]
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == [c.tool for c in lookups]
    assert [a["tool_call_id"] for a in answers] == [c["id"] for c in assistant["tool_calls"]]
    assert json.loads(answers[1]["content"])["id"] == "ORD-1005"


def test_the_tools_offered_are_the_episodes(stub, tmp_path):
    stub.add(tool_calls(call("finish", {"answer": "nothing to do"})))
    play(stub, tmp_path)
    expected = [t.openai() for t in get_world("commerce").all_tools()]
    assert stub.requests[0]["tools"] == expected


def test_a_429_is_retried(stub, tmp_path):
    stub.add(error(429, "slow down"), *gold_turns(refund_task()))
    path, report = play(stub, tmp_path)
    assert len(stub.requests) == 7  # the refused request, then one per gold call
    assert stub.requests[0] == stub.requests[1]
    assert (report["infra_ok"], report["steps"]) == (True, 6)
    assert grade(path).reward == 1.0


def test_a_persisting_500_ends_the_run_as_an_infrastructure_failure(stub, tmp_path):
    stub.add(tool_calls(call("orders_lookup", {"order_id": "ORD-1005"})), error(500, "backend down", repeat=True))
    path, report = play(stub, tmp_path, attempts=3)  # returns: never raised as the agent's failure
    assert len(stub.requests) == 1 + 3
    assert report["infra_ok"] is False and report["ended"] == "infra_error"
    assert report["error"]["code"] == 502 and report["error"]["error"] == "model_endpoint_failed"
    assert "HTTP 500" in report["error"]["message"] and "backend down" in report["error"]["message"]
    assert report["steps"] == 1
    assert rows(path, "SELECT status FROM _episode") == [("running",)]  # left as it was, graded as is
    assert grade(path).completed is False


def test_retries_back_off_exponentially(stub):
    stub.add(error(503, "busy", repeat=True))
    waits: list[float] = []
    client = ChatClient(Endpoint(model="scripted", base_url=stub.base_url, attempts=4, backoff=0.5), sleep=waits.append)
    with pytest.raises(EndpointFailure, match="gave up after 4 attempt"):
        client.complete([{"role": "user", "content": "hi"}])
    assert waits == [0.5, 1.0, 2.0]  # the waits asked for, not measured
    assert len(stub.requests) == 4


def test_retries_wait_at_least_what_retry_after_asks(stub):
    stub.add(error(429, "slow down", retry_after="3"), error(503, "busy", retry_after="soon"))
    stub.add(error(429, "slow down", retry_after="9999"), message("Done."))
    waits: list[float] = []
    client = ChatClient(Endpoint(model="scripted", base_url=stub.base_url, attempts=4, backoff=0.5), sleep=waits.append)
    assert client.complete([{"role": "user", "content": "hi"}]).content == "Done."
    assert waits == [3.0, 1.0, 120.0]  # the header's 3 s; backoff when unreadable; capped at 120 s


def test_an_error_that_is_not_retryable_fails_at_once(stub, tmp_path):
    stub.add(error(401, "bad key", repeat=True))
    _, report = play(stub, tmp_path)
    assert len(stub.requests) == 1
    assert report["infra_ok"] is False and "HTTP 401" in report["error"]["message"]


def test_a_malformed_tool_call_comes_back_as_a_400_and_the_episode_goes_on(stub, tmp_path):
    stub.add(tool_calls(call("orders_lookup", '{"order_id": "ORD-10')), *gold_turns(refund_task()))
    path, report = play(stub, tmp_path)
    answer = stub.requests[1]["messages"][-1]
    assert answer["role"] == "tool"
    failure = json.loads(answer["content"])["error"]
    assert (failure["code"], failure["error"]) == (400, "invalid_arguments")
    recorded = rows(path, "SELECT tool, args, ok, error FROM _calls WHERE seq = 1")[0]
    assert recorded[:3] == ("orders_lookup", canonical_json({"__invalid__": '{"order_id": "ORD-10'}), 0)
    assert json.loads(recorded[3]) == failure
    assert (report["steps"], report["ended"], report["infra_ok"]) == (7, "finished", True)
    assert grade(path).db_match == 1


def test_max_steps_stops_the_episode_unfinished(stub, tmp_path):
    lookup = call("orders_lookup", {"order_id": "ORD-1005"})
    stub.add(tool_calls(lookup, call("inventory_lookup", {"sku": "SKU-445"})), tool_calls(lookup, lookup))
    stub.add(*gold_turns(refund_task()))  # never asked for
    path, report = play(stub, tmp_path, max_steps=3)
    assert len(stub.requests) == 2
    assert (report["steps"], report["ended"], report["infra_ok"]) == (3, "max_steps", True)
    assert rows(path, "SELECT count(*) FROM _calls") == [(3,)]
    result = grade(path)
    assert (result.completed, result.steps, result.reward) == (False, 3, 0.0)


def test_token_usage_is_summed_over_responses(stub, tmp_path):
    stub.add(
        tool_calls(
            call("orders_lookup", {"order_id": "ORD-1005"}),
            usage={"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107},
        ),
        error(429),
        message("Let me think.", usage=None),  # some endpoints send no usage
        tool_calls(
            call("finish", {"answer": "done"}),
            usage={"prompt_tokens": 250, "completion_tokens": 12, "total_tokens": 262},
        ),
    )
    _, report = play(stub, tmp_path)
    assert report["usage"] == {"prompt_tokens": 350, "completion_tokens": 19, "total_tokens": 369}


def test_without_an_operator_text_is_a_step_spent_that_nobody_reads(stub, tmp_path):
    stub.add(message("Thinking."), tool_calls(call("orders_lookup", {"order_id": "ORD-1005"})))
    stub.add(message("Hmm."), message("Still here."), message("ORD-1005 is delivered."))
    path, report = play(stub, tmp_path, max_steps=5)
    assert (report["steps"], report["ended"]) == (5, "max_steps")  # text ends nothing: only the budget
    assert rows(path, "SELECT tool FROM _calls ORDER BY seq") == [("orders_lookup",)]
    assert rows(path, "SELECT status, answer FROM _episode") == [("running", None)]
    nobody = stub.requests[1]["messages"][-1]
    briefing = get_world("commerce").briefing(get_task("commerce/refund-damaged-item"), 5)
    assert nobody == {"role": "user", "content": briefing.nobody} and "finish" in nobody["content"]


def test_with_an_operator_the_opening_comes_first_and_text_goes_to_them(stub, tmp_path):
    task = refund_task(OPERATOR)
    stub.add(message("Sorry to hear that! What is the order number?"))
    stub.add(*gold_turns(task, finish=False))
    stub.add(message("Your refund has been issued and the order is marked returned."))
    path, report = play(stub, tmp_path, task=task)
    first = stub.requests[0]["messages"]
    assert first[1] == {"role": "user", "content": OPERATOR.opening}
    assert "operator" in first[0]["content"] and "send_message_to_user" in first[0]["content"]
    assert OPERATOR.facts[0].reveal not in json.dumps(stub.requests[0])  # private until asked
    assert "send_message_to_user" in {t["function"]["name"] for t in stub.requests[0]["tools"]}
    assert stub.requests[1]["messages"][-2:] == [
        {"role": "assistant", "content": "Sorry to hear that! What is the order number?"},
        {"role": "user", "content": "It's order ORD-1005."},
    ]
    calls = rows(path, "SELECT tool, args FROM _calls ORDER BY seq")
    assert calls[0] == (
        "send_message_to_user",
        canonical_json({"message": "Sorry to hear that! What is the order number?"}),
    )
    assert calls[-1][0] == "send_message_to_user"
    assert (report["ended"], report["steps"]) == ("operator_stop", 7)
    assert rows(path, "SELECT role FROM _messages ORDER BY seq") == [
        (r,) for r in ("user", "agent", "user", "agent", "user")
    ]
    assert rows(path, "SELECT content FROM _messages ORDER BY seq DESC LIMIT 1")[0][0].endswith("###STOP###")
    assert grade(path).reward == 1.0


def test_a_model_plays_the_operator(stub, tmp_path):
    task = refund_task(OPERATOR)
    stub.add(message("It's ORD-1005, the pour-over set."), message("Great, thank you! ###STOP###"), model="operator")
    stub.add(message("Sorry to hear that! Which order was it?"))
    stub.add(*gold_turns(task, finish=False))
    stub.add(tool_calls(call("send_message_to_user", {"message": "Your refund of 49.99 has been issued."})))
    path, report = play(stub, tmp_path, task=task, user_model="operator")
    asked = stub.requests_of("operator")
    assert len(asked) == 2
    system, user = asked[0]["messages"]
    for text in (OPERATOR.persona, OPERATOR.opening, OPERATOR.facts[0].reveal, "###STOP###", "refund has been issued"):
        assert text in system["content"]
    assert "Which order was it?" in user["content"] and OPERATOR.opening in user["content"]
    assert "It's ORD-1005, the pour-over set." in asked[1]["messages"][1]["content"]  # the conversation so far
    assert "tools" not in asked[0]
    # the agent hears the model's replies; the scripted responder is not asked
    assert stub.requests_of("scripted")[1]["messages"][-1] == {
        "role": "user",
        "content": "It's ORD-1005, the pour-over set.",
    }
    assert rows(path, "SELECT role, content, revealed FROM _messages ORDER BY seq")[1:] == [
        ("agent", "Sorry to hear that! Which order was it?", None),
        ("user", "It's ORD-1005, the pour-over set.", '["order"]'),
        ("agent", "Your refund of 49.99 has been issued.", None),
        ("user", "Great, thank you! ###STOP###", None),
    ]
    assert (report["ended"], report["infra_ok"], report["user_model"]) == ("operator_stop", True, "operator")
    assert report["user_usage"] == {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
    assert report["usage"]["total_tokens"] == 15 * 7
    assert grade(path).reward == 1.0


def test_an_operator_model_that_fails_is_an_infrastructure_failure(stub, tmp_path):
    task = refund_task(OPERATOR)
    stub.add(error(500, "operator down", repeat=True), model="operator")
    stub.add(message("Which order was it?"), message("never asked"))
    path, report = play(stub, tmp_path, task=task, user_model="operator")
    assert report["infra_ok"] is False and report["error"]["error"] == "operator_model_failed"
    assert "operator down" in report["error"]["message"]
    assert len(stub.requests_of("scripted")) == 1 and len(stub.requests_of("operator")) == 3
    recorded = rows(path, "SELECT tool, ok, error FROM _calls")
    assert [(tool, ok, json.loads(err)["code"]) for tool, ok, err in recorded] == [("send_message_to_user", 0, 503)]


def test_the_llm_agent_needs_a_model_and_an_operator_for_user_model(tmp_path):
    from simtenant.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="--model"):
        run(refund_task(), "llm", tmp_path / "a.db")
    with pytest.raises(InvalidArgument, match="no operator"):
        run(refund_task(), "llm", tmp_path / "b.db", model="m", user_model="op")
    assert list(tmp_path.iterdir()) == []


# --- the CLI -------------------------------------------------------------------------------------

runner = CliRunner()


def invoke(*args: object) -> Any:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def test_cli_run_with_the_llm_agent(stub, tmp_path):
    stub.add(*gold_turns(refund_task()))
    out = tmp_path / "llm.db"
    result = invoke(
        "run", REFUND, "--agent", "llm", "--base-url", stub.base_url, "--model", "scripted", "--json", "--out", out
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["reward"], report["db_match"], report["steps"], report["episode_db"]) == (1.0, 1, 6, str(out))
    assert report["infra_ok"] is True
    assert report["usage"] == {"prompt_tokens": 60, "completion_tokens": 30, "total_tokens": 90}
    assert report["agent"]["model"] == "scripted" and report["agent"]["ended"] == "finished"
    assert (tmp_path / "llm.agent.json").is_file()


def test_cli_run_llm_summary_reports_an_infrastructure_failure(stub, tmp_path):
    stub.add(error(400, "no such model", repeat=True))
    result = invoke(
        "run",
        REFUND,
        "--agent",
        "llm",
        "--base-url",
        stub.base_url,
        "--model",
        "scripted",
        "--max-steps",
        "5",
        "--out",
        tmp_path / "e.db",
    )
    assert result.exit_code == 3, result.output  # the episode is kept and graded, but did not measure the agent
    text = " ".join(result.stdout.split())
    assert "infra_ok false" in text and "no such model" in text and "not the agent's" in text
    assert (tmp_path / "e.db").exists()


@pytest.mark.parametrize(
    ("extra", "error_name"),
    [((), "missing_argument"), (("--model", "m", "--user-model", "op"), "no_user")],
    ids=["no-model", "user-model-without-operator"],
)
def test_cli_run_llm_refuses_bad_options_before_writing(tmp_path, extra, error_name):
    out = tmp_path / "e.db"
    result = invoke("run", REFUND, "--agent", "llm", *extra, "--out", out, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["error"] == error_name
    assert not out.exists()
