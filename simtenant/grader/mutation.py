"""Mutation testing of the reward: change one thing in a task's gold and see the reward move.

A **mutant** changes one argument of one gold write (a number, an id swapped for another existing
id of the same kind, an enum, a date, a flag, a free text replaced by unrelated text, an optional
argument added or dropped), drops a write, or adds a write to another record. Played and graded
like any episode, it is *caught* when its reward is below 1. It counts only when its outcome differs
from every accepted gold: the world's rows compared exactly, whether the episode ended, and the
final answer and the messages to the operator where the task's checks read them.

A **benign** variant changes the trajectory but not the outcome: two independent calls swapped,
an extra read, a paraphrased free text. It must score 1.

The catch rate (caught / mutants whose outcome differs) is reported per world by ``simtenant
mutate`` and held at 95% or more by the test suite, with no benign variant below 1.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from .. import seeds
from ..db import open_readonly
from ..facts import states
from ..task import AnswerCheck, BeforeCheck, Call, NoDuplicatesCheck, Task, ToldUserCheck
from ..task.matching import call_matches
from ..tools.engine.search import parts
from ..world import World, get_world
from .diff import TextGrading, diff_databases
from .gold import (
    ArgPath,
    drop_path,
    free_texts,
    get_path,
    gold_database,
    leaves,
    parse_path,
    set_path,
    variants,
    writes,
)
from .grade import GradeResult, grade

UNRELATED = "Lorem ipsum dolor sit amet, consectetur adipiscing elit."
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
ID_LIKE = re.compile(r"^(?=.*\d)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]+$", re.IGNORECASE)


CATCH_RATE = 0.95  # the share of a world's mutants (outcome differs from the gold) the reward must catch


@dataclass
class Variant:
    """A changed copy of a task's gold calls."""

    kind: str  # a mutation (number, id, enum, date, flag, text, optional_added, optional_dropped,
    # write_dropped, extra_write) or a benign change (reorder, extra_read, paraphrase)
    where: str  # what changed, e.g. "call 4 amount: 49.99 -> 50.99"
    calls: list[Call]

    @property
    def benign(self) -> bool:
        return self.kind in BENIGN


BENIGN = ("reorder", "extra_read", "paraphrase")


@dataclass
class Outcome:
    variant: Variant
    reward: float
    differs: bool  # the outcome differs from every accepted gold
    played: bool = True  # False: a benign change that turned out not to be one (a call failed, the outcome moved)

    @property
    def caught(self) -> bool:
        return self.reward < 1.0


@dataclass
class TaskMutations:
    task: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def mutants(self) -> list[Outcome]:
        """Mutants whose outcome differs from the gold: the ones the reward must catch."""
        return [o for o in self.outcomes if not o.variant.benign and o.differs]

    @property
    def missed(self) -> list[Outcome]:
        return [o for o in self.mutants if not o.caught]

    @property
    def benign(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.variant.benign and o.played]

    @property
    def benign_failures(self) -> list[Outcome]:
        return [o for o in self.benign if o.reward < 1.0]


def _dotted(path: ArgPath) -> str:
    return ".".join(str(p) for p in path)


@cache
def _id_index(world_name: str, snapshot: Path) -> dict[str, list[str]]:
    """Existing ids (string keys and e-mail addresses) of the world, grouped by kind (their shape)."""
    world = get_world(world_name)
    groups: dict[str, set[str]] = {}
    connection = open_readonly(snapshot)
    try:
        for table in world.tables:
            for column in table.columns:
                keyish = column.primary_key or column.foreign_keys or "email" in column.name or "address" in column.name
                if not keyish:
                    continue
                for (value,) in connection.execute(f'SELECT DISTINCT "{column.name}" FROM "{table.name}"'):
                    if isinstance(value, str) and (EMAIL.match(value) or ID_LIKE.match(value)):
                        groups.setdefault(_shape(value), set()).add(value)
    finally:
        connection.close()
    return {shape: sorted(values) for shape, values in groups.items() if len(values) > 1}


def _shape(value: str) -> str:
    if EMAIL.match(value):
        return "email@" + value.split("@", 1)[1].lower()
    return re.sub(r"\d", "9", value)


