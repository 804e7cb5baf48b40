"""Task files: what the agent is asked, the gold calls, and how it is graded.

A task is a YAML file under ``seeds/<world>/tasks/``; its id is
``<world>/<file stem>``. A file that does not fit this model is refused with
a structured error naming the file and the field.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import TaskError
from ..facts import Fact  # a fact a text must state; a list: any of its alternatives


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Call(Model):
    """One tool call, as in replay files, gold lists and ``_calls``."""

    tool: str
    args: dict[str, Any] = {}


class TextSpec(Model):
    """How a free text of a gold call is graded, and the proof that it is graded by content.

    ``facts``: what any correct text here must state (none: any text that says something passes).
    ``paraphrases``: correct texts worded otherwise (at least three: short, long, different); each
    must score 1 in the gold's place. ``missing``: texts that leave out a required fact; each must
    score below 1. ``simtenant validate`` plays them all.
    """

    facts: list[Fact] = []
    paraphrases: list[str] = []
    missing: list[str] = []

    @field_validator("missing", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class GoldCall(Call):
    """A gold call, with how its free texts are graded (``text``, by argument path such as
    ``note`` or ``body.text``) and the other values it would be as right to write (``accept``:
    argument path -> alternatives, ``*`` for complete argument sets when several arguments change
    together; each alternative is another gold, and an episode is graded against the gold it comes
    closest to)."""

    text: dict[str, TextSpec] = {}
    accept: dict[str, list[Any]] = {}


class CallMatcher(Model):
    """Which calls a rule is about: tool name(s) plus predicates on args and result."""

    tool: str | list[str]
    args: dict[str, Any] = {}
    result: dict[str, Any] = {}
    ok: bool | None = True


class SqlCheck(Model):
    kind: Literal["sql"]
    name: str
    query: str
    expect: list[list[Any]]


class AnswerCheck(Model):
    """Facts the final answer must state; a list inside the list means any of them."""

    kind: Literal["answer"]
    name: str
    facts: list[Fact]


class BeforeCheck(Model):
    """If a call matching ``then`` happens, a call matching ``first`` happened earlier."""

    kind: Literal["before"]
    name: str
    first: CallMatcher
    then: CallMatcher


class ForbidCheck(Model):
    kind: Literal["forbid"]
    name: str
    call: CallMatcher


class NoDuplicatesCheck(Model):
    """No call repeated with the same tool and arguments."""

    kind: Literal["no_duplicates"]
    name: str


class ToldUserCheck(Model):
    """Facts the agent's messages to the operator must state (any message; same rule as answers)."""

    kind: Literal["told_user"]
    name: str
    facts: list[Fact]


class JudgeCheck(Model):
    """A natural-language assertion the database cannot express (what the agent told the operator,
    how it refused), graded by a judge model over the conversation and the final answer. Only when
    a judge is configured: otherwise the check is reported as skipped and leaves the reward."""

    kind: Literal["judge"]
    name: str
    assertion: str


Check = Annotated[
    SqlCheck | AnswerCheck | BeforeCheck | ForbidCheck | NoDuplicatesCheck | ToldUserCheck | JudgeCheck,
    Field(discriminator="kind"),
]


class Milestone(Model):
    """Reward ``value`` once: when a call matches ``when`` (or any matcher of a list),
    or once all of ``after`` are reached.

    ``unless`` names milestones that must not have been reached yet (for penalties);
    ``repeat`` lets a penalty fire on every matching call.
    """

    name: str
    value: float
    when: CallMatcher | list[CallMatcher] | None = None
    after: list[str] = []
    unless: list[str] = []
    repeat: bool = False


class Bonus(Model):
    """Reward ``value`` once, at the step the task is complete, if its conditions hold."""

    name: str
    value: float
    max_steps: int | None = None
    exact_steps: int | None = None
    without: list[str] = []


class ShapedReward(Model):
    """Dense per-step reward rules; the running total is clamped to [0, 1] after each step."""

    relevant: list[str]
    duplicate_penalty: float = -0.10
    irrelevant_penalty: float = -0.05
    first_relevant_bonus: float = 0.0
    progress_per_unique_relevant: float = 0.0
    milestones: list[Milestone] = []
    complete_when: list[str]
    bonuses: list[Bonus] = []


class RubricComponent(Model):
    """One weighted part of a rubric reward, computed from the final database.

    ``agreement``: ``query`` returns (key, value) rows; the score is the share of the gold
    database's keys for which the episode's value agrees (numbers within ``tolerance``).
    ``score``: ``query`` returns (key, score in 0..1) rows; the score is their mean over the gold
    database's keys (a key the episode lacks scores 0). ``judge``: when a judge model is configured,
    ``query`` returns (key, material) rows and the judge rates each gold key's material from the
    episode against ``prompt`` (good 1, acceptable 0.5, poor 0); without a judge it is skipped.
    A component with nothing to grade is skipped too; skipped components leave the reward, whose
    weights are renormalised. The query may use ``:actor``.
    """

    name: str
    weight: float = Field(ge=0)
    kind: Literal["agreement", "score", "judge"]
    query: str | None = None
    tolerance: float = 0.0
    prompt: str | None = None


class Assertion(Model):
    """A statement about the final database, scored for partial credit (AutomationBench's kinds).

    ``where`` picks rows of ``table``: each column equals a value, or matches a condition —
    ``{contains: text}`` (case-insensitive), ``{states: [facts]}`` (the text states every fact, matched
    as answer facts are: numbers by value, dates as written, words by stem), ``{in: [...]}``,
    ``{not: value}``, ``{null: true|false}``.
    ``exists``: some row matches; ``not_exists``: none does; ``count``: exactly ``expect`` rows match;
    ``equals``: exactly one row matches and its ``column`` equals ``value`` (or matches a condition).
    A ``guard`` holds in the untouched world and guards what the agent could break (a record it must
    leave alone): it is scored only when broken. Any other assertion must not hold before the agent acts.
    """

    name: str
    guard: bool = False
    kind: Literal["exists", "not_exists", "count", "equals"]
    table: str
    where: dict[str, Any] = {}
    column: str | None = None
    value: Any = None
    expect: int | None = None


