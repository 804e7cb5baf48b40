"""simtenant.integrations.verifiers: without the verifiers package, the plain-Python layer (dataset rows,
tool functions bound to a rollout's episode, the reward) and the clear error when verifiers is missing;
with it (verifiers.v1, skipped otherwise), the environment built and whole rollouts run through verifiers'
own episode runner against a scripted OpenAI-compatible model on 127.0.0.1."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from openai_stub import OpenAIStub, message, tool_calls
from openai_stub import call as scripted_call
from pydantic import create_model

from simtenant.errors import InvalidArgument, NotFound, SimtenantError
from simtenant.grader import EpisodeFile
from simtenant.integrations import verifiers as st
from simtenant.tools.engine.registry import _strip_titles
from simtenant.world import get_task, get_world

REFUND = "commerce/refund-damaged-item"
UNLOCK = "itsm/unlock-after-verification"


@pytest.fixture
def rollouts() -> Any:
    found = st.Rollouts()
    yield found
    found.close()


def functions_for(*task_ids: str) -> dict[str, Any]:
    tasks = [get_task(t) for t in task_ids]
    return {f.__name__: f for f in st.tool_functions(st.catalogue(tasks[0].world, tasks))}


def play_gold(rollouts: st.Rollouts, task_id: str) -> str:
    key = rollouts.start(task_id)
    rollout = rollouts.get(key)
    functions = functions_for(task_id)
    for call in get_task(task_id).gold:
        answer = json.loads(functions[call.tool](**st.bind_arguments(rollout, call.args)))
        assert "error" not in answer, answer
    return key


# -- without verifiers ---------------------------------------------------------------------------------


def test_load_environment_without_verifiers_raises_a_clear_structured_import_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "verifiers", None)  # as if not installed, whatever this machine has
    with pytest.raises(ImportError) as caught:
        st.load_environment(world="commerce")
    failure = caught.value
    assert isinstance(failure, SimtenantError) and isinstance(failure, st.MissingDependency)
    assert failure.to_dict()["error"] == "missing_dependency"
    assert failure.name == "verifiers"
    assert "pip install verifiers" in failure.to_dict()["message"]


def test_the_module_imports_without_verifiers_or_datasets() -> None:
    script = (
        "import sys; sys.modules['verifiers'] = None; sys.modules['datasets'] = None\n"
        "import simtenant.integrations.verifiers as st\n"
        "try:\n"
        "    st.load_environment()\n"
        "except ImportError as exc:\n"
        "    print(exc.to_dict()['error'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "missing_dependency"


# -- dataset rows --------------------------------------------------------------------------------------


def test_rows_for_a_world_hold_the_prompt_and_the_task_id_only() -> None:
    world = get_world("commerce")
    rows = st.dataset_rows("commerce")
    assert [r["info"] for r in rows] == [{"task": t} for t in sorted(world.tasks)]
    for row in rows:
        task = get_task(row["info"]["task"])
        system, user = row["prompt"]
        assert system["role"] == "system" and user["role"] == "user"
        assert task.instruction.strip() in system["content"] and task.time_text in system["content"]
        if task.user is None:  # a task without an operator opens with the call to begin; one with opens with them
            assert "call finish" in system["content"] and "finish" in user["content"]
        else:
            assert user["content"] == task.user.opening.strip()
        text = json.dumps(row)
        assert task.description not in text
        assert json.dumps(task.gold[-1].args)[1:-1] not in text  # not the gold's final answer
        assert row["answer"] == ""


def test_an_operator_task_row_opens_with_the_operator_and_carries_the_policy() -> None:
    task, world = get_task(UNLOCK), get_world("itsm")
    [row] = st.dataset_rows("itsm", ["unlock-after-verification"])
    system, user = row["prompt"]
    assert world.policy.strip() in system["content"] and task.instruction.strip() in system["content"]
    assert "send_message_to_user" in system["content"] and task.actor in system["content"]
    assert user == {"role": "user", "content": task.user.opening.strip()}
    assert all(f.reveal.strip() not in json.dumps(row) for f in task.user.facts)


def test_task_selection_by_short_or_full_id_and_its_errors() -> None:
    assert [t.id for t in st.select_tasks("commerce", ["refund-damaged-item", REFUND])] == [REFUND]
    assert [t.id for t in st.select_tasks("commerce", REFUND)] == [REFUND]
    with pytest.raises(NotFound):
        st.select_tasks("commerce", ["no-such-task"])
    with pytest.raises(InvalidArgument):
        st.select_tasks("commerce", [UNLOCK])
    with pytest.raises(InvalidArgument):
        st.select_tasks("commerce", [])
    with pytest.raises(NotFound):
        st.select_tasks("no-such-world")
    assert st.task_of(json.dumps({"task": REFUND})) == REFUND
    with pytest.raises(InvalidArgument):
        st.task_of({})


# -- tool functions ------------------------------------------------------------------------------------


def test_tool_functions_have_the_tools_own_schema_plus_the_hidden_argument() -> None:
    servicebench = st.select_tasks("commerce", ["order-status", "refund-damaged-item", "billing-discrepancy"])
    tools = st.catalogue("commerce", servicebench)  # no operator in these: no tool to message one
    assert "send_message_to_user" not in {t.name for t in tools}
    assert "send_message_to_user" in {t.name for t in st.catalogue("commerce", st.select_tasks("commerce"))}
    assert "send_message_to_user" in {t.name for t in st.catalogue("itsm", [get_task(UNLOCK)])}
    for tool, function in zip(tools, st.tool_functions(tools), strict=True):
        assert function.__name__ == tool.name and function.__doc__ == tool.description
        parameters = dict(inspect.signature(function).parameters)
        hidden = parameters.pop(st.HIDDEN)
        assert hidden.default is None
        fields = {
            name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
            for name, p in parameters.items()
        }
        schema = _strip_titles(create_model(f"{tool.name}_from_signature", **fields).model_json_schema())
        expected = {k: v for k, v in tool.json_schema().items() if k != "additionalProperties"}
        assert schema == expected, tool.name


def test_a_gold_rollout_through_the_tool_functions_scores_1_and_cleans_up(rollouts: st.Rollouts) -> None:
    key = play_gold(rollouts, REFUND)
    assert rollouts.done(key)
    path = rollouts.get(key).path
    assert path.parent == rollouts.folder and path.exists()
    assert rollouts.reward(key) == 1.0
    assert not path.exists()  # removed once scored
    with pytest.raises(NotFound):
        rollouts.get(key)
    rollouts.close()
    assert not rollouts.folder.exists()


def test_an_operator_gold_rollout_scores_1(rollouts: st.Rollouts) -> None:
    key = play_gold(rollouts, UNLOCK)
    assert rollouts.done(key)  # the operator said ###STOP###
    assert rollouts.reward(key) == 1.0


def test_bad_arguments_come_back_as_structured_errors_and_an_unfinished_rollout_scores_0(
    rollouts: st.Rollouts,
) -> None:
    key = rollouts.start(REFUND)
    rollout = rollouts.get(key)
    functions = functions_for(REFUND)
    lookup = functions["orders_lookup"]
    for args in ([1, 2], "ORD-1005", {"order_id": "ORD-1005", "extra": 1}, {st.HIDDEN: "x", "order_id": "ORD-1005"}):
        answer = json.loads(lookup(**st.bind_arguments(rollout, args)))
        assert answer["error"]["code"] == 400 and answer["error"]["error"] == "invalid_arguments", args
    answer = json.loads(lookup(**st.bind_arguments(rollout, {"order_id": "ORD-9999"})))
    assert answer["error"]["code"] == 404
    assert json.loads(lookup(**st.bind_arguments(rollout, {"order_id": "ORD-1005"})))["id"] == "ORD-1005"
    with pytest.raises(SimtenantError):
        lookup(order_id="ORD-1005")  # outside a rollout
    assert not rollouts.done(key)
    result = rollouts.finish(key)
    assert result.reward == 0.0 and result.steps == 6 and not result.completed
    assert json.loads(rollout.run("orders_lookup", {"order_id": "ORD-1005"}))["error"]["code"] == 409


def test_episodes_dir_keeps_the_episode_files(tmp_path: Path) -> None:
    kept = st.Rollouts(reward_mode="shaped", episodes_dir=tmp_path / "episodes")
    try:
        key = play_gold(kept, REFUND)
        path = kept.get(key).path
        assert kept.finish(key).reward_mode == "shaped"
        assert path.exists() and path.parent == tmp_path / "episodes"
    finally:
        kept.close()
    assert path.exists()


# -- the thin layer, with the real verifiers.v1 (skipped where verifiers is not installed, as in CI) --------


class ScriptedModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that answers the n-th model turn of a rollout with the n-th
    scripted tool call (a name and its arguments, as JSON text or a value), then with plain text.
    Records every request it saw; ``status`` other than 200 answers every turn with that error."""

    script: ClassVar[list[tuple[str, Any]]] = []
    status: ClassVar[int] = 200
    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn < len(type(self).script):
            name, args = type(self).script[turn]
            arguments = args if isinstance(args, str) else json.dumps(args)
            call = {"id": f"call-{turn}", "type": "function", "function": {"name": name, "arguments": arguments}}
            choice = {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [call]}}
        else:
            choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}
        answer = {"id": f"cmpl-{turn}", "object": "chat.completion", "created": 0, "model": body["model"]}
        ok = type(self).status == 200
        data = json.dumps(answer | {"choices": [choice]} if ok else {"error": {"message": "down"}}).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def vf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """verifiers.v1, its local runtimes' working folders under ``tmp_path`` rather than the home cache."""
    module = pytest.importorskip("verifiers.v1")
    monkeypatch.setattr("verifiers.v1.runtimes.subprocess.CACHE_DIR", tmp_path / "verifiers-cache")
    return module


