"""The one dispatcher: every call of every agent, interface and gold replay.

A call is validated against the tool's arguments model, run inside one
transaction together with its record in ``_calls``, and answered with a
result or a structured error. A failing call rolls back every write it made;
only its record (with the error) is kept.
"""

from __future__ import annotations

import difflib
import json
import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound, SimtenantError
from ...schema.harness import CallRecord, EpisodeRecord
from ...task import utc_text
from .rows import Rows, driver

if TYPE_CHECKING:
    from ...task import Task
    from .registry import Tool


class Served(Protocol):
    """The episode a call runs in, as the dispatcher and the tools see it (``simtenant.episode.Episode``
    is the one every door uses): its session, clock, identity, tools, task and progress."""

    session: Session
    now: datetime
    actor: str | None
    task: Task
    tools: dict[str, Tool]
    done: bool
    calls: int

    def connected(self, tool: Tool) -> bool: ...

    def offers(self, tool: Tool) -> bool: ...

    def step_reward(self, outcome: Outcome) -> float | None: ...


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same value always gives the same bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Memo:
    """What tools remember across an episode's calls, each entry with the tables it was read from; the
    dispatcher forgets an entry once a call writes one of its tables (committed or not), and every
    entry after a call that wrote through the session, whose tables it does not know."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, frozenset[str]]] = {}

    def get(self, key: str) -> Any:
        entry = self._entries.get(key)
        return None if entry is None else entry[0]

    def put(self, key: str, value: Any, tables: Iterable[str]) -> None:
        self._entries[key] = (value, frozenset(tables))

    def pop(self, key: str) -> None:
        self._entries.pop(key, None)

    def forget(self, written: set[str] | None) -> None:
        """Drop the entries read from any of the ``written`` tables (None: every entry)."""
        if written is None:
            self._entries.clear()
        elif written and self._entries:
            self._entries = {k: e for k, e in self._entries.items() if not e[1] & written}


@dataclass
class ToolContext:
    """What a tool may use: the call's tables (``rows``), the frozen clock, the acting identity and the
    episode. Tools read and write through ``rows``; the session under it is the episode's (a write made
    through it joins the call's transaction too, for scripts and tests)."""

    session: Session
    now: datetime
    actor: str | None
    episode: Served
    finished: bool = False  # set by finish(): the episode ends when this call commits
    # What tools remember from one call to the next (the episode's), each entry with the tables it was
    # read from: say, the acting user's grants, read again only after a call that writes those tables.
    memo: Memo = field(default_factory=Memo)
    _rows: Rows | None = None

    @property
    def rows(self) -> Rows:
        """The call's tables as dicts, by statements built once (``engine.rows``)."""
        if self._rows is None:
            self._rows = Rows(self.session)
        return self._rows

    @property
    def wrote_rows(self) -> bool:
        """Whether the call wrote through ``rows`` (the session's objects are then out of date)."""
        return self._rows is not None and self._rows.wrote

    def written(self) -> set[str] | None:
        """The tables the call wrote through ``rows``; None when the session joined it (unknown tables)."""
        if self.session.in_transaction():
            return None
        return set() if self._rows is None else self._rows.written

    @property
    def timestamp(self) -> str:
        return utc_text(self.now)

    def finish(self, answer: str) -> None:
        """Mark the episode finished with its final answer (for tools that end it)."""
        self.rows.update(EpisodeRecord, 1, {"status": "finished", "answer": answer})
        self.finished = True


