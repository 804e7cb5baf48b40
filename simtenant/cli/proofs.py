"""`simtenant validate` and `mutate`: prove every task, and that its reward moves with the outcome."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape
from rich.table import Table

from ..evaluation.runs import process_context
from ..grader.mutation import CATCH_RATE
from ..grader.validate import validate_task
from ..world import get_task, get_world, worlds
from .common import (
    JsonFlag,
    _print_json,
    _short,
    command,
    console,
    show_table,
)

Report = TypeVar("Report")
CORES = os.cpu_count() or 1
Workers = Annotated[int, typer.Option(min=1, help="Worker processes (tasks are proven in parallel)")]


def _chosen(names: list[str] | None) -> list[str]:
    """The task ids named (worlds or world/name), in order."""
    chosen = [[get_task(n)] if "/" in n else list(get_world(n).tasks.values()) for n in names or list(worlds())]
    return [t.id for tasks in chosen for t in tasks]


def _validate_one(task_id: str) -> Any:
    return validate_task(get_task(task_id))


def _mutate_one(task_id: str) -> Any:
    from ..grader.mutation import mutate as mutate_task

    return mutate_task(get_task(task_id))


def _prove(prove: Callable[[str], Report], task_ids: list[str], workers: int) -> list[Report]:
    """Each task's proof, in the tasks' order; in ``workers`` forked processes when there are several
    (each task is proven on its own copies, so the reports are the same either way)."""
    if workers <= 1 or len(task_ids) <= 1:
        return [prove(t) for t in task_ids]
    with ProcessPoolExecutor(max_workers=min(workers, len(task_ids)), mp_context=process_context()) as pool:
        return list(pool.map(prove, task_ids, chunksize=4))


@command()
def validate(
    world: Annotated[
        list[str] | None, typer.Argument(help="Worlds or task ids (world/name) to validate (all by default)")
    ] = None,
    json_output: JsonFlag = False,
    workers: Workers = CORES,
) -> None:
    """Prove every task: gold calls succeed, gold scores 1, the untouched world 0, replays identical,
    paraphrased free texts score 1 and texts missing a fact below 1 (reworded: paraphrased golds +
    fact-missing texts played); assertions true before the agent acts must be guards."""
    reports = _prove(_validate_one, _chosen(world), workers)
    if json_output:
        _print_json({"ok": all(r.ok for r in reports), "tasks": [r.to_dict() for r in reports]})
    else:
        table = Table(
            "task",
            "gold",
            "shaped",
            "rubric",
            "assertions",
            "guards",
            "noop",
            "identical",
            "reworded",
            "ok",
            title="validate",
        )
        for r in reports:
            table.add_row(
                r.task,
                _short(r.gold_reward),
                _short(r.shaped_reward) or "-",
                _short(r.rubric_reward) or "-",
                _short(r.assertion_reward) or "-",
                str(len(r.guards)) if r.guards else "-",
                _short(r.noop_reward),
                _short(r.identical_replays),
                f"{r.paraphrases}+{r.missing}",
                "[green]ok[/green]" if r.ok else "[red]no[/red]",
            )
        show_table(table)
        for r in reports:
            for problem in r.problems:
                console.print(f"[red]{escape(r.task)}[/red]: {escape(problem)}", highlight=False)
            for warning in r.warnings:
                console.print(f"[yellow]{escape(r.task)}[/yellow]: warning: {escape(warning)}", highlight=False)
        console.print(
            f"{sum(r.ok for r in reports)} of {len(reports)} tasks valid; "
            f"{sum(r.paraphrases for r in reports)} paraphrased golds scored 1, "
            f"{sum(r.missing for r in reports)} texts missing a fact scored below 1",
            highlight=False,
        )
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


@command()
def mutate(
    world: Annotated[
        list[str] | None, typer.Argument(help="Worlds or task ids (world/name) to mutate (all by default)")
    ] = None,
    json_output: JsonFlag = False,
    workers: Workers = CORES,
) -> None:
    """Change one thing in each gold (a value, a dropped or extra write) and check the reward catches it:
    fails when a world catches less than 95% of its mutants or a benign variant scores below 1."""
    reports = _prove(_mutate_one, _chosen(world), workers)
    by_world: dict[str, list[Any]] = {}
    for report in reports:
        by_world.setdefault(report.task.split("/")[0], []).append(report)
    rows = []
    for name, group in by_world.items():
        mutants = sum(len(r.mutants) for r in group)
        missed = sum(len(r.missed) for r in group)
        rows.append(
            {
                "world": name,
                "tasks": len(group),
                "mutants": mutants,
                "caught": mutants - missed,
                "catch_rate": round((mutants - missed) / mutants, 4) if mutants else None,
                "benign": sum(len(r.benign) for r in group),
                "benign_below_1": sum(len(r.benign_failures) for r in group),
            }
        )
    misses = [
        {"task": r.task, "kind": o.variant.kind, "where": o.variant.where, "reward": o.reward}
        for r in reports
        for o in r.missed + r.benign_failures
    ]
    if json_output:
        _print_json({"worlds": rows, "not_caught_or_benign_below_1": misses})
    else:
        table = Table("world", "tasks", "mutants", "caught", "catch rate", "benign", "benign < 1", title="mutate")
        for row in rows:
            rate = "-" if row["catch_rate"] is None else f"{row['catch_rate']:.1%}"
            table.add_row(
                row["world"],
                *(str(row[k]) for k in ("tasks", "mutants", "caught")),
                rate,
                str(row["benign"]),
                str(row["benign_below_1"]),
            )
        show_table(table)
        for miss in misses:
            label = "benign, scored" if miss["kind"] in ("reorder", "extra_read", "paraphrase") else "not caught"
            console.print(
                f"{escape(miss['task'])}: {label} {miss['reward']:g}: {escape(miss['where'])}", highlight=False
            )
    if any(r["benign_below_1"] or (r["catch_rate"] is not None and r["catch_rate"] < CATCH_RATE) for r in rows):
        raise typer.Exit(1)