@pytest.fixture
def model(vf: Any) -> Iterator[Any]:
    """A ``vf.ModelContext`` for the scripted model, served on 127.0.0.1."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    ScriptedModel.script, ScriptedModel.status, ScriptedModel.seen = [], 200, []
    client = vf.EvalClientConfig(
        base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", api_key_var="SIMTENANT_TEST_SCRIPTED_KEY"
    )
    yield vf.ModelContext(model="scripted", client=client)
    server.shutdown()
    server.server_close()
    thread.join()


def play(env: Any, model: Any) -> Any:
    """One rollout of the environment's (first) task, through verifiers' own episode runner."""
    task = next(iter(env.taskset))

    async def episode() -> Any:
        async with env.serving():
            return await env.run_episode(task, model)

    return asyncio.run(episode())


@contextmanager
def environment(*args: Any, **kwargs: Any) -> Iterator[Any]:
    """``load_environment``'s environment, its rollouts closed (and temporary folder removed) after."""
    env = st.load_environment(*args, **kwargs)
    try:
        yield env
    finally:
        env.taskset.rollouts.close()


def test_load_environment_builds_a_v1_environment_over_the_chosen_tasks(vf: Any) -> None:
    with environment(world="commerce", task_ids=["refund-damaged-item"], max_turns=12) as env:
        assert isinstance(env, vf.Env) and type(env).__name__ == "SimtenantEnv"
        assert env.config.taskset.id == st.TASKSET_ID and env.config.taskset.task_ids == [REFUND]
        assert env.config.agent.max_turns == 12 and env.config.agent.runtime.type == "subprocess"
        assert env.config.agent_harnesses()["agent"].id == st.TASKSET_ID  # the taskset's own harness
        [row] = st.dataset_rows("commerce", [REFUND])
        [task] = list(env.taskset)
        assert task.key == task.data.id == REFUND and task.data.info == row["info"] == {"task": REFUND}
        assert [task.data.system_prompt, task.data.prompt] == [m["content"] for m in row["prompt"]]
    assert st.register_plugin(vf) is sys.modules[st.TASKSET_ID]  # registered once per process
    with pytest.raises(InvalidArgument) as caught:
        st.load_environment(world="commerce", taskset={})
    assert caught.value.to_dict()["error"] == "reserved_option"
    with pytest.raises(InvalidArgument) as caught:
        st.load_environment(world="commerce", no_such_option=1)
    assert caught.value.to_dict()["error"] == "invalid_options"
    with pytest.raises(InvalidArgument):
        st.load_environment(world="commerce", agent={"max_turns": "many"})


