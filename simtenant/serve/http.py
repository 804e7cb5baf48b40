"""An OpenEnv-compatible HTTP server: many concurrent episodes of any task, one turn per step.

Routes: ``POST /reset {"task_id"?, "episode_id"?, "reward"?}`` (a task id, or a task's alias such as
ServiceBench's ``1``; none: the server's default task, ``serve http --task``), ``POST /step
{"episode_id"?, "action"}`` (or the action's fields at the top level, as ServiceBench's curl sends them),
``GET /state``, ``GET /health``, ``GET /schema``, ``GET /metadata``, and OpenEnv's WebSocket ``/ws`` (one
episode per connection; messages ``reset``, ``step``, ``state``, ``close``). An action is
``{"tool", "args"}``, ServiceBench's ``{"service", "endpoint", "method", "params"}`` (routed to the tool at
that route; ``PUT`` is a write, as ``POST``) or ``{"message"}``: text written without a tool, which goes
to the operator where the task has one and is a step spent where it has none. Every episode keeps the
rules of every door (``LiveEpisode``): the briefing on reset, the turn budget, tools not offered refused,
the end on ``finish``, ``###STOP###`` or the last step. Episodes belong to the client that started them
(its bearer token, where the server has tokens); a request that names no episode acts on the client's
one open episode (or its latest, once ended), and is refused when the client has several open. Idle
episodes are closed and graded after a while, and a server holds a bounded number open. Every failure is
a structured error ``{"error": {code, error, message}}`` with that HTTP status; a call the tool refuses
is an observation with ``success: false`` (the agent's mistake, recorded in ``_calls`` like any other
call), not an HTTP error. Step rewards, the running reward and ``task_completed`` are shown where the
episode's reward is shaped, or when the server shows them.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import Conflict, InvalidArgument, NotFound, SimtenantError
from ..grader.grade import check_reward_mode
from ..tools import Tool
from ..tools.engine.dispatch import Outcome
from ..world import USER_TOOL, get_task, worlds
from . import LOOPBACK_HOSTS, BearerToken, LiveEpisode, catalogue, serve_forever, tokens_of

LOG = logging.getLogger("simtenant.serve")
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
    method: str = Field("GET", description="The tool's method: GET reads, POST (or PUT) writes")
    params: Any = Field(default_factory=dict, description="The tool's arguments (a JSON object)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Ignored (OpenEnv's action metadata)")


class MessageAction(BaseModel):
    """Write text without calling a tool: to the operator where the task has one; elsewhere a step spent."""

    model_config = ConfigDict(extra="forbid", strict=True)
    message: str = Field(description="The text")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Ignored (OpenEnv's action metadata)")


class Observation(BaseModel):
    """What the agent sees after a reset or a step (ServiceBench's observation, plus the briefing and the
    operator's new messages)."""

    task_description: str = Field(description="The task's instruction")
    api_response: Any = Field(None, description="The call's result, or its structured error")
    success: bool = Field(description="Whether the call succeeded")
    error_message: str | None = Field(None, description="The error's message when the call failed")
    available_endpoints: list[dict[str, Any]] | None = Field(
        None, description="On reset: the episode's tools (name, route, schema); again from GET /schema?episode_id="
    )
    reward: float | None = Field(None, description="This step's reward (where rewards are shown)")
    done: bool = Field(description="Whether the episode takes no more turns")
    tool: str | None = Field(None, description="The tool the step called")
    step: int | None = Field(None, description="The call's number in the episode")
    briefing: str | None = Field(None, description="On reset: what the agent is told (policy, task, clock, rules)")
    messages: list[dict[str, str]] | None = Field(None, description="The operator's new messages (operator tasks)")
    running_reward: float | None = Field(None, description="The reward so far (where rewards are shown)")
    task_completed: bool | None = Field(None, description="Whether the task's completion condition holds (ditto)")
    grade: dict[str, Any] | None = Field(None, description="The episode's graded reward, once it has ended")


EXTRAS = (  # left out when None: a step answers what changed, not the catalogue again
    "available_endpoints",
    "tool",
    "step",
    "briefing",
    "messages",
    "running_reward",
    "task_completed",
    "grade",
)
ACTION_FIELDS = set(ToolAction.model_fields) | set(EndpointAction.model_fields) | set(MessageAction.model_fields)
ACTIONS = "an action is {tool, args}, {service, endpoint, method, params} or {message}"


def action_schema() -> dict[str, Any]:
    return {"oneOf": [m.model_json_schema() for m in (ToolAction, EndpointAction, MessageAction)]}


def _service_matches(given: str, service: str) -> bool:
    """A tool's service, named as registered ("orders") or in the singular (ServiceBench's "order")."""
    return given.strip().lower() in (service, service.removesuffix("s"))


def route(tools: list[Tool], action: EndpointAction) -> str:
    """The name of the tool at the action's route; for a route no tool has, a name the dispatcher will
    refuse as an unknown tool (so the agent's mistake is recorded and answered like any other)."""
    path = "/" + action.endpoint.strip().strip("/")
    method = action.method.strip().upper()
    method = "POST" if method == "PUT" else method  # ServiceBench's writes: PUT is POST here
    service = action.service
    for t in tools:
        if (t.path, t.method) == (path, method) and (service is None or _service_matches(service, t.service)):
            return t.name
    if service is not None and any((t.path, t.method) == (path, method) for t in tools):
        return f"{method} {path} in service {service!r}"  # the route exists, under another service
    return f"{method} {path}"


def _parse_action(value: Any) -> ToolAction | EndpointAction | MessageAction:
    if not isinstance(value, dict):
        raise InvalidArgument(f"the action must be a JSON object: {ACTIONS}", error="invalid_action")
    unknown = sorted(set(value) - ACTION_FIELDS)
    if unknown:
        raise InvalidArgument(f"unknown action fields {', '.join(unknown)}; {ACTIONS}", error="invalid_action")
    kinds = [
        m for key, m in (("tool", ToolAction), ("endpoint", EndpointAction), ("message", MessageAction)) if key in value
    ]
    if len(kinds) != 1:
        named = (
            "names none of tool, endpoint, message" if not kinds else "names more than one of tool, endpoint, message"
        )
        raise InvalidArgument(f"the action {named}: {ACTIONS}", error="invalid_action")
    try:
        return kinds[0].model_validate(value)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "action"
        raise InvalidArgument(f"action.{where}: {problem['msg']}", error="invalid_action") from None


class Episodes:
    """The server's episodes by id and by client, and how new ones are started (a default task, a turn
    budget, whether rewards are shown), bounded: at most ``max_open`` open at once, each closed and graded
    once idle for ``idle_seconds``, and only the latest ``keep`` ended ones remembered for ``/state``."""

    def __init__(
        self,
        runs_dir: Path,
        task: str | None = None,
        max_steps: int | None = None,
        show_rewards: bool = False,
        max_open: int = 64,
        idle_seconds: float = 900.0,
        keep: int = 1024,
    ) -> None:
        self.runs_dir = Path(runs_dir)
        self.default_task = get_task(task).id if task is not None else None
        self.max_steps = max_steps
        self.show_rewards = show_rewards
        self.max_open, self.idle_seconds, self.keep = max_open, idle_seconds, keep
        self.lock = threading.Lock()
        self.by_id: dict[str, LiveEpisode | None] = {}  # None: reserved while it starts; oldest first
        self.owner: dict[str, str | None] = {}  # the client (token) that started it
        self.used: dict[str, float] = {}  # when it was last used (monotonic seconds; never graded)

    def open_ids(self) -> list[str]:
        return [i for i, live in self.by_id.items() if live is None or not live.done]

    def start(
        self, task_id: Any = None, episode_id: Any = None, reward: Any = None, client: str | None = None
    ) -> tuple[str, LiveEpisode]:
        if task_id is None:
            task_id = self.default_task
        if task_id is None:
            raise InvalidArgument(
                'reset needs {"task_id": "world/name"} (or a task\'s alias, such as ServiceBench\'s 1): this server '
                "has no default task (serve http --task sets one)",
                error="missing_task_id",
            )
        if not isinstance(task_id, str | int) or isinstance(task_id, bool):
            raise InvalidArgument("task_id is a task id (world/name) or a task's alias", error="invalid_task_id")
        task = get_task(task_id)
        if reward is not None and not isinstance(reward, str):
            raise InvalidArgument("reward is a reward mode's name", error="invalid_reward")
        check_reward_mode(task, reward)
        if episode_id is None:
            episode_id = uuid.uuid4().hex
        elif not isinstance(episode_id, str) or not EPISODE_ID.match(episode_id):
            raise InvalidArgument("episode_id is 1-64 letters, digits, '-' or '_'", error="invalid_episode_id")
        self.close_idle()
        with self.lock:
            if episode_id in self.by_id:
                raise Conflict(f"episode {episode_id!r} exists already", error="episode_exists")
            if len(self.open_ids()) >= self.max_open:
                raise ServerBusy(
                    f"this server holds {self.max_open} open episodes, its limit: finish one, or retry once idle "
                    f"ones are closed (after {self.idle_seconds:g} s)",
                    error="too_many_episodes",
                )
            self.by_id[episode_id] = None
            self.owner[episode_id] = client
        try:
            path = self.runs_dir / f"{task.id.replace('/', '__')}-{episode_id}.db"
            live = LiveEpisode(task, path, self.max_steps, self.show_rewards, reward)
        except BaseException:
            with self.lock:
                del self.by_id[episode_id], self.owner[episode_id]
            raise
        with self.lock:
            self.by_id[episode_id] = live
            self.used[episode_id] = time.monotonic()
            self._forget_ended()
        return episode_id, live

    def get(self, episode_id: Any = None, client: str | None = None) -> tuple[str, LiveEpisode]:
        with self.lock:
            if episode_id is None:
                mine = [i for i, live in self.by_id.items() if live is not None and self.owner[i] == client]
                running = [i for i in mine if not self.by_id[i].done]  # type: ignore[union-attr]
                if len(running) > 1:
                    raise Conflict(
                        f"{len(running)} of your episodes are open: name one with episode_id", error="ambiguous_episode"
                    )
                if not mine:
                    raise NotFound("no episode yet: POST /reset first", error="no_episode")
                episode_id = running[0] if running else mine[-1]
            live = self.by_id.get(episode_id) if isinstance(episode_id, str) else None
            if live is None or self.owner.get(episode_id) != client:  # another client's is not told apart
                raise NotFound(f"unknown episode {episode_id!r}", error="unknown_episode")
            self.used[episode_id] = time.monotonic()
        return episode_id, live

    def close_idle(self) -> None:
        """Close (and grade) every open episode unused for ``idle_seconds``."""
        now = time.monotonic()
        with self.lock:
            idle = [
                live
                for i, live in self.by_id.items()
                if live is not None and not live.done and now - self.used[i] > self.idle_seconds
            ]
        for live in idle:
            live.close()

    def _forget_ended(self) -> None:
        ended = [i for i, live in self.by_id.items() if live is not None and live.done]
        for episode_id in ended[: max(0, len(ended) - self.keep)]:
            del self.by_id[episode_id], self.owner[episode_id], self.used[episode_id]

    def health(self) -> tuple[int, dict[str, Any]]:
        """What ``/health`` says, truthfully: full when no episode can start (the limit, or no file can be
        opened), with the counts."""
        open_count = len(self.open_ids())
        status = "healthy" if open_count < self.max_open else "full"
        try:
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.runs_dir, os.O_RDONLY))
        except OSError as exc:
            status = f"unable to open files ({errno.errorcode.get(exc.errno or 0, 'error')})"
        body = {"status": status, "episodes_open": open_count, "max_episodes": self.max_open}
        return (200 if status == "healthy" else 503), body

    def close(self) -> None:
        with self.lock:
            open_episodes = [live for live in self.by_id.values() if live is not None]
        for live in open_episodes:
            live.close()


