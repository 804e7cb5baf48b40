"""The gold: the task's gold calls replayed on a fresh copy of the snapshot, its accepted
alternatives, and where its free texts landed.

A gold call may accept other values for some arguments (``accept``): each combination is another
gold database, and an episode is graded against the one it comes closest to. A free text of the
gold is a string argument that lands in a text-graded column of a row the gold wrote (its cell),
a message to a person, or the final answer; its facts (``text``) grade the cells it landed in.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .. import seeds
from ..db import open_readonly
from ..errors import TaskError
from ..task import Call, Fact, GoldCall, Task
from ..world import get_world
from .diff import CellKey

MAX_VARIANTS = 32
WHOLE = "*"  # an accept path naming the call's whole arguments: alternatives are complete argument sets
MESSAGE_TOOLS = {"send_message_to_user": "message"}  # harness tools whose argument is said to a person

ArgPath = tuple[str | int, ...]


def parse_path(path: str) -> ArgPath:
    """``body.to.0`` -> ("body", "to", 0)."""
    return tuple(int(part) if part.isdigit() else part for part in path.split("."))


def get_path(args: Any, path: ArgPath) -> Any:
    for part in path:
        in_dict = isinstance(args, dict) and isinstance(part, str) and part in args
        in_list = isinstance(args, list) and isinstance(part, int) and 0 <= part < len(args)
        if in_dict or in_list:
            args = args[part]
        else:
            raise KeyError(path)
    return args


def set_path(args: Any, path: ArgPath, value: Any) -> Any:
    """A copy of ``args`` with the value at ``path`` replaced (or, for a new key, added)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if args is None and isinstance(head, str):  # a key added under an object not given yet (api_fetch's body)
        args = {}
    if isinstance(args, dict):
        return {**args, head: set_path(args.get(head), rest, value)}  # type: ignore[dict-item]
    copy = list(args)
    copy[head] = set_path(copy[head], rest, value)  # type: ignore[index]
    return copy


def drop_path(args: dict[str, Any], path: ArgPath) -> dict[str, Any]:
    """A copy of ``args`` without the key at ``path``."""
    if len(path) == 1:
        return {k: v for k, v in args.items() if k != path[0]}
    head = path[0]
    return {**args, head: drop_path(args[head], path[1:])}  # type: ignore[index]


