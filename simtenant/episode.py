"""An episode: a copy of the world's snapshot in its own SQLite file, a task,
a frozen clock and an acting identity, played through the one dispatcher.

The file is the whole record: the world's tables as the agent left them, and
the harness tables ``_episode`` (task, snapshot hash, status, final answer),
``_calls`` (every call in order) and ``_messages``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from . import db, seeds
from .errors import Conflict
from .task import Task
from .task.shaping import ShapedTracker
from .tools import Tool, dispatch
from .tools.engine.dispatch import Memo, Outcome
from .tools.engine.rows import driver
from .world import DEFAULT_MAX_STEPS, USER_TOOL, Briefing, World, get_world


class Episode:
    def __init__(self, task: Task, path: Path, calls: int = 0, max_steps: int | None = None) -> None:
        """Open an episode file that already holds ``calls`` calls; use ``Episode.start`` for a new one.

        ``max_steps`` is the turn budget an agent's calls and messages spend (``act`` and ``say``): given,
        else the task's own, else the world's default."""
        self.task = task
        self.world: World = get_world(task.world)
        self.path = Path(path)
        self.now = task.current_time
        self.actor = task.actor
        self.tools: dict[str, Tool] = self.world.tool_map(with_user=task.user is not None)
        self.offered: list[Tool] = self.world.offered(task)  # what an agent is shown (api_fetch's own schema)
        self._offered_names = {t.name for t in self.offered}
        self.max_steps = max_steps or task.max_steps or DEFAULT_MAX_STEPS
        self.steps = calls  # the turns an agent has spent: its calls, and its messages to nobody
        self.done = False
        self.ended: str | None = None  # how the episode ended: finished, operator_stop or max_steps
        self.shaped = ShapedTracker(task.shaped) if task.shaped else None
        # Step rewards are shown to the agent where they are the task's reward (a training signal by
        # design); elsewhere they stay in the record, for the grader. A door may choose to show them.
        self.shows_rewards = task.reward == "shaped"
        # One connection and session for the episode's life: only this episode writes its file.
        self.connection = db.connect(self.path)
        self.memo = Memo()  # what tools remember across calls (the acting user's grants), see Memo
        self.session = Session(bind=self.connection, expire_on_commit=False)
        self.calls = calls

    @classmethod
    def start(
        cls,
        task: Task,
        path: Path | str,
        snapshot: Path | None = None,
        scale: int = 1,
        max_steps: int | None = None,
    ) -> Episode:
        """Copy the snapshot (of the world at ``scale``, unless one is given) to ``path``, which must
        not exist yet, and open the episode there (with a turn budget of ``max_steps``, see ``__init__``)."""
        path = Path(path)
        world = get_world(task.world)
        source = snapshot or seeds.task_snapshot(world, task.seed_changes, scale)
        if path.exists():
            raise Conflict(f"{path} already exists; episodes never overwrite a file", error="file_exists")
        record = {
            "id": 1,
            "task": task.id,
            "world": task.world,
            "snapshot_hash": seeds.hash_of(world, source),
            "scale": scale,
            "task_hash": task.hash,
            "current_time": task.time_text,
            "actor": task.actor,
            "status": "running",
        }
        opening = [] if task.user is None else [{"seq": 1, "role": "user", "content": task.user.opening}]
        path.parent.mkdir(parents=True, exist_ok=True)
        db.copy_file(seeds.template(source, record, opening), path)
        episode = cls(task, path, max_steps=max_steps)
        # on the driver's connection: one statement, no transaction (the ORM's costs more than a reset's copy)
        found = driver(episode.session).execute("SELECT status FROM _episode WHERE id = 1").fetchone()
        if found != ("running",):
            raise Conflict(f"{path} did not start as a fresh episode", error="bad_template")
        return episode

    def connected(self, tool: Tool) -> bool:
        """Whether the task connects the tool's app (a task that names none connects them all)."""
        return self.world.connected(self.task, tool)

    def briefing(self) -> Briefing:
        """What the agent is told of this episode, the same on every door (``World.briefing``)."""
        return self.world.briefing(self.task, self.max_steps)

    def offers(self, tool: Tool) -> bool:
        """Whether the agent is shown the tool (in a world that offers search: the search tools)."""
        return tool.name in self._offered_names

    @property
    def over(self) -> bool:
        """Whether the episode takes no more turns: it has ended, or the budget is spent."""
        return self.done or self.steps >= self.max_steps

    def call(self, tool: str, args: Any = None) -> Outcome:
        """Run one call, as the engine does (gold replays, tests): no budget, any tool of the world."""
        return dispatch(self, tool, {} if args is None else args)

    def act(self, tool: str, args: Any = None) -> Outcome:
        """Run one call of an agent, by the rules every door keeps: it spends a step of the budget
        (none left: 409 ``turn_budget_spent``, not recorded), and a tool not offered is refused (403)."""
        if self.steps >= self.max_steps and not self.done:
            raise Conflict(f"the turn budget ({self.max_steps} steps) is spent", error="turn_budget_spent")
        outcome = dispatch(self, tool, {} if args is None else args, only_offered=True)
        self.steps += 1
        self._note_end(outcome.tool if outcome.ok else None)
        return outcome

    def say(self, text: str) -> Outcome | None:
        """A message the agent writes without calling a tool: it goes to the operator where the task has
        one (as ``send_message_to_user``); elsewhere nobody reads it (it is not recorded), and it spends a
        step all the same."""
        if self.task.user is not None:
            return self.act(USER_TOOL, {"message": text})
        if self.steps >= self.max_steps and not self.done:
            raise Conflict(f"the turn budget ({self.max_steps} steps) is spent", error="turn_budget_spent")
        self.steps += 1
        self._note_end(None)
        return None

    def _note_end(self, tool: str | None) -> None:
        if self.ended is None and self.done:
            self.ended = "operator_stop" if tool == USER_TOOL else "finished"
        elif self.ended is None and self.steps >= self.max_steps:
            self.ended = "max_steps"

    @property
    def task_completed(self) -> bool | None:
        """Whether the task's completion condition (its shaped reward's ``complete_when``) holds; None
        for a task that declares none."""
        return None if self.shaped is None else self.shaped.complete

    @property
    def running_reward(self) -> float | None:
        """The shaped reward so far (the sum of the step rewards, clamped); None for a task without one."""
        return None if self.shaped is None else self.shaped.total

    def step_reward(self, outcome: Outcome) -> float | None:
        if self.shaped is None or self.done:
            return None
        tool = self.tools.get(outcome.tool)
        return self.shaped.step(
            outcome.tool,
            outcome.args_json,
            outcome.ok,
            outcome.args,
            outcome.result,
            harness=tool is not None and tool.harness,
        )

    def close(self) -> None:
        self.session.close()
        if not self.connection.closed and Path(f"{self.path}-journal").exists():
            with contextlib.suppress(SQLAlchemyError, sqlite3.Error):  # the kept journal goes: the file is whole
                driver(self.session).execute("PRAGMA journal_mode=DELETE")
        self.connection.close()

    def __enter__(self) -> Episode:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def reply_text(outcome: Outcome | None, nobody: str) -> str:
    """What an agent reads after writing text without a tool (``Episode.say``), on every door with such
    turns: the operator's reply, the refusal of the message, or, where nobody reads it, ``nobody`` (the
    briefing's reminder)."""
    if outcome is None:
        return nobody
    return outcome.result["reply"] if outcome.ok else outcome.content()