def _other_id(index: dict[str, list[str]], value: str, avoid: set[str]) -> str | None:
    """Another existing id of the same kind, chosen deterministically (one the gold does not name, if any)."""
    group = index.get(_shape(value))
    if not group or value not in group:
        return None
    start = group.index(value)
    ordered = group[start + 1 :] + group[:start]
    fresh = [v for v in ordered if v not in avoid]
    return (fresh or ordered or [None])[0]


def _schema_of(world: World, call: Call) -> tuple[str, dict[str, Any], dict[str, ArgPath]]:
    """The tool a call runs (api_fetch: the endpoint it names), its arguments' schema, and where each
    argument sits in the call's arguments (api_fetch: under path, params or body)."""
    tools = world.tool_map(with_user=True)
    endpoint = call.args.get("endpoint")
    if call.tool == "api_fetch" and isinstance(endpoint, str) and endpoint in tools:
        tool = tools[endpoint]
        where = {name: (part,) for part, sub in parts(tool).items() for name in sub["properties"]}
        return endpoint, tool.json_schema(), where
    tool = tools.get(call.tool)
    schema = tool.json_schema() if tool else {}
    return call.tool, schema, {name: () for name in schema.get("properties", {})}


def _property(schema: dict[str, Any], name: str) -> dict[str, Any]:
    found = schema.get("properties", {}).get(name, {})
    for option in found.get("anyOf", []):
        if option.get("type") != "null":
            return {**option, **{k: v for k, v in found.items() if k != "anyOf"}}
    return found


def _argument_name(call: Call, path: ArgPath) -> str | None:
    """The tool argument a leaf belongs to (api_fetch: the key under path/params/body)."""
    if call.tool == "api_fetch":
        return str(path[1]) if len(path) > 1 and path[0] in ("path", "params", "body") else None
    return str(path[0]) if path else None


def _changed_value(value: Any, prop: dict[str, Any], ids: dict[str, list[str]], avoid: set[str]) -> tuple[str, Any]:
    """(kind, a different value) for one leaf, or ("", None) when nothing fits."""
    if isinstance(value, bool):
        return "flag", not value
    if isinstance(value, int):
        maximum = prop.get("maximum")
        return "number", value - 1 if maximum is not None and value + 1 > maximum else value + 1
    if isinstance(value, float):
        return "number", round(value + 1.0, 2)
    if not isinstance(value, str):
        return "", None
    enum = prop.get("enum") or prop.get("items", {}).get("enum")
    if enum and value in enum and len(enum) > 1:
        return "enum", enum[(enum.index(value) + 1) % len(enum)]
    if ISO_DATE.match(value):
        return "date", _shift_date(value)
    other = _other_id(ids, value, avoid)
    if other is not None:
        return "id", other
    return "", None


def _shift_date(value: str) -> str:
    """The same date or moment, a day later."""
    return (date.fromisoformat(value[:10]) + timedelta(days=1)).isoformat() + value[10:]


def _read_only(task: Task) -> set[str]:
    """The said texts (answer, message) that none of the task's checks reads: their change is not graded."""
    ignored = set()
    if not any(isinstance(c, AnswerCheck) for c in task.checks):
        ignored.add("answer")
    if not any(isinstance(c, ToldUserCheck) for c in task.checks):
        ignored.add("message")
    return ignored


def _told(task: Task, messages: list[str]) -> list[bool]:
    """Which facts of the task's told-user checks the agent's messages state: what the operator learned."""
    said = "\n".join(messages)
    return [states(said, f) for c in task.checks if isinstance(c, ToldUserCheck) for f in c.facts]


