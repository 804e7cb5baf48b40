"""simtenant as a ``verifiers`` environment (Prime Intellect's ``verifiers.v1``: ``vf-eval``, prime-rl).

    import simtenant.integrations.verifiers as st
    env = st.load_environment(world="commerce", task_ids=["refund-damaged-item"])

``verifiers`` (0.4 or later, whose API is ``verifiers.v1``) is optional: this module imports without
it, and only ``load_environment`` needs it, raising ``MissingDependency`` (a structured error that is
also an ``ImportError``) naming what to install when it is absent.

Everything but the last step is plain Python, built on simtenant's public API:

* ``dataset_rows`` — one row per task: the prompt (system: the world's policy and the task's
  instruction and clock; user: the operator's opening, or a request to begin) and ``info.task``, the
  task id. Nothing else of the task: not its description, notes, gold calls or checks.
* ``tool_functions`` — the world's tools (``send_message_to_user`` when a chosen task has an
  operator, and the world's ending tool) as Python functions whose signatures are the tools' own
  typed arguments, plus one hidden argument (``HIDDEN``) through which the environment hands each
  call its rollout. A call goes through ``Episode.call`` — the one dispatcher — and returns its
  result or structured error as JSON text. Arguments reach the dispatcher as the model sent them, so
  bad ones are refused (400) and recorded, as through every other door.
* ``Rollouts`` — one ``Episode`` per rollout, started in a temporary folder (``Episode.start``) and,
  when scored, closed and graded: the reward is ``simtenant.grader.grade(...).reward``.

The thin layer is a ``verifiers.v1`` plugin (``register_plugin``), which verifiers finds as the
top-level module ``TASKSET_ID`` (registered in ``sys.modules``, as verifiers resolves plugins by id):

* ``SimtenantTaskset`` — ``load()`` yields one ``SimtenantTask`` per dataset row (``system_prompt``,
  ``prompt``, ``info``); the taskset owns the environment's ``Rollouts``.
* ``SimtenantTask`` — ``setup`` starts the rollout's episode (its key kept in the trace's state, which
  is never serialized nor shown to the model); its one ``@vf.reward``, ``simtenant``, is the grade.
* ``SimtenantHarness`` — the taskset's default harness: an in-process tool loop. Every model turn goes
  through verifiers' interception endpoint (so turns, limits and sampling are verifiers'); every tool
  call goes through the tool functions into the rollout's episode; it stops when the episode has
  ended (the ending tool, or the operator's ###STOP###) or the model answers without a tool call.

``load_environment`` returns the ``vf.SingleAgentEnv`` built from a ``vf.SingleAgentEnvConfig`` naming
that taskset, its agent on the local subprocess runtime. Run a rollout with verifiers' own API:

    async with env.serving():
        ctx = vf.ModelContext(model=..., client=vf.EvalClientConfig(base_url=..., api_key_var=...))
        episode = await env.run_episode(next(iter(env.taskset)), ctx)  # episode.traces[0].reward

Tasksets resolve by id in-process only: ``vf-eval`` (which imports a taskset package by id) cannot
find this one unless a process has called ``register_plugin`` first.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import shutil
import sys
import tempfile
import threading
import types
import uuid
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, get_type_hints

from pydantic import ValidationError

from ..episode import Episode
from ..errors import Conflict, InvalidArgument, NotFound, SimtenantError
from ..grader import GradeResult, grade
from ..grader.grade import check_reward_mode
from ..task import Task
from ..tools import Tool
from ..world import World, get_task, get_world

INSTALL = "pip install verifiers"  # the optional package this integration needs (0.4 or later: verifiers.v1)
TASKSET_ID = "simtenant_verifiers"  # the verifiers plugin id, and the name the plugin module is registered under
RESERVED = {"taskset", "agent"}  # environment config fields load_environment sets itself
HIDDEN = "simtenant_rollout"  # the tool argument the environment fills in and the model never sees
RAW = "simtenant_raw_arguments"  # carries arguments that are not a plain JSON object, for the dispatcher to refuse
USER_TOOL = "send_message_to_user"
BEGIN = "Begin. Work with the tools; when you are done, call {finish} with your final answer."

# Starting episodes and grading build cached files whose temporary names are unique per process,
# not per thread: one thread at a time does either.
_CACHE_LOCK = threading.Lock()
# The environments' rollouts in this process, by key (a rollout's trace state names its environment's).
_ENVIRONMENTS: weakref.WeakValueDictionary[str, Rollouts] = weakref.WeakValueDictionary()


class MissingDependency(SimtenantError, ImportError):
    """An optional package this integration needs is not installed."""

    code = 501
    error = "missing_dependency"


def require_verifiers() -> Any:
    """``verifiers.v1``, or ``MissingDependency`` saying what to install."""
    try:
        import verifiers.v1 as vf
    except ImportError as exc:
        missing = exc.name or "verifiers"
        if missing.split(".")[0] == "verifiers":  # absent, or too old to have verifiers.v1
            missing = "verifiers"
        failure = MissingDependency(
            f"simtenant.integrations.verifiers needs the optional package 'verifiers' (0.4 or later, whose API is "
            f"verifiers.v1), and {missing!r} could not be imported; install or upgrade it with `{INSTALL}` "
            "(the simtenant package itself does not require it)"
        )
        failure.name = missing
        raise failure from None
    return vf


# -- tasks and prompts -------------------------------------------------------------------------------


def select_tasks(world: str, task_ids: Iterable[str] | str | None = None) -> list[Task]:
    """The world's tasks (all of them, in id order), or those named: ``world/name`` or just ``name``."""
    found = get_world(world)
    if task_ids is None:
        return [found.tasks[key] for key in sorted(found.tasks)]
    if isinstance(task_ids, str):
        task_ids = [task_ids]
    chosen: list[Task] = []
    for task_id in task_ids:
        full = task_id if "/" in task_id else f"{found.name}/{task_id}"
        if full.split("/", 1)[0] != found.name:
            raise InvalidArgument(f"task {task_id!r} is not a task of world {found.name!r}", error="wrong_world")
        task = get_task(full)
        if task not in chosen:
            chosen.append(task)
    if not chosen:
        raise InvalidArgument("task_ids names no task", error="no_tasks")
    return chosen


