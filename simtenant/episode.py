"""An episode: a copy of the world's snapshot in its own SQLite file, a task,
a frozen clock and an acting identity, played through the one dispatcher.

The file is the whole record: the world's tables as the agent left them, and
the harness tables ``_episode`` (task, snapshot hash, status, final answer),
``_calls`` (every call in order) and ``_messages``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from . import db, seeds
from .errors import Conflict
from .schema.harness import EpisodeRecord
from .task import Task
from .task.shaping import ShapedTracker
from .tools import Tool, canonical_json, dispatch
from .tools.engine.dispatch import Outcome
from .world import World, get_world


class Episode:
    def __init__(self, task: Task, path: Path, calls: int = 0) -> None:
        """Open an episode file that already holds ``calls`` calls; use ``Episode.start`` for a new one."""
        self.task = task
        self.world: World = get_world(task.world)
        self.path = Path(path)
        self.now = task.current_time
        self.actor = task.actor
        self.tools: dict[str, Tool] = self.world.tool_map(with_user=task.user is not None)
        self.offered: list[Tool] = self.world.offered(task)  # what an agent is shown (api_fetch's own schema)
        self.done = False
        self.shaped = ShapedTracker(task.shaped) if task.shaped else None
        # One connection and session for the episode's life: only this episode writes its file.
        self.connection = db.connect(self.path)
        self.session = Session(bind=self.connection, expire_on_commit=False)
        self.calls = calls

    @classmethod
    def start(cls, task: Task, path: Path | str, snapshot: Path | None = None, scale: int = 1) -> Episode:
        """Copy the snapshot (of the world at ``scale``, unless one is given) to ``path``, which must
        not exist yet, and open the episode there."""
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
        shutil.copyfile(seeds.template(source, record, opening), path)
        episode = cls(task, path)
        with episode.session.begin():  # reads the copy's schema now, not at the first call
            status = episode.session.scalar(select(EpisodeRecord.status))
        if status != "running":
            raise Conflict(f"{path} did not start as a fresh episode", error="bad_template")
        return episode

    def connected(self, tool: Tool) -> bool:
        """Whether the task connects the tool's app (a task that names none connects them all)."""
        return self.world.connected(self.task, tool)

    def call(self, tool: str, args: Any = None) -> Outcome:
        """Run one tool call; returns its outcome (a result or a structured error)."""
        return dispatch(self, tool, {} if args is None else args)

    def step_reward(self, outcome: Outcome) -> float | None:
        if self.shaped is None or self.done:
            return None
        tool = self.tools.get(outcome.tool)
        return self.shaped.step(
            outcome.tool,
            canonical_json(outcome.args),
            outcome.ok,
            outcome.args,
            outcome.result,
            harness=tool is not None and tool.harness,
        )

    def close(self) -> None:
        self.session.close()
        self.connection.close()

    def __enter__(self) -> Episode:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
