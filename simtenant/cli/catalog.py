"""`simtenant worlds`, `tasks`, `tools`: what there is to play."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from ..errors import InvalidArgument
from ..world import all_tasks, get_world, of_kind, worlds
from .common import (
    Difficulty,
    JsonFlag,
    Split,
    _print_json,
    command,
    show_table,
)


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
    show_table(table)


@command()
def tasks(
    world: Annotated[str | None, typer.Argument(help="World name (every world when omitted)")] = None,
    split: Split = None,
    difficulty: Difficulty = None,
    json_output: JsonFlag = False,
) -> None:
    """List task ids with their split, difficulty and one-line description."""
    found = of_kind(all_tasks() if world is None else get_world(world).tasks.values(), split, difficulty)
    if json_output:
        return _print_json(
            [
                {"task": t.id, "split": t.split, "difficulty": t.difficulty, "family": t.family or t.id}
                | {"description": t.description}
                for t in found
            ]
        )
    table = Table("task", "split", "difficulty", "description")
    for task in found:
        table.add_row(task.id, task.split, task.difficulty, task.description)
    show_table(table)


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
    show_table(table)
