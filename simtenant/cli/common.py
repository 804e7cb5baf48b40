"""What every command shares: the Typer app, the consoles, the common options, the ``command``
decorator (structured errors, no traceback) and how an episode's grade is shown."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..errors import SimtenantError
from ..grader import GradeResult
from ..grader.judge import JudgeConfig

app = typer.Typer(help="A SQL-backed simulated enterprise tenant for tool-using agents.", no_args_is_help=True)
console = Console(soft_wrap=True)  # a long path or message stays one line (the terminal wraps it), whole in a pipe
errors = Console(stderr=True, soft_wrap=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a summary")]
Split = Annotated[str | None, typer.Option(help="Only tasks of this split: train or test")]
Difficulty = Annotated[str | None, typer.Option(help="Only tasks of this difficulty: easy, medium or hard")]
RewardMode = Annotated[
    str | None, typer.Option(help="default, shaped, rubric or assertions (the task's own reward mode by default)")
]
MaxSteps = Annotated[
    int | None,
    typer.Option(
        min=1, help="The turn budget of an episode (each tool call and message is a step): the task's, else 30"
    ),
]
JudgeModel = Annotated[
    str | None, typer.Option(help="Grade judge components with this model (any OpenAI-compatible endpoint)")
]
INFRA_FAILURE = 3  # the exit status of a run whose model endpoint failed (infra_ok false): the episode is kept
JudgeBaseUrl = Annotated[str | None, typer.Option(help="The judge endpoint's base URL (default: the SDK's)")]
JudgeKeyEnv = Annotated[str, typer.Option(help="Environment variable holding the judge's API key")]
FullFlag = Annotated[bool, typer.Option("--full", help="Diff by scanning every table, not just the changed rows")]
TextMatch = Annotated[
    str,
    typer.Option(
        "--text-match",
        help="Grade free text by the facts it must state (facts), exactly (exact), or by the judge model (judge)",
    ),
]


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _plain(cell: Any) -> str:
    return Text.from_markup(cell).plain if isinstance(cell, str) else str(cell)


def show_table(table: Table) -> None:
    """Print a listing. On a terminal: the table, its first column (the ids) never cut however narrow the
    terminal; into a pipe or a file: plain lines, one a row, its cells tab-separated, nothing cut (a titled
    table, a summary rather than a list, starts with its title and column names)."""
    if not console.is_terminal:
        lines = [f"# {table.title}", "\t".join(_plain(c.header) for c in table.columns)] if table.title else []
        rows = zip(*(c.cells for c in table.columns), strict=True)
        lines += ["\t".join(_plain(cell) for cell in row) for row in rows]
        console.file.write("".join(line + "\n" for line in lines))  # rich would expand the tabs
        return
    first = table.columns[0]
    first.no_wrap = True
    first.min_width = max((len(_plain(cell)) for cell in first.cells), default=0)
    console.print(table)


def command(name: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command whose structured errors print as such and exit 1, without a traceback."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except SimtenantError as exc:
                failure = exc
            except (typer.Exit, typer.Abort, click.exceptions.ClickException):
                raise
            except Exception as exc:  # the CLI never shows a traceback
                if os.environ.get("SIMTENANT_DEBUG"):
                    raise
                failure = SimtenantError(f"{type(exc).__name__}: {exc}")
            if kwargs.get("json_output"):
                _print_json({"error": failure.to_dict()})
            else:
                errors.print(
                    f"[red]error {failure.code} {failure.error}[/red]: {escape(failure.message)}", highlight=False
                )
            raise typer.Exit(1)

        return app.command(name)(wrapper)

    return register


def _episode_path(task_id: str, agent: str, out: Path | None, runs_dir: Path) -> Path:
    if out is not None:
        return out
    run_dir = runs_dir / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{agent}"
    name = task_id.replace("/", "__")
    path = run_dir / f"{name}.db"
    number = 2
    while path.exists():
        path = run_dir / f"{name}-{number}.db"
        number += 1
    return path


def _judge(model: str | None, base_url: str | None, key_env: str) -> JudgeConfig | None:
    return JudgeConfig(model=model, base_url=base_url, api_key_env=key_env) if model else None


def _diff_table(differences: list[Any]) -> Table:
    table = Table("table", "key", "column", "expected", "actual", "kind", title="diff")
    for d in differences:
        kind = f"{d.kind}: {d.detail}" if getattr(d, "detail", None) else d.kind
        table.add_row(d.table, d.key, d.column or "", _short(d.expected), _short(d.actual), escape(kind))
    return table


def _short(value: Any, width: int = 60) -> str:
    text = "" if value is None else json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _show_grade(result: GradeResult, json_output: bool) -> None:
    if json_output:
        return _print_json(result.to_dict())
    colour = "green" if result.reward == 1.0 else "red"
    console.print(f"[bold]{result.task}[/bold]  episode {result.episode_db}", highlight=False)
    console.print(
        f"reward [{colour}]{result.reward:g}[/{colour}] ({result.reward_mode})  partial_credit "
        f"{result.partial_credit:g}  db_match {result.db_match}  db_credit {result.db_credit:g}  "
        f"outcome_credit {result.outcome_credit:g}  steps {result.steps}  completed {result.completed}"
        + (f"  shaped {result.shaped_reward:g}" if result.shaped_reward is not None else ""),
        highlight=False,
    )
    if result.rubric:
        table = Table("component", "weight", "score", "detail", title=f"rubric {result.rubric_reward:g}")
        for c in result.rubric:
            table.add_row(c.name, f"{c.weight:g}", "-" if c.score is None else f"{c.score:g}", escape(c.detail))
        console.print(table)
    if result.assertions:
        title = f"assertions {result.assertion_share:g} (completed correctly: {result.task_completed_correctly})"
        table = Table("assertion", "kind", "held before", "holds", "scored", "detail", title=title)
        for a in result.assertions:
            holds = "[green]yes[/green]" if a.holds else "[red]no[/red]"
            table.add_row(a.name, a.kind, str(a.held_before), holds, str(a.scored), escape(a.detail))
        console.print(table)
    if result.checks:
        table = Table("check", "kind", "passed", "detail", title="checks")
        for c in result.checks:
            passed = "[yellow]skipped[/yellow]" if c.skipped else "[green]yes[/green]" if c.passed else "[red]no[/red]"
            table.add_row(c.name, c.kind, passed, escape(c.detail))
        console.print(table)
    if result.diff.differences:
        console.print(_diff_table(result.diff.differences))
    for warning in result.warnings:
        console.print(f"[yellow]warning[/yellow]: {warning}")