def system_prompt(task: Task, world: World) -> str:
    """What the agent is told first: the world's policy, the task's instruction and its clock."""
    parts = [world.policy.strip()] if world.policy.strip() else []
    parts.append(f"## Your task\n\n{task.briefing}")
    who = f" You act as {task.actor}." if task.actor else ""
    parts.append(f"The current time is {task.time_text}.{who}")
    if task.user is not None:
        parts.append(
            "The person you work for (the operator) writes to you first; their message follows. "
            f"Reach them only with the {USER_TOOL} tool: their reply comes back as its result."
        )
    parts.append(f"Act only through the tools. When the work is done, call {world.finish_tool}.")
    return "\n\n".join(parts)


def prompt(task: Task) -> list[dict[str, str]]:
    """The rollout's opening messages."""
    world = get_world(task.world)
    opening = task.user.opening.strip() if task.user is not None else BEGIN.format(finish=world.finish_tool)
    return [
        {"role": "system", "content": system_prompt(task, world)},
        {"role": "user", "content": opening},
    ]


def dataset_rows(world: str, task_ids: Iterable[str] | str | None = None) -> list[dict[str, Any]]:
    """One dataset row per task: ``prompt``, an empty ``answer`` and ``info`` with the task id."""
    return rows(select_tasks(world, task_ids))


def rows(tasks: Iterable[Task]) -> list[dict[str, Any]]:
    return [{"prompt": prompt(t), "answer": "", "info": {"task": t.id}} for t in tasks]


def task_of(info: Any) -> str:
    """The task id a row's ``info`` names (a dict, or the JSON text of one)."""
    if isinstance(info, str):
        try:
            info = json.loads(info)
        except ValueError:
            info = None
    task_id = info.get("task") if isinstance(info, dict) else None
    if not isinstance(task_id, str):
        raise InvalidArgument("the dataset row's info names no task (info.task)", error="no_task")
    return task_id


# -- tools -------------------------------------------------------------------------------------------


