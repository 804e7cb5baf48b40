"""Serving episodes to agents over the network: an OpenEnv-compatible HTTP server (``serve.http``) and an
MCP server (``serve.mcp``).

Both doors drive the same ``Episode`` through the same dispatcher as the Python API and the CLI, so one
trajectory leaves the same episode file whichever door it came through. ``LiveEpisode`` is what they share:
the episode, a lock (calls of one episode run one at a time, from any thread), the operator's messages,
and the grade, taken as soon as the episode ends and written beside it as ``<episode>.grade.json``.
Nothing here hands the agent gold calls, checks, the grader's diff or the snapshot path.
"""

from __future__ import annotations

import hmac
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..episode import Episode
from ..errors import Conflict, SimtenantError
from ..grader import GradeResult, grade
from ..task import Task
from ..tools import Tool
from ..tools.engine.dispatch import Outcome
from ..world import get_world

# Starting an episode and grading one build cached files (snapshots, templates, gold databases) whose
# temporary names are unique per process, not per thread: one thread at a time does either.
CACHE_LOCK = threading.Lock()


class BearerToken:
    """ASGI middleware for both servers: with a token, every HTTP request must carry
    ``Authorization: Bearer <token>`` (compared in constant time), else 401 and a structured error."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self.token is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self.token.encode()):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": {
                    "code": 401,
                    "error": "unauthorized",
                    "message": "this server needs Authorization: Bearer <token>",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


_CATALOGUES: dict[tuple[str, str], list[dict[str, Any]]] = {}


def catalogue(task: Task) -> list[dict[str, Any]]:
    """The tools an agent is shown for ``task`` (see ``World.offered``), built once per task file: do not modify."""
    key = (task.id, task.hash)
    if key not in _CATALOGUES:
        _CATALOGUES[key] = [t.summary() for t in get_world(task.world).offered(task)]
    return _CATALOGUES[key]


def grade_path(path: Path) -> Path:
    """Where the grade of the episode file ``path`` is written: ``<episode>.grade.json`` beside it."""
    return path.with_name(f"{path.stem}.grade.json")


class LiveEpisode:
    """An episode being played through a door, safe to call from any thread."""

    def __init__(self, task: Task, path: Path) -> None:
        with CACHE_LOCK:
            self.episode = Episode.start(task, path)
        self.task = task
        self.path = Path(path)
        self.lock = threading.Lock()
        self.outcomes: list[Outcome] = []
        opening = [] if task.user is None else [{"role": "user", "content": task.user.opening}]
        self.messages: list[dict[str, str]] = opening  # what the operator has said
        self.grade: GradeResult | None = None
        self.grade_error: dict[str, Any] | None = None
        self.closed = False

    @property
    def tools(self) -> list[Tool]:
        """Every tool the episode takes (named operations included)."""
        return list(self.episode.tools.values())

    @property
    def offered(self) -> list[Tool]:
        """The tools an agent is shown."""
        return self.episode.offered

    @property
    def done(self) -> bool:
        return self.episode.done

    def endpoints(self) -> list[dict[str, Any]]:
        """The episode's tools as the agent sees them: name, route, description and JSON Schema."""
        return catalogue(self.task)

    def instructions(self) -> str:
        """What the agent is told: the task's instruction, the operator's opening and the world's policy."""
        parts = [self.task.briefing]
        if self.task.user is not None:
            parts.append(
                f"The person you work for says: {self.task.user.opening.strip()}\nReach them with send_message_to_user."
            )
        policy = get_world(self.task.world).policy.strip()
        if policy:
            parts.append(policy)
        return "\n\n".join(parts)

    def call(self, tool: str, args: Any) -> Outcome:
        """Run one call through the dispatcher; the episode is graded and closed when it ends.

        A finished episode takes no more calls (the other doors stop playing there too): 409."""
        with self.lock:
            if self.closed:
                raise Conflict("the episode has finished; no more calls are taken", error="episode_finished")
            outcome = self.episode.call(tool, args)
            self.outcomes.append(outcome)
            if outcome.ok and tool == "send_message_to_user":  # the operator's reply
                self.messages.append({"role": "user", "content": outcome.result["reply"]})
            if self.episode.done:
                self._finish()
            return outcome

    def close(self) -> None:
        """Close the episode (at shutdown): grade it if it has not been graded yet."""
        with self.lock:
            if not self.closed:
                self._finish()

    def grade_summary(self) -> dict[str, Any] | None:
        """The episode's reward once graded, without the diff or checks (which would show the gold)."""
        if self.grade is not None:
            return {"reward": self.grade.reward, "reward_mode": self.grade.reward_mode}
        if self.grade_error is not None:
            return {"error": self.grade_error}
        return None

    def _finish(self) -> None:
        self.episode.close()
        self.closed = True
        try:
            with CACHE_LOCK:
                self.grade = grade(self.path)
            body: dict[str, Any] = self.grade.to_dict()
        except SimtenantError as exc:  # a task that cannot be graded still leaves its episode file
            self.grade_error = exc.to_dict()
            body = {"error": self.grade_error}
        grade_path(self.path).write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")


def uvicorn_server(app: Any, host: str = "127.0.0.1", port: int = 8000) -> Any:
    """A quiet uvicorn server (warnings only) for an ASGI ``app``."""
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: a free port), or a structured error saying why it cannot be."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise Conflict(f"cannot listen on {host}:{port}: {exc.strerror or exc}", error="cannot_listen") from None
    return sock


def serve_forever(app: Any, sock: socket.socket) -> None:
    """Serve an ASGI ``app`` on a bound socket (see ``listen``) until interrupted (Ctrl-C or SIGTERM)."""
    host, port = sock.getsockname()[:2]
    try:
        uvicorn_server(app, host, port).run(sockets=[sock])
    finally:
        sock.close()


@contextmanager
def running(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve an ASGI ``app`` on a free port of ``host`` in a background thread (for tests and notebooks);
    yields its base URL and stops the server, its lifespan's shutdown included, on exit."""
    sock = listen(host, 0)
    instance = uvicorn_server(app, host, sock.getsockname()[1])
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not instance.started:
            if not thread.is_alive():
                raise RuntimeError("the server did not start")
            threading.Event().wait(0.01)
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        instance.should_exit = True
        thread.join()
        sock.close()