@dataclass
class Outcome:
    seq: int
    tool: str
    args: dict[str, Any]
    ok: bool
    result: Any = None
    error: dict[str, Any] | None = None
    reward: float | None = None

    @cached_property
    def args_json(self) -> str:
        """The arguments as canonical JSON text (as recorded, and as the shaped reward tells calls apart)."""
        return canonical_json(self.args)

    def to_dict(self, with_reward: bool = True) -> dict[str, Any]:
        """The call as recorded; ``with_reward`` false leaves out its step reward (what an agent is shown
        where the task's reward is not shaped)."""
        body: dict[str, Any] = {"seq": self.seq, "tool": self.tool, "ok": self.ok}
        body["result" if self.ok else "error"] = self.result if self.ok else self.error
        if self.reward is not None and with_reward:
            body["reward"] = self.reward
        return body

    def content(self) -> str:
        """What an agent reads back on every door: the result, or ``{"error": ...}``, as JSON text."""
        return json.dumps(self.result if self.ok else {"error": self.error}, ensure_ascii=False)


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def dispatch(episode: Served, name: str, args: Any, only_offered: bool = False) -> Outcome:
    """Run one call in one transaction and record it; never raises for bad input. With
    ``only_offered`` (an agent's call, through any door) a tool the episode does not show the agent is
    refused (403 ``not_offered``): in a world that offers search, operations run through ``api_fetch``."""
    args = _as_json_object(args)
    session = episode.session
    outcome = Outcome(seq=episode.calls + 1, tool=name, args=args, ok=False)
    if episode.done and name in episode.tools:  # refused, recorded, and earning no reward
        finished = Conflict("the episode has finished; no more calls are taken", error="episode_finished")
        outcome.error = finished.to_dict()
        with Transaction(session):
            _record(session, outcome)
        episode.calls += 1
        return outcome
    context = ToolContext(session=session, now=episode.now, actor=episode.actor, episode=episode)
    memo = getattr(episode, "memo", None)
    if memo is not None:
        context.memo = memo
    try:
        try:
            with Transaction(session):
                result_text = canonical_json(_run(episode, context, name, args, only_offered))
                # read back from its JSON text, so the result is plain data, identical to what is recorded
                outcome.result, outcome.ok = json.loads(result_text), True
                outcome.reward = episode.step_reward(outcome)
                _record(session, outcome, result_text)
        finally:
            # once the call has run (or failed: its writes are rolled back, and what was read after them
            # with them), the memo forgets what it read from the tables the call wrote
            context.memo.forget(context.written())
        if context.wrote_rows:
            session.expire_all()  # rows written past the session: what it holds is read again when used
        episode.calls += 1
        episode.done = episode.done or context.finished
        return outcome
    except SimtenantError as exc:
        outcome.error = exc.to_dict()
    except (IntegrityError, sqlite3.IntegrityError) as exc:
        why = exc.orig if isinstance(exc, IntegrityError) else exc
        outcome.error = Conflict(f"constraint violated: {why}", error="constraint_violation").to_dict()
    except (SQLAlchemyError, sqlite3.Error) as exc:
        outcome.error = SimtenantError(f"database error: {type(exc).__name__}").to_dict()
    except Exception as exc:  # a bug in a tool still answers, without a traceback
        outcome.error = SimtenantError(f"tool {name} failed: {type(exc).__name__}").to_dict()
    outcome.ok, outcome.result = False, None
    try:
        outcome.reward = episode.step_reward(outcome)
    except Exception:  # a failed call earns nothing; its record must still be written
        outcome.reward = None
    with Transaction(session):
        _record(session, outcome)
    episode.calls += 1
    return outcome


class Transaction:
    """One call's transaction, begun on the driver: a tool that uses the session's objects joins it (the
    engine's begin sees it open), and it commits or rolls back as one, the session's writes with it.
    A call that never touches the session pays nothing for it. (A class, not a generator: every call
    enters one, and ``contextmanager``'s machinery cost more than the BEGIN.)"""

    __slots__ = ("connection", "session")

    def __init__(self, session: Session) -> None:
        self.session = session
        self.connection = driver(session)

    def __enter__(self) -> None:
        self.connection.execute("BEGIN")

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        session, connection = self.session, self.connection
        if kind is None:
            try:
                if session.in_transaction():
                    session.commit()  # flushes what is pending, then commits the driver
                if connection.in_transaction:
                    connection.execute("COMMIT")
                return
            except BaseException:  # at the commit: rolled back as below, and raised
                self._roll_back()
                raise
        self._roll_back()

    def _roll_back(self) -> None:
        # the driver too, where the session joined (a change to an object it held joins it as well)
        self.session.rollback()
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")


def _did_you_mean(episode: Served, name: str) -> str:
    """A hint naming the tools closest to a name (or a ``METHOD /path`` route) no tool has."""
    tools = [t for t in episode.tools.values() if episode.offers(t)]
    known = [t.name for t in tools] + [f"{t.method} {t.path}" for t in tools]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f"; did you mean {', '.join(close)}?" if close else ""


