"""Grading an episode file: gold replay, row diff, checks and rewards.

The gold database is the task's gold calls replayed on a fresh copy of the
same snapshot through the same dispatcher (cached per task, task file and
snapshot); a gold call that fails makes the task invalid. The reward is
``db_match`` times every check, or the shaped reward when asked for.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import seeds
from ..errors import InvalidArgument, NotFound, TaskError
from ..task import RubricComponent, Task
from ..world import get_task, get_world
from .assertions import AssertionResult, grade_assertions
from .checks import CheckResult, RecordedCall, run_check
from .diff import DiffResult, diff_databases
from .judge import JudgeConfig, Judgment
from .judge import record as record_judgments
from .rewards import ShapedTracker
from .rubric import ComponentResult, grade_rubric

REWARD_MODES = ("default", "shaped", "rubric", "assertions")


@dataclass
class EpisodeFile:
    """What an episode file says about itself."""

    path: Path
    task: str
    world: str
    snapshot_hash: str
    scale: int
    task_hash: str
    status: str
    answer: str | None
    calls: list[RecordedCall]
    messages: list[tuple[str, str]] = field(default_factory=list)  # (role, content), operator tasks only

    @classmethod
    def read(cls, path: Path | str) -> EpisodeFile:
        path = Path(path)
        if not path.is_file():
            raise NotFound(f"{path}: no such file", error="not_an_episode")
        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                head = connection.execute(
                    "SELECT task, world, snapshot_hash, scale, task_hash, status, answer FROM _episode WHERE id = 1"
                ).fetchone()
                rows = connection.execute(
                    "SELECT seq, tool, args, ok, result, error, reward FROM _calls ORDER BY seq"
                ).fetchall()
                messages = connection.execute("SELECT role, content FROM _messages ORDER BY seq").fetchall()
            finally:
                connection.close()
        except sqlite3.Error as exc:
            raise InvalidArgument(f"{path}: not an episode file ({exc})", error="not_an_episode") from None
        if head is None:
            raise InvalidArgument(f"{path}: not an episode file (no _episode record)", error="not_an_episode")
        calls = [
            RecordedCall(
                seq=seq,
                tool=tool,
                args=json.loads(args),
                args_json=args,
                ok=bool(ok),
                result=json.loads(result) if result is not None else None,
                error=json.loads(error) if error is not None else None,
                reward=reward,
            )
            for seq, tool, args, ok, result, error, reward in rows
        ]
        return cls(path, *head, calls=calls, messages=[(role, content) for role, content in messages])


@dataclass
class GradeResult:
    task: str
    episode_db: str
    reward_mode: str
    reward: float
    db_match: int
    partial_credit: float
    checks: list[CheckResult]
    diff: DiffResult
    steps: int
    completed: bool
    answer: str | None
    shaped_reward: float | None
    rubric_reward: float | None = None
    rubric: list[ComponentResult] = field(default_factory=list)
    judgments: list[Judgment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    assertion_credit: float | None = None  # the share of scored assertions that hold
    assertions: list[AssertionResult] = field(default_factory=list)

    @property
    def task_completed_correctly(self) -> bool | None:
        """With assertions: whether every scored one holds (full credit)."""
        return None if self.assertion_credit is None else self.assertion_credit == 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "episode_db": self.episode_db,
            "reward_mode": self.reward_mode,
            "reward": self.reward,
            "db_match": self.db_match,
            "partial_credit": self.partial_credit,
            "checks": [c.to_dict() for c in self.checks],
            "diff": [d.to_dict() for d in self.diff.differences],
            "steps": self.steps,
            "completed": self.completed,
            "answer": self.answer,
            "shaped_reward": self.shaped_reward,
            "rubric_reward": self.rubric_reward,
            "rubric": [c.to_dict() for c in self.rubric],
            "judgments": [asdict(j) for j in self.judgments],
            "assertion_credit": self.assertion_credit,
            "task_completed_correctly": self.task_completed_correctly,
            "assertions": [a.to_dict() for a in self.assertions],
            "warnings": self.warnings,
        }


def snapshot_for(task: Task, content_hash: str, scale: int = 1) -> Path:
    """The cached snapshot an episode of ``task`` was copied from (rebuilt if it is the current one)."""
    world = get_world(task.world)
    path = seeds.snapshot_path(world, content_hash)
    if seeds.intact(path):
        return path
    current = seeds.task_snapshot(world, task.seed_changes, scale)
    if content_hash == seeds.hash_of(world, current):
        return current
    raise NotFound(
        f"the snapshot this episode was made from ({content_hash[:12]}) is gone or damaged, and its seed data changed; "
        "run the episode again",
        error="snapshot_missing",
    )


def gold_database(task: Task, snapshot: Path) -> Path:
    """The task's gold calls replayed on a fresh copy of ``snapshot`` (cached)."""
    from ..agents import play
    from ..episode import Episode

    world = get_world(task.world)
    name = f"{task.id.replace('/', '__')}-{seeds.hash_of(world, snapshot)[:16]}-{task.hash[:16]}.db"
    path = seeds.cache_dir() / "gold" / name
    if seeds.intact(path):
        return path
    tmp = path.with_name(f"{name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        with Episode.start(task, tmp, snapshot=snapshot) as episode:
            for outcome in play(episode, task.gold):
                if not outcome.ok:
                    raise TaskError(
                        f"{task.id}: gold call {outcome.seq} ({outcome.tool}) failed: "
                        f"{outcome.error['error']}: {outcome.error['message']}"  # type: ignore[index]
                    )
            if not episode.done:
                raise TaskError(f"{task.id}: the gold calls must end the episode (with {episode.world.finish_tool})")
        seeds.place(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def shaped_reward(task: Task, calls: list[RecordedCall]) -> float | None:
    """The shaped reward of a trajectory, recomputed from its recorded calls."""
    if task.shaped is None:
        return None
    tracker = ShapedTracker(task.shaped)
    tools = get_world(task.world).tool_map(with_user=True)
    for call in calls:
        tool = tools.get(call.tool)
        tracker.step(call.tool, call.args_json, call.ok, call.args, call.result, harness=bool(tool and tool.harness))
        if call.ok and tool is not None and tool.ends:
            break  # later calls were refused and earn nothing
    return tracker.total


def check_reward_mode(task: Task, reward_mode: str | None) -> str:
    """The reward mode to grade ``task`` with: the one asked for, else the task's own."""
    mode = reward_mode or task.reward
    if mode not in REWARD_MODES:
        raise InvalidArgument(f"reward must be one of {', '.join(REWARD_MODES)}", error="invalid_reward")
    if mode == "shaped" and task.shaped is None:
        raise InvalidArgument(f"task {task.id} has no shaped reward rules", error="invalid_reward")
    if mode == "rubric" and not rubric_of(task):
        raise InvalidArgument(f"task {task.id} has no rubric", error="invalid_reward")
    if mode == "assertions" and not task.assertions:
        raise InvalidArgument(f"task {task.id} has no assertions", error="invalid_reward")
    return mode


def rubric_of(task: Task) -> list[RubricComponent]:
    """The task's rubric, or its world's."""
    return list(task.rubric) if task.rubric is not None else get_world(task.world).rubric


def grade(
    path: Path | str,
    reward_mode: str | None = None,
    task: Task | None = None,
    full: bool = False,
    judge: JudgeConfig | None = None,
) -> GradeResult:
    """Grade an episode file against its task's gold replay (the registered task, unless one is given).

    ``full`` diffs by scanning every table rather than by the changed keys (same result, slower).
    With a ``judge``, judge components are graded and the verdicts written into the episode file.
    """
    episode = EpisodeFile.read(path)
    if task is None:
        task = get_task(episode.task)
    elif task.id != episode.task:
        raise InvalidArgument(f"{path} is an episode of {episode.task}, not of {task.id}", error="wrong_task")
    mode = check_reward_mode(task, reward_mode)
    warnings = []
    if episode.task_hash != task.hash:
        warnings.append("the task file changed since this episode ran; graded against the current task")
    snapshot = snapshot_for(task, episode.snapshot_hash, episode.scale)
    gold = gold_database(task, snapshot)
    difference = diff_databases(gold, episode.path, get_world(task.world).tables, base=snapshot, full=full)
    judgments: list[Judgment] = []
    checks = [run_check(c, episode.path, episode.answer, episode.calls, judge, judgments) for c in task.checks]
    skipped = [c.name for c in checks if c.skipped]
    if skipped:
        warnings.append(f"checks skipped, not counted: {', '.join(skipped)} (grade with a judge model to count them)")
    db_match = int(difference.match)
    shaped = shaped_reward(task, episode.calls)
    rubric_reward, rubric = (
        grade_rubric(rubric_of(task), episode.path, gold, task.actor, judge, judgments)
        if rubric_of(task)
        else (None, [])
    )
    if judge is not None and judgments:
        record_judgments(episode.path, judge, judgments)
    world_tables = get_world(task.world).tables
    credit, assertions = (
        grade_assertions(task.assertions, snapshot, episode.path, world_tables) if task.assertions else (None, [])
    )
    reward = {
        "default": float(db_match * all(c.passed for c in checks if not c.skipped)),
        "shaped": float(shaped or 0.0),
        "rubric": float(rubric_reward or 0.0),
        "assertions": float(credit or 0.0),
    }[mode]
    return GradeResult(
        task=task.id,
        episode_db=str(episode.path),
        reward_mode=mode,
        reward=reward,
        db_match=db_match,
        partial_credit=difference.partial_credit,
        checks=checks,
        diff=difference,
        steps=len(episode.calls),
        completed=episode.status == "finished",
        answer=episode.answer,
        shaped_reward=shaped,
        rubric_reward=rubric_reward,
        rubric=rubric,
        judgments=judgments,
        warnings=warnings,
        assertion_credit=credit,
        assertions=assertions,
    )
