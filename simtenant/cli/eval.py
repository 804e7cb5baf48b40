"""`simtenant eval` (many tasks × trials in worker processes, graded into a run folder) and
`simtenant report` (its summary again, and a self-contained HTML report)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .. import evaluation
from ..errors import NotFound
from ..grader.grade import check_reward_mode
from ..world import of_kind
from .common import (
    Difficulty,
    JsonFlag,
    MaxSteps,
    RewardMode,
    Split,
    _print_json,
    command,
    console,
    show_table,
)

progress_console = Console(stderr=True)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def show_summary(summary: dict[str, Any]) -> None:
    """The summary of a run: totals (completion and tokens too), the means of the grade's numbers, pass^k /
    pass@k, and per task (with its reward mode)."""
    tokens = summary.get("tokens") or {}
    console.print(
        f"[bold]{escape(summary['run'])}[/bold]  agent {summary.get('agent') or '-'}  episodes {summary['episodes']}  "
        f"infra failures {summary['infra_failures']} (excluded)  mean reward {_num(summary['mean_reward'])}  "
        f"completed {_num(summary.get('mean_completion'))}  partial credit {_num(summary.get('mean_partial_credit'))}  "
        f"db credit {_num(summary.get('mean_db_credit'))}  mean steps {_num(summary['mean_steps'])}  "
        f"tokens {tokens.get('total_tokens', 0)}",
        highlight=False,
    )
    means = summary.get("metric_means") or {}
    if means:
        console.print("means: " + "  ".join(f"{key} {_num(value)}" for key, value in means.items()), highlight=False)
    scores = Table("k", "pass^k", "pass@k", "tasks", title="pass^k and pass@k")
    for k, hat, at, counted in evaluation.iter_k(summary):
        scores.add_row(str(k), _num(hat), _num(at), str(counted))
    show_table(scores)
    tasks = Table(title="tasks")
    for name in ("task", "reward", "trials", "successes", "mean reward", "completed", "partial credit", "db credit"):
        tasks.add_column(name)
    tasks.add_column("infra")
    for task in summary["tasks"]:
        colour = "green" if task["trials"] and task["successes"] == task["trials"] else "red"
        tasks.add_row(
            task["task"],
            task.get("reward_mode") or "-",
            str(task["trials"]),
            f"[{colour}]{task['successes']}[/{colour}]",
            _num(task["mean_reward"]),
            _num(task.get("mean_completion")),
            _num(task.get("mean_partial_credit")),
            _num(task.get("mean_db_credit")),
            str(task["infra_failures"] or ""),
        )
    show_table(tasks)


@command("eval")
def eval_command(
    tasks: Annotated[list[str], typer.Option("--tasks", help="Task ids or globs over them, e.g. 'itsm/*'; repeatable")],
    agent: Annotated[str, typer.Option(help="oracle, noop, replay or llm")] = "oracle",
    trials: Annotated[int, typer.Option(min=1, help="Trials of every task")] = 1,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes")] = os.cpu_count() or 1,
    out: Annotated[Path | None, typer.Option(help="The run folder (default runs/<time>-<agent>)")] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue a run: play only what it has not recorded")
    ] = False,
    actions: Annotated[Path | None, typer.Option(help="Replay file, for the replay agent")] = None,
    reward: RewardMode = None,
    model: Annotated[str | None, typer.Option(help="Agent option: the model")] = None,
    base_url: Annotated[str | None, typer.Option(help="Agent option: an OpenAI-compatible base URL")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Agent option: the variable holding the API key")] = None,
    max_steps: MaxSteps = None,
    user_model: Annotated[str | None, typer.Option(help="Agent option: a chat model plays the operator")] = None,
    user_base_url: Annotated[str | None, typer.Option(help="Agent option: the operator model's base URL")] = None,
    user_api_key_env: Annotated[
        str | None, typer.Option(help="Agent option: the operator model's API key variable")
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where runs are written when --out is not given")] = Path("runs"),
    backend: Annotated[
        str, typer.Option(help="local (worker processes) or ray (a Ray task per episode; pip install 'simtenant[ray]')")
    ] = "local",
    address: Annotated[
        str | None, typer.Option(help="With --backend ray: the cluster's address (default: a local Ray instance)")
    ] = None,
    split: Split = None,
    difficulty: Difficulty = None,
    json_output: JsonFlag = False,
) -> None:
    """Play tasks × trials in parallel, grade every episode into OUT/results.jsonl, and summarise."""
    from ..agents import check_agent
    from ..evaluation.ray import check_backend

    check_backend(backend, address)
    chosen = of_kind(evaluation.match_tasks(tasks), split, difficulty)
    if not chosen:
        raise NotFound(f"no task of {tasks} is of split {split} and difficulty {difficulty}", error="no_matching_tasks")
    check_agent(agent, actions)
    for task in chosen:
        check_reward_mode(task, reward)
    given = {
        "model": model,
        "base_url": base_url,
        "api_key_env": api_key_env,
        "max_steps": max_steps,
        "user_model": user_model,
        "user_base_url": user_base_url,
        "user_api_key_env": user_api_key_env,
    }
    options = evaluation.check_options(agent, given, chosen)
    if out is None:
        out = runs_dir / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{agent}-eval"
    with evaluation.locked(out):
        jobs = evaluation.prepare(
            out,
            chosen,
            trials,
            agent,
            resume,
            actions=actions,
            reward=reward,
            options=options,
            patterns=tasks if split is None and difficulty is None else [t.id for t in chosen],
        )
        skipped = len(chosen) * trials - len(jobs)
        if skipped:
            progress_console.print(f"resuming {out}: {skipped} episodes already recorded, {len(jobs)} to play")
        tally = {"done": 0, "passed": 0, "valid": 0, "errors": 0}
        progress = Progress(
            TextColumn("[bold]eval[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("pass {task.fields[rate]}"),
            TextColumn("errors {task.fields[errors]}"),
            TimeElapsedColumn(),
            console=progress_console,
        )
        bar = progress.add_task("eval", total=len(jobs), rate="-", errors=0)

        def finished(record: dict[str, Any]) -> None:
            tally["done"] += 1
            tally["valid"] += evaluation.is_valid(record)
            tally["passed"] += evaluation.succeeded(record)
            tally["errors"] += not evaluation.is_valid(record)
            rate = f"{tally['passed'] / tally['valid']:.0%}" if tally["valid"] else "-"
            progress.update(bar, advance=1, rate=rate, errors=tally["errors"])

        try:
            evaluation.execute(
                jobs, out, workers, on_result=finished, display=progress, backend=backend, address=address
            )
        except KeyboardInterrupt:
            progress_console.print(
                f"[yellow]interrupted[/yellow]: {tally['done']} of {len(jobs)} episodes recorded in {out}; "
                "run the same command with --resume to finish",
                highlight=False,
            )
            raise typer.Exit(130) from None
        summary = evaluation.write_summary(out)
    if json_output:
        return _print_json(summary)
    show_summary(summary)
    console.print(f"results in {out / evaluation.RESULTS}, summary in {out / evaluation.SUMMARY}", highlight=False)


@command("report")
def report_command(
    run: Annotated[Path, typer.Argument(help="A run folder written by `simtenant eval`")],
    json_output: JsonFlag = False,
) -> None:
    """Summarise an eval run again (from its results.jsonl) and write its report.html."""
    summary, path = evaluation.write_report(run)
    if json_output:
        return _print_json({**summary, "report": str(path)})
    show_summary(summary)
    console.print(f"report written to {path}", highlight=False)