def catalogue(world: str, tasks: Iterable[Task]) -> list[Tool]:
    """The tools a rollout of these tasks may be offered: the world's, the operator's when a task has one,
    and the world's ending tool (for one task, exactly what it offers: its connected apps, its api_fetch)."""
    tasks = list(tasks)
    if len(tasks) == 1:
        return get_world(world).offered(tasks[0])
    return get_world(world).all_tools(with_user=any(t.user is not None for t in tasks))


def tool_functions(tools: Iterable[Tool]) -> list[Callable[..., str]]:
    return [tool_function(t) for t in tools]


def tool_function(tool: Tool) -> Callable[..., str]:
    """``tool`` as a Python function for a tool-calling framework: its signature is the tool's typed
    arguments (so a schema built from it is the tool's own) plus the hidden ``HIDDEN`` argument, its
    docstring the tool's description. It runs the call in the rollout bound to ``HIDDEN`` and returns
    the result, or ``{"error": {code, error, message}}``, as JSON text."""

    def call(**kwargs: Any) -> str:
        rollout = kwargs.pop(HIDDEN, None)
        if not isinstance(rollout, Rollout):
            raise Conflict(f"{tool.name} was called outside a rollout (no {HIDDEN} bound)", error="no_rollout")
        args = kwargs.pop(RAW) if RAW in kwargs else kwargs
        return rollout.call(tool.name, args)

    hints = get_type_hints(tool.fn, include_extras=True)
    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=hints[name])
        for name, p in list(inspect.signature(tool.fn).parameters.items())[1:]  # the first is the context
    ]
    parameters.append(inspect.Parameter(HIDDEN, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Any))
    call.__name__ = call.__qualname__ = tool.name
    call.__doc__ = tool.description
    call.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": str}
    return call


def bind_arguments(rollout: Rollout, tool_args: Any) -> dict[str, Any]:
    """A call's arguments with its rollout bound. Arguments that are not a JSON object (or that use a
    reserved name) are passed on whole, for the dispatcher to refuse and record as the model sent them."""
    if isinstance(tool_args, dict) and HIDDEN not in tool_args and RAW not in tool_args:
        return {**tool_args, HIDDEN: rollout}
    return {RAW: tool_args, HIDDEN: rollout}


def tool_content(outcome: Any) -> str:
    """What the model reads back: the result, or the structured error, as JSON text."""
    return json.dumps(outcome.result if outcome.ok else {"error": outcome.error}, ensure_ascii=False)


# -- rollouts ----------------------------------------------------------------------------------------


class Rollout:
    """One rollout's episode, called one call at a time."""

    def __init__(self, key: str, episode: Episode) -> None:
        self.key = key
        self.episode = episode
        self.path = episode.path
        self.lock = threading.Lock()
        self.closed = False

    @property
    def done(self) -> bool:
        return self.closed or self.episode.done

    def call(self, name: str, args: Any) -> str:
        with self.lock:
            if self.closed:
                failure = Conflict("the episode has finished; no more calls are taken", error="episode_finished")
                return json.dumps({"error": failure.to_dict()})
            return tool_content(self.episode.call(name, args))

    def close(self) -> None:
        with self.lock:
            if not self.closed:
                self.episode.close()
                self.closed = True


