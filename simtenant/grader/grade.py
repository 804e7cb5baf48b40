"""Grading an episode file: gold replay, row diff, checks and rewards.

The gold database is the task's gold calls replayed on a fresh copy of the same snapshot through
the same dispatcher (cached; see ``grader.gold``); a gold call that fails makes the task invalid.
The episode is diffed against the gold (or the accepted alternative it comes closest to), free text
graded by the facts it must state.

The **outcome credit** is the share of the outcome that is right: every change the gold made to
the world, the ending call and every check is one item; the items the episode got right count,
each change the gold did not make counts against it. The default reward is 1 only when all of it
is right (``db_match``, every check, the episode ended). The other reward modes (shaped, rubric,
assertions) keep their own partial credit, capped by the outcome credit: a collateral write, a
wrong value or a missing ending call keeps them below 1.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import seeds
from ..db import open_readonly
from ..db import reading as db_reading
from ..errors import InvalidArgument, NotFound
from ..facts import missing_facts
from ..task import RubricComponent, Task
from ..task.shaping import ShapedTracker
from ..world import all_tasks, get_task, get_world
from .assertions import AssertionResult, grade_assertions
from .checks import CheckResult, Played, RecordedCall, run_check
from .diff import TEXT_MATCH_MODES, CellKey, DiffResult, TextGrading, diff_databases
from .gold import gold_database, text_facts, variants
from .judge import VERDICTS, JudgeConfig, JudgeError, Judgment, ask
from .judge import record as record_judgments
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
    def read(cls, path: Path | str, connection: sqlite3.Connection | None = None) -> EpisodeFile:
        """The file at ``path`` (read through ``connection`` where one is open on it)."""
        path = Path(path)
        if not path.is_file():
            raise NotFound(f"{path}: no such file", error="not_an_episode")
        try:
            with db_reading(path, connection) as reading:
                head = reading.execute(
                    "SELECT task, world, snapshot_hash, scale, task_hash, status, answer FROM _episode WHERE id = 1"
                ).fetchone()
                rows = reading.execute(
                    "SELECT seq, tool, args, ok, result, error, reward FROM _calls ORDER BY seq"
                ).fetchall()
                messages = reading.execute("SELECT role, content FROM _messages ORDER BY seq").fetchall()
        except sqlite3.Error as exc:
            raise InvalidArgument(f"{path}: not an episode file ({exc})", error="not_an_episode") from None
        if head is None:
            raise InvalidArgument(f"{path}: not an episode file (no _episode record)", error="not_an_episode")
        if not all(isinstance(v, str) for v in head[:3]) or not isinstance(head[6], str | None):
            raise InvalidArgument(f"{path}: its _episode record is damaged", error="not_an_episode")
        try:
            calls = [
                RecordedCall(
                    seq=seq,
                    tool=tool,
                    args=_json_object(args),
                    args_json=args,
                    ok=bool(ok),
                    result=json.loads(result) if result is not None else None,
                    error=_json_object(error) if error is not None else None,
                    reward=reward,
                )
                for seq, tool, args, ok, result, error, reward in rows
            ]
        except (TypeError, ValueError, RecursionError):
            raise InvalidArgument(
                f"{path}: its record of calls is damaged (not JSON)", error="not_an_episode"
            ) from None
        if not all(isinstance(role, str) and isinstance(content, str) for role, content in messages):
            raise InvalidArgument(f"{path}: its record of messages is damaged", error="not_an_episode")
        return cls(path, *head, calls=calls, messages=[(role, content) for role, content in messages])


def _json_object(text: Any) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


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
    assertion_share: float | None = None  # the share of scored assertions that hold
    assertions: list[AssertionResult] = field(default_factory=list)
    db_credit: float = 0.0  # the row diff's own credit
    outcome_credit: float = 0.0  # the row diff, the ending call and the checks (see the module docstring)
    text_match: str = "facts"
    gold_variant: int = 0  # which gold the episode was graded against (0: the gold as written)

    def metrics(self) -> dict[str, float]:
        """The grade's numbers, flat, for a harness to record and an evaluation to average: the reward,
        the row diff, the outcome, completion, the share of checks passed, and, where the task has them,
        the shaped reward, the assertion share and each rubric component (``rubric.<name>``)."""
        counted = [c for c in self.checks if not c.skipped]
        found = {
            "reward": self.reward,
            "db_match": float(self.db_match),
            "db_credit": self.db_credit,
            "outcome_credit": self.outcome_credit,
            "completed": float(self.completed),
            "checks_passed": sum(bool(c.passed) for c in counted) / len(counted) if counted else 1.0,
            "steps": float(self.steps),
        }
        optional = {
            "shaped_reward": self.shaped_reward,
            "rubric_reward": self.rubric_reward,
            "assertion_share": self.assertion_share,
        }
        found |= {key: value for key, value in optional.items() if value is not None}
        found |= {f"rubric.{c.name}": c.score for c in self.rubric if c.score is not None}
        return found

    @property
    def task_completed_correctly(self) -> bool | None:
        """With assertions: whether every scored one holds and nothing else differs (reward 1)."""
        return None if self.assertion_share is None else self.reward == 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "episode_db": self.episode_db,
            "reward_mode": self.reward_mode,
            "reward": self.reward,
            "partial_credit": self.partial_credit,
            "db_match": self.db_match,
            "db_credit": self.db_credit,
            "outcome_credit": self.outcome_credit,
            "text_match": self.text_match,
            "gold_variant": self.gold_variant,
            "checks": [c.to_dict() for c in self.checks],
            "diff": [d.to_dict() for d in self.diff.differences],
            "steps": self.steps,
            "completed": self.completed,
            "answer": self.answer,
            "shaped_reward": self.shaped_reward,
            "rubric_reward": self.rubric_reward,
            "rubric": [c.to_dict() for c in self.rubric],
            "judgments": [asdict(j) for j in self.judgments],
            "assertion_share": self.assertion_share,
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


def _task_played(episode: EpisodeFile, named: Task) -> Task | None:
    """The task an episode was played on when it is not the one its file names (found by the task hash
    the file keeps); None when it is, or when no task has that hash (the task file changed since)."""
    if episode.task_hash == named.hash:
        return None
    return next((t for t in all_tasks() if t.hash == episode.task_hash and t.id != named.id), None)


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


TEXT_JUDGE = (
    "A free-text field an AI agent wrote into a business system is compared with a reference text written "
    "for the same task. Wording does not matter; content does. Answer good if the agent's text conveys "
    "everything essential the reference conveys (ids, names, numbers, dates, decisions) and contradicts "
    "nothing in it; acceptable if it conveys the essentials but is vague or adds harmless detail; poor if it "
    "leaves out or contradicts something essential, or is about something else."
)


def _text_judge(config: JudgeConfig, judgments: list[Judgment]) -> Any:
    """A text comparison by ``config``'s model; each verdict is added to ``judgments``."""

    def judge(cell: CellKey, expected: str, actual: str, facts: list[Any]) -> tuple[bool, str]:
        table, key, column = cell
        required = f"\nIt must state: {json.dumps(facts, ensure_ascii=False)}" if facts else ""
        material = f"REFERENCE: {expected}{required}\nAGENT'S TEXT: {actual}"
        try:
            verdict, reasoning = ask(config, TEXT_JUDGE, material)
        except JudgeError as exc:  # not the agent's fault: fall back to the facts
            return not missing_facts(actual, facts), f"the judge failed ({exc}); graded by facts"
        key_text = "/".join(str(k) for k in key)
        judgments.append(Judgment(f"text:{table}.{column}", key_text, verdict, VERDICTS[verdict], reasoning))
        return verdict != "poor", f"{verdict}: {reasoning}"

    return judge


