"""Rubric rewards: weighted components computed from the final database against the gold one.

The weights are data (the world's ``rubric`` or the task's own). Each component is reported
with its score; skipped components (a judge with no judge configured, or nothing to grade)
leave the reward, and the remaining weights are renormalised. A component of weight 0 is a
metric: reported, never counted.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..db import file_identity, reading, reading_unchanging, remembered
from ..errors import TaskError
from ..task import RubricComponent
from .judge import JudgeConfig, JudgeError, Judgment, judged


@dataclass(frozen=True)
class ComponentResult:
    name: str
    kind: str
    weight: float
    score: float | None  # None when skipped
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "weight": self.weight, "score": self.score, "detail": self.detail}


def _rows(
    database: sqlite3.Connection, query: str, actor: str | None, identity: tuple[Any, ...] | None = None
) -> dict[Any, Any]:
    """The query's rows as key → value; for a file that never changes (its ``identity`` given), read once."""
    if identity is not None:
        return remembered(identity, ("rubric", query, actor), lambda: _rows(database, query, actor))
    try:
        return {key: value for key, value in database.execute(query, {"actor": actor})}
    except (sqlite3.Error, ValueError) as exc:
        raise TaskError(f"rubric query failed: {exc}: {query}") from None


def _agree(expected: Any, actual: Any, tolerance: float) -> bool:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (expected, actual))
    if numbers:
        return abs(expected - actual) <= tolerance + 1e-9
    return expected == actual


def grade_component(
    component: RubricComponent,
    episode: sqlite3.Connection,
    gold: sqlite3.Connection,
    actor: str | None,
    judge: JudgeConfig | None = None,
    judgments: list[Judgment] | None = None,
    gold_identity: tuple[Any, ...] | None = None,
) -> ComponentResult:
    """One component's score; ``gold_identity``: the gold file's (``db.file_identity``), whose rows are then
    read once for every episode graded against it."""

    def result(score: float | None, detail: str) -> ComponentResult:
        return ComponentResult(component.name, component.kind, component.weight, score, detail)

    if component.kind == "judge" and judge is None:
        return result(None, "skipped: no judge configured")
    if component.query is None:
        raise TaskError(f"rubric component {component.name} needs a query")
    expected = _rows(gold, component.query, actor, gold_identity)
    if not expected:
        return result(None, "skipped: nothing to grade")
    actual = _rows(episode, component.query, actor)
    if component.kind == "judge":
        assert judge is not None
        try:
            found = judged(judge, component.name, component.prompt or "", {k: actual.get(k) or "" for k in expected})
        except JudgeError as exc:
            return result(None, f"skipped: the judge failed ({exc})")
        if judgments is not None:
            judgments.extend(found)
        verdicts = ", ".join(f"{j.key}={j.verdict}" for j in found)
        return result(round(sum(j.score for j in found) / len(found), 6), f"judge {judge.model}: {verdicts}")
    if component.kind == "agreement":
        right = [k for k, v in expected.items() if k in actual and _agree(v, actual[k], component.tolerance)]
        wrong = sorted(str(k) for k in expected if k not in right)
        detail = f"{len(right)} of {len(expected)} agree" + (f"; differ: {', '.join(wrong)}" if wrong else "")
        return result(round(len(right) / len(expected), 6), detail)
    scores = {k: min(1.0, max(0.0, float(actual.get(k) or 0.0))) for k in expected}
    low = sorted(f"{k}={v:g}" for k, v in scores.items() if v < 1.0)
    detail = f"mean of {len(scores)}" + (f"; below 1: {', '.join(low)}" if low else "")
    return result(round(sum(scores.values()) / len(scores), 6), detail)


def grade_rubric(
    components: list[RubricComponent],
    episode: Path,
    gold: Path,
    actor: str | None,
    judge: JudgeConfig | None = None,
    judgments: list[Judgment] | None = None,
    connection: sqlite3.Connection | None = None,
) -> tuple[float, list[ComponentResult]]:
    """The rubric reward (weighted mean of the counted components) and every component's result;
    a judge's verdicts are added to ``judgments``. The episode is read through ``connection`` where one
    is open on it."""
    with reading(episode, connection) as episode_db, reading_unchanging(gold) as gold_db:
        identity = file_identity(gold)
        results = [grade_component(c, episode_db, gold_db, actor, judge, judgments, identity) for c in components]
    counted = [r for r in results if r.score is not None and r.weight > 0]
    total_weight = sum(r.weight for r in counted)
    reward = sum(r.weight * r.score for r in counted) / total_weight if total_weight else 0.0  # type: ignore[operator]
    return round(reward, 6), results
