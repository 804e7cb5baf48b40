"""Proving tasks: every gold call succeeds, gold scores 1 (under every reward the task defines),
the untouched world scores 0, two replays are byte-identical, and the reward follows content, not
wording: every free text of the gold has correct paraphrases that score 1 in its place, and texts
that leave out a required fact score below 1. Assertions that hold before the agent acts must be
guards; answer and told-user facts should name a record (an id or a number)."""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import seeds
from ..db import open_readonly
from ..errors import SimtenantError
from ..facts import names_a_record
from ..task import AnswerCheck, Call, Task, TextSpec, ToldUserCheck
from ..world import DEFAULT_MAX_STEPS, all_tasks, get_world
from .assertions import holds
from .gold import FreeText, free_texts, gold_database, parse_path, set_path
from .grade import grade, rubric_of

PARAPHRASES = 3  # the fewest correct rewordings each free text of a gold must come with


@dataclass
class TaskValidation:
    task: str
    problems: list[str] = field(default_factory=list)
    gold_reward: float | None = None
    shaped_reward: float | None = None
    rubric_reward: float | None = None
    assertion_reward: float | None = None
    noop_reward: float | None = None
    identical_replays: bool | None = None
    guards: list[str] = field(default_factory=list)
    paraphrases: int = 0  # paraphrased golds played (each must score 1)
    missing: int = 0  # texts missing a fact played (each must score below 1)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "ok": self.ok,
            "gold_reward": self.gold_reward,
            "shaped_reward": self.shaped_reward,
            "rubric_reward": self.rubric_reward,
            "assertion_reward": self.assertion_reward,
            "noop_reward": self.noop_reward,
            "identical_replays": self.identical_replays,
            "guards": self.guards,
            "paraphrases": self.paraphrases,
            "missing": self.missing,
            "problems": self.problems,
            "warnings": self.warnings,
        }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _scope_problems(task: Task, snapshot: Path) -> list[str]:
    """The scope a task states, checked against the world's own answer for its acting user."""
    query = get_world(task.world).scope_query
    if not task.scope:
        return []
    if query is None:
        return [f"the task states a scope, but world {task.world} has no scope_query to check it"]
    connection = open_readonly(snapshot)
    try:
        actual = sorted(str(org) for (org,) in connection.execute(query, {"actor": task.actor}))
    finally:
        connection.close()
    if sorted(task.scope) != actual:
        return [
            f"the task states the scope {', '.join(sorted(task.scope))}, but {task.actor} holds roles in "
            f"{', '.join(actual) or 'none'}"
        ]
    return []


def _guard_problems(task: Task, snapshot: Path, report: TaskValidation) -> list[str]:
    """Assertions that hold before the agent acts must be guards, and guards must hold then."""
    tables = {t.name: t for t in get_world(task.world).tables}
    connection = open_readonly(snapshot)
    connection.row_factory = sqlite3.Row
    problems = []
    try:
        for assertion in task.assertions:
            held, _ = holds(assertion, connection, tables)
            if assertion.guard:
                report.guards.append(assertion.name)
                if not held:
                    problems.append(f"guard {assertion.name} does not hold in the untouched world")
            elif held:
                problems.append(
                    f"assertion {assertion.name} already holds before the agent acts: tighten it, or mark it "
                    "guard if it guards a record the agent could break"
                )
    finally:
        connection.close()
    return problems


def _fact_warnings(task: Task) -> list[str]:
    return [
        f"check {c.name}: its facts name no record (no id or number)"
        for c in task.checks
        if isinstance(c, AnswerCheck | ToldUserCheck) and c.facts and not names_a_record(c.facts)
    ]


def _with_text(task: Task, text: FreeText, value: str) -> list[Call]:
    calls = [Call(tool=c.tool, args=c.args) for c in task.gold]
    call = calls[text.call]
    calls[text.call] = Call(tool=call.tool, args=set_path(call.args, parse_path(text.path), value))
    return calls


def _text_problems(task: Task, texts: list[FreeText]) -> list[str]:
    """Every free text comes with paraphrases (and, where it must state something, a text that does not)."""
    problems = []
    found = {(t.call, t.path) for t in texts}
    for index, call in enumerate(task.gold):
        for path in call.text:
            if (index, path) not in found:
                problems.append(f"gold call {index + 1} ({call.tool}): {path} is not a free text it writes")
    short = [
        f"{t.call + 1}:{t.path}"
        for t in texts
        if len(task.gold[t.call].text.get(t.path, _NO_SPEC).paraphrases) < PARAPHRASES
    ]
    if short:
        problems.append(
            f"free texts with fewer than {PARAPHRASES} paraphrases (gold call:argument): {', '.join(short)}"
        )
    graded = any(task.gold[t.call].text.get(t.path, _NO_SPEC).facts for t in texts) or any(
        isinstance(c, AnswerCheck | ToldUserCheck) for c in task.checks
    )
    if graded and not any(task.gold[t.call].text.get(t.path, _NO_SPEC).missing for t in texts):
        problems.append("no text that leaves out a required fact (missing:) to prove the facts are graded")
    return problems


def _play(task: Task, calls: list[Call], path: Path) -> Path:
    from ..agents import play
    from ..episode import Episode

    with Episode.start(task, path) as episode:
        play(episode, calls)
    return path


