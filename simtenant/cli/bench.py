"""`simtenant bench`: the benchmark (see ``simtenant.evaluation.bench``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..errors import InvalidArgument
from .common import (
    JsonFlag,
    _print_json,
    command,
    console,
    show_table,
)


@command()
def bench(
    scales: Annotated[str, typer.Option(help="Comma-separated data scales")] = "1,10,100",
    budget: Annotated[float, typer.Option(help="Seconds per timed loop")] = 1.0,
    world: Annotated[list[str] | None, typer.Option(help="Worlds to measure (all by default)")] = None,
    out: Annotated[Path, typer.Option(help="Where the JSON results are written")] = Path("bench.json"),
    markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown tables (docs/performance.md)")] = False,
    http: Annotated[
        bool, typer.Option("--http/--no-http", help="Also measure the HTTP door: a call through it, 8 clients")
    ] = True,
    json_output: JsonFlag = False,
) -> None:
    """Measure reset, tool calls, grading, throughput and memory beside the in-memory baseline."""
    from ..evaluation.bench import http_rows, report_rows, run_bench, targets
    from ..evaluation.bench import markdown as markdown_tables

    try:
        chosen = tuple(int(s) for s in scales.split(","))
    except ValueError:
        raise InvalidArgument("--scales is a comma-separated list of whole numbers", error="invalid_scales") from None
    if not chosen or min(chosen) < 1:
        raise InvalidArgument("scales must be at least 1", error="invalid_scales")
    results = run_bench(chosen, budget, world)
    if http:
        results["http"] = _http_door(results, budget)
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
    show_table(table)
    checks = Table("world", "target", "value", "limit", "met", title="targets")
    for t in results["targets"]:
        checks.add_row(
            t["world"], t["target"], str(t["value"]), str(t["limit"]), "yes" if t["met"] else "[red]no[/red]"
        )
    console.print(checks)
    if results.get("http"):
        door = Table(
            "world",
            "task",
            "call direct (ms)",
            "through HTTP (ms)",
            "added (ms)",
            "steps/s, 8 clients",
            title="http door",
        )
        for row in http_rows(results):
            door.add_row(*row)
        show_table(door)
    console.print(f"results written to {out}", highlight=False)


def _http_door(results: dict, budget: float) -> dict:
    """The HTTP door's figures for each measured world, on its bench task's read call (at 1x)."""
    from ..evaluation.bench import Workload
    from ..serve.bench import measure
    from ..world import worlds

    found = {}
    for name, measured in results["worlds"].items():
        load = next((c for c in Workload.candidates(worlds()[name]) if c.task.id == measured["task"]), None)
        if load is not None:
            found[name] = measure(load.task.id, load.read, budget)
    return found