def variants_of(task: Task) -> list[Variant]:
    """Every mutant and benign variant of the task's gold calls."""
    world = get_world(task.world)
    snapshot = seeds.task_snapshot(world, task.seed_changes)
    gold = gold_database(task, snapshot)
    ids = _id_index(task.world, snapshot)
    calls = [Call(tool=c.tool, args=c.args) for c in task.gold]
    named = {v for call in calls for _, v in leaves(call.args) if isinstance(v, str)}
    texts = {(t.call, t.path): t for t in free_texts(task, gold)}
    unread = _read_only(task)
    found: list[Variant] = []

    def replaced(index: int, call: Call) -> list[Call]:
        return [*calls[:index], call, *calls[index + 1 :]]

    for index, call in enumerate(calls):
        said = next((t for (i, _), t in texts.items() if i == index and t.said), None)
        if not writes(task, call) and said is None:
            continue
        name, schema, where = _schema_of(world, call)
        for path, value in leaves(call.args):
            dotted = _dotted(path)
            if call.tool == "api_fetch" and path and path[0] == "endpoint":
                continue
            text = texts.get((index, dotted))
            if text is not None:
                if text.said and (
                    ("answer" in unread and call.tool == world.finish_tool)
                    or ("message" in unread and call.tool != world.finish_tool)
                ):
                    continue
                found.append(
                    Variant(
                        "text",
                        f"call {index + 1} {dotted}: unrelated text",
                        replaced(index, Call(tool=call.tool, args=set_path(call.args, path, UNRELATED))),
                    )
                )
                continue
            argument = _argument_name(call, path)
            prop = _property(schema, argument) if argument else {}
            if len(path) > (2 if call.tool == "api_fetch" else 1):  # inside a list or an object
                item = prop.get("items", {})
                prop = item.get("properties", {}).get(str(path[-1]), item) if isinstance(item, dict) else {}
            kind, new = _changed_value(value, prop, ids, named)
            if kind:
                found.append(
                    Variant(
                        kind,
                        f"call {index + 1} {dotted}: {value!r} -> {new!r}",
                        replaced(index, Call(tool=call.tool, args=set_path(call.args, path, new))),
                    )
                )
        if not writes(task, call):
            continue
        found.extend(_optional_variants(index, call, schema, where, replaced))
        found.append(Variant("write_dropped", f"call {index + 1} ({name}) dropped", calls[:index] + calls[index + 1 :]))
        extra = _extra_write(call, ids, named)
        if extra is not None:
            found.append(
                Variant(
                    "extra_write",
                    f"call {index + 1} ({name}) also made for {extra[1]}",
                    [*calls[: index + 1], extra[0], *calls[index + 1 :]],
                )
            )
    found.extend(_benign_variants(task, world, calls))
    return found


def _optional_variants(
    index: int, call: Call, schema: dict[str, Any], where: dict[str, ArgPath], replaced: Any
) -> list[Variant]:
    """An optional argument dropped (when given) or added (when a value fits and it is not free text)."""
    found = []
    required = set(schema.get("required", []))
    for name in schema.get("properties", {}):
        if name in required:
            continue
        path = (*where.get(name, ()), name)
        try:
            get_path(call.args, path)
            given = True
        except KeyError:
            given = False
        if given:
            args = drop_path(call.args, path)
            found.append(
                Variant(
                    "optional_dropped",
                    f"call {index + 1} {name} dropped",
                    replaced(index, Call(tool=call.tool, args=args)),
                )
            )
            continue
        value = _optional_value(_property(schema, name))
        if value is not None:
            args = set_path(call.args, path, value)
            found.append(
                Variant(
                    "optional_added",
                    f"call {index + 1} {name} = {value!r} added",
                    replaced(index, Call(tool=call.tool, args=args)),
                )
            )
    return found


def _optional_value(prop: dict[str, Any]) -> Any:
    if prop.get("enum"):
        return prop["enum"][0]
    kind = prop.get("type")
    if kind == "boolean":
        return not prop.get("default", False)
    if kind == "integer":
        return prop.get("minimum", 1) if prop.get("default") != prop.get("minimum", 1) else prop.get("minimum", 1) + 1
    return None  # free text, ids, lists: an added one is not a clear-cut wrong value


def _extra_write(call: Call, ids: dict[str, list[str]], named: set[str]) -> tuple[Call, str] | None:
    """The same write made again for another existing record (its first id swapped)."""
    for path, value in leaves(call.args):
        if isinstance(value, str) and (path[0] != "endpoint"):
            other = _other_id(ids, value, named)
            if other is not None and not EMAIL.match(value):
                return Call(tool=call.tool, args=set_path(call.args, path, other)), other
    return None


