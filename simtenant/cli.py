"""The simtenant command line: worlds, tasks, tools, run, grade, diff, validate."""

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

from . import db
from .errors import InvalidArgument, SimtenantError
from .grader import EpisodeFile, GradeResult, diff_databases, grade
from .grader.diff import TextGrading
from .grader.grade import check_reward_mode, check_text_match
from .grader.judge import JudgeConfig
from .grader.validate import validate_task
from .schema import is_harness_table, metadata
from .world import get_task, get_world, worlds

app = typer.Typer(help="A SQL-backed simulated enterprise tenant for tool-using agents.", no_args_is_help=True)
console = Console()
errors = Console(stderr=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a summary")]
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


@command("worlds")
def list_worlds(json_output: JsonFlag = False) -> None:
    """List the worlds with their table, tool and task counts."""
    rows = [
        {
            "world": w.name,
            "title": w.title,
            "tables": len(w.tables),
            "tools": len(w.tools),
            "tasks": len(w.tasks),
        }
        for w in worlds().values()
    ]
    if json_output:
        return _print_json(rows)
    table = Table("world", "title", "tables", "tools", "tasks")
    for row in rows:
        table.add_row(row["world"], row["title"], str(row["tables"]), str(row["tools"]), str(row["tasks"]))
    console.print(table)


@command()
def tasks(world: Annotated[str, typer.Argument(help="World name")], json_output: JsonFlag = False) -> None:
    """List a world's task ids with one-line descriptions."""
    found = get_world(world).tasks.values()
    if json_output:
        return _print_json([{"task": t.id, "description": t.description} for t in found])
    table = Table("task", "description")
    for task in found:
        table.add_row(task.id, task.description)
    console.print(table)


@command()
def tools(
    world: Annotated[str, typer.Argument(help="World name")],
    format: Annotated[str, typer.Option(help="table, json or openai (function-calling JSON)")] = "table",
) -> None:
    """Show a world's tool catalogue (with the harness tools offered beside it)."""
    catalogue = get_world(world).all_tools()
    if format == "openai":
        return _print_json([t.openai() for t in catalogue])
    if format == "json":
        return _print_json([t.summary() for t in catalogue])
    if format != "table":
        raise InvalidArgument("--format is table, json or openai", error="invalid_format")
    table = Table("tool", "route", "description")
    for t in catalogue:
        table.add_row(t.name, f"{t.service} {t.method} {t.path}", t.description.splitlines()[0])
    console.print(table)


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


@command()
def run(
    task: Annotated[str, typer.Argument(help="Task id, world/name")],
    agent: Annotated[str, typer.Option(help="oracle, noop, replay or llm")] = "oracle",
    actions: Annotated[Path | None, typer.Option(help="Replay file (JSON list or JSONL of {tool, args})")] = None,
    reward: Annotated[str | None, typer.Option(help="default or shaped (the task's own by default)")] = None,
    out: Annotated[Path | None, typer.Option(help="Episode file to write (must not exist)")] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where runs are written")] = Path("runs"),
    scale: Annotated[int, typer.Option(min=1, help="Play on the world grown to this many copies")] = 1,
    model: Annotated[
        str | None, typer.Option(help="--agent llm: the chat model (any OpenAI-compatible endpoint)")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="--agent llm: the endpoint's base URL (default: the SDK's)")
    ] = None,
    api_key_env: Annotated[str, typer.Option(help="--agent llm: environment variable holding the API key")] = (
        "OPENAI_API_KEY"
    ),
    max_steps: Annotated[int, typer.Option(min=1, help="--agent llm: tool calls and messages allowed")] = 30,
    user_model: Annotated[
        str | None, typer.Option(help="--agent llm: a chat model plays the task's operator (scripted by default)")
    ] = None,
    user_base_url: Annotated[
        str | None, typer.Option(help="The operator model's base URL (default: --base-url)")
    ] = None,
    user_api_key_env: Annotated[
        str | None, typer.Option(help="The operator model's API key variable (default: --api-key-env)")
    ] = None,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_api_key_env: JudgeKeyEnv = "OPENAI_API_KEY",
    text_match: TextMatch = "facts",
    json_output: JsonFlag = False,
) -> None:
    """Play a task with an agent into a new episode file, then grade it."""
    from .agents import check_agent
    from .agents import run as run_agent
    from .agents.llm import read_report

    found = get_task(task)
    check_agent(agent, actions)
    check_reward_mode(found, reward)
    judge = _judge(judge_model, judge_base_url, judge_api_key_env)
    check_text_match(text_match, judge)
    options: dict[str, Any] = {}
    if agent == "llm":
        options = {
            "model": model,
            "base_url": base_url,
            "api_key_env": api_key_env,
            "max_steps": max_steps,
            "user_model": user_model,
            "user_base_url": user_base_url,
            "user_api_key_env": user_api_key_env,
        }
    elif user_model:
        raise InvalidArgument("--user-model plays the operator for --agent llm only", error="invalid_argument")
    episode = _episode_path(found.id, agent, out, runs_dir)
    path = run_agent(found, agent, episode, actions=actions, scale=scale, **options)
    result = grade(path, reward, judge=judge, text_match=text_match)
    report = read_report(path) if agent == "llm" else None
    if report is None:
        return _show_grade(result, json_output)
    if json_output:
        _print_json({**result.to_dict(), "infra_ok": report["infra_ok"], "usage": report["usage"], "agent": report})
        if not report["infra_ok"]:
            raise typer.Exit(INFRA_FAILURE)
        return None
    _show_grade(result, False)
    usage = report["usage"]
    console.print(
        f"agent llm {escape(report['model'])}: steps {report['steps']}, ended {report['ended']}, "
        f"tokens {usage['prompt_tokens']} + {usage['completion_tokens']} = {usage['total_tokens']}",
        highlight=False,
    )
    if not report["infra_ok"]:
        failure = report["error"] or {}
        console.print(
            f"[yellow]infra_ok false[/yellow]: {escape(str(failure.get('message', failure)))} "
            "(an infrastructure failure, not the agent's: this reward does not measure the agent)",
            highlight=False,
        )
        raise typer.Exit(INFRA_FAILURE)