def check_text_match(text_match: str, judge: JudgeConfig | None) -> None:
    """Refuse an unknown text-match mode, or judge mode without a judge model."""
    if text_match not in TEXT_MATCH_MODES:
        raise InvalidArgument(f"text match must be one of {', '.join(TEXT_MATCH_MODES)}", error="invalid_text_match")
    if text_match == "judge" and judge is None:
        raise InvalidArgument("--text-match judge needs a judge model (--judge-model)", error="no_judge")


def diff_against_gold(
    task: Task,
    episode: Path,
    snapshot: Path,
    full: bool = False,
    text_match: str = "facts",
    judge: JudgeConfig | None = None,
    judgments: list[Judgment] | None = None,
    connection: sqlite3.Connection | None = None,
) -> tuple[int, DiffResult]:
    """The episode diffed against the gold it comes closest to: (which gold, its diff).

    Every accepted alternative is tried with facts (or exact text); the closest is then diffed
    with the judge when one grades text. ``connection``: one open on the episode, to read it through."""
    check_text_match(text_match, judge)
    tables = get_world(task.world).tables
    pairing = "exact" if text_match == "exact" else "facts"
    best: tuple[int, int, DiffResult, Path, TextGrading] | None = None
    for index, calls in enumerate(variants(task)):
        gold = gold_database(task, snapshot, index)
        text = TextGrading(pairing, text_facts(task, gold, calls))
        result = diff_databases(gold, episode, tables, base=snapshot, full=full, text=text, connection=connection)
        if best is None or len(result.differences) < best[1]:
            best = (index, len(result.differences), result, gold, text)
        if result.match:
            break
    assert best is not None
    index, _, result, gold, text = best
    if text_match == "judge" and judge is not None:
        graded = TextGrading("judge", text.facts, _text_judge(judge, judgments if judgments is not None else []))
        result = diff_databases(gold, episode, tables, base=snapshot, full=full, text=graded, connection=connection)
    return index, result


