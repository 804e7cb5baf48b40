"""Finding and running operations by search: ``api_search`` and ``api_fetch``.

Every operation stays an ordinary tool; these two reach them the way a SaaS-automation agent does.
``api_search`` ranks the operations of the apps connected to the task by BM25 (SQLite FTS5, Porter
stemming) over one document per operation: the words of its name, the first sentence of its
description, the whole of it, and its parameter names and descriptions, weighted in that order.
``api_fetch`` runs one by id, its arguments given as the path, query and body parameters its search
result describes, inside the same call and transaction as every tool call. An operation of an app
the task does not connect is refused as a missing credential would be.
"""

from __future__ import annotations

import base64
import re
import sqlite3
import threading
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any

from pydantic import Field

from ...errors import Forbidden, InvalidArgument, NotFound
from .dispatch import ToolContext, invoke
from .registry import REGISTRY, Text, Tool, tool

API = "api"  # the service of these two tools: offered by every world that lists it
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.;])\s")
_INDEX_LOCK = threading.Lock()


# What an app adds to each of its operations' search results, read from the episode's database (e.g. the
# spreadsheets and worksheets an operation of the sheets app may name), by app: see ``search_context``.
CONTEXT: dict[str, Callable[[ToolContext], dict[str, Any]]] = {}


def search_context(app: str) -> Callable[[Callable[[ToolContext], dict[str, Any]]], Callable[..., Any]]:
    """Register what an app adds to its operations' api_search results (ids and titles to name)."""

    def register(fn: Callable[[ToolContext], dict[str, Any]]) -> Callable[[ToolContext], dict[str, Any]]:
        CONTEXT[app] = fn
        return fn

    return register


def app_of(tool_: Tool) -> str:
    """The app a tool belongs to: the last part of its service ("automation.crm" -> "crm")."""
    return tool_.service.rsplit(".", 1)[-1]


def is_endpoint(tool_: Tool) -> bool:
    """Whether api_fetch may run the tool: an app's operation, not the harness's nor these two."""
    return not tool_.harness and tool_.service != API


_parts: dict[int, tuple[Tool, dict[str, dict[str, Any]]]] = {}  # by the tool's id, with the tool kept


def parts(tool_: Tool) -> dict[str, dict[str, Any]]:
    """The tool's arguments as the JSON Schemas of its path, query and body parameters: path
    parameters are the ``{placeholders}`` of its route; the rest are query parameters of a GET or
    DELETE and body parameters otherwise. Worked out once per tool (every api_fetch asks): shared,
    read it, do not change it."""
    held = _parts.get(id(tool_))
    if held is None or held[0] is not tool_:
        held = _parts[id(tool_)] = (tool_, _split(tool_))
    return held[1]


def _split(tool_: Tool) -> dict[str, dict[str, Any]]:
    schema = tool_.json_schema()
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    in_path = set(_PLACEHOLDER.findall(tool_.path)) & set(properties)
    rest = "params" if tool_.method in ("GET", "DELETE") else "body"
    split: dict[str, list[str]] = {"path": [], "params": [], "body": []}
    for name in properties:
        split["path" if name in in_path else rest].append(name)
    found = {}
    for part, names in split.items():
        found[part] = {
            "type": "object",
            "properties": {n: properties[n] for n in names},
            "required": [n for n in names if n in required],
            "additionalProperties": False,
        }
        if "$defs" in schema:
            found[part]["$defs"] = schema["$defs"]
    return found


def fetch_schema(endpoints: list[Tool]) -> dict[str, Any]:
    """api_fetch's published arguments: a plain object (the form every function-calling and MCP host
    takes: no top-level ``oneOf``), whose ``endpoint`` names one of the connected operations. Each
    operation's own path, params and body schemas come with its api_search result, and a call is
    validated against them when it runs (``api_fetch``), as any tool call is."""
    own = next(t for t in REGISTRY.values() if t.name == "api_fetch").json_schema()
    names = sorted(t.name for t in endpoints)
    endpoint = {**own["properties"]["endpoint"], "enum": names}
    return {**own, "properties": {**own["properties"], "endpoint": endpoint}}


def _fields(tool_: Tool) -> tuple[str, str, str, str, str]:
    """What the index holds of an operation: its id, what its name says it does (its words after the
    app's prefix, e.g. "move deal stage"), the first sentence of its description, the whole description,
    and its parameters with their descriptions."""
    schema = tool_.json_schema()
    params = [f"{name} {prop.get('description', '')}" for name, prop in schema.get("properties", {}).items()]
    action = tool_.name.split("_", 1)[-1].replace("_", " ")
    summary = _SENTENCE_END.split(tool_.description.strip().split("\n", 1)[0], maxsplit=1)[0]
    return tool_.name, action, summary, tool_.description, "\n".join(params)


# BM25 weights of the name's words, the description's first sentence, the whole description and the
# parameters: what an operation is called and says first say most about it. Measured on the natural
# requests of tests/fixtures/search_requests.yaml (the right operation first: 70% with the title, whole
# description and parameters weighted 3, 1, 0.3; see docs/worlds/automation.md for the current figure).
WEIGHTS = (5.0, 1.0, 0.3, 0.1)