class ServerBusy(SimtenantError):
    code = 503
    error = "server_busy"


def observation(live: LiveEpisode, outcome: Outcome | None = None, reset: bool = False) -> dict[str, Any]:
    """The observation after a reset (``reset``) or a step (``outcome``: None for text nobody reads)."""
    shown = live.shows_rewards
    operator = live.task.user is not None
    fields: dict[str, Any] = {
        "task_description": live.task.instruction,
        "available_endpoints": live.endpoints() if reset else None,
        "done": live.done,
        "messages": live.new_messages() if operator else None,
    }
    if shown:
        fields["running_reward"] = live.episode.running_reward
        fields["task_completed"] = live.episode.task_completed
    if reset:
        fields |= {"api_response": {}, "success": True, "briefing": live.instructions()}
    elif outcome is None:  # text without a tool, in a task with nobody to read it
        fields |= {"api_response": None, "success": False, "error_message": live.briefing.nobody}
    else:
        fields |= {
            "api_response": outcome.result if outcome.ok else outcome.error,
            "success": outcome.ok,
            "error_message": None if outcome.ok else (outcome.error or {}).get("message"),
            "tool": outcome.tool,
            "step": outcome.seq,
        }
    if not reset:
        fields["reward"] = (outcome.reward or 0.0) if shown and outcome is not None else (0.0 if shown else None)
        fields["grade"] = live.grade_summary() if live.done else None
    body = Observation(**fields)
    return {k: v for k, v in body.model_dump().items() if v is not None or k not in EXTRAS}


