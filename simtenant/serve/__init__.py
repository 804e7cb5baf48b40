"""Serving episodes to agents over the network: an OpenEnv-compatible HTTP server (``serve.http``) and an
MCP server (``serve.mcp``).

Both doors play a ``LiveEpisode`` (``simtenant.live``): the same ``Episode``, through the same dispatcher
and by the same rules as the Python API, the CLI and verifiers, so one trajectory leaves the same episode
file whichever door it came through. Here: the bearer-token guard both servers share and running a server.
"""

from __future__ import annotations

import hmac
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import Conflict
from ..live import CACHE_LOCK, LiveEpisode, catalogue, grade_path

__all__ = ["CACHE_LOCK", "BearerToken", "LiveEpisode", "catalogue", "grade_path", "listen", "running", "serve_forever"]


class BearerToken:
    """ASGI middleware for both servers: with a token, every HTTP request (and WebSocket handshake) must
    carry ``Authorization: Bearer <token>`` (compared in constant time), else 401 and a structured error
    (a refused handshake: 403)."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self.token.encode()):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # closing before accepting answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008, "reason": "Authorization: Bearer <token> needed"})
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