@pytest.mark.parametrize("task_id", [REFUND, UNLOCK])
def test_a_scripted_model_playing_the_gold_calls_through_a_v1_rollout_scores_1(model: Any, task_id: str) -> None:
    task = get_task(task_id)
    ScriptedModel.script = [(call.tool, call.args) for call in task.gold]
    with environment(world=task.world, task_ids=[task_id]) as env:
        [trace] = play(env, model).traces
        assert trace.ok and trace.errors == [], trace.errors
        assert trace.reward == 1.0 and set(trace.rewards) == {"simtenant"}
        assert trace.info["simtenant"] == {
            "task": task_id,
            "reward_mode": task.reward,
            "reward": 1.0,
            "completed": True,
            "steps": len(task.gold),
        }
        assert trace.num_turns == len(task.gold)  # the episode ended at the last gold call: no further turn
        assert trace.stop_condition == "agent_completed"
        first, last = ScriptedModel.seen[0], ScriptedModel.seen[-1]
        assert first["model"] == "scripted"
        assert first["messages"] == st.dataset_rows(task.world, [task_id])[0]["prompt"]
        assert first["tools"] == [t.openai() for t in st.catalogue(task.world, [task])]
        results = [json.loads(m["content"]) for m in last["messages"] if m["role"] == "tool"]
        assert len(results) == len(task.gold) - 1 and not any("error" in r for r in results)
        assert env.taskset.rollouts.open == {} and list(env.taskset.rollouts.folder.iterdir()) == []


