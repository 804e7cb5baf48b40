"""The thin layer: simtenant as a ``verifiers.v1`` plugin (a taskset, its tasks, and the harness that
plays them), built at run time once verifiers is imported."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import types
import uuid
from collections.abc import Iterable
from typing import Any

from ...errors import Conflict, NotFound
from ...grader.grade import check_reward_mode
from .rollouts import (
    ENVIRONMENTS,
    TASKSET_ID,
    Rollouts,
    catalogue,
    rollouts_of,
    rows,
    run_call,
    select_tasks,
    task_of,
    tool_functions,
)


def register_plugin(vf: Any) -> types.ModuleType:
    """The ``verifiers.v1`` plugin module, registered in ``sys.modules`` as ``TASKSET_ID``: verifiers
    resolves a taskset (and its default harness) by importing a top-level module named by the
    taskset's id that exports the plugin classes in ``__all__``. Built once per process."""
    module = sys.modules.get(TASKSET_ID)
    if module is not None:
        if getattr(module, "SIMTENANT_PLUGIN", False):
            return module
        raise Conflict(f"another module is already imported as {TASKSET_ID!r}", error="plugin_conflict")
    module = types.ModuleType(TASKSET_ID, "simtenant's verifiers.v1 plugin (see simtenant.integrations.verifiers).")
    classes = _plugin_classes(vf)
    for cls in classes:
        cls.__module__, cls.__qualname__ = TASKSET_ID, cls.__name__
        setattr(module, cls.__name__, cls)
    module.__all__ = ["SimtenantTaskset", "SimtenantHarness"]  # type: ignore[attr-defined]
    module.SIMTENANT_PLUGIN = True  # type: ignore[attr-defined]
    sys.modules[TASKSET_ID] = module
    return module


def _plugin_classes(vf: Any) -> list[type]:
    """The thin layer: a taskset whose tasks start a rollout's episode in ``setup`` and score it with
    simtenant's grade, and the harness that plays them — the model (through verifiers' interception,
    so every turn is on the trace) calling the episode's tools in this process, until the episode ends
    or the model stops calling tools."""

    class SimtenantTasksetConfig(vf.TasksetConfig):  # type: ignore[misc, name-defined]
        world: str = "commerce"
        task_ids: list[str] | None = None
        reward: str | None = None
        episodes_dir: str | None = None

    class SimtenantData(vf.TaskData):  # type: ignore[misc, name-defined]
        info: dict[str, Any]
        """``{"task": <task id>}``, as the dataset row's ``info``."""

    class SimtenantState(vf.State):  # type: ignore[misc, name-defined]
        environment: str = ""
        rollout: str = ""

    class SimtenantTask(vf.Task[SimtenantData, SimtenantState, vf.TaskConfig]):  # type: ignore[misc, name-defined]
        environment = ""  # the key of the taskset's rollouts, set when the taskset yields the task

        @property
        def key(self) -> str:
            return self.data.id or self.hash

        async def setup(self, trace: Any) -> None:
            rollouts = rollouts_of(self.environment)
            trace.state.environment = self.environment
            trace.state.rollout = await asyncio.to_thread(rollouts.start, task_of(self.data.info))

        @vf.reward
        async def simtenant(self, trace: Any) -> float:
            """simtenant's grade of the rollout's episode (closed, graded and, unless kept, removed)."""
            result = await asyncio.to_thread(rollouts_of(trace.state.environment).finish, trace.state.rollout)
            graded = result.to_dict()
            summary = ("task", "reward_mode", "reward", "completed", "steps")
            trace.info["simtenant"] = {key: graded[key] for key in summary}
            return result.reward

    class SimtenantTaskset(vf.Taskset[SimtenantTask, SimtenantTasksetConfig]):  # type: ignore[misc, name-defined]
        def __init__(self, config: Any) -> None:
            super().__init__(config)
            self.tasks = select_tasks(config.world, config.task_ids)
            for task in self.tasks:
                check_reward_mode(task, config.reward)
            self.rollouts = Rollouts(config.reward, config.episodes_dir)
            self.key = uuid.uuid4().hex
            ENVIRONMENTS[self.key] = self.rollouts

        def load(self) -> Iterable[Any]:
            for row in rows(self.tasks):
                system, user = row["prompt"]
                data = SimtenantData(
                    id=row["info"]["task"],
                    name=row["info"]["task"],
                    system_prompt=system["content"],
                    prompt=user["content"],
                    info=row["info"],
                )
                task = SimtenantTask(data, self.config.task)
                task.environment = self.key
                yield task

    class SimtenantHarnessConfig(vf.HarnessConfig):  # type: ignore[misc, name-defined]
        pass

    class SimtenantHarness(vf.Harness[SimtenantHarnessConfig]):  # type: ignore[misc, name-defined]
        APPENDS_SYSTEM_PROMPT = True
        EXECUTES_CODE = False
        NEEDS_CONTAINER = False

        async def launch(
            self,
            ctx: Any,
            trace: Any,
            runtime: Any,
            endpoint: str,
            secret: str,
            mcp_urls: dict[str, str],
            data: Any,
        ) -> Any:
            from openai import AsyncOpenAI

            state = trace.state
            rollout = rollouts_of(getattr(state, "environment", "")).get(getattr(state, "rollout", ""))
            task = rollout.episode.task
            tools = catalogue(task.world, [task])
            functions = {f.__name__: f for f in tool_functions(tools)}
            system, opening = self.resolve_text_prompt(data)
            messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
            messages += [{"role": "user", "content": opening}] if opening else []
            reply = ""
            async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
                while not rollout.done:
                    completion = await client.chat.completions.create(
                        model=ctx.model, messages=messages, tools=[t.openai() for t in tools]
                    )
                    message = completion.choices[0].message
                    messages.append(message.model_dump(exclude_none=True))
                    reply = message.content or ""
                    if not message.tool_calls:
                        break
                    for call in message.tool_calls:
                        content = await asyncio.to_thread(
                            run_call, functions, rollout, call.function.name, call.function.arguments
                        )
                        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            return vf.ProgramResult(exit_code=0, stdout=reply, stderr="")

        async def cleanup(self, trace: Any, runtime: Any) -> None:
            """A rollout that was never scored (it failed) is closed here."""
            rollouts = ENVIRONMENTS.get(getattr(trace.state, "environment", ""))
            key = getattr(trace.state, "rollout", "")
            if rollouts is None or not key:
                return
            with contextlib.suppress(NotFound):
                rollouts.get(key)
                await asyncio.to_thread(rollouts.finish, key)

    return [
        SimtenantTasksetConfig,
        SimtenantData,
        SimtenantState,
        SimtenantTask,
        SimtenantTaskset,
        SimtenantHarnessConfig,
        SimtenantHarness,
    ]