def family(tool_: Tool) -> str:
    """The world family an operation belongs to: the first part of its service ("automation.crm" -> "automation")."""
    return tool_.service.split(".", 1)[0]


@cache
def _index(families: frozenset[str]) -> sqlite3.Connection:
    """An in-memory FTS5 index of the operations of these families, built once per process: a term's
    weight is measured among the operations an agent searches, not those of other worlds."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.execute(
        "CREATE VIRTUAL TABLE endpoints USING fts5(name UNINDEXED, action, summary, description, parameters, "
        "tokenize='porter unicode61')"
    )
    connection.executemany(
        "INSERT INTO endpoints (name, action, summary, description, parameters) VALUES (?, ?, ?, ?, ?)",
        [
            _fields(t)
            for t in sorted(REGISTRY.values(), key=lambda t: t.name)
            if is_endpoint(t) and family(t) in families
        ],
    )
    return connection


def search(query: str, allowed: set[str], top_k: int) -> list[tuple[str, float]]:
    """The ``top_k`` best operations among ``allowed`` for ``query`` by BM25 (best first, ties by name)."""
    words = _WORD.findall(query.lower())
    if not words or not allowed:
        return []
    match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
    families = frozenset(family(REGISTRY[name]) for name in allowed if name in REGISTRY)
    with _INDEX_LOCK:
        rows = (
            _index(families)
            .execute(
                "SELECT name, bm25(endpoints, 0.0, ?, ?, ?, ?) AS score FROM endpoints WHERE endpoints MATCH ? "
                "ORDER BY score, name",
                (*WEIGHTS, match),
            )
            .fetchall()
        )
    return [(name, round(-score, 6)) for name, score in rows if name in allowed][:top_k]


def connected_endpoints(ctx: ToolContext) -> dict[str, Tool]:
    """The operations of the apps connected to the episode's task, by name."""
    episode = ctx.episode
    return {name: t for name, t in episode.tools.items() if is_endpoint(t) and episode.connected(t)}


@tool(API, "GET", "/api/search")
def api_search(
    ctx: ToolContext,
    query: Annotated[Text, Field(description="What you want to do, in plain words, e.g. 'move a deal to won'")],
    top_k: Annotated[int, Field(ge=1, le=20, description="How many operations to return, best first")] = 5,
) -> Any:
    """Search the operations of the apps connected to this task; each result gives the endpoint id to
    pass to api_fetch, its method and path, what it does, and the JSON Schemas of its path, query
    (params) and body parameters (the first sheets operation also lists spreadsheets and worksheets, ids and
    titles)."""
    endpoints = connected_endpoints(ctx)
    results = []
    context: dict[str, dict[str, Any]] = {}
    for name, score in search(query, set(endpoints), top_k):
        endpoint = endpoints[name]
        schemas = parts(endpoint)
        app = app_of(endpoint)
        told = {}
        if app in CONTEXT and app not in context:  # told once, with the app's first result
            context[app] = told = CONTEXT[app](ctx)
        results.append(
            {
                "endpoint": name,
                "app": app,
                "method": endpoint.method,
                "path": endpoint.path,
                "description": endpoint.description,
                "score": score,
                "path_schema": schemas["path"],
                "params_schema": schemas["params"],
                "body_schema": schemas["body"],
                **told,
            }
        )
    return {"query": query, "results": results}


Parameters = Annotated[dict[str, Any] | None, Field(description="Parameters by name, as the search result's schema")]


@tool(API, "POST", "/api/fetch")
def api_fetch(
    ctx: ToolContext,
    endpoint: Annotated[str, Field(description="An endpoint id from api_search, e.g. crm_update_deal")],
    path: Parameters = None,
    params: Parameters = None,
    body: Parameters = None,
) -> Any:
    """Run one operation found with api_search: its path parameters in ``path``, query parameters in
    ``params`` and body parameters in ``body``. Returns what the operation returns."""
    target = ctx.episode.tools.get(endpoint)
    if target is None or not is_endpoint(target):
        raise NotFound(f"unknown endpoint {endpoint!r}; find one with api_search", error="unknown_endpoint")
    if not ctx.episode.connected(target):
        raise Forbidden(f"the {app_of(target)} app is not connected to this task", error="not_connected")
    schemas = parts(target)
    merged: dict[str, Any] = {}
    for part, given in (("path", path), ("params", params), ("body", body)):
        for name, value in (given or {}).items():
            if name not in schemas[part]["properties"]:
                where = next((p for p, s in schemas.items() if name in s["properties"]), None)
                hint = f" (it is a {where} parameter)" if where else ""
                raise InvalidArgument(f"{part}.{name}: {endpoint} takes no such {part} parameter{hint}")
            merged[name] = value
    return invoke(ctx, target, merged)


@tool(API, "POST", "/api/base64-encode")
def base64_encode(ctx: ToolContext, text: Annotated[str, Field(description="The text to encode (UTF-8)")]) -> Any:
    """Encode text as base64 (standard alphabet, padded), for operations that take encoded content."""
    return {"encoded": base64.b64encode(text.encode()).decode("ascii")}