def test_bad_calls_are_refused_and_recorded_and_max_turns_stops_an_unfinished_rollout_at_0(model: Any) -> None:
    ScriptedModel.script = [
        ("orders_lookup", "{not json"),
        ("no_such_tool", {}),
        ("orders_lookup", [1, 2]),
        ("orders_lookup", {"order_id": "ORD-1005"}),
    ]
    with environment(world="commerce", task_ids=[REFUND], max_turns=3) as env:
        [trace] = play(env, model).traces
        assert trace.ok and trace.stop_condition == "max_turns" and trace.num_turns == 3
        assert trace.reward == 0.0
        assert trace.info["simtenant"]["steps"] == 3 and not trace.info["simtenant"]["completed"]
        codes = [json.loads(m["content"])["error"]["code"] for m in ScriptedModel.seen[-1]["messages"][3::2]]
        assert codes == [400, 404]  # the third result went to a turn that was refused


def test_a_failed_rollout_is_not_scored_and_its_episode_is_closed(model: Any) -> None:
    ScriptedModel.status = 500
    with environment(world="commerce", task_ids=[REFUND]) as env:
        [trace] = play(env, model).traces
        assert not trace.ok and trace.reward == 0.0 and "simtenant" not in trace.info
        assert "500" in trace.errors[-1].message
        assert env.taskset.rollouts.open == {}


def test_vf_eval_runs_simtenant_by_its_taskset_id_with_its_options_and_metrics(vf: Any, tmp_path: Path) -> None:
    """`vf-eval simtenant ...` as users run it: verifiers imports the package, finds the taskset, its harness
    and its environment (local, no sandbox), and records the grade's numbers beside the reward."""
    task = get_task(UNLOCK)
    turns = [
        message(c.args["message"]) if c.tool == "send_message_to_user" else tool_calls(scripted_call(c.tool, c.args))
        for c in task.gold
    ]  # the operator is written to in plain text, as a chat model would
    with OpenAIStub(turns) as stub:
        command = [
            str(Path(sys.executable).with_name("vf-eval")),
            "simtenant",
            "--env.taskset.world", "itsm",
            "--env.taskset.task-ids", json.dumps([UNLOCK]),
            "--env.taskset.max-steps", "20",
            "--env.taskset.preamble", "You are evaluated; be careful.",
            "--env.taskset.episodes-dir", str(tmp_path / "episodes"),
            "-m", "scripted",
            "--client.base-url", stub.base_url,
            "--client.api-key-var", "SIMTENANT_TEST_SCRIPTED_KEY",
            "--no-push", "--no-rich",
            "--output-dir", str(tmp_path / "out"),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        system = stub.requests[0]["messages"][0]["content"]
    assert system.startswith("You are evaluated; be careful.\n\n") and "You have 20 steps" in system
    (traces,) = (tmp_path / "out").glob("*/traces.jsonl")
    [episode] = [json.loads(line) for line in traces.read_text().splitlines()]
    assert episode["ok"], episode["errors"]
    [trace] = episode["traces"]
    assert trace["rewards"]["simtenant"]["score"] == 1.0
    assert trace["metrics"]["db_match"] == 1.0 and trace["metrics"]["completed"] == 1.0
    assert trace["metrics"]["checks_passed"] == 1.0 and "reward" not in trace["metrics"]
    (kept,) = (tmp_path / "episodes").glob("*.db")
    assert EpisodeFile.read(kept).status == "finished"


def test_a_plain_text_turn_spends_a_step_and_the_rollout_goes_on(model: Any) -> None:
    """The rules of every door: text without a tool, where nobody reads it, is a step spent and a reminder,
    not the end of the rollout; the turn budget ends it."""
    ScriptedModel.script = [("orders_lookup", {"order_id": "ORD-1005"})]  # then "Done." at every turn
    with environment(world="commerce", task_ids=[REFUND], max_steps=3) as env:
        [trace] = play(env, model).traces
        assert trace.ok and trace.reward == 0.0
        assert trace.num_turns == 3  # one call and two text turns: the budget, not the first text, ended it
        assert trace.info["simtenant"]["steps"] == 1 and not trace.info["simtenant"]["completed"]
        told = [m["content"] for m in ScriptedModel.seen[-1]["messages"] if m["role"] == "user"][-1]
        assert told == get_world("commerce").briefing(get_task(REFUND)).nobody
