"""Serving episodes to agents over the network: an OpenEnv-compatible HTTP server (``serve.http``) and an
MCP server (``serve.mcp``).

Both doors play a ``LiveEpisode`` (``simtenant.live``): the same ``Episode``, through the same dispatcher
and by the same rules as the Python API, the CLI and verifiers, so one trajectory leaves the same episode
file whichever door it came through. Here: the bearer-token guard both servers share and running a server.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from ..errors import Conflict, InvalidArgument
from ..live import CACHE_LOCK, LiveEpisode, catalogue, grade_path

__all__ = [
    "CACHE_LOCK",
    "LOOPBACK_HOSTS",
    "BearerToken",
    "LiveEpisode",
    "catalogue",
    "grade_path",
    "listen",
    "running",
    "serve_forever",
    "tokens_of",
]


LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def tokens_of(token: str | Iterable[str] | None) -> frozenset[str]:
    """The tokens a server admits (none: no authentication); an empty token is refused, not read as none."""
    found = frozenset([token] if isinstance(token, str) else token or [])
    if any(not t.strip() for t in found):
        raise InvalidArgument("a token may not be empty (leave it out to serve without one)", error="invalid_token")
    return found


class BearerToken:
    """ASGI middleware for both servers. With tokens, every HTTP request (and WebSocket handshake) must carry
    ``Authorization: Bearer <token>`` with one of them (compared in constant time), else 401 (a refused
    handshake: 403); the token is the client's identity (``scope["state"]["client"]``), so a server given a
    token per client keeps each client's episodes to itself. With ``hosts`` (the names this machine answers to
    when it listens on the loopback), a request whose ``Host`` names another is refused, and so is one whose
    ``Origin`` is not its own: a web page cannot reach the server by DNS rebinding or a cross-site form."""

    def __init__(
        self, app: Any, token: str | Iterable[str] | None, hosts: Iterable[str] | None = LOOPBACK_HOSTS
    ) -> None:
        self.app, self.tokens = app, tokens_of(token)
        self.hosts = frozenset(hosts) if hosts is not None else None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = self._refusal(headers)
        if refusal is None:
            scheme, _, value = headers.get("authorization", "").partition(" ")
            client = next((t for t in self.tokens if hmac.compare_digest(value.strip().encode(), t.encode())), None)
            if not self.tokens or (scheme.lower() == "bearer" and client is not None):
                scope.setdefault("state", {})["client"] = client
                await self.app(scope, receive, send)
                return
            refusal = (401, "unauthorized", "this server needs Authorization: Bearer <token>")
        status, error, message = refusal
        if scope["type"] == "websocket":  # closing before accepting answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008, "reason": message})
            return
        body = json.dumps({"error": {"code": status, "error": error, "message": message}}).encode()
        extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
        start = {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra],
        }
        await send(start)
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, headers: dict[str, str]) -> tuple[int, str, str] | None:
        host = headers.get("host", "")
        if self.hosts is not None and _host_name(host) not in self.hosts:
            return 421, "wrong_host", "this server answers only to the names of the address it listens on"
        origin = headers.get("origin")
        if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host.lower()):
            return 403, "cross_origin", "requests from another origin (a web page elsewhere) are refused"
        return None


def _host_name(host: str) -> str:
    """The name in a Host header, without its port (``[::1]:8000`` → ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


HEAD_SECONDS = 10.0  # how long a connection may take to send a request's line and headers


def _head_deadline_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol on ``httptools``, its C parser (an empty app answered a request in 0.32 ms
    on it, 0.58 ms on the pure-Python ``h11``), with a deadline on each request's head: a client that
    connects, or starts a request, and then stalls is disconnected after ``HEAD_SECONDS`` (uvicorn itself
    only times out idle keep-alive connections, so slow clients could hold every connection)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeadDeadline(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_headers_complete(self) -> None:  # a request's head has arrived
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self._deadline = self.loop.call_later(HEAD_SECONDS, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
                self.transport.close()

    return HeadDeadline


def uvicorn_server(app: Any, host: str = "127.0.0.1", port: int = 8000) -> Any:
    """A quiet uvicorn server (warnings only) for an ASGI ``app``, with a deadline on request heads."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", http=_head_deadline_protocol())
    return uvicorn.Server(config)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: a free port), or a structured error saying why it cannot be."""
    # IPPROTO_TCP named, not 0: asyncio turns Nagle off (TCP_NODELAY) only for sockets that say they are TCP;
    # with it on, a response written in two parts waits ~40 ms for the client's delayed ACK on every request
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # connections are accepted (queued) from now on, so "serving" is true when printed
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
