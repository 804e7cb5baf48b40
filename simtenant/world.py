"""Worlds: a folder of seed data, policy and tasks, plus the services whose tools it offers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path

from pydantic import TypeAdapter
from sqlalchemy import Table

from .errors import InvalidArgument, NotFound
from .schema import Base, metadata
from .task import DIFFICULTIES, SPLITS, Call, RubricComponent, Task, derived_difficulty, load_task, read_yaml
from .tools import Tool, tools_of
from .tools.engine.harness import STOP
from .tools.engine.registry import REGISTRY
from .tools.engine.search import API, app_of, fetch_schema, is_endpoint

SEEDS = Path(__file__).parent / "seeds"
TASK_ID = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*$")
DEFAULT_MAX_STEPS = 30  # the turn budget of an episode on every door: each tool call, and each message, is one
USER_TOOL = "send_message_to_user"
BEGIN = "Begin. Work with the tools; when you are done, call {finish} with your final answer."
NOBODY = "Nobody reads what you write without a tool in this task: act through the tools, and call {finish} when done."


@dataclass(frozen=True)
class Briefing:
    """What an agent is told of an episode, the same on every door: the system text (the world's
    policy, the task's instruction and scope, the clock, the acting identity, how to reach the
    operator, how the episode ends and its turn budget), the opening message (the operator's request,
    or a request to begin), the tools offered, and what an agent is answered when it writes text that
    nobody reads (a task without an operator)."""

    system: str
    opening: str
    tools: list[Tool]
    nobody: str

    def text(self) -> str:
        """The briefing as one text: the system part, then the opening message."""
        return f"{self.system}\n\n## The first message\n\n{self.opening}"


def clock_text(task: Task) -> str:
    """The task's clock as an agent reads it: its time (with its own UTC offset) and weekday."""
    moment = task.current_time
    local = moment.strftime("%A %d %B %Y, %H:%M")
    offset = moment.utcoffset()
    if offset is None or offset.total_seconds() == 0:
        return f"{task.time_text} ({local} UTC)"
    hours = offset.total_seconds() / 3600
    return f"{task.time_text} ({local} local time, UTC{hours:+g})"