Action = ToolAction | EndpointAction | MessageAction


def parse_step(body: dict[str, Any]) -> Action:
    """The action of a /step body (or of a WebSocket step): under ``action``, or its fields at the top level."""
    return _parse_action(body.get("action", body))


def act(live: LiveEpisode, action: Action) -> dict[str, Any]:
    """One step of an episode: its observation."""
    outcome = live.say(action.message) if isinstance(action, MessageAction) else live.call(*_called(live, action))
    return observation(live, outcome)


def _called(live: LiveEpisode, action: ToolAction | EndpointAction) -> tuple[str, Any]:
    """The tool an action calls, by name or by route, and its arguments."""
    if isinstance(action, ToolAction):
        return action.tool, action.args
    return route(live.offered, action), action.params


def may_end(live: LiveEpisode, action: Action) -> bool:
    """Whether a step could end the episode (and so be graded): its last turn, text (the operator may answer
    ###STOP###), the operator's tool, or a tool that ends the episode."""
    if live.episode.steps + 1 >= live.episode.max_steps or isinstance(action, MessageAction):
        return True
    tool = live.episode.tools.get(_called(live, action)[0])
    return tool is not None and (tool.ends or tool.name == USER_TOOL)


def state(episode_id: str, live: LiveEpisode) -> dict[str, Any]:
    """An episode's state: its calls (step rewards where shown), the operator's messages and its grade."""
    calls = [o.to_dict(with_reward=live.shows_rewards) for o in list(live.outcomes)]
    return {
        "episode_id": episode_id,
        "task_id": live.task.id,
        "step_count": live.episode.steps,
        "max_steps": live.episode.max_steps,
        "done": live.done,
        "calls": calls,
        "messages": list(live.messages),
        "grade": live.grade_summary(),
    }