def outcome_credit(difference: DiffResult, completed: bool, checks: list[CheckResult]) -> float:
    """The share of the outcome that is right (see the module docstring)."""
    counted = [c for c in checks if not c.skipped]
    right = difference.achieved + completed + sum(bool(c.passed) for c in counted)
    total = difference.expected + 1 + len(counted)
    return round(min(1.0, max(0.0, (right - difference.unexpected) / total)), 6)


def grade(
    path: Path | str,
    reward_mode: str | None = None,
    task: Task | None = None,
    full: bool = False,
    judge: JudgeConfig | None = None,
    text_match: str = "facts",
) -> GradeResult:
    """Grade an episode file against its task's gold replay (the registered task, unless one is given).

    ``full`` diffs by scanning every table rather than by the changed keys (same result, slower).
    ``text_match`` grades free text by its facts (default), exactly, or by the judge.
    With a ``judge``, judge components are graded and the verdicts written into the episode file.
    """
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"{path}: no such file", error="not_an_episode")
    try:
        connection = open_readonly(path)  # the episode is read through one connection: each open parses its schema
    except sqlite3.Error as exc:
        raise InvalidArgument(f"{path}: not an episode file ({exc})", error="not_an_episode") from None
    try:
        return _grade(path, connection, reward_mode, task, full, judge, text_match)
    finally:
        connection.close()


def _grade(
    path: Path,
    connection: sqlite3.Connection,
    reward_mode: str | None,
    task: Task | None,
    full: bool,
    judge: JudgeConfig | None,
    text_match: str,
) -> GradeResult:
    episode = EpisodeFile.read(path, connection)
    if task is None:
        task = get_task(episode.task)
        played = _task_played(episode, task)
        if played is not None:
            raise InvalidArgument(
                f"{path} names task {episode.task}, but was played on {played.id} (its task hash): its task id was "
                f"changed; to grade it as {played.id}, name that task (grade --task {played.id})",
                error="task_mismatch",
            )
    elif task.id != episode.task and task.hash != episode.task_hash:
        raise InvalidArgument(f"{path} is an episode of {episode.task}, not of {task.id}", error="wrong_task")
    mode = check_reward_mode(task, reward_mode)
    warnings = []
    if episode.task_hash != task.hash:
        warnings.append("the task file changed since this episode ran; graded against the current task")
    snapshot = snapshot_for(task, episode.snapshot_hash, episode.scale)
    judgments: list[Judgment] = []
    variant, difference = diff_against_gold(
        task, episode.path, snapshot, full, text_match, judge, judgments, connection
    )
    if difference.scanned_because:
        why = difference.scanned_because
        warnings.append(f"the episode's change log was tampered with ({why}): graded by a full scan")
    gold = gold_database(task, snapshot, variant)
    played = Played(connection, episode.answer, episode.calls, episode.messages)
    checks = [run_check(c, played, judge, judgments) for c in task.checks]
    skipped = [c.name for c in checks if c.skipped]
    if skipped:
        warnings.append(f"checks skipped, not counted: {', '.join(skipped)} (grade with a judge model to count them)")
    completed = episode.status == "finished"
    outcome = outcome_credit(difference, completed, checks)
    shaped = shaped_reward(task, episode.calls)
    rubric_reward, rubric = (
        grade_rubric(rubric_of(task), episode.path, gold, task.actor, judge, judgments, connection)
        if rubric_of(task)
        else (None, [])
    )
    if judge is not None and judgments:
        record_judgments(episode.path, judge, judgments)
    world_tables = get_world(task.world).tables
    share, assertions = (
        grade_assertions(task.assertions, snapshot, episode.path, world_tables, connection)
        if task.assertions
        else (None, [])
    )
    partial = {
        "default": outcome,
        "shaped": float(shaped or 0.0),
        "rubric": float(rubric_reward or 0.0),
        "assertions": float(share or 0.0),
    }[mode]
    right = difference.match and completed and all(c.passed for c in checks if not c.skipped)
    reward = float(right) if mode == "default" else min(partial, outcome)
    return GradeResult(
        task=task.id,
        episode_db=str(episode.path),
        reward_mode=mode,
        reward=reward,
        db_match=int(difference.match),
        partial_credit=partial,
        checks=checks,
        diff=difference,
        steps=len(episode.calls),
        completed=completed,
        answer=episode.answer,
        shaped_reward=shaped,
        rubric_reward=rubric_reward,
        rubric=rubric,
        judgments=judgments,
        warnings=warnings,
        assertion_share=share,
        assertions=assertions,
        db_credit=difference.partial_credit,
        outcome_credit=outcome,
        text_match=text_match,
        gold_variant=variant,
    )