class Rollouts:
    """The episodes of an environment's rollouts, by key: started in a temporary folder (or in
    ``episodes_dir``, where they are kept), graded and, unless kept, removed when scored."""

    def __init__(self, reward_mode: str | None = None, episodes_dir: Path | str | None = None) -> None:
        self.reward_mode = reward_mode
        self.keep = episodes_dir is not None
        self.folder = Path(episodes_dir) if episodes_dir is not None else Path(tempfile.mkdtemp(prefix="simtenant-"))
        self.open: dict[str, Rollout] = {}
        self.lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _cleanup, self.open, None if self.keep else self.folder)

    def start(self, task_id: str) -> str:
        """Start an episode of ``task_id``; its key."""
        task = get_task(task_id)
        check_reward_mode(task, self.reward_mode)
        key = uuid.uuid4().hex
        path = self.folder / f"{task.id.replace('/', '__')}-{key}.db"
        with _CACHE_LOCK:
            episode = Episode.start(task, path)
        with self.lock:
            self.open[key] = Rollout(key, episode)
        return key

    def get(self, key: str) -> Rollout:
        with self.lock:
            rollout = self.open.get(key)
        if rollout is None:
            raise NotFound(f"no open rollout {key!r}", error="unknown_rollout")
        return rollout

    def done(self, key: str | None) -> bool:
        """Whether the rollout's episode has ended (an unknown rollout has nothing more to do)."""
        with self.lock:
            rollout = self.open.get(key) if key else None
        return rollout is None or rollout.done

    def finish(self, key: str) -> GradeResult:
        """Close the rollout's episode and grade it (finished or not); the file is removed unless kept."""
        rollout = self.get(key)
        with self.lock:
            self.open.pop(key, None)
        rollout.close()
        try:
            with _CACHE_LOCK:
                return grade(rollout.path, self.reward_mode)
        finally:
            if not self.keep:
                rollout.path.unlink(missing_ok=True)

    def reward(self, key: str) -> float:
        return self.finish(key).reward

    def close(self) -> None:
        """Close every open episode and remove the temporary folder."""
        self._finalizer()


def _cleanup(open_rollouts: dict[str, Rollout], folder: Path | None) -> None:
    for rollout in list(open_rollouts.values()):
        rollout.close()
    open_rollouts.clear()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# -- the verifiers environment -----------------------------------------------------------------------


def load_environment(
    world: str = "commerce",
    task_ids: Iterable[str] | str | None = None,
    reward: str | None = None,
    episodes_dir: str | None = None,
    max_turns: int = 30,
    agent: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """A ``verifiers.v1`` environment (a ``vf.SingleAgentEnv``) over a world's tasks (all, or ``task_ids``).

    ``reward`` grades with another reward mode than each task's own (default, shaped, rubric);
    ``episodes_dir`` keeps every rollout's episode file there (by default they live in a temporary
    folder and are removed once scored); ``max_turns`` caps a rollout's model turns. ``agent`` holds
    other fields of the agent's ``vf.AgentConfig`` (``timeout``, ``max_total_tokens``, ...; it runs on
    the local subprocess runtime with simtenant's harness unless told otherwise); other keyword
    arguments are fields of the ``vf.SingleAgentEnvConfig`` (``timeout``, ``retries``, ...).
    """
    vf = require_verifiers()
    tasks = select_tasks(world, task_ids)
    for task in tasks:
        check_reward_mode(task, reward)
    if RESERVED & set(kwargs):
        names = ", ".join(sorted(RESERVED & set(kwargs)))
        raise InvalidArgument(f"load_environment sets {names} itself", error="reserved_option")
    plugin = register_plugin(vf)
    try:
        config = vf.SingleAgentEnvConfig(
            taskset=plugin.SimtenantTasksetConfig(
                id=TASKSET_ID,
                world=tasks[0].world,
                task_ids=[t.id for t in tasks],
                reward=reward,
                episodes_dir=episodes_dir,
            ),
            agent=vf.AgentConfig(**{"runtime": vf.SubprocessConfig(), "max_turns": max_turns, **(agent or {})}),
            **kwargs,
        )
    except ValidationError as exc:
        raise InvalidArgument(f"invalid environment options: {exc}", error="invalid_options") from None
    return vf.load_environment(config)


def rollouts_of(key: str) -> Rollouts:
    """The rollouts of the environment registered under ``key`` in this process."""
    found = _ENVIRONMENTS.get(key) if key else None
    if found is None:
        raise NotFound(f"no simtenant environment {key!r} in this process", error="unknown_environment")
    return found


def run_call(functions: dict[str, Callable[..., str]], rollout: Rollout, name: str, arguments: str | None) -> str:
    """One tool call as the model sent it (``arguments`` is its JSON text): through the tool's function,
    or, for a name no tool has, straight to the dispatcher, which refuses and records it."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        args = arguments  # not JSON: passed on whole, for the dispatcher to refuse
    function = functions.get(name)
    if function is None:
        return rollout.call(name, args)
    return function(**bind_arguments(rollout, args))


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
            _ENVIRONMENTS[self.key] = self.rollouts

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
            rollouts = _ENVIRONMENTS.get(getattr(trace.state, "environment", ""))
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