def leaves(value: Any, path: ArgPath = ()) -> Iterator[tuple[ArgPath, Any]]:
    """Every value inside ``value`` that is not a list or an object, with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


_variants: dict[int, tuple[Task, list[list[Call]]]] = {}  # by the task object's id, with the task kept


def variants(task: Task) -> list[list[Call]]:
    """The gold calls, then every combination of accepted alternatives (the gold's own values first).
    Worked out once per task object (a grade asks several times): shared, read it, do not change it."""
    held = _variants.get(id(task))
    if held is None or held[0] is not task:
        if len(_variants) > 4096:
            _variants.clear()
        held = _variants[id(task)] = (task, _variants_of(task))
    return held[1]


def _variants_of(task: Task) -> list[list[Call]]:
    choices: list[tuple[int, ArgPath, list[Any]]] = []
    for index, call in enumerate(task.gold):
        for path, alternatives in call.accept.items():
            parsed = () if path == WHOLE else parse_path(path)
            try:
                own = get_path(call.args, parsed)
            except KeyError:
                own = _ABSENT
            choices.append((index, parsed, [own, *alternatives]))
    combinations = list(itertools.product(*(values for _, _, values in choices)))
    if len(combinations) > MAX_VARIANTS:
        raise TaskError(f"{task.id}: accept gives {len(combinations)} golds; at most {MAX_VARIANTS}")
    result = []
    for combination in combinations:
        calls: list[Call] = [Call(tool=c.tool, args=c.args) for c in task.gold]
        for (index, path, _), value in zip(choices, combination, strict=True):
            args = calls[index].args
            args = drop_path(args, path) if value is _ABSENT else set_path(args, path, value)
            calls[index] = Call(tool=calls[index].tool, args=args)
        result.append(calls)
    return result


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()


@cache
def code_hash() -> str:
    """A hash of simtenant's own code: a gold replayed by other tools or counterparts is another gold."""
    digest = hashlib.sha256()
    package = Path(__file__).parent.parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\n" + path.read_bytes())
    return digest.hexdigest()


def gold_database(task: Task, snapshot: Path, variant: int = 0) -> Path:
    """The task's gold calls (or an accepted alternative) replayed on a fresh copy of ``snapshot`` (cached)."""
    from ..agents import play
    from ..episode import Episode

    world = get_world(task.world)
    calls = variants(task)[variant]
    suffix = f"-v{variant}" if variant else ""
    stamp = hashlib.sha256(f"{task.hash} {code_hash()}".encode()).hexdigest()[:16]
    name = f"{task.id.replace('/', '__')}-{seeds.hash_of(world, snapshot)[:16]}-{stamp}{suffix}.db"
    path = seeds.cache_dir() / "gold" / name
    if seeds.intact(path):
        return path
    tmp = path.with_name(f"{name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        with Episode.start(task, tmp, snapshot=snapshot) as episode:
            for number, turn in enumerate(calls, 1):
                if episode.over:  # ended early (the operator's ###STOP###, the budget): the rest never runs
                    raise TaskError(
                        f"{task.id}: gold call {number} ({getattr(turn, 'tool', 'a message')}) is never played: "
                        "the episode ended before it"
                    )
                for outcome in play(episode, [turn]):
                    if not outcome.ok:
                        which = f"gold call {outcome.seq}" + (f" (accepted alternative {variant})" if variant else "")
                        raise TaskError(
                            f"{task.id}: {which} ({outcome.tool}) failed: "
                            f"{outcome.error['error']}: {outcome.error['message']}"  # type: ignore[index]
                        )
            if not episode.done:
                raise TaskError(f"{task.id}: the gold calls must end the episode (with {episode.world.finish_tool})")
        seeds.place(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


@dataclass(frozen=True)
class FreeText:
    """A free text the gold writes: the call, the argument path, the text, and the cells it landed in."""

    call: int  # index into the gold
    path: str
    text: str
    cells: tuple[CellKey, ...]  # graded text cells of the gold database holding it
    said: bool  # said to a person (a message, the final answer, a customer's conversation): graded by checks


def writes(task: Task, call: Call) -> bool:
    """Whether a call writes (api_fetch: whether the operation it runs does)."""
    tool = get_world(task.world).operation(call)
    return tool is not None and tool.writes


@dataclass(frozen=True)
class _Cells:
    text: list[tuple[CellKey, str, bool]]  # text-graded cells: (cell, value, in a graded table)
    inner: list[tuple[CellKey, str]]  # the cells of spreadsheet rows, as (table, key, "cells.Header")
    other: set[str]  # every other string value of the rows the gold wrote (names, ids, titles kept exact)


_CELLS: dict[tuple[str, str, str], _Cells] = {}


def _written_cells(task: Task, gold: Path) -> _Cells:
    """The values of every row the gold wrote, sorted by how they are graded (a gold never changes
    once placed, so they are read once per process)."""
    key = (task.id, task.hash, str(gold))
    if key not in _CELLS:
        _CELLS[key] = _read_written_cells(task, gold)
    return _CELLS[key]


def _read_written_cells(task: Task, gold: Path) -> _Cells:
    world = get_world(task.world)
    connection = open_readonly(gold)
    found = _Cells([], [], set())
    try:
        changed: dict[str, list[tuple[Any, ...]]] = {}
        for table, pk in connection.execute("SELECT tbl, pk FROM _changes ORDER BY tbl, pk"):
            changed.setdefault(table, []).append(tuple(json.loads(pk)))
        for table in world.tables:
            if table.name not in changed:
                continue
            columns = [c.name for c in table.columns]
            where = " AND ".join(f'"{c.name}" IS ?' for c in table.primary_key.columns)
            select = ", ".join(f'"{c}"' for c in columns)
            graded_table = table.info.get("graded") is not False
            for key in changed[table.name]:
                row = connection.execute(f'SELECT {select} FROM "{table.name}" WHERE {where}', key).fetchone()
                for column, value in zip(columns, row or (), strict=False):
                    if not isinstance(value, str) or not value.strip():
                        continue
                    grade = table.c[column].info.get("grade")
                    if grade == "text":
                        found.text.append(((table.name, key, column), value, graded_table))
                    elif grade == "cells":
                        for name, inner in json.loads(value).items():
                            found.inner.append(((table.name, key, f"{column}.{name}"), str(inner)))
                    else:
                        found.other.add(value.strip())
        return found
    finally:
        connection.close()


def free_texts(task: Task, gold: Path, calls: list[Call] | None = None) -> list[FreeText]:
    """The gold's free texts, found in the gold database ``gold`` of ``calls`` (the gold's own by default).

    A free text is a string a writing call puts in a text-graded column (not a value another column
    holds as is: a name, a title kept exact), a message to a person, or the final answer; a
    spreadsheet cell is one only when the task says how to grade it (``text:`` on its argument)."""
    world = get_world(task.world)
    calls = calls or list(task.gold)
    cells = _written_cells(task, gold)
    found = []
    for index, call in enumerate(calls):
        said_arg = MESSAGE_TOOLS.get(call.tool) or (world.finish_answer if call.tool == world.finish_tool else None)
        if said_arg is None and not writes(task, call):
            continue
        specs = task.gold[index].text if index < len(task.gold) else {}
        for path, value in leaves(call.args):
            if not isinstance(value, str):
                continue
            text = value.strip()
            dotted = ".".join(str(p) for p in path)
            if not text:
                continue
            said = path == (said_arg,)
            if said and not any(cell_value.strip() == text and graded for _, cell_value, graded in cells.text):
                found.append(FreeText(index, dotted, value, (), True))  # said to a person, graded by checks
                continue
            if dotted in specs:
                inner = tuple(cell for cell, cell_value in cells.inner if cell_value.strip() == text)
                if inner:
                    found.append(FreeText(index, dotted, value, inner, False))
                    continue
            if text in cells.other:
                continue
            holding = [(cell, graded) for cell, cell_value, graded in cells.text if cell_value.strip() == text]
            if not holding and " " in text and not any(text in other for other in cells.other):
                # a tool may frame the text (a prefix, a quote); a value kept exact elsewhere is not free text
                holding = [(cell, graded) for cell, cell_value, graded in cells.text if text in cell_value]
            if holding:  # written into the world (a final report kept in a table too): graded by its facts
                graded_cells = tuple(cell for cell, graded in holding if graded)
                found.append(FreeText(index, dotted, value, graded_cells, not graded_cells))
    return found


_FACTS: dict[tuple[str, str], dict[CellKey, list[Fact]]] = {}


def text_facts(task: Task, gold: Path, calls: list[Call] | None = None) -> dict[CellKey, list[Fact]]:
    """The facts each text cell of the gold database must state, from the gold calls' ``text`` (``calls``:
    those ``gold`` was made by, the gold's own by default; found once per process for the same texts)."""
    specs = [{path: spec.model_dump() for path, spec in call.text.items()} for call in task.gold]
    key = (str(gold), json.dumps(specs, sort_keys=True, default=str))
    if key not in _FACTS:
        _FACTS[key] = _text_facts(task, gold, calls)
    return _FACTS[key]


def _text_facts(task: Task, gold: Path, calls: list[Call] | None) -> dict[CellKey, list[Fact]]:
    facts: dict[CellKey, list[Fact]] = {}
    gold_calls: list[GoldCall] = list(task.gold)
    for text in free_texts(task, gold, calls):
        spec = gold_calls[text.call].text.get(text.path)
        if spec is None or not spec.facts:
            continue
        for cell in text.cells:
            facts.setdefault(cell, []).extend(f for f in spec.facts if f not in facts.get(cell, []))
    return facts
