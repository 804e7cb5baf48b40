"""`simtenant docs`: the parts of the documentation made from the task files (each world's task
catalogue), written between markers so nothing is typed twice; ``--check`` only says whether they
are up to date (the test suite runs it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidArgument
from ..task import Task
from ..world import World, worlds
from .common import command, console

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
MARKED = re.compile(r"(<!-- tasks:(?P<world>[\w-]+) -->\n)(?P<body>.*?)(<!-- /tasks:(?P=world) -->)", re.S)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def catalogue(world: World) -> str:
    """The world's task table: id, split, difficulty, the apps it connects (where tasks connect any),
    its gold calls, its scored assertions (where tasks have any) and its one-line description."""
    tasks: list[Task] = sorted(world.tasks.values(), key=lambda t: t.id)
    apps = any(t.connected for t in tasks)
    scored = any(t.assertions for t in tasks)
    header = [
        "task",
        "split",
        "difficulty",
        *(["apps"] if apps else []),
        "gold calls",
        *(["assertions"] if scored else []),
        "the task",
    ]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for task in tasks:
        cells = [f"`{task.id}`", task.split, str(task.difficulty)]
        if apps:
            cells.append(", ".join(task.connected))
        cells.append(str(len(task.gold)))
        if scored:
            cells.append(str(sum(not a.guard for a in task.assertions)))
        cells.append(_cell(task.description))
        rows.append("| " + " | ".join(cells) + " |")
    rows.append(f"\n{len(tasks)} tasks (`simtenant tasks {world.name}`; this table is written by `simtenant docs`).")
    return "\n".join(rows) + "\n"


def render(text: str) -> str:
    """``text`` with every marked catalogue written anew."""

    def table(match: re.Match[str]) -> str:
        found = worlds().get(match["world"])
        if found is None:
            raise InvalidArgument(f"docs: no world {match['world']!r} for its task catalogue", error="unknown_world")
        return match.group(1) + catalogue(found) + match.group(4)

    return MARKED.sub(table, text)


def stale(folder: Path = DOCS) -> list[Path]:
    """The documentation files whose generated parts are not what the task files give."""
    return [p for p in sorted(folder.rglob("*.md")) if render(p.read_text()) != p.read_text()]


@command("docs")
def docs(
    check: Annotated[bool, typer.Option("--check", help="Only say whether the generated parts are up to date")] = False,
    folder: Annotated[Path, typer.Option(help="The documentation folder")] = DOCS,
) -> None:
    """Write the documentation's task catalogues from the task files (between their markers)."""
    if not folder.is_dir():
        raise InvalidArgument(f"{folder}: no such folder", error="not_a_folder")
    found = stale(folder)
    if check:
        for path in found:
            console.print(f"out of date: {path}", highlight=False)
        if found:
            raise typer.Exit(1)
        console.print("the task catalogues are up to date", highlight=False)
        return
    for path in found:
        path.write_text(render(path.read_text()))
        console.print(f"written: {path}", highlight=False)
