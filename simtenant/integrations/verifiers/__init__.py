"""simtenant as a ``verifiers`` environment (Prime Intellect's ``verifiers.v1``: ``vf-eval``, prime-rl).

    vf-eval simtenant --env.taskset.world itsm --env.taskset.task-ids '["itsm/unlock-after-verification"]' \
        -m MODEL --client.base-url URL

    import simtenant.integrations.verifiers as st
    env = st.load_environment(world="commerce", task_ids=["refund-damaged-item"])

``verifiers`` (0.4 or later, whose API is ``verifiers.v1``) is optional: this module imports without
it, and only ``load_environment`` needs it, raising ``MissingDependency`` (a structured error that is
also an ``ImportError``) naming what to install when it is absent.

Everything but the last step is plain Python, built on simtenant's public API:

* ``dataset_rows`` — one row per task: the prompt (the episode's briefing, the same on every door:
  system, the world's policy, the task's instruction, clock and rules; user, the operator's opening or
  a request to begin) and ``info.task``, the task id. Nothing else of the task: not its description,
  notes, gold calls or checks.
* ``tool_functions`` — the offered tools as Python functions whose signatures are the tools' own typed
  arguments, plus one hidden argument (``HIDDEN``) through which the environment hands each call its
  rollout. A call is an agent's call on every door (``Episode.act``: the one dispatcher, the turn
  budget, tools not offered refused) and returns its result or structured error as JSON text.
* ``Rollouts`` — one ``Rollout`` (a ``LiveEpisode``, as the servers play) per rollout, started in a
  temporary folder and graded when it ends or is scored: the reward is simtenant's grade.

The thin layer is a ``verifiers.v1`` plugin (``register_plugin``) that verifiers finds by importing the
package its taskset id names, ``simtenant``, and reading its ``__all__``:

* ``SimtenantTaskset`` — its config holds the options (``world``, ``task_ids``, ``reward``,
  ``episodes_dir``, ``max_steps``, ``preamble``, ``judge_model``…, ``user_model``…); ``load()``
  yields one ``SimtenantTask`` per dataset row and the taskset owns the environment's ``Rollouts``.
* ``SimtenantTask`` — ``setup`` starts the rollout's episode (its key kept in the trace's state, which
  is never serialized nor shown to the model); its one ``@vf.reward``, ``simtenant``, is the grade,
  and the grade's numbers (``db_match``, ``completed``, ``checks_passed``, ``assertion_share``, each
  ``rubric.<component>``…) are recorded as the trace's metrics.
* ``SimtenantHarness`` — the taskset's default harness: an in-process loop by the rules of every door.
  Every model turn goes through verifiers' interception endpoint (so turns, limits and sampling are
  verifiers'); every tool call goes into the rollout's episode; text without a tool call goes to the
  operator where the task has one and is a step spent where it has none; it stops when the episode
  ends (the ending tool, the operator's ###STOP###, or the turn budget).

``load_environment`` returns the ``vf.SingleAgentEnv`` built from a ``vf.SingleAgentEnvConfig`` naming
that taskset, its agent on the local subprocess runtime. Run a rollout with verifiers' own API:

    async with env.serving():
        ctx = vf.ModelContext(model=..., client=vf.EvalClientConfig(base_url=..., api_key_var=...))
        episode = await env.run_episode(next(iter(env.taskset)), ctx)  # episode.traces[0].reward
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from ...errors import InvalidArgument
from ...grader.grade import check_reward_mode
from .plugin import register_plugin
from .rollouts import (
    HIDDEN,
    INSTALL,
    RAW,
    RESERVED,
    TASKSET_ID,
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
    task_of,
    tool_function,
    tool_functions,
)

__all__ = [
    "HIDDEN",
    "INSTALL",
    "RAW",
    "RESERVED",
    "TASKSET_ID",
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
    "task_of",
    "tool_function",
    "tool_functions",
]


def load_environment(
    world: str = "commerce",
    task_ids: Iterable[str] | str | None = None,
    reward: str | None = None,
    episodes_dir: str | None = None,
    max_turns: int | None = None,
    agent: dict[str, Any] | None = None,
    max_steps: int | None = None,
    preamble: str | None = None,
    judge_model: str | None = None,
    judge_base_url: str | None = None,
    judge_api_key_var: str = "OPENAI_API_KEY",
    user_model: str | None = None,
    user_base_url: str | None = None,
    user_api_key_var: str = "OPENAI_API_KEY",
    **kwargs: Any,
) -> Any:
    """A ``verifiers.v1`` environment (simtenant's ``SimtenantEnv``) over a world's tasks (all, or ``task_ids``).

    ``reward`` grades with another reward mode than each task's own (default, shaped, rubric,
    assertions); ``episodes_dir`` keeps every rollout's episode file there (by default they live in a
    temporary folder and are removed once scored); ``max_steps`` is each episode's turn budget (the
    task's, else 30), which ends a rollout, and ``max_turns`` caps the model's turns besides (none by
    default); ``preamble`` comes before the briefing in the system prompt; ``judge_model`` grades judge
    checks and components, ``user_model`` plays the operators (each at its base URL, its key in the
    named environment variable). ``agent`` holds other fields of the agent's ``vf.AgentConfig``
    (``timeout``, ``max_total_tokens``, ...; it runs on the local subprocess runtime with simtenant's
    harness unless told otherwise); other keyword arguments are fields of the environment's config
    (``timeout``, ``retries``, ...).
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
        config = plugin.SimtenantEnvConfig(
            taskset=plugin.SimtenantTasksetConfig(
                id=TASKSET_ID,
                world=tasks[0].world,
                task_ids=[t.id for t in tasks],
                reward=reward,
                episodes_dir=episodes_dir,
                max_steps=max_steps,
                preamble=preamble,
                judge_model=judge_model,
                judge_base_url=judge_base_url,
                judge_api_key_var=judge_api_key_var,
                user_model=user_model,
                user_base_url=user_base_url,
                user_api_key_var=user_api_key_var,
            ),
            agent=vf.AgentConfig(**{"runtime": vf.SubprocessConfig(), "max_turns": max_turns, **(agent or {})}),
            **kwargs,
        )
    except ValidationError as exc:
        raise InvalidArgument(f"invalid environment options: {exc}", error="invalid_options") from None
    return vf.load_environment(config)