def _wording_problems(task: Task, texts: list[FreeText], work: Path, report: TaskValidation) -> list[str]:
    """Paraphrased golds score 1; a text missing a fact scores below 1."""
    problems = []
    specs = [(t, task.gold[t.call].text[t.path]) for t in texts if t.path in task.gold[t.call].text]
    rounds = max((len(spec.paraphrases) for _, spec in specs), default=0)
    for number in range(rounds):
        calls = [Call(tool=c.tool, args=c.args) for c in task.gold]
        for text, spec in specs:
            if spec.paraphrases:
                value = spec.paraphrases[number % len(spec.paraphrases)]
                call = calls[text.call]
                calls[text.call] = Call(tool=call.tool, args=set_path(call.args, parse_path(text.path), value))
        result = grade(_play(task, calls, work / f"paraphrase-{number}.db"), None, task)
        report.paraphrases += 1
        if result.reward != 1.0:
            problems.append(f"paraphrase {number + 1} scores {result.reward}: {_why(result)}")
    for text, spec in specs:
        for number, value in enumerate(spec.missing):
            result = grade(
                _play(task, _with_text(task, text, value), work / f"missing-{text.call}-{text.path}-{number}.db"),
                None,
                task,
            )
            report.missing += 1
            if result.reward >= 1.0:
                problems.append(f"gold call {text.call + 1} {text.path}: missing text {number + 1} still scores 1")
    return problems


def _why(result: Any) -> str:
    """What kept a grade below 1, in one line."""
    parts = [
        f"{d.table} {d.key} {d.column or ''} ({d.detail or d.kind})".replace("  ", " ") for d in result.diff.differences
    ]
    parts += [f"check {c.name}: {c.detail}" for c in result.checks if c.passed is False]
    parts += [f"assertion {a.name}: {a.detail}" for a in result.assertions if a.scored and not a.holds]
    parts += [f"rubric {c.name}: {c.detail}" for c in result.rubric if c.score is not None and c.score < 1 and c.weight]
    if not result.completed:
        parts.append("the episode did not end")
    return "; ".join(parts[:6]) or "?"


_NO_SPEC = TextSpec()


def _rule_problems(task: Task) -> list[str]:
    """What the rules of every door forbid: a gold that does not fit the turn budget, and an alias another
    task has too."""
    problems = []
    budget = task.max_steps or DEFAULT_MAX_STEPS
    if len(task.gold) > budget:
        problems.append(f"the gold takes {len(task.gold)} steps; the turn budget is {budget} (max_steps)")
    for alias in task.aliases:
        others = [t.id for t in all_tasks() if alias in t.aliases and t.id != task.id]
        if others:
            problems.append(f"alias {alias!r} is {', '.join(others)}'s too")
    return problems


def validate_task(task: Task, wording: bool = True) -> TaskValidation:
    """Prove one task; ``wording`` also plays its paraphrases and fact-missing texts."""
    from ..agents import run

    report = TaskValidation(task.id)
    report.warnings.extend(_fact_warnings(task))
    report.problems.extend(_rule_problems(task))
    with tempfile.TemporaryDirectory(prefix="simtenant-validate-") as tmp:
        work = Path(tmp)
        try:
            snapshot = seeds.task_snapshot(get_world(task.world), task.seed_changes)
            report.problems.extend(_scope_problems(task, snapshot))
            report.problems.extend(_guard_problems(task, snapshot, report))
            gold = gold_database(task, snapshot)
            texts = free_texts(task, gold)
            report.problems.extend(_text_problems(task, texts))
            first = run(task, "oracle", work / "oracle-1.db")
            second = run(task, "oracle", work / "oracle-2.db")
            noop = run(task, "noop", work / "noop.db")
            report.gold_reward = grade(first, "default", task).reward
            if task.shaped is not None:
                report.shaped_reward = grade(first, "shaped", task).reward
            if rubric_of(task):
                report.rubric_reward = grade(first, "rubric", task).reward
            if task.assertions:
                report.assertion_reward = grade(first, "assertions", task).reward
            report.noop_reward = grade(noop, None, task).reward  # under the task's own reward
            report.identical_replays = _sha256(first) == _sha256(second)
            if wording:
                report.problems.extend(_wording_problems(task, texts, work, report))
        except SimtenantError as exc:
            report.problems.append(f"{exc.error}: {exc.message}")
            return report
    if report.gold_reward != 1.0:
        report.problems.append(f"gold replay scores {report.gold_reward}, not 1")
    if report.rubric_reward not in (None, 1.0):
        report.problems.append(f"gold replay scores {report.rubric_reward} under the rubric, not 1")
    if report.assertion_reward not in (None, 1.0):
        report.problems.append(f"gold replay meets {report.assertion_reward} of the assertions, not all")
    if report.shaped_reward not in (None, 1.0):
        report.problems.append(f"gold replay scores {report.shaped_reward} under the shaped reward, not 1")
    if report.noop_reward != 0.0:
        report.problems.append(f"the untouched world already scores {report.noop_reward}: the task asks for nothing")
    if not report.identical_replays:
        report.problems.append("two replays of the gold calls gave different database bytes")
    return report
