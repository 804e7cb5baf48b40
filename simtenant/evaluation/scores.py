"""Scores of a run: which episodes count and which succeeded, pass^k and pass@k, the summary."""

from __future__ import annotations

import json
from collections.abc import Iterator
from math import comb
from pathlib import Path
from typing import Any

from ..errors import NotFound
from .runs import RESULTS, SUMMARY, read_config, read_results


def is_valid(record: dict[str, Any]) -> bool:
    """Graded, with its infrastructure sound: an episode that counts."""
    return bool(record.get("infra_ok", True)) and record.get("reward") is not None


def succeeded(record: dict[str, Any]) -> bool:
    """A valid episode with reward 1."""
    return is_valid(record) and float(record["reward"]) >= 1.0 - 1e-9


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that k trials drawn from n, c of them successes, all succeed: C(c,k)/C(n,k)."""
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k trials drawn from n succeeds: 1 − C(n−c,k)/C(n,k)."""
    return 1.0 - comb(n - c, k) / comb(n, k)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def _mean_of(records: list[dict[str, Any]], key: str) -> float | None:
    """The mean of a grade field over records that have it (older records may not)."""
    return _mean([float(r[key]) for r in records if r.get(key) is not None])


def _completed(record: dict[str, Any]) -> float:
    return float(bool(record.get("episode_completed", record.get("completed"))))


def metric_means(records: list[dict[str, Any]]) -> dict[str, float | None]:
    """The mean of each of the grade's numbers (``GradeResult.metrics``: db_match, checks passed, each rubric
    component, the assertion share, ...) over the records that have it."""
    keys = sorted({key for r in records for key in r.get("metrics") or {}} - {"reward", "steps"})
    return {key: _mean([float(r["metrics"][key]) for r in records if key in (r.get("metrics") or {})]) for key in keys}


def token_totals(records: list[dict[str, Any]]) -> dict[str, int]:
    """The tokens the agents (and model-played operators) spent, summed over the records that report them."""
    totals = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    for record in records:
        for usage in (record.get("tokens"), record.get("user_tokens")):
            for key in totals:
                totals[key] += int((usage or {}).get(key) or 0)
    return totals


def summarize(records: list[dict[str, Any]], trials: int | None = None) -> dict[str, Any]:
    """Episodes, infra failures, mean reward, completion and steps, the grade's numbers' means, tokens,
    pass^k and pass@k for k = 1..trials, per task (with its reward mode and its episode files)."""
    per_task: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(records, key=lambda r: (r["task"], int(r["trial"]))):
        per_task.setdefault(record["task"], []).append(record)
    valid = [r for r in records if is_valid(r)]
    most = max((len(rs) for rs in per_task.values()), default=0)
    top = max(trials or 0, most)
    counts = {
        task: (len(ok), sum(succeeded(r) for r in ok))
        for task, rs in per_task.items()
        for ok in [[r for r in rs if is_valid(r)]]
    }
    pass_hat: dict[str, float | None] = {}
    pass_at: dict[str, float | None] = {}
    tasks_at: dict[str, int] = {}
    for k in range(1, top + 1):
        eligible = [(n, c) for n, c in counts.values() if n >= k]
        tasks_at[str(k)] = len(eligible)
        pass_hat[str(k)] = _mean([pass_hat_k(n, c, k) for n, c in eligible])
        pass_at[str(k)] = _mean([pass_at_k(n, c, k) for n, c in eligible])
    return {
        "episodes": len(records),
        "valid_episodes": len(valid),
        "infra_failures": len(records) - len(valid),
        "mean_reward": _mean([float(r["reward"]) for r in valid]),
        "mean_completion": _mean([_completed(r) for r in valid]),
        "mean_partial_credit": _mean_of(valid, "partial_credit"),
        "mean_db_credit": _mean_of(valid, "db_credit"),
        "mean_steps": _mean([float(r["steps"]) for r in valid if r.get("steps") is not None]),
        "metric_means": metric_means(valid),
        "tokens": token_totals(records),
        "trials": top,
        "pass_hat_k": pass_hat,
        "pass_at_k": pass_at,
        "tasks_at_k": tasks_at,
        "tasks": [
            {
                "task": task,
                "reward_mode": next((r["reward_mode"] for r in rs if r.get("reward_mode")), None),
                "trials": counts[task][0],
                "successes": counts[task][1],
                "mean_reward": _mean([float(r["reward"]) for r in rs if is_valid(r)]),
                "mean_completion": _mean([_completed(r) for r in rs if is_valid(r)]),
                "mean_partial_credit": _mean_of([r for r in rs if is_valid(r)], "partial_credit"),
                "mean_db_credit": _mean_of([r for r in rs if is_valid(r)], "db_credit"),
                "infra_failures": len(rs) - counts[task][0],
                "results": [
                    {
                        "trial": int(r["trial"]),
                        "reward": r.get("reward"),
                        "infra_ok": is_valid(r),
                        "episode": r.get("episode_db"),
                    }
                    for r in rs
                ],
            }
            for task, rs in per_task.items()
        ],
    }


def write_summary(out: Path) -> dict[str, Any]:
    """Summarise a run folder from its results.jsonl and store it as summary.json."""
    out = Path(out)
    if not (out / RESULTS).is_file():
        raise NotFound(f"{out}: not an eval run (no {RESULTS})", error="not_a_run")
    config = read_config(out)
    summary = {"run": str(out), "agent": config.get("agent"), **summarize(read_results(out), config.get("trials"))}
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def iter_k(summary: dict[str, Any]) -> Iterator[tuple[int, float | None, float | None, int]]:
    for k in range(1, summary["trials"] + 1):
        key = str(k)
        yield k, summary["pass_hat_k"][key], summary["pass_at_k"][key], summary["tasks_at_k"][key]