def _benign_variants(task: Task, world: World, calls: list[Call]) -> list[Variant]:
    found = []
    ordered = [c for c in task.checks if isinstance(c, BeforeCheck)]

    def constrained(call: Call) -> bool:
        tool = world.tool_map(with_user=True).get(call.tool)
        if tool is None or tool.harness:
            return True
        return any(
            call_matches(m, call.tool, call.args, True, None) or call_matches(m, call.tool, call.args, False, None)
            for check in ordered
            for m in (check.first, check.then)
        )

    for index in range(len(calls) - 1):
        first, second = calls[index], calls[index + 1]
        if constrained(first) or constrained(second) or _records(first) & _records(second):
            continue  # calls on the same record are not independent
        swapped = [*calls[:index], second, first, *calls[index + 2 :]]
        found.append(Variant("reorder", f"calls {index + 1} and {index + 2} swapped", swapped))
    duplicates = task.reward == "shaped" or any(isinstance(c, NoDuplicatesCheck) for c in task.checks)
    reads = [i for i, c in enumerate(calls) if not writes(task, c) and not constrained(c)]
    if reads and not duplicates:
        i = reads[0]
        found.append(Variant("extra_read", f"call {i + 1} ({calls[i].tool}) made twice", [*calls[: i + 1], *calls[i:]]))
    for number in range(max((len(s.paraphrases) for c in task.gold for s in c.text.values()), default=0)):
        changed = list(calls)
        for index, call in enumerate(task.gold):
            for path, spec in call.text.items():
                if spec.paraphrases:
                    value = spec.paraphrases[number % len(spec.paraphrases)]
                    args = set_path(changed[index].args, parse_path(path), value)
                    changed[index] = Call(tool=changed[index].tool, args=args)
        found.append(Variant("paraphrase", f"paraphrase {number + 1} of every free text", changed))
    return found


def _records(call: Call) -> set[str]:
    """The ids a call names (its strings that look like record ids)."""
    return {v for _, v in leaves(call.args) if isinstance(v, str) and ID_LIKE.match(v)}


def _said(path: Path) -> tuple[str | None, str | None, list[str]]:
    connection = open_readonly(path)
    try:
        status, answer = connection.execute("SELECT status, answer FROM _episode").fetchone()
        messages = [m for (m,) in connection.execute("SELECT content FROM _messages WHERE role = 'agent' ORDER BY seq")]
    finally:
        connection.close()
    return status, answer, messages


def _differs(task: Task, episode: Path, snapshot: Path, graded: GradeResult) -> bool:
    """Whether the episode's outcome differs from every accepted gold (rows exactly, the ending, and
    the answer and messages where the task's checks read them). Exact text is stricter than facts: when
    the grade found no gold whose rows match, none matches exactly either."""
    if not graded.db_match:
        return True
    world = get_world(task.world)
    unread = _read_only(task)
    status, answer, messages = _said(episode)
    count = len(variants(task))
    for index in [graded.gold_variant, *(i for i in range(count) if i != graded.gold_variant)]:
        gold = gold_database(task, snapshot, index)
        if not diff_databases(gold, episode, world.tables, base=snapshot, text=TextGrading("exact")).match:
            continue
        gold_status, gold_answer, gold_messages = _said(gold)
        if status != gold_status:
            continue
        if "answer" not in unread and (answer or "").strip() != (gold_answer or "").strip():
            continue
        if _told(task, messages) != _told(task, gold_messages):
            continue
        return False
    return True


def mutate(task: Task) -> TaskMutations:
    """Play and grade every variant of the task's gold."""
    from ..agents import play
    from ..episode import Episode

    report = TaskMutations(task.id)
    snapshot = seeds.task_snapshot(get_world(task.world), task.seed_changes)
    with tempfile.TemporaryDirectory(prefix="simtenant-mutate-") as tmp:
        for number, variant in enumerate(variants_of(task)):
            path = Path(tmp) / f"variant-{number}.db"
            with Episode.start(task, path, snapshot=snapshot) as episode:
                outcomes = play(episode, variant.calls)
            graded = grade(path, None, task)
            differs = _differs(task, path, snapshot, graded)
            reward = graded.reward
            played = not variant.benign or (
                all(o.ok for o in outcomes) and (variant.kind == "paraphrase" or not differs)
            )
            report.outcomes.append(Outcome(variant, reward, differs, played))
    return report