@command("grade")
def grade_episode(
    episode: Annotated[Path, typer.Argument(help="An episode file")],
    reward: Annotated[str | None, typer.Option(help="default or shaped (the task's own by default)")] = None,
    full: FullFlag = False,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_api_key_env: JudgeKeyEnv = "OPENAI_API_KEY",
    text_match: TextMatch = "facts",
    json_output: JsonFlag = False,
) -> None:
    """Grade an episode file, any time after it ran."""
    judge = _judge(judge_model, judge_base_url, judge_api_key_env)
    check_text_match(text_match, judge)
    _show_grade(grade(episode, reward, full=full, judge=judge, text_match=text_match), json_output)


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


@command()
def diff(
    expected: Annotated[Path, typer.Argument(help="The database taken as right")],
    actual: Annotated[Path, typer.Argument(help="The database compared with it")],
    full: FullFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Row diff between two tenant databases (created rows aligned by content when both are episodes;
    free text compared exactly)."""
    from .grader.grade import snapshot_for

    for path in (expected, actual):
        if not path.is_file():
            raise InvalidArgument(f"{path}: no such file", error="not_a_database")
    present = db.table_names(expected) & db.table_names(actual)
    tables = [t for t in metadata.sorted_tables if not is_harness_table(t.name) and t.name in present]
    if not tables:
        raise InvalidArgument(f"{expected} and {actual} share no tenant tables", error="not_a_database")
    base = None
    try:
        left, right = EpisodeFile.read(expected), EpisodeFile.read(actual)
    except SimtenantError:
        left = right = None
    if left and right and (left.world, left.snapshot_hash) == (right.world, right.snapshot_hash):
        base = snapshot_for(get_task(left.task), left.snapshot_hash, left.scale)
        tables = get_world(left.world).tables
    result = diff_databases(expected, actual, tables, base=base, full=full, text=TextGrading("exact"))
    if json_output:
        _print_json({"match": result.match, "diff": [d.to_dict() for d in result.differences]})
    elif result.match:
        console.print("[green]no differences[/green]")
    else:
        console.print(_diff_table(result.differences))
    if not result.match:
        raise typer.Exit(1)


@command()
def transcript(
    episode: Annotated[Path, typer.Argument(help="An episode file")],
    json_output: JsonFlag = False,
) -> None:
    """Show an episode as it happened: every call, its arguments and what came back."""
    found = EpisodeFile.read(episode)
    if json_output:
        return _print_json(
            {
                "task": found.task,
                "status": found.status,
                "answer": found.answer,
                "messages": [{"role": role, "content": content} for role, content in found.messages],
                "calls": [
                    {"seq": c.seq, "tool": c.tool, "args": c.args, "ok": c.ok, "result": c.result, "error": c.error}
                    for c in found.calls
                ],
            }
        )
    console.print(f"[bold]{found.task}[/bold]  {found.status}", highlight=False)
    if found.messages and found.messages[0][0] == "user":
        console.print(f"[green]operator[/green]: {escape(found.messages[0][1])}", highlight=False)
    for call in found.calls:
        args = json.dumps(call.args, ensure_ascii=False)
        console.print(f"[cyan]{call.seq:>3} {call.tool}[/cyan] {escape(args)}", highlight=False)
        outcome = call.result if call.ok else call.error
        text = json.dumps(outcome, ensure_ascii=False)
        style = "dim" if call.ok else "red"
        console.print(
            f"    [{style}]{escape(text if len(text) <= 400 else text[:399] + '…')}[/{style}]", highlight=False
        )


@command()
def validate(
    world: Annotated[
        list[str] | None, typer.Argument(help="Worlds or task ids (world/name) to validate (all by default)")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Prove every task: gold calls succeed, gold scores 1, the untouched world 0, replays identical,
    paraphrased free texts score 1 and texts missing a fact below 1 (reworded: paraphrased golds +
    fact-missing texts played); assertions true before the agent acts must be guards."""
    names = world or list(worlds())
    chosen = [[get_task(n)] if "/" in n else list(get_world(n).tasks.values()) for n in names]
    reports = [validate_task(t) for tasks in chosen for t in tasks]
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
        console.print(table)
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
) -> None:
    """Change one thing in each gold (a value, a dropped or extra write) and check the reward catches it."""
    from .grader.mutation import mutate as mutate_task

    names = world or list(worlds())
    chosen = [[get_task(n)] if "/" in n else list(get_world(n).tasks.values()) for n in names]
    reports = [mutate_task(t) for tasks in chosen for t in tasks]
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
        console.print(table)
        for miss in misses:
            label = "benign, scored" if miss["kind"] in ("reorder", "extra_read", "paraphrase") else "not caught"
            console.print(
                f"{escape(miss['task'])}: {label} {miss['reward']:g}: {escape(miss['where'])}", highlight=False
            )


