"""simtenant.integrations.verifiers without the verifiers package: the plain-Python layer (dataset rows,
tool functions bound to a rollout's episode, the reward), the clear error when verifiers is missing, and
the thin environment layer driven through a stand-in for the verifiers API."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from pydantic import create_model

from simtenant.errors import InvalidArgument, NotFound, SimtenantError
from simtenant.integrations import verifiers as st
from simtenant.tools.registry import _strip_titles
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
        assert "call finish" in system["content"] and "finish" in user["content"]
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
    tools = st.catalogue("commerce", st.select_tasks("commerce"))
    assert "send_message_to_user" not in {t.name for t in tools}
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
    assert json.loads(rollout.call("orders_lookup", {"order_id": "ORD-1005"}))["error"]["code"] == 409


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


# -- the thin layer, through a stand-in for the verifiers API ---------------------------------------


def fake_verifiers(with_stop: bool) -> tuple[types.ModuleType, types.ModuleType]:
    """The parts of the verifiers API the thin layer uses: StatefulToolEnv (add_tool with args_to_skip,
    setup_state, update_tool_args, is_completed or @vf.stop), Rubric; and datasets.Dataset.from_list."""
    vf = types.ModuleType("verifiers")

    class StatefulToolEnv:
        def __init__(self, tools: list | None = None, max_turns: int = 10, **kwargs: Any) -> None:
            self.tool_map: dict[str, Any] = {}
            self.skipped_args: dict[str, list[str]] = {}
            self.max_turns = max_turns
            self.options = kwargs

        def add_tool(self, tool: Any, args_to_skip: list[str] | None = None) -> None:
            self.tool_map[tool.__name__] = tool
            self.skipped_args[tool.__name__] = list(args_to_skip or [])

        async def setup_state(self, state: dict, **kwargs: Any) -> dict:
            return state

        async def is_completed(self, messages: Any, state: dict, **kwargs: Any) -> bool:
            return False

    class Rubric:
        def __init__(self, funcs: list, weights: list) -> None:
            self.funcs, self.weights = funcs, weights

    vf.StatefulToolEnv = StatefulToolEnv  # type: ignore[attr-defined]
    vf.Rubric = Rubric  # type: ignore[attr-defined]
    if with_stop:

        def stop(fn: Any) -> Any:
            fn.is_stop = True
            return fn

        vf.stop = stop  # type: ignore[attr-defined]
    datasets = types.ModuleType("datasets")

    class Dataset(list):
        @classmethod
        def from_list(cls, rows: list) -> Dataset:
            return cls(rows)

    datasets.Dataset = Dataset  # type: ignore[attr-defined]
    return vf, datasets


@pytest.mark.parametrize("with_stop", [True, False])
def test_the_environment_layer_plays_a_gold_rollout(monkeypatch: pytest.MonkeyPatch, with_stop: bool) -> None:
    vf, datasets = fake_verifiers(with_stop)
    monkeypatch.setitem(sys.modules, "verifiers", vf)
    monkeypatch.setitem(sys.modules, "datasets", datasets)
    env = st.load_environment(world="commerce", task_ids=["refund-damaged-item"], max_turns=12)
    try:
        assert env.max_turns == 12
        assert env.options["dataset"] == st.dataset_rows("commerce", [REFUND])
        assert set(env.tool_map) == {t.name for t in get_world("commerce").all_tools()}
        assert all(skipped == [st.HIDDEN] for skipped in env.skipped_args.values())

        def ended(state: dict) -> bool:
            if with_stop:
                assert env.episode_ended.is_stop
                return asyncio.run(env.episode_ended(state))
            return asyncio.run(env.is_completed([], state))

        state = asyncio.run(env.setup_state({"info": env.options["dataset"][0]["info"]}))
        for call in get_task(REFUND).gold:
            assert not ended(state)
            answer = env.tool_map[call.tool](**env.update_tool_args(call.tool, call.args, [], state))
            assert "error" not in json.loads(answer)
        assert ended(state)
        [reward] = env.options["rubric"].funcs
        assert reward(state=state, completion=[], answer="") == 1.0
    finally:
        env.rollouts.close()