def metadata() -> dict[str, Any]:
    """What OpenEnv's ``/metadata`` tells of the environment."""
    names = ", ".join(sorted(worlds()))
    return {
        "name": "simtenant",
        "description": f"A SQL-backed simulated enterprise tenant: typed tools over real tables, graded by row diff "
        f"against the gold replay. Worlds: {names}.",
        "readme_content": None,
        "version": __version__,
        "author": "simtenant",
        "documentation_url": None,
    }


def _unexpected(exc: Exception) -> tuple[int, str, str]:
    """An error no handler expected, as the client sees it: no exception text, which may name the server's
    files (it goes to the server's log); out of file descriptors or disk, a 503 to retry later."""
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.ENOMEM):
        return 503, "server_busy", f"the server is out of resources ({errno.errorcode[exc.errno]}): retry later"
    LOG.error("unexpected error", exc_info=exc)
    return 500, "internal_error", f"an unexpected {type(exc).__name__}; the server's log has the details"


def _error(status: int, error: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": status, "error": error, "message": message}}, status_code=status)


def _parse_json(raw: bytes | str) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # also invalid UTF-8, an integer of thousands of digits
        raise InvalidArgument(f"the body is not JSON: {str(exc)[:200]}", error="invalid_json") from None
    if not isinstance(value, dict):
        raise InvalidArgument("the body must be a JSON object", error="invalid_body")
    return value


MAX_BODY_BYTES = 1024 * 1024
BODY_SECONDS = 30.0


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON body: only with a JSON content type (a web page cannot send one without asking
    first), at most ``MAX_BODY_BYTES``, within ``BODY_SECONDS``."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    too_large = InvalidArgument(f"the body is over {MAX_BODY_BYTES} bytes", error="body_too_large", code=413)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    chunks, size = [], 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise InvalidArgument(
            f"the body did not arrive within {BODY_SECONDS:g} s", error="body_timeout", code=408
        ) from None
    raw = b"".join(chunks)
    if raw.strip() and kind != "application/json" and not kind.endswith("+json"):
        raise InvalidArgument(
            "send JSON bodies with Content-Type: application/json", error="unsupported_media_type", code=415
        )
    return _parse_json(raw)