class OperatorFact(Model):
    """Something the operator knows and tells only when asked (see ``simtenant.responder``)."""

    key: str
    value: str
    reveal: str
    triggers: list[str]


class Operator(Model):
    """The person the agent works for in this task, reached through ``send_message_to_user``.

    ``opening`` is their request; ``facts`` are private until asked for; once the agent's messages
    have told them every fact of ``done_when`` (in statements, not questions or intentions; same
    matching as answer facts) they confirm and say ###STOP###, ending the episode.
    """

    persona: str
    opening: str
    facts: list[OperatorFact] = []
    done_when: list[Fact] = []


DIFFICULTIES = ("easy", "medium", "hard")
SPLITS = ("train", "test")
TEST_SHARE = 20  # percent of the families held out for testing


def split_of(world: str, family: str) -> str:
    """The split of a family of tasks: ``test`` for about TEST_SHARE percent of the families, chosen by
    a hash of the family's name, so a family's split never changes when tasks are added or edited."""
    digest = hashlib.sha256(f"{world}/{family}".encode()).digest()
    return "test" if int.from_bytes(digest[:4], "big") % 100 < TEST_SHARE else "train"


def derived_difficulty(writes: int, facts_to_ask: int) -> str:
    """A task's tier when its file declares none, from the work its gold does: ``easy`` at most one
    write and one fact to ask the operator for; ``hard`` four writes or more, or three facts or more;
    ``medium`` otherwise."""
    if writes >= 4 or facts_to_ask >= 3:
        return "hard"
    if writes <= 1 and facts_to_ask <= 1:
        return "easy"
    return "medium"


class Task(Model):
    id: str
    world: str
    description: str
    instruction: str
    notes: str = ""
    # tasks made from one template over different records share a family (the template's name): a
    # family lands whole in one split; none named, the task is a family of its own
    family: str | None = None
    # the task's tier: declared by its author, or derived from its gold by its world when it loads the
    # task (``derived_difficulty``)
    difficulty: Literal[DIFFICULTIES] | None = None  # type: ignore[valid-type]
    # train or test, from the family (``split_of``); never declared, so no family is ever split
    split: Literal[SPLITS]  # type: ignore[valid-type]
    # other names of the task: a published benchmark's own ids for it (ServiceBench's numbers), which
    # get_task and the servers accept; unique across the worlds (validate checks)
    aliases: list[Annotated[str, BeforeValidator(str)]] = []
    current_time: datetime
    actor: str | None = None
    # the organizations the acting user may work in, told to the agent; validate checks them against
    # the world (its scope_query) so a task never states a scope its data does not give
    scope: list[str] = []
    # the apps this task connects (their short names, e.g. crm, mail); none named: every app of the world
    connected: list[str] = []
    # the turn budget of an agent (each tool call and each message is a step); none: the world's default
    max_steps: int | None = Field(None, ge=1)
    user: Operator | None = None
    # the task's own changes to the seed world: {table: [rows]}, a row updates (by key) or is inserted
    seed_changes: dict[str, list[dict[str, Any]]] = {}
    gold: list[GoldCall]
    checks: list[Check] = []
    reward: Literal["default", "shaped", "rubric", "assertions"] = "default"
    shaped: ShapedReward | None = None
    rubric: list[RubricComponent] | None = None  # the world's rubric when not given
    assertions: list[Assertion] = []
    hash: str

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: Any) -> Any:
        if isinstance(data, dict) and "split" not in data and isinstance(data.get("id"), str):
            world, _, name = data["id"].partition("/")
            data = {**data, "split": split_of(world, data.get("family") or name)}
        return data

    @field_validator("current_time")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("current_time needs a time zone, e.g. 2026-03-14T10:00:00Z")
        return value

    @property
    def briefing(self) -> str:
        """What the agent is told of its task: the instruction, and the scope when the task names one."""
        text = self.instruction.strip()
        if self.scope:
            text += f"\n\nThe organizations in your scope: {', '.join(self.scope)}."
        return text

    @property
    def time_text(self) -> str:
        """The frozen clock as UTC text, the form every timestamp a tool writes takes."""
        return utc_text(self.current_time)


@lru_cache(maxsize=1024)
def utc_text(moment: datetime) -> str:
    """``moment`` as UTC text, e.g. 2026-03-14T14:00:00Z (cached: formatting is slow, clocks are few)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str | bytes) -> Any:
    """``yaml.safe_load`` on libyaml's C parser where PyYAML has it (the same values from every file shipped,
    nine times faster: loading every task was seconds of pure-Python parsing)."""
    return yaml.load(text, Loader=YAML_LOADER)


def load_task(world: str, path: Path) -> Task:
    """Read and validate one task file."""
    text = path.read_bytes()
    where = f"{world}/{path.name}"
    try:
        data = read_yaml(text)
    except yaml.YAMLError as exc:
        raise TaskError(f"{where}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise TaskError(f"{where}: a task file holds a mapping")
    if "split" in data:
        raise TaskError(f"{where}: split: follows the task's family; name a family instead")
    data = {**data, "id": f"{world}/{path.stem}", "world": world, "hash": hashlib.sha256(text).hexdigest()}
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise TaskError(f"{where}: {field}: {first['msg']} ({exc.error_count()} problem(s))") from None
