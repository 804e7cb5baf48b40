"""The thin layer: simtenant as a ``verifiers.v1`` plugin (a taskset, its tasks, and the harness that
plays them), built at run time once verifiers is imported."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import types
import uuid
from collections.abc import Iterable
from typing import Any

from ...agents.chat import Endpoint
from ...errors import NotFound
from ...grader.grade import check_reward_mode
from ...grader.judge import JudgeConfig
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

_REGISTERING = threading.Lock()


def register_plugin(vf: Any) -> types.ModuleType:
    """The ``verifiers.v1`` plugin: verifiers resolves a taskset (and its default harness) by importing the
    top-level module its id names — ``simtenant`` — and taking the plugin classes it exports in
    ``__all__``. The classes are built once per process and set on the ``simtenant`` package, whose
    ``__all__`` builds them on first access (``simtenant.__getattr__``)."""
    module = sys.modules[TASKSET_ID]
    if getattr(module, "SIMTENANT_PLUGIN", False):
        return module
    with _REGISTERING:
        if getattr(module, "SIMTENANT_PLUGIN", False):
            return module
        for cls in _plugin_classes(vf):
            cls.__module__, cls.__qualname__ = TASKSET_ID, cls.__name__
            setattr(module, cls.__name__, cls)
        module.__all__ = ["SimtenantTaskset", "SimtenantHarness", "SimtenantEnv"]  # type: ignore[attr-defined]
        module.SIMTENANT_PLUGIN = True  # type: ignore[attr-defined]
    return module


def rollouts_for(config: Any) -> Rollouts:
    """The rollouts of a taskset config: its reward mode, episodes folder, turn budget, judge and operator model."""
    judge = None
    if config.judge_model:
        judge = JudgeConfig(config.judge_model, config.judge_base_url, config.judge_api_key_var)
    operator = None
    if config.user_model:
        operator = Endpoint(model=config.user_model, base_url=config.user_base_url, api_key_env=config.user_api_key_var)
    return Rollouts(config.reward, config.episodes_dir, config.max_steps, judge, operator)


def _plugin_classes(vf: Any) -> list[type]:
    """The thin layer: a taskset whose tasks start a rollout's episode in ``setup`` and score it with
    simtenant's grade, and the harness that plays them — the model (through verifiers' interception,
    so every turn is on the trace) calling the episode's tools in this process, until the episode ends
    or the model stops calling tools."""

    class SimtenantTasksetConfig(vf.TasksetConfig):  # type: ignore[misc, name-defined]
        world: str = "commerce"
        """The world whose tasks are played (commerce, homeservices, itsm, itsm-msp, automation)."""
        task_ids: list[str] | None = None
        """The tasks (world/name or name; all of the world's by default)."""
        reward: str | None = None
        """Grade in another reward mode than each task's own (default, shaped, rubric, assertions)."""
        episodes_dir: str | None = None
        """Keep every rollout's episode file (and its grade) here; by default they are removed once scored."""
        max_steps: int | None = None
        """Each episode's turn budget (each tool call and each message is a step): the task's, else 30."""
        preamble: str | None = None
        """Instructions of your own, put before the briefing in the system prompt (verifiers' own
        ``system_prompt``, a file, replaces the whole system prompt, briefing included)."""
        judge_model: str | None = None
        """A chat model that grades judge checks and judge rubric components (skipped without one)."""
        judge_base_url: str | None = None
        judge_api_key_var: str = "OPENAI_API_KEY"
        user_model: str | None = None
        """A chat model that plays the operator of tasks that have one (scripted by default)."""
        user_base_url: str | None = None
        user_api_key_var: str = "OPENAI_API_KEY"

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
            """simtenant's grade of the rollout's episode (closed, graded and, unless kept, removed); the
            grade's numbers (db_match, completion, checks, rubric components, assertion share, ...) are
            recorded as the trace's metrics beside it."""
            result = await asyncio.to_thread(rollouts_of(trace.state.environment).finish, trace.state.rollout)
            graded = result.to_dict()
            summary = ("task", "reward_mode", "reward", "completed", "steps")
            trace.info["simtenant"] = {key: graded[key] for key in summary}
            trace.record_metrics({k: v for k, v in result.metrics().items() if k != "reward"})
            return result.reward

    class SimtenantTaskset(vf.Taskset[SimtenantTask, SimtenantTasksetConfig]):  # type: ignore[misc, name-defined]
        def __init__(self, config: Any) -> None:
            super().__init__(config)
            self.tasks = select_tasks(config.world, config.task_ids)
            for task in self.tasks:
                check_reward_mode(task, config.reward)
            self.rollouts = rollouts_for(config)
            self.key = uuid.uuid4().hex
            ENVIRONMENTS[self.key] = self.rollouts

        def load(self) -> Iterable[Any]:
            for row in rows(self.tasks, self.config.max_steps, self.config.preamble):
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
                    if not message.tool_calls:  # text: to the operator, or a turn spent (the rules of every door)
                        answer = await asyncio.to_thread(rollout.reply, reply.strip())
                        if answer is not None:
                            messages.append({"role": "user", "content": answer})
                        continue
                    for call in message.tool_calls:
                        if rollout.done:
                            break
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

    class SimtenantEnvConfig(vf.SingleAgentEnvConfig):  # type: ignore[misc, name-defined]
        """The taskset's own environment: one agent seat, whose harness runs in this process (so it needs
        no sandbox: the local subprocess runtime); the episode's turn budget ends a rollout, so the model's
        turns need no cap of their own."""

        agent: Any = vf.AgentConfig(runtime=vf.SubprocessConfig(), max_turns=None)

    class SimtenantEnv(vf.Env[SimtenantEnvConfig]):  # type: ignore[misc, name-defined]
        async def run(self, task: Any, agents: Any) -> None:
            await agents.agent.run(task)

    return [
        SimtenantEnvConfig,
        SimtenantEnv,
        SimtenantTasksetConfig,
        SimtenantData,
        SimtenantState,
        SimtenantTask,
        SimtenantTaskset,
        SimtenantHarnessConfig,
        SimtenantHarness,
    ]