def _client(request: Request | WebSocket) -> str | None:
    """The client a request comes from: its bearer token where the server has tokens (see ``BearerToken``)."""
    return request.scope.get("state", {}).get("client")


def create_app(
    runs_dir: Path | str = Path("runs/serve"),
    token: str | Iterable[str] | None = None,
    task: str | None = None,
    max_steps: int | None = None,
    show_rewards: bool = False,
    hosts: Iterable[str] | None = LOOPBACK_HOSTS,
    max_episodes: int = 64,
    idle_seconds: float = 900.0,
) -> FastAPI:
    """The HTTP server's application: episodes are written under ``runs_dir``; ``task`` is the task a reset
    that names none starts; ``max_steps`` the turn budget (the task's, else the default); ``show_rewards``
    shows step rewards on every task; with tokens (one, or one per client), every request must carry
    ``Authorization: Bearer`` with one of them, and each client sees only its own episodes; ``hosts`` are the
    names the server answers to (None: any, for a server listening beyond the loopback); at most
    ``max_episodes`` are open at once, each closed and graded after ``idle_seconds`` unused."""
    tokens = tokens_of(token)  # refused here, at once, if empty
    episodes = Episodes(Path(runs_dir), task, max_steps, show_rewards, max_episodes, idle_seconds)

    async def reap() -> None:
        while True:
            await asyncio.sleep(min(60.0, idle_seconds))
            await run_in_threadpool(episodes.close_idle)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        reaper = asyncio.create_task(reap())
        yield
        reaper.cancel()
        await run_in_threadpool(episodes.close)  # at shutdown: every open episode closed and graded

    app = FastAPI(
        title="simtenant", description=__doc__, docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.episodes = episodes

    app.add_middleware(BearerToken, token=tokens, hosts=hosts)

    @app.exception_handler(SimtenantError)
    async def structured(_request: Request, exc: SimtenantError) -> JSONResponse:
        return JSONResponse({"error": exc.to_dict()}, status_code=exc.code)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        name = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, name, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        return _error(*_unexpected(exc))

    @app.get("/health")
    async def health() -> JSONResponse:
        status, body = await run_in_threadpool(episodes.health)
        return JSONResponse(body, status_code=status)

    @app.get("/metadata")
    async def get_metadata() -> dict[str, Any]:
        return metadata()

    @app.post("/reset")
    async def reset(request: Request) -> dict[str, Any]:
        body = await _body(request)
        episode_id, live = await run_in_threadpool(
            episodes.start, body.get("task_id"), body.get("episode_id"), body.get("reward"), _client(request)
        )
        return {"observation": observation(live, reset=True), "reward": None, "done": False, "episode_id": episode_id}

    @app.post("/step")
    async def step(request: Request) -> JSONResponse:
        body = await _body(request)
        episode_id, live = episodes.get(body.pop("episode_id", None), _client(request))
        action = parse_step(body)
        if may_end(live, action):  # grading follows, which may wait for the cache lock: off the loop
            seen = await run_in_threadpool(act, live, action)
        else:  # on the loop: a call is ~1 ms of Python, which a thread would only queue behind the GIL
            seen = act(live, action)
        # already plain JSON data: sent as it is, without FastAPI's encoder walking it again
        return JSONResponse(
            {"observation": seen, "reward": seen.get("reward"), "done": seen["done"], "episode_id": episode_id}
        )

    @app.get("/state")
    async def get_state(request: Request, episode_id: str | None = None) -> dict[str, Any]:
        return state(*episodes.get(episode_id, _client(request)))

    @app.get("/schema")
    async def schema(request: Request, episode_id: str | None = None, task_id: str | None = None) -> dict[str, Any]:
        if task_id is not None:
            tools = catalogue(get_task(task_id))
        elif episode_id is not None:
            tools = episodes.get(episode_id, _client(request))[1].endpoints()
        else:
            seen: dict[str, dict[str, Any]] = {}
            for world in worlds().values():
                for t in world.all_tools(with_user=True):
                    seen.setdefault(t.name, t.summary())
            tools = list(seen.values())
        return {
            "action": action_schema(),
            "observation": Observation.model_json_schema(),
            "state": {"type": "object"},
            "tools": tools,
        }

    @app.websocket("/ws")
    async def websocket(socket: WebSocket) -> None:
        await serve_socket(socket, episodes)

    return app


async def serve_socket(socket: WebSocket, episodes: Episodes) -> None:
    """OpenEnv's WebSocket session: one episode per connection (a new reset closes and grades the last);
    messages ``{"type": "reset"|"step"|"state"|"close", "data"}`` are answered ``{"type": "observation"|
    "state"|"error", "data"}``. The episode is closed and graded when the connection ends."""
    await socket.accept()
    current: tuple[str, LiveEpisode] | None = None
    try:
        while True:
            try:
                message = _parse_json(await socket.receive_text())
                kind, data = message.get("type"), message.get("data") or {}
                if not isinstance(data, dict):
                    raise InvalidArgument("a message's data is a JSON object", error="invalid_message")
                if kind == "close":
                    break
                if kind == "reset":
                    if current is not None:
                        await run_in_threadpool(current[1].close)
                    current = await run_in_threadpool(
                        episodes.start, data.get("task_id"), data.get("episode_id"), data.get("reward"), _client(socket)
                    )
                    seen = observation(current[1], reset=True)
                    reply = {"type": "observation", "data": {"observation": seen, "reward": None, "done": False}}
                elif kind in ("step", "state") and current is None:
                    raise NotFound("no episode yet: send a reset first", error="no_episode")
                elif kind == "step":
                    seen = await run_in_threadpool(act, current[1], parse_step(data))
                    reply = {
                        "type": "observation",
                        "data": {"observation": seen, "reward": seen.get("reward"), "done": seen["done"]},
                    }
                elif kind == "state":
                    reply = {"type": "state", "data": state(*current)}
                else:
                    raise InvalidArgument(
                        f"unknown message type {kind!r}: reset, step, state or close", error="unknown_type"
                    )
            except SimtenantError as exc:
                reply = {"type": "error", "data": exc.to_dict()}
            except (WebSocketDisconnect, asyncio.CancelledError):
                raise
            except Exception as exc:
                code, error, message = _unexpected(exc)
                reply = {"type": "error", "data": {"code": code, "error": error, "message": message}}
            await socket.send_text(json.dumps(reply, ensure_ascii=False))
    except WebSocketDisconnect:
        pass
    finally:
        if current is not None:
            await run_in_threadpool(current[1].close)


def serve(sock: socket.socket, runs_dir: Path, **options: Any) -> None:
    """Serve on a bound socket (see ``listen``) until interrupted; then every open episode is closed and
    graded. ``options`` are ``create_app``'s; the names it answers to follow the socket's address."""
    host = sock.getsockname()[0]
    hosts = LOOPBACK_HOSTS if host in LOOPBACK_HOSTS or host.startswith("127.") else None
    serve_forever(create_app(runs_dir, hosts=hosts, **options), sock)
