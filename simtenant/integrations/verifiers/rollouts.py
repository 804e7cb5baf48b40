"""The plain-Python part of the integration: dataset rows, the tools as typed functions, and one
episode per rollout (``Rollouts``), graded when scored."""

from __future__ import annotations

import inspect
import json
import shutil
import tempfile
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, get_type_hints

from ...agents.chat import Endpoint
from ...agents.operator_model import OperatorModel
from ...episode import reply_text
from ...errors import Conflict, InvalidArgument, NotFound, SimtenantError
from ...grader import GradeResult
from ...grader.grade import check_reward_mode
from ...grader.judge import JudgeConfig
from ...live import LiveEpisode, grade_path
from ...task import Task
from ...tools import Tool
from ...world import DEFAULT_MAX_STEPS, get_task, get_world

INSTALL = "pip install verifiers"  # the optional package this integration needs (0.4 or later: verifiers.v1)
TASKSET_ID = (
    "simtenant"  # the verifiers taskset id: the package verifiers imports to find the plugin (vf-eval simtenant)
)
RESERVED = {"taskset", "agent"}  # environment config fields load_environment sets itself
HIDDEN = "simtenant_rollout"  # the tool argument the environment fills in and the model never sees
RAW = "simtenant_raw_arguments"  # carries arguments that are not a plain JSON object, for the dispatcher to refuse

# The environments' rollouts in this process, by key (a rollout's trace state names its environment's).
ENVIRONMENTS: weakref.WeakValueDictionary[str, Rollouts] = weakref.WeakValueDictionary()


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


def prompt(task: Task, max_steps: int | None = None, preamble: str | None = None) -> list[dict[str, str]]:
    """The rollout's opening messages: the world's briefing of the task (the same on every door), with a
    turn budget of ``max_steps`` (the task's, else the default); a ``preamble`` of the user's own comes
    first, before the briefing."""
    briefing = get_world(task.world).briefing(task, max_steps or task.max_steps or DEFAULT_MAX_STEPS)
    system = f"{preamble.strip()}\n\n{briefing.system}" if preamble else briefing.system
    return [{"role": "system", "content": system}, {"role": "user", "content": briefing.opening}]


def dataset_rows(
    world: str,
    task_ids: Iterable[str] | str | None = None,
    max_steps: int | None = None,
    preamble: str | None = None,
) -> list[dict[str, Any]]:
    """One dataset row per task: ``prompt``, an empty ``answer`` and ``info`` with the task id."""
    return rows(select_tasks(world, task_ids), max_steps, preamble)


def rows(tasks: Iterable[Task], max_steps: int | None = None, preamble: str | None = None) -> list[dict[str, Any]]:
    return [{"prompt": prompt(t, max_steps, preamble), "answer": "", "info": {"task": t.id}} for t in tasks]


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
        return rollout.run(tool.name, args)

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


# -- rollouts ----------------------------------------------------------------------------------------


class Rollout(LiveEpisode):
    """One rollout's episode (a ``LiveEpisode``: the rules of every door), answered as text for the model."""

    def __init__(self, key: str, task: Task, path: Path, **options: Any) -> None:
        super().__init__(task, path, **options)
        self.key = key

    def run(self, name: str, args: Any) -> str:
        """One tool call: its result, or its structured error, as JSON text."""
        try:
            return self.call(name, args).content()
        except SimtenantError as exc:  # the episode takes no more turns
            return json.dumps({"error": exc.to_dict()})

    def reply(self, text: str) -> str | None:
        """A model turn with text and no tool call (``Episode.say``): what the model reads next (the
        operator's reply, or the reminder that nobody reads it); None once the episode takes no more turns."""
        try:
            outcome = self.say(text)
        except SimtenantError:
            return None
        return reply_text(outcome, self.briefing.nobody)


class Rollouts:
    """The episodes of an environment's rollouts, by key: started in a temporary folder (or in
    ``episodes_dir``, where they are kept with their grades), graded when they end or are scored (with
    the ``judge``, when given) and, unless kept, removed once scored. ``max_steps`` is each episode's turn
    budget; a chat model at ``operator_model`` plays the operators of tasks that have one (scripted otherwise)."""

    def __init__(
        self,
        reward_mode: str | None = None,
        episodes_dir: Path | str | None = None,
        max_steps: int | None = None,
        judge: JudgeConfig | None = None,
        operator_model: Endpoint | None = None,
    ) -> None:
        self.reward_mode = reward_mode
        self.max_steps = max_steps
        self.judge = judge
        self.operator_model = operator_model
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
        rollout = Rollout(key, task, path, max_steps=self.max_steps, reward_mode=self.reward_mode, judge=self.judge)
        if self.operator_model is not None and task.user is not None:
            rollout.episode.operator_model = OperatorModel(self.operator_model)
        with self.lock:
            self.open[key] = rollout
        return key

    def get(self, key: str) -> Rollout:
        with self.lock:
            rollout = self.open.get(key)
        if rollout is None:
            raise NotFound(f"no open rollout {key!r}", error="unknown_rollout")
        return rollout

    def done(self, key: str | None) -> bool:
        """Whether the rollout's episode takes no more turns (an unknown rollout has nothing more to do)."""
        with self.lock:
            rollout = self.open.get(key) if key else None
        return rollout is None or rollout.done

    def finish(self, key: str) -> GradeResult:
        """Close the rollout's episode and grade it (finished or not); the files are removed unless kept."""
        rollout = self.get(key)
        with self.lock:
            self.open.pop(key, None)
        try:
            rollout.close()
            if rollout.grade is None:
                raise rollout.grade_failure or SimtenantError("the episode was not graded")
            return rollout.grade
        finally:
            if not self.keep:
                rollout.path.unlink(missing_ok=True)
                grade_path(rollout.path).unlink(missing_ok=True)

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


def rollouts_of(key: str) -> Rollouts:
    """The rollouts of the environment registered under ``key`` in this process."""
    found = ENVIRONMENTS.get(key) if key else None
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
        return rollout.run(name, args)
    return function(**bind_arguments(rollout, args))
