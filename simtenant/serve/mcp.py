"""An MCP server for one episode of one task, built on the official SDK's low-level ``Server``.

The briefing every door gives (policy, instruction, clock, identity, the operator's opening, the rules)
reaches the agent three ways, since hosts differ in what they pass on: the server's ``instructions``, the
prompt ``briefing``, and the tool ``read_briefing`` (a read of the briefing, not of the world: it is not
recorded and spends no step). The episode's tools (the world's, ``send_message_to_user`` for operator
tasks, and ``finish``) are listed with their own JSON Schema and description, and every call runs by the
rules of every door (``LiveEpisode.call``): a result comes back as JSON text (and as structured content
when it is an object), a refused call as a tool result with ``isError`` and the structured error. The
episode file is written call by call; when the episode ends, or at shutdown, it is graded and the grade
written beside it as ``<episode>.grade.json``. Serves stdio by default, or streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

import io
import json
import socket
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext

from .. import __version__
from ..errors import SimtenantError
from . import BearerToken, LiveEpisode, serve_forever


def _content(value: Any, is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value, ensure_ascii=False))],
        structured_content=value if isinstance(value, dict) else None,
        is_error=is_error,
    )


BRIEFING = "briefing"
READ_BRIEFING = types.Tool(
    name="read_briefing",
    description=(
        "Read your briefing: the policy, your task, the clock, who you act as, the first message and the rules "
        "of the episode. Call it first if you have not been given it. It changes nothing and spends no step."
    ),
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
)


def build_server(live: LiveEpisode) -> Server[Any]:
    """An MCP server whose tools are the episode's (and ``read_briefing``)."""
    listed = [types.Tool(name=t.name, description=t.description, input_schema=t.json_schema()) for t in live.offered]
    listed.append(READ_BRIEFING)
    text = live.instructions()

    async def list_tools(_ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None) -> Any:
        return types.ListToolsResult(tools=listed)

    async def list_prompts(_ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None) -> Any:
        prompt = types.Prompt(name=BRIEFING, description=f"The briefing of {live.task.id}: start the episode with it")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(_ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> Any:
        if params.name != BRIEFING:
            raise ValueError(f"unknown prompt {params.name!r}; the one prompt is {BRIEFING!r}")
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(description=f"The briefing of {live.task.id}", messages=[message])

    async def call_tool(_ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        if params.name == READ_BRIEFING.name:
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=False)
        try:
            outcome = await anyio.to_thread.run_sync(live.call, params.name, params.arguments or {})
        except SimtenantError as exc:  # the episode has ended: nothing more is recorded
            return _content(exc.to_dict(), is_error=True)
        return _content(outcome.result, False) if outcome.ok else _content(outcome.error, True)

    return Server(
        "simtenant",
        version=__version__,
        title=f"simtenant {live.task.id}",
        instructions=text,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


class _RepairedLines:
    """stdin's lines, each JSON line whose strings hold lone surrogates (``"\\ud800"``: valid JSON, not valid
    Unicode, which the SDK's parser drops without an answer) re-written with U+FFFD in their place, as the
    SDK already reads invalid UTF-8 bytes; the request is then answered like any other."""

    def __init__(self, lines: Any) -> None:
        self.lines = lines

    def __aiter__(self) -> Any:
        return self._repaired()

    async def _repaired(self) -> Any:
        async for line in self.lines:
            yield _without_lone_surrogates(line)


def _without_lone_surrogates(line: str) -> str:
    if "\\ud" not in line.lower():
        return line
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return line  # the SDK answers what is not JSON

    def repair(item: Any) -> Any:
        if isinstance(item, str):
            return item.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if isinstance(item, list):
            return [repair(v) for v in item]
        if isinstance(item, dict):
            return {repair(k): repair(v) for k, v in item.items()}
        return item

    try:
        return json.dumps(repair(value), ensure_ascii=False) + "\n"
    except RecursionError:
        return line


def serve_stdio(live: LiveEpisode) -> None:
    """Serve the episode over stdin/stdout until the client hangs up; then grade it."""
    from mcp.server.stdio import stdio_server

    server = build_server(live)

    async def main() -> None:
        text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        async with stdio_server(stdin=_RepairedLines(anyio.wrap_file(text))) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        live.close()


def http_app(live: LiveEpisode, host: str = "127.0.0.1", token: str | None = None) -> Any:
    """The episode's MCP server as a streamable-HTTP ASGI app (at ``/mcp``), guarded against DNS rebinding
    by the MCP SDK; with a ``token``, every request must carry ``Authorization: Bearer <token>``."""
    app = build_server(live).streamable_http_app(host=host)
    app.add_middleware(BearerToken, token=token, hosts=None)
    return app


def serve_http(live: LiveEpisode, sock: socket.socket, token: str | None = None) -> None:
    """Serve the episode over streamable HTTP at ``/mcp`` on a bound socket (see ``listen``) until interrupted;
    then grade it."""
    try:
        serve_forever(http_app(live, sock.getsockname()[0], token), sock)
    except KeyboardInterrupt:
        pass
    finally:
        live.close()
