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

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from ...errors import InvalidArgument
from ...grader.grade import check_reward_mode
from .plugin import register_plugin
from .rollouts import (
    BEGIN,
    HIDDEN,
    INSTALL,
    RAW,
    RESERVED,
    TASKSET_ID,
    USER_TOOL,
    MissingDependency,
    Rollout,
    Rollouts,
    bind_arguments,
    catalogue,
    dataset_rows,
    prompt,
    require_verifiers,
    rollouts_of,
    rows,
    run_call,
    select_tasks,
    system_prompt,
    task_of,
    tool_content,
    tool_function,
    tool_functions,
)

__all__ = [
    "BEGIN",
    "HIDDEN",
    "INSTALL",
    "RAW",
    "RESERVED",
    "TASKSET_ID",
    "USER_TOOL",
    "MissingDependency",
    "Rollout",
    "Rollouts",
    "bind_arguments",
    "catalogue",
    "dataset_rows",
    "load_environment",
    "prompt",
    "register_plugin",
    "require_verifiers",
    "rollouts_of",
    "rows",
    "run_call",
    "select_tasks",
    "system_prompt",
    "task_of",
    "tool_content",
    "tool_function",
    "tool_functions",
]


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
