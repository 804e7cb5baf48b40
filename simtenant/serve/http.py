"""An OpenEnv-compatible HTTP server: many concurrent episodes of any task, one call per step.

Routes: ``POST /reset {"task_id"}``, ``POST /step {"episode_id"?, "action"}`` (or the action's fields at
the top level, as ServiceBench's curl sends them), ``GET /state``, ``GET /health``, ``GET /schema``.
An action is ``{"tool", "args"}`` or ServiceBench's ``{"service", "endpoint", "method", "params"}``,
routed to the tool registered at that route. A request that names no episode acts on the most recent
one. Every failure is a structured error ``{"error": {code, error, message}}`` with that HTTP status;
a call the tool refuses is an observation with ``success: false`` (the agent's mistake, recorded in
``_calls`` like any other call), not an HTTP error.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import Conflict, InvalidArgument, NotFound, SimtenantError
from ..tools import Tool
from ..tools.engine.dispatch import Outcome
from ..world import get_task, worlds
from . import BearerToken, LiveEpisode, catalogue, serve_forever

EPISODE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ToolAction(BaseModel):
    """Call a tool by name."""

    model_config = ConfigDict(extra="forbid", strict=True)
    tool: str = Field(description="The tool's name, as listed in available_endpoints")
    args: Any = Field(default_factory=dict, description="The tool's arguments (a JSON object)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Ignored (OpenEnv's action metadata)")


class EndpointAction(BaseModel):
    """Call a tool by its route, as ServiceBench's actions do."""

    model_config = ConfigDict(extra="forbid", strict=True)
    service: str | None = Field(None, description='The tool\'s service ("orders"; ServiceBench\'s "order" too)')
    endpoint: str = Field(description='The tool\'s path, e.g. "/users/lookup"')
    method: str = Field("GET", description="The tool's method: GET reads, POST writes")
    params: Any = Field(default_factory=dict, description="The tool's arguments (a JSON object)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Ignored (OpenEnv's action metadata)")


class Observation(BaseModel):
    """What the agent sees after a reset or a step (ServiceBench's observation, plus the operator's messages)."""

    task_description: str = Field(description="The task's instruction")
    api_response: Any = Field(None, description="The call's result, or its structured error")
    success: bool = Field(description="Whether the call succeeded")
    error_message: str | None = Field(None, description="The error's message when the call failed")
    available_endpoints: list[dict[str, Any]] = Field(description="The episode's tools: name, route, schema")
    reward: float | None = Field(None, description="This step's reward (shaped tasks; 0 otherwise)")
    done: bool = Field(description="Whether the episode has ended")
    tool: str | None = Field(None, description="The tool the step called")
    step: int | None = Field(None, description="The call's number in the episode")
    policy: str | None = Field(None, description="The world's policy (on reset, when the world has one)")
    messages: list[dict[str, str]] | None = Field(None, description="The operator's messages so far (operator tasks)")
    grade: dict[str, Any] | None = Field(None, description="The episode's graded reward, once it has ended")


EXTRAS = ("tool", "step", "policy", "messages", "grade")  # left out of an observation when they do not apply
ACTION_FIELDS = set(ToolAction.model_fields) | set(EndpointAction.model_fields)


def action_schema() -> dict[str, Any]:
    return {"oneOf": [ToolAction.model_json_schema(), EndpointAction.model_json_schema()]}


def _service_matches(given: str, service: str) -> bool:
    """A tool's service, named as registered ("orders") or in the singular (ServiceBench's "order")."""
    return given.strip().lower() in (service, service.removesuffix("s"))


def route(tools: list[Tool], action: EndpointAction) -> str:
    """The name of the tool at the action's route; for a route no tool has, a name the dispatcher will
    refuse as an unknown tool (so the agent's mistake is recorded and answered like any other)."""
    path = "/" + action.endpoint.strip().strip("/")
    method = action.method.strip().upper()
    service = action.service
    for t in tools:
        if (t.path, t.method) == (path, method) and (service is None or _service_matches(service, t.service)):
            return t.name
    return f"{method} {path}"


def _parse_action(value: Any) -> ToolAction | EndpointAction:
    if not isinstance(value, dict):
        raise InvalidArgument("the action must be a JSON object", error="invalid_action")
    unknown = sorted(set(value) - ACTION_FIELDS)
    if unknown:
        raise InvalidArgument(
            f"unknown action fields {', '.join(unknown)}; an action is {{tool, args}} or "
            "{service, endpoint, method, params}",
            error="invalid_action",
        )
    if "tool" in value and "endpoint" in value:
        raise InvalidArgument("an action names a tool or an endpoint, not both", error="invalid_action")
    if "tool" not in value and "endpoint" not in value:
        raise InvalidArgument(
            "an action is {tool, args} or {service, endpoint, method, params}", error="invalid_action"
        )
    model = ToolAction if "tool" in value else EndpointAction
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "action"
        raise InvalidArgument(f"action.{where}: {problem['msg']}", error="invalid_action") from None