@command()
def bench(
    scales: Annotated[str, typer.Option(help="Comma-separated data scales")] = "1,10,100",
    budget: Annotated[float, typer.Option(help="Seconds per timed loop")] = 1.0,
    world: Annotated[list[str] | None, typer.Option(help="Worlds to measure (all by default)")] = None,
    out: Annotated[Path, typer.Option(help="Where the JSON results are written")] = Path("bench.json"),
    markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown tables (as in the README)")] = False,
    json_output: JsonFlag = False,
) -> None:
    """Measure reset, tool calls, grading, throughput and memory beside the in-memory baseline."""
    from .bench import markdown as markdown_tables
    from .bench import report_rows, run_bench, targets

    try:
        chosen = tuple(int(s) for s in scales.split(","))
    except ValueError:
        raise InvalidArgument("--scales is a comma-separated list of whole numbers", error="invalid_scales") from None
    if not chosen or min(chosen) < 1:
        raise InvalidArgument("scales must be at least 1", error="invalid_scales")
    results = run_bench(chosen, budget, world)
    results["targets"] = targets(results)
    out.write_text(json.dumps(results, indent=2) + "\n")
    if json_output:
        return _print_json(results)
    if markdown:
        print(markdown_tables(results))
        return None
    table = Table("world", "scale", "figure", "simtenant", "baseline", "ratio", title="simtenant bench")
    for row in report_rows(results):
        table.add_row(*row)
    console.print(table)
    checks = Table("world", "target", "value", "limit", "met", title="targets")
    for t in results["targets"]:
        checks.add_row(
            t["world"], t["target"], str(t["value"]), str(t["limit"]), "yes" if t["met"] else "[red]no[/red]"
        )
    console.print(checks)
    console.print(f"results written to {out}", highlight=False)


def _load_commands() -> None:
    """Register the commands that live in ``simtenant/commands/`` (one module each, name order)."""
    import importlib
    import pkgutil

    from . import commands

    for module in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
        importlib.import_module(f"{commands.__name__}.{module}")


_load_commands()