MAX_DEPTH = 32  # no tool takes arguments nested deeper
INT64 = 2**63  # SQLite's integers are in [-INT64, INT64)


def _as_json_object(args: Any) -> dict[str, Any]:
    """The arguments if they are a JSON object that can be stored and recorded as it is; otherwise a
    marker, saying what is wrong with them, that ``_run`` refuses."""
    problem = _not_storable(args, 0)
    if problem is not None:  # recorded as what is wrong, since the value itself cannot be
        return {"__unstorable__": problem}
    return args if isinstance(args, dict) else {"__invalid__": args}


def _not_storable(value: Any, depth: int) -> str | None:
    """What keeps a value from being stored and recorded as JSON text (None when nothing does)."""
    if depth > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels"
    if isinstance(value, str):
        if value.isascii():  # the common case, without encoding it
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "text that is not valid Unicode (a lone surrogate)"
        return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return None if -INT64 <= value < INT64 else "an integer beyond 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number that is not finite"
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return "an object whose keys are not all text"
            problem = _not_storable(key, depth + 1) or _not_storable(item, depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, list | tuple):
        for item in value:
            problem = _not_storable(item, depth + 1)
            if problem is not None:
                return problem
        return None
    return f"a {type(value).__name__}, which JSON has not"


def _run(episode: Served, context: ToolContext, name: str, args: dict[str, Any], only_offered: bool) -> Any:
    tool = episode.tools.get(name)
    if tool is None:
        raise NotFound(f"unknown tool {name!r}{_did_you_mean(episode, name)}", error="unknown_tool")
    if only_offered and not episode.offers(tool):
        raise Forbidden(
            f"{name} is not offered here: find it with api_search, run it with api_fetch", error="not_offered"
        )
    if "__invalid__" in args:
        raise InvalidArgument("arguments must be a JSON object of JSON values", error="invalid_arguments")
    if "__unstorable__" in args:
        why = args["__unstorable__"]
        raise InvalidArgument(
            f"arguments must be a JSON object of JSON values; these hold {why}", error="invalid_arguments"
        )
    if not episode.connected(tool):
        raise Forbidden(f"the {tool.service} service is not connected to this task", error="not_connected")
    result = invoke(context, tool, args)
    context.session.flush()
    return result


def invoke(context: ToolContext, tool: Tool, args: dict[str, Any]) -> Any:
    """Validate ``args`` against the tool's arguments and run it in the call's context (and so in its
    transaction): how a call runs its tool, and how api_fetch runs the operation it names."""
    try:
        validated = tool.arguments.model_validate(args)
    except ValidationError as exc:
        raise InvalidArgument(_validation_message(exc), error="invalid_arguments") from None
    values = validated.__dict__  # the fields' values (the arguments models forbid extras)
    for name, value in values.items():
        if value is not None and not isinstance(value, str) and _too_large(value):
            raise InvalidArgument(f"{name}: a whole number beyond the 64-bit range", error="invalid_arguments")
    return tool.fn(context, **values)


def _too_large(value: Any) -> bool:
    """Whether an integer anywhere in ``value`` does not fit SQLite's 64-bit integers."""
    if isinstance(value, int) and not isinstance(value, bool):
        return not -INT64 <= value < INT64
    if isinstance(value, list | tuple):
        return any(_too_large(v) for v in value)
    if isinstance(value, dict):
        return any(_too_large(v) for v in value.values())
    return False


RECORD_CALL = (
    f"INSERT INTO {CallRecord.__tablename__} (seq, tool, args, ok, result, error, reward) VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def _record(session: Session, outcome: Outcome, result_text: str | None = None) -> None:
    """Insert the call's record (its result as the JSON text ``result_text``, where it has one) in the
    call's transaction: on the driver's cursor, since every call runs this and SQLAlchemy's statement
    machinery costs more than the insert."""
    driver(session).execute(
        RECORD_CALL,
        (
            outcome.seq,
            outcome.tool,
            outcome.args_json,
            outcome.ok,
            result_text if outcome.ok else None,
            None if outcome.ok else canonical_json(outcome.error),
            outcome.reward,
        ),
    )