class Episodes:
    """The server's episodes by id, and which one was started last."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = Path(runs_dir)
        self.lock = threading.Lock()
        self.by_id: dict[str, LiveEpisode | None] = {}  # None: reserved while it starts
        self.latest: str | None = None

    def start(self, task_id: Any, episode_id: Any = None) -> tuple[str, LiveEpisode]:
        if not isinstance(task_id, str):
            raise InvalidArgument('reset needs {"task_id": "world/name"}', error="missing_task_id")
        task = get_task(task_id)
        if episode_id is None:
            episode_id = uuid.uuid4().hex
        elif not isinstance(episode_id, str) or not EPISODE_ID.match(episode_id):
            raise InvalidArgument("episode_id is 1-64 letters, digits, '-' or '_'", error="invalid_episode_id")
        with self.lock:
            if episode_id in self.by_id:
                raise Conflict(f"episode {episode_id!r} exists already", error="episode_exists")
            self.by_id[episode_id] = None
        try:
            live = LiveEpisode(task, self.runs_dir / f"{task.id.replace('/', '__')}-{episode_id}.db")
        except BaseException:
            with self.lock:
                del self.by_id[episode_id]
            raise
        with self.lock:
            self.by_id[episode_id] = live
            self.latest = episode_id
        return episode_id, live

    def get(self, episode_id: Any = None) -> tuple[str, LiveEpisode]:
        with self.lock:
            if episode_id is None:
                if self.latest is None:
                    raise NotFound("no episode yet: POST /reset first", error="no_episode")
                episode_id = self.latest
            live = self.by_id.get(episode_id) if isinstance(episode_id, str) else None
        if live is None:
            raise NotFound(f"unknown episode {episode_id!r}", error="unknown_episode")
        return episode_id, live

    def close(self) -> None:
        with self.lock:
            open_episodes = [live for live in self.by_id.values() if live is not None]
        for live in open_episodes:
            live.close()


def observation(live: LiveEpisode, outcome: Outcome | None = None) -> dict[str, Any]:
    operator = live.task.user is not None
    if outcome is None:  # a reset
        body = Observation(
            task_description=live.task.instruction,
            api_response={},
            success=True,
            available_endpoints=live.endpoints(),
            done=False,
            policy=live.episode.world.policy or None,
            messages=list(live.messages) if operator else None,
        )
    else:
        body = Observation(
            task_description=live.task.instruction,
            api_response=outcome.result if outcome.ok else outcome.error,
            success=outcome.ok,
            error_message=None if outcome.ok else (outcome.error or {}).get("message"),
            available_endpoints=live.endpoints(),
            reward=outcome.reward or 0.0,
            done=live.done,
            tool=outcome.tool,
            step=outcome.seq,
            messages=list(live.messages) if operator else None,
            grade=live.grade_summary() if live.done else None,
        )
    return {k: v for k, v in body.model_dump().items() if v is not None or k not in EXTRAS}


def _error(status: int, error: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": status, "error": error, "message": message}}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"the body is not JSON: {exc}", error="invalid_json") from None
    if not isinstance(value, dict):
        raise InvalidArgument("the body must be a JSON object", error="invalid_body")
    return value


def create_app(runs_dir: Path | str = Path("runs/serve"), token: str | None = None) -> FastAPI:
    """The HTTP server's application: episodes are written under ``runs_dir``; with a ``token``,
    every request must carry ``Authorization: Bearer <token>``."""
    episodes = Episodes(Path(runs_dir))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(episodes.close)  # at shutdown: every open episode closed and graded

    app = FastAPI(
        title="simtenant", description=__doc__, docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.episodes = episodes

    app.add_middleware(BearerToken, token=token)

    @app.exception_handler(SimtenantError)
    async def structured(_request: Request, exc: SimtenantError) -> JSONResponse:
        return JSONResponse({"error": exc.to_dict()}, status_code=exc.code)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        name = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, name, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:  # never a traceback
        return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "healthy", "episodes": len(episodes.by_id)}

    @app.post("/reset")
    async def reset(request: Request) -> dict[str, Any]:
        body = await _body(request)
        episode_id, live = await run_in_threadpool(episodes.start, body.get("task_id"), body.get("episode_id"))
        return {"observation": observation(live), "reward": None, "done": False, "episode_id": episode_id}

    @app.post("/step")
    async def step(request: Request) -> dict[str, Any]:
        body = await _body(request)
        episode_id, live = episodes.get(body.pop("episode_id", None))
        action = _parse_action(body.get("action", body))
        if isinstance(action, ToolAction):
            name, args = action.tool, action.args
        else:
            name, args = route(live.tools, action), action.params
        outcome = await run_in_threadpool(live.call, name, args)
        seen = observation(live, outcome)
        return {"observation": seen, "reward": seen["reward"], "done": seen["done"], "episode_id": episode_id}

    @app.get("/state")
    async def state(episode_id: str | None = None) -> dict[str, Any]:
        found, live = episodes.get(episode_id)
        calls = [o.to_dict() for o in list(live.outcomes)]
        return {
            "episode_id": found,
            "task_id": live.task.id,
            "step_count": len(calls),
            "done": live.done,
            "calls": calls,
            "messages": list(live.messages),
            "grade": live.grade_summary(),
            "episode_db": str(live.path),
        }

    @app.get("/schema")
    async def schema(episode_id: str | None = None, task_id: str | None = None) -> dict[str, Any]:
        if task_id is not None:
            task = get_task(task_id)
            tools = catalogue(task)
        elif episode_id is not None or episodes.latest is not None:
            tools = episodes.get(episode_id)[1].endpoints()
        else:
            seen: dict[str, dict[str, Any]] = {}
            for world in worlds().values():
                for t in world.all_tools(with_user=True):
                    seen.setdefault(t.name, t.summary())
            tools = list(seen.values())
        return {
            "action": action_schema(),
            "observation": Observation.model_json_schema(),
            "tools": tools,
        }

    return app


def serve(sock: socket.socket, runs_dir: Path, token: str | None = None) -> None:
    """Serve on a bound socket (see ``listen``) until interrupted; then every open episode is closed and graded."""
    serve_forever(create_app(runs_dir, token), sock)
