"""An episode played live through a door (the HTTP and MCP servers, verifiers): ``LiveEpisode``.

It is what the doors share: the episode, kept by the rules of every door (``Episode.act`` and
``Episode.say``: the turn budget, tools not offered refused, the end on ``finish``, ``###STOP###`` or
the last step), a lock (calls of one episode run one at a time, from any thread), the operator's
messages (each handed out once) and the grade, taken as soon as the episode ends and written beside it
as ``<episode>.grade.json``. Nothing here hands the agent gold calls, checks, the grader's diff or a path.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from .episode import Episode
from .errors import Conflict, SimtenantError
from .grader import GradeResult, grade
from .grader.judge import JudgeConfig
from .task import Task
from .tools import Tool
from .tools.engine.dispatch import Outcome
from .world import USER_TOOL, get_world

# Starting an episode and grading one build cached files (snapshots, templates, gold databases) whose
# temporary names are unique per process, not per thread: one thread at a time does either.
CACHE_LOCK = threading.Lock()


_CATALOGUES: dict[tuple[str, str], list[dict[str, Any]]] = {}


def catalogue(task: Task) -> list[dict[str, Any]]:
    """The tools an agent is shown for ``task`` (see ``World.offered``), built once per task file: do not modify."""
    key = (task.id, task.hash)
    if key not in _CATALOGUES:
        _CATALOGUES[key] = [t.summary() for t in get_world(task.world).offered(task)]
    return _CATALOGUES[key]


def grade_path(path: Path) -> Path:
    """Where the grade of the episode file ``path`` is written: ``<episode>.grade.json`` beside it."""
    return path.with_name(f"{path.stem}.grade.json")


class LiveEpisode:
    """An episode being played through a door, safe to call from any thread.

    It keeps the rules every door keeps (``Episode.act`` and ``Episode.say``): a turn budget, tools not
    offered refused, and the end of the episode on ``finish``, the operator's ``###STOP###`` or the last
    step of the budget, when it is graded and closed. The operator's messages are handed out once each,
    as they arrive (``new_messages``)."""

    def __init__(
        self,
        task: Task,
        path: Path,
        max_steps: int | None = None,
        show_rewards: bool = False,
        reward_mode: str | None = None,
        judge: JudgeConfig | None = None,
    ) -> None:
        """An episode of ``task`` at ``path`` with a turn budget of ``max_steps`` (the task's, else the
        default), graded in ``reward_mode`` (the task's own by default; with the ``judge`` when given);
        step rewards are shown to the agent where that mode is shaped, or with ``show_rewards``."""
        with CACHE_LOCK:
            self.episode = Episode.start(task, path, max_steps=max_steps)
        self.reward_mode = reward_mode
        self.judge = judge
        self.episode.shows_rewards = show_rewards or (reward_mode or task.reward) == "shaped"
        self.task = task
        self.path = Path(path)
        self.lock = threading.Lock()
        self.outcomes: list[Outcome] = []
        self.briefing = self.episode.briefing()
        opening = [] if task.user is None else [{"role": "user", "content": self.briefing.opening}]
        self.messages: list[dict[str, str]] = opening  # what the operator has said
        self._delivered = 0
        self.grade: GradeResult | None = None
        self.grade_failure: SimtenantError | None = None  # why the episode could not be graded
        self.closed = False

    @property
    def tools(self) -> list[Tool]:
        """Every tool the episode takes (named operations included)."""
        return list(self.episode.tools.values())

    @property
    def offered(self) -> list[Tool]:
        """The tools an agent is shown."""
        return self.episode.offered

    @property
    def done(self) -> bool:
        """Whether the episode takes no more turns (ended, or its turn budget spent)."""
        return self.closed or self.episode.over

    @property
    def shows_rewards(self) -> bool:
        return self.episode.shows_rewards

    def endpoints(self) -> list[dict[str, Any]]:
        """The episode's tools as the agent sees them: name, route, description and JSON Schema."""
        return catalogue(self.task)

    def instructions(self) -> str:
        """What the agent is told (the briefing every door gives, as one text)."""
        return self.briefing.text()

    def call(self, tool: str, args: Any) -> Outcome:
        """Run one of the agent's calls (``Episode.act``); the episode is graded and closed when it ends.

        An episode that takes no more turns refuses the call with 409 (nothing is recorded)."""
        with self.lock:
            self._refuse_if_over()
            outcome = self.episode.act(tool, args)
            self._after(outcome)
            return outcome

    def say(self, text: str) -> Outcome | None:
        """A message the agent writes without a tool (``Episode.say``): to the operator where the task
        has one (the outcome of that call), elsewhere a step spent (None)."""
        with self.lock:
            self._refuse_if_over()
            outcome = self.episode.say(text)
            self._after(outcome)
            return outcome

    def new_messages(self) -> list[dict[str, str]]:
        """The operator's messages not handed out yet (each is handed out once)."""
        with self.lock:
            fresh = self.messages[self._delivered :]
            self._delivered = len(self.messages)
            return fresh

    def _refuse_if_over(self) -> None:
        if self.closed or self.episode.over:
            why = "its turn budget is spent" if self.episode.ended == "max_steps" else "it has ended"
            raise Conflict(f"the episode takes no more turns: {why}", error="episode_finished")

    def _after(self, outcome: Outcome | None) -> None:
        if outcome is not None:
            self.outcomes.append(outcome)
            if outcome.ok and outcome.tool == USER_TOOL:  # the operator's reply
                self.messages.append({"role": "user", "content": outcome.result["reply"]})
        if self.episode.over:
            self._finish()

    def close(self) -> None:
        """Close the episode (at shutdown, or when its client leaves): grade it if it has not been yet."""
        with self.lock:
            if not self.closed:
                self._finish()

    def grade_summary(self) -> dict[str, Any] | None:
        """The episode's reward once graded, without the diff or checks (which would show the gold)."""
        if self.grade is not None:
            return {"reward": self.grade.reward, "reward_mode": self.grade.reward_mode}
        if self.grade_failure is not None:
            return {"error": self.grade_failure.to_dict()}
        return None

    def _finish(self) -> None:
        self.episode.close()
        self.closed = True
        try:
            with CACHE_LOCK:
                self.grade = grade(self.path, self.reward_mode, judge=self.judge)
            body: dict[str, Any] = self.grade.to_dict()
        except SimtenantError as exc:  # a task that cannot be graded still leaves its episode file
            self.grade_failure = exc
            body = {"error": exc.to_dict()}
        grade_path(self.path).write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
