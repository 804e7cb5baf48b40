"""Batch evaluation: many tasks × trials played in worker processes, graded, summarised and reported.

A run is a folder: ``eval.json`` (what was asked), ``episodes/<task>__t<trial>.db`` (one episode file
each), ``results.jsonl`` (one graded line per finished episode, appended as it finishes, so a run that
stops can be resumed), ``summary.json`` and ``report.html``. Every episode is played by
``agents.run`` and graded by ``grader.grade``: the same episode object and dispatcher as ``simtenant run``.

pass^k (every one of k trials succeeds) and pass@k (at least one does) are estimated per task from its
n valid trials with c successes, unbiasedly, as C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k), then averaged
over the tasks that have at least k valid trials. Episodes whose infrastructure failed (the agent or
its provider raised, or the agent said so in its sidecar) are counted but left out of every score.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from .report import render_report, write_report
from .runs import (
    CONFIG,
    EPISODES,
    REPORT,
    RESULTS,
    SUMMARY,
    Job,
    WorkerDied,
    check_options,
    episode_name,
    execute_local,
    locked,
    match_tasks,
    play_and_grade,
    prepare,
    read_config,
    read_results,
)
from .scores import is_valid, iter_k, pass_at_k, pass_hat_k, succeeded, summarize, write_summary


def execute(
    jobs: list[Job],
    out: Path,
    workers: int,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    display: AbstractContextManager[Any] | None = None,
    *,
    backend: str = "local",
    address: str | None = None,
) -> None:
    """Play the jobs and append each record to results.jsonl as it finishes: in ``workers`` processes,
    or with ``backend`` "ray" as Ray tasks (on a local Ray instance, or on the cluster at ``address``)."""
    if backend == "ray":
        from .ray import execute_ray

        execute_ray(jobs, out, workers, on_result=on_result, display=display, address=address)
    else:
        execute_local(jobs, out, workers, on_result=on_result, display=display)


__all__ = [
    "CONFIG",
    "EPISODES",
    "REPORT",
    "RESULTS",
    "SUMMARY",
    "Job",
    "WorkerDied",
    "check_options",
    "episode_name",
    "execute",
    "is_valid",
    "iter_k",
    "locked",
    "match_tasks",
    "pass_at_k",
    "pass_hat_k",
    "play_and_grade",
    "prepare",
    "read_config",
    "read_results",
    "render_report",
    "succeeded",
    "summarize",
    "write_report",
    "write_summary",
]
