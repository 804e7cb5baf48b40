"""`simtenant worlds`, `tasks`, `tools`: what there is to play."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from ..errors import InvalidArgument
from ..world import get_world, worlds
from .common import (
    JsonFlag,
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
def tasks(world: Annotated[str, typer.Argument(help="World name")], json_output: JsonFlag = False) -> None:
    """List a world's task ids with one-line descriptions."""
    found = get_world(world).tasks.values()
    if json_output:
        return _print_json([{"task": t.id, "description": t.description} for t in found])
    table = Table("task", "description")
    for task in found:
        table.add_row(task.id, task.description)
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