@dataclass
class World:
    name: str
    title: str
    description: str
    services: list[str]
    folder: Path
    schema: str = ""  # the migration branch holding its tables (the world's name unless it says)
    finish_tool: str = "finish"  # the tool that ends an episode, and its answer argument
    finish_answer: str = "answer"
    rubric: list[RubricComponent] = field(default_factory=list)
    policy_files: list[str] = field(default_factory=lambda: ["policy.md"])  # relative to the folder, in order
    scope_query: str | None = None  # the organizations :actor may work in, to check the scope a task states
    offer: str = "tools"  # what agents are shown: "tools" (every connected tool) or "search" (api_search/api_fetch)
    _tasks: dict[str, Task] | None = field(default=None, repr=False)
    _single: dict[str, Task] = field(default_factory=dict, repr=False)  # tasks read one by one (get_task)
    _offered: dict[tuple[object, ...], list[Tool]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.schema = self.schema or self.name

    @property
    def policy(self) -> str:
        """The world's policy: its policy files joined in order (a world may build on another's)."""
        paths = [self.folder / name for name in self.policy_files]
        return "\n\n".join(p.read_text().strip() for p in paths if p.exists())

    @cached_property
    def tables(self) -> list[Table]:
        """The world's tables in foreign-key order: those of its schema package (``simtenant.schema.<schema>``)."""
        package = f"simtenant.schema.{self.schema}."
        owned = {m.local_table.name for m in Base.registry.mappers if m.class_.__module__.startswith(package)}
        return [t for t in metadata.sorted_tables if t.name in owned]

    @property
    def tools(self) -> list[Tool]:
        return tools_of(self.services)

    def all_tools(self, with_user: bool = False) -> list[Tool]:
        """The world's tools and the harness tools offered beside them (``send_message_to_user``
        only for a task with a user; ``finish`` unless the world ends episodes with a tool of its own)."""
        harness = [
            t
            for t in tools_of(["harness"])
            if (t.name != "finish" or self.finish_tool == "finish") and (with_user or t.name != "send_message_to_user")
        ]
        return [*self.tools, *harness]

    def tool_map(self, with_user: bool = False) -> dict[str, Tool]:
        """Every tool an episode of this world takes, by name."""
        return {t.name: t for t in self.all_tools(with_user)}

    def operation(self, call: Call) -> Tool | None:
        """The tool a call runs (``api_fetch``: the operation it names); None for a name no tool has."""
        endpoint = call.args.get("endpoint")
        name = endpoint if call.tool == "api_fetch" and isinstance(endpoint, str) else call.tool
        return self.tool_map(with_user=True).get(name)

    def connected(self, task: Task, tool: Tool) -> bool:
        """Whether ``task`` connects the app of ``tool``: every app when it names none; the harness and
        the search tools always."""
        return not task.connected or tool.harness or tool.service == API or app_of(tool) in task.connected

    def offered(self, task: Task) -> list[Tool]:
        """The tools an agent is shown for ``task``: the connected ones (only the search tools and the
        harness's when the world offers search), api_fetch described by one schema per endpoint it may run.
        Every episode asks: found once for the same apps, operator and tools."""
        key = (tuple(task.connected), task.user is not None, REGISTRY.version)
        if key not in self._offered:
            connected = [t for t in self.all_tools(with_user=task.user is not None) if self.connected(task, t)]
            shown = [t for t in connected if t.harness or t.service == API] if self.offer == "search" else connected
            endpoints = [t for t in connected if is_endpoint(t)]
            self._offered[key] = [
                replace(t, schema=fetch_schema(endpoints)) if t.name == "api_fetch" else t for t in shown
            ]
        return list(self._offered[key])

    def briefing(self, task: Task, max_steps: int = DEFAULT_MAX_STEPS) -> Briefing:
        """What an agent is told of an episode of ``task`` (the same on every door)."""
        finish = self.finish_tool
        parts = [self.policy.strip()] if self.policy.strip() else []
        parts.append(f"## Your task\n\n{task.briefing}")
        who = f" You act as {task.actor}." if task.actor else ""
        parts.append(f"The current time is {clock_text(task)}.{who}")
        if task.user is not None:
            parts.append(
                "The person you work for (the operator) writes to you first; their message follows. Reach them "
                f"with {USER_TOOL} (a message you write without calling a tool is sent to them too): their reply "
                f"comes back. When they have what they asked for they answer {STOP}, which ends the episode: "
                f"no {finish} is needed then."
            )
        if task.user is not None:
            ends = f"When the work is done, tell the operator, or call {finish}."
        else:
            ends = f"When the work is done, call {finish}. Nobody reads a message you write without a tool."
        parts.append(
            f"Act only through the tools. {ends} You have {max_steps} steps (each tool call, and each message "
            "you write, is one); after the last one the episode ends as it is."
        )
        opening = task.user.opening.strip() if task.user is not None else BEGIN.format(finish=finish)
        return Briefing("\n\n".join(parts), opening, self.offered(task), NOBODY.format(finish=finish))

    @property
    def tasks(self) -> dict[str, Task]:
        if self._tasks is None:
            paths = sorted((self.folder / "tasks").glob("*.yaml"))
            self._tasks = {t.id: t for t in (self.load_task(p) for p in paths)}
        return self._tasks

    def load_task(self, path: Path) -> Task:
        """Read one task file of this world; a task that declares no difficulty gets the one its gold's
        writes (to the world: finishing and messages to the operator are not counted) and its operator's
        facts give (``derived_difficulty``)."""
        task = load_task(self.name, path)
        if task.difficulty is not None:
            return task
        writes = sum(
            1 for c in task.gold if (tool := self.operation(c)) is not None and tool.writes and not tool.harness
        )
        facts = len(task.user.facts) if task.user is not None else 0
        return task.model_copy(update={"difficulty": derived_difficulty(writes, facts)})


@cache
def worlds() -> dict[str, World]:
    found = {}
    for meta in sorted(SEEDS.glob("*/world.yaml")):
        data = read_yaml(meta.read_text())
        finish = data.get("finish", {})
        found[data["name"]] = World(
            name=data["name"],
            title=data["title"],
            description=data["description"],
            services=list(data["services"]),
            folder=meta.parent,
            schema=data.get("schema", data["name"]),
            finish_tool=finish.get("tool", "finish"),
            finish_answer=finish.get("answer", "answer"),
            rubric=TypeAdapter(list[RubricComponent]).validate_python(data.get("rubric", [])),
            policy_files=list(data.get("policy", ["policy.md"])),
            scope_query=data.get("scope_query"),
            offer=data.get("offer", "tools"),
        )
    return found


def get_world(name: str) -> World:
    try:
        return worlds()[name]
    except KeyError:
        raise NotFound(f"unknown world {name!r}; worlds: {', '.join(worlds())}", error="unknown_world") from None


def get_task(task_id: str | int) -> Task:
    """The task with id ``world/name``, or with that alias (a published benchmark's own id for it, e.g.
    ServiceBench's ``1``); refuses anything else."""
    task_id = str(task_id)
    if not TASK_ID.match(task_id):
        aliased = [t for t in all_tasks() if task_id in t.aliases]
        if len(aliased) == 1:
            return aliased[0]
        raise NotFound(f"{task_id!r} is not a task id (world/name) nor a task's alias", error="unknown_task")
    world = get_world(task_id.split("/", 1)[0])
    if world._tasks is not None:
        if task_id in world._tasks:
            return world._tasks[task_id]
    else:  # read only this task's file: another task's broken file does not stop this one
        if task_id not in world._single:
            path = world.folder / "tasks" / f"{task_id.split('/', 1)[1]}.yaml"
            if path.is_file():
                world._single[task_id] = world.load_task(path)
        if task_id in world._single:
            return world._single[task_id]
    raise NotFound(f"unknown task {task_id!r}; see `simtenant tasks {world.name}`", error="unknown_task")


def all_tasks() -> list[Task]:
    return [t for w in worlds().values() for t in w.tasks.values()]


def of_kind(tasks: Iterable[Task], split: str | None = None, difficulty: str | None = None) -> list[Task]:
    """The tasks of ``split`` (train, test) and ``difficulty`` (easy, medium, hard), each when given."""
    if split is not None and split not in SPLITS:
        raise InvalidArgument(f"split is one of {', '.join(SPLITS)}, not {split!r}", error="invalid_split")
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise InvalidArgument(
            f"difficulty is one of {', '.join(DIFFICULTIES)}, not {difficulty!r}", error="invalid_difficulty"
        )
    return [t for t in tasks if split in (None, t.split) and difficulty in (None, t.difficulty)]
