"""`simtenant run`, `grade`, `diff`, `transcript`: play an episode, grade it, compare and read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from .. import db
from ..errors import InvalidArgument, SimtenantError
from ..grader import EpisodeFile, diff_databases, grade
from ..grader.diff import TextGrading
from ..grader.grade import check_reward_mode, check_text_match
from ..schema import is_harness_table, metadata
from ..world import get_task, get_world
from .common import (
    INFRA_FAILURE,
    FullFlag,
    JsonFlag,
    JudgeBaseUrl,
    JudgeKeyEnv,
    JudgeModel,
    MaxSteps,
    RewardMode,
    TextMatch,
    _diff_table,
    _episode_path,
    _judge,
    _print_json,
    _show_grade,
    command,
    console,
)


@command()
def run(
    task: Annotated[str, typer.Argument(help="Task id, world/name")],
    agent: Annotated[str, typer.Option(help="oracle, noop, replay or llm")] = "oracle",
    actions: Annotated[Path | None, typer.Option(help="Replay file (JSON list or JSONL of {tool, args})")] = None,
    reward: RewardMode = None,
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
    max_steps: MaxSteps = None,
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
    from ..agents import check_agent
    from ..agents import run as run_agent
    from ..agents.llm import read_report

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
            "user_model": user_model,
            "user_base_url": user_base_url,
            "user_api_key_env": user_api_key_env,
        }
    elif user_model:
        raise InvalidArgument("--user-model plays the operator for --agent llm only", error="invalid_argument")
    episode = _episode_path(found.id, agent, out, runs_dir)
    path = run_agent(found, agent, episode, actions=actions, scale=scale, max_steps=max_steps, **options)
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
    reward: RewardMode = None,
    full: FullFlag = False,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_api_key_env: JudgeKeyEnv = "OPENAI_API_KEY",
    text_match: TextMatch = "facts",
    task: Annotated[
        str | None, typer.Option(help="Grade as this task: the one it was played on, if the file names another")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Grade an episode file, any time after it ran."""
    judge = _judge(judge_model, judge_base_url, judge_api_key_env)
    check_text_match(text_match, judge)
    found = get_task(task) if task is not None else None
    _show_grade(grade(episode, reward, task=found, full=full, judge=judge, text_match=text_match), json_output)


@command()
def diff(
    expected: Annotated[Path, typer.Argument(help="The database taken as right")],
    actual: Annotated[Path, typer.Argument(help="The database compared with it")],
    full: FullFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Row diff between two tenant databases (created rows aligned by content when both are episodes;
    free text compared exactly)."""
    from ..grader.grade import snapshot_for

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
