"""Bad input, every tool of every world: property-based calls generated from each tool's JSON Schema.

Hypothesis draws arguments that fit the schema — with ids that exist in the world (of every
organization, so also of the wrong one), unicode, SQL fragments, huge strings, negative and huge
numbers — and arguments that do not: wrong types, missing required and extra fields. Every call
must answer with a result or a structured 4xx error (never an exception, never an internal error);
afterwards the database passes ``integrity_check`` and ``foreign_key_check``, and a call that
erred left every world row exactly as it was (every row written is in the change log, so the rows it
names are the ones to compare). Examples are derandomised, so CI runs the same
calls every time; the number of calls made is printed at the end of the session.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import sweep_task

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.world import get_world

pytestmark = pytest.mark.slow  # a stress run: CI runs it; -m "not slow" skips it while developing

EXAMPLES = 28  # per tool and world: over 10,000 calls in all
CALLS: dict[str, int] = {}  # world -> calls made (reported by conftest's terminal summary)

# (world, acting user): broad roles, so calls get past the permission checks to the rules behind them
WORLDS = {
    "commerce": None,
    "homeservices": "BIZ-TOW-RAL",
    "itsm": "USR-0001",
    "itsm-msp": "USR-0002",  # a provider manager in seven clients (two inactive) and the provider
    "automation": "maya.patel@lumenpine.example",  # every app connected, api_search and api_fetch too
}
SQL_FRAGMENTS = [
    "'; DROP TABLE incidents; --",
    "x' OR '1'='1",
    '" OR 1=1 --',
    "%",
    "_",
    "1; DELETE FROM sys_users",
    "') UNION SELECT * FROM _calls --",
    "NULL",
]
ODD_TEXT = ["", " ", "\x00", "é" * 3, "😀🚀", "\u202e reversed", "a" * 5000, "\n\t", "../../etc/passwd"]
NUMBERS = [0, -1, -(2**63), 2**63, 2**64, 10**30, 1.5, -0.0, 1e308]


def world_ids(path: Path) -> list[str]:
    """Every string primary key of the world's tables: real ids, of every organization."""
    connection = sqlite3.connect(path)
    try:
        found = set()
        for (table,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' "
            "AND name NOT LIKE 'sqlite%' AND name != 'alembic_version'"
        ):
            keys = [r[1] for r in connection.execute(f'PRAGMA table_info("{table}")') if r[5] == 1]
            if len(keys) == 1:
                found |= {v for (v,) in connection.execute(f'SELECT "{keys[0]}" FROM "{table}"') if isinstance(v, str)}
        return sorted(found)
    finally:
        connection.close()


def fitting(schema: dict[str, Any], defs: dict[str, Any], ids: list[str], depth: int = 0) -> st.SearchStrategy:
    """Values that fit ``schema`` — or nearly: the edges of every type are drawn too."""
    if "$ref" in schema:
        return fitting(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, ids, depth)
    if "anyOf" in schema:
        return st.one_of([fitting(s, defs, ids, depth) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema.get("type")
    if kind == "string":
        return st.one_of(st.sampled_from(ids), st.text(max_size=40), st.sampled_from(SQL_FRAGMENTS + ODD_TEXT))
    if kind == "integer":
        low, high = schema.get("minimum", -(10**6)), schema.get("maximum", 10**6)
        return st.one_of(st.integers(low, high), st.sampled_from([n for n in NUMBERS if isinstance(n, int)]))
    if kind == "number":
        return st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(NUMBERS))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = fitting(schema.get("items", {}), defs, ids, depth + 1) if depth < 2 else st.none()
        return st.lists(items, max_size=4)
    if kind == "object":
        return st.dictionaries(st.text(max_size=8), json_values(), max_size=3)
    return json_values()


def json_values() -> st.SearchStrategy:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner), max_leaves=10
    )


@st.composite
def arguments(draw: st.DrawFn, schema: dict[str, Any], ids: list[str]) -> Any:
    """A tool's arguments: mostly fitting the schema, sometimes broken on purpose."""
    defs = schema.get("$defs", {})
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    args = {}
    for name, prop in properties.items():
        if name in required or draw(st.booleans()):
            args[name] = draw(fitting(prop, defs, ids))
    breakage = draw(st.sampled_from(["none", "none", "none", "wrong_type", "missing", "extra", "not_an_object"]))
    if breakage == "wrong_type" and properties:
        args[draw(st.sampled_from(sorted(properties)))] = draw(json_values())
    elif breakage == "missing" and required:
        args.pop(draw(st.sampled_from(sorted(required))), None)
    elif breakage == "extra":
        args[draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in properties))] = draw(json_values())
    elif breakage == "not_an_object":
        return draw(json_values().filter(lambda v: not isinstance(v, dict)))
    return args


def world_state(reader: sqlite3.Connection) -> str:
    """A digest of what the episode has written to the world: the keys its change log names (the snapshot's
    triggers log every row written) and those rows as they are now. Every other row is the snapshot's, so
    this sees any write at the cost of the rows written, not of the world's size."""
    digest = hashlib.sha256()
    for table, pk in reader.execute("SELECT tbl, pk FROM _changes ORDER BY tbl, pk"):
        keys = [r[1] for r in sorted(reader.execute(f'PRAGMA table_info("{table}")'), key=lambda r: r[5]) if r[5]]
        where = " AND ".join(f'"{k}" IS ?' for k in keys)
        row = reader.execute(f'SELECT * FROM "{table}" WHERE {where}', json.loads(pk)).fetchall()
        digest.update(repr((table, pk, row)).encode())
    return digest.hexdigest()


def cases() -> Iterator[tuple[str, str]]:
    for world in WORLDS:
        for tool in get_world(world).all_tools(with_user=True):
            if tool.name != "finish" and not tool.ends:
                yield world, tool.name


@pytest.fixture(scope="module")
def ids() -> dict[str, list[str]]:
    return {world: world_ids(seeds.snapshot(get_world(world))) for world in WORLDS}


def start(world: str, path: Path) -> Episode:
    task = sweep_task(
        world,
        "fuzz",
        WORLDS[world],
        description="fuzz",
        instruction="fuzz",
        current_time="2026-06-01T09:00:00Z",
        user={"persona": "A tester.", "opening": "Hello."},
    )
    return Episode.start(task, path)


@pytest.mark.parametrize(("world", "tool"), list(cases()))
def test_every_tool_answers_bad_input_with_a_structured_error_and_writes_nothing(tmp_path, ids, world, tool):
    episode = start(world, tmp_path / "fuzz.db")
    schema = episode.tools[tool].arguments.model_json_schema()
    # a connection of its own: reading through the episode's would open a transaction the calls then join
    connection = sqlite3.connect(f"file:{episode.path}?mode=ro", uri=True, isolation_level=None)

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(args=arguments(schema, ids[world]))
    def one_call(args: Any) -> None:
        before = world_state(connection)
        outcome = episode.call(tool, args)
        CALLS[world] = CALLS.get(world, 0) + 1
        if not outcome.ok:
            error = outcome.error or {}
            assert set(error) == {"code", "error", "message"}, error
            assert 400 <= error["code"] < 500, (tool, args, error)
            assert "Traceback" not in error["message"]
            assert world_state(connection) == before, f"{tool} erred and still wrote: {args!r}"

    try:
        one_call()
        # damage stays: checked once, after every call of the tool
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        connection.close()
        episode.close()
