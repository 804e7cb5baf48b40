"""`simtenant serve http` and `simtenant serve mcp`: episodes served to agents over the network."""

from __future__ import annotations

import functools
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..errors import SimtenantError
from ..world import get_task
from .common import MaxSteps, _episode_path, app, errors

serve_app = typer.Typer(help="Serve episodes to agents: OpenEnv-style HTTP, or MCP.", no_args_is_help=True)
app.add_typer(serve_app, name="serve")

Host = Annotated[str, typer.Option(help="Address to listen on (only this machine by default)")]
Port = Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on")]
RunsDir = Annotated[Path, typer.Option(help="Where episode files (and their grades) are written")]
Token = Annotated[
    str | None,
    typer.Option(envvar="SIMTENANT_TOKEN", help="Refuse HTTP requests without Authorization: Bearer TOKEN"),
]
Tokens = Annotated[
    list[str] | None,
    typer.Option(
        "--token",
        envvar="SIMTENANT_TOKEN",
        help="Refuse requests without Authorization: Bearer TOKEN; give one per client (repeat the option) "
        "and each client sees only its own episodes",
    ),
]


def _structured(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print a structured error and exit 1 instead of a traceback (as the CLI's other commands do)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SimtenantError as exc:
            failure = exc
        except OSError as exc:  # e.g. an episode file that cannot be written
            where = f" {exc.filename}" if exc.filename else ""
            failure = SimtenantError(f"cannot write{where}: {exc.strerror or exc}", error="cannot_write")
        errors.print(f"[red]error {failure.code} {failure.error}[/red]: {escape(failure.message)}", highlight=False)
        raise typer.Exit(1)

    return wrapper


def _given(token: str | list[str] | None) -> str | list[str] | None:
    """The token(s) given: an empty SIMTENANT_TOKEN, which click reads as none, counts as given (and is refused)."""
    if not token and os.environ.get("SIMTENANT_TOKEN") is not None:
        return os.environ["SIMTENANT_TOKEN"]
    return token


def _address(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@serve_app.command("http")
@_structured
def http(
    host: Host = "127.0.0.1",
    port: Port = 8000,
    runs_dir: RunsDir = Path("runs/serve"),
    token: Tokens = None,
    task: Annotated[str | None, typer.Option(help="The task a reset that names none starts (id or alias)")] = None,
    max_steps: MaxSteps = None,
    show_rewards: Annotated[
        bool, typer.Option("--show-rewards", help="Show step rewards on every task (else only where shaped)")
    ] = False,
    max_episodes: Annotated[int, typer.Option(min=1, help="Episodes open at once, at most (then 503)")] = 64,
    idle_timeout: Annotated[
        float, typer.Option(min=1, help="Seconds an open episode may go unused before it is closed and graded")
    ] = 900.0,
) -> None:
    """Serve any task over HTTP, OpenEnv-style: POST /reset, POST /step, GET /state, /health, /schema,
    /metadata, and the WebSocket /ws of OpenEnv's current clients."""
    from ..serve import listen, tokens_of
    from ..serve.http import serve

    default = get_task(task).id if task is not None else None  # an unknown task fails before the port is taken
    tokens = tokens_of(_given(token))
    sock = listen(host, port)
    errors.print(f"simtenant serving http://{_address(sock)} (episodes in {runs_dir})", highlight=False)
    options = {"max_steps": max_steps, "show_rewards": show_rewards, "max_episodes": max_episodes}
    serve(sock, runs_dir, token=tokens, task=default, idle_seconds=idle_timeout, **options)


@serve_app.command("mcp")
@_structured
def mcp(
    task: Annotated[str, typer.Argument(help="Task id, world/name")],
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP (at /mcp) instead of stdio")] = False,
    host: Host = "127.0.0.1",
    port: Port = 8000,
    runs_dir: RunsDir = Path("runs/serve"),
    out: Annotated[Path | None, typer.Option(help="Episode file to write (must not exist)")] = None,
    token: Token = None,
    max_steps: MaxSteps = None,
) -> None:
    """Serve one episode of a task over MCP: its tools, send_message_to_user (operator tasks) and finish."""
    from ..serve import LiveEpisode, listen, tokens_of
    from ..serve.mcp import serve_http, serve_stdio

    found = get_task(task)
    token = next(iter(tokens_of(_given(token))), None)  # an empty token is refused, not read as none
    sock = listen(host, port) if http else None  # before the episode starts: a taken port leaves no file
    live = LiveEpisode(found, _episode_path(found.id, "mcp", out, runs_dir), max_steps)
    where = f" at http://{_address(sock)}/mcp" if sock else ""
    errors.print(f"simtenant MCP server for {found.id}{where}: episode {live.path}", highlight=False)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a terminated server still grades its episode
    if sock is not None:
        serve_http(live, sock, token)
    else:
        serve_stdio(live)
