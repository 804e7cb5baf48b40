"""A scripted OpenAI-compatible chat-completions server for tests.

A real HTTP server (``http.server`` in a thread, on 127.0.0.1 and a free port) answers
``POST /v1/chat/completions`` from a script: a list of replies played in order, optionally one
list per model name (so an agent and a model-played operator can share one server). It records
every request body it receives.

    with OpenAIStub([tool_calls(call("orders_lookup", {"order_id": "ORD-1005"})), message("Done.")]) as stub:
        ...  # point a client at stub.base_url
        stub.requests  # the JSON bodies received, in order

Replies: ``tool_calls(...)`` (with ``call(name, args)``; ``args`` a string is sent as the raw
arguments text, so ``call("x", "{not json")`` is a malformed tool call), ``message(text)``,
``error(status)`` (``repeat=True`` keeps answering it: a persisting failure). When the script
runs out the stub answers 400 ``script_exhausted``, which no client retries.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


@dataclass
class Reply:
    """One scripted answer: an HTTP status and a JSON body (a completion, or an error)."""

    status: int
    body: dict[str, Any]
    repeat: bool = False  # answer it again and again instead of moving on
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class ToolCall:
    name: str
    arguments: str  # the raw arguments text, as a model sends it
    id: str | None = None


def call(name: str, args: dict[str, Any] | str | None = None, id: str | None = None) -> ToolCall:
    """A tool call; ``args`` as a string is sent verbatim (malformed JSON included)."""
    arguments = args if isinstance(args, str) else json.dumps(args or {})
    return ToolCall(name, arguments, id)


def _completion(message: dict[str, Any], finish_reason: str, usage: dict[str, int] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "",  # filled with the requested model
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def tool_calls(*calls: ToolCall, content: str | None = None, usage: dict[str, int] | None = USAGE) -> Reply:
    """An assistant turn that calls tools (several calls in one turn are allowed)."""
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": c.id or "", "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ],
    }
    return Reply(200, _completion(message, "tool_calls", usage))


def message(text: str | None, usage: dict[str, int] | None = USAGE) -> Reply:
    """An assistant turn of plain text, no tool calls."""
    return Reply(200, _completion({"role": "assistant", "content": text}, "stop", usage))


def error(status: int, text: str = "scripted failure", repeat: bool = False, retry_after: str | None = None) -> Reply:
    """An error answer (429, 500, ...); with ``repeat`` every later request gets it too; with
    ``retry_after`` a Retry-After header."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status, {"error": {"message": text, "type": "stub_error", "code": str(status)}}, repeat, headers)


@dataclass
class OpenAIStub:
    """The server; a context manager that starts it and stops it."""

    script: list[Reply] = field(default_factory=list)
    by_model: dict[str, list[Reply]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.script = list(self.script)
        self.by_model = {model: list(replies) for model, replies in self.by_model.items()}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def add(self, *replies: Reply, model: str | None = None) -> None:
        """Append replies to the script (of one model, when given)."""
        with self._lock:
            (self.script if model is None else self.by_model.setdefault(model, [])).extend(replies)

    def requests_of(self, model: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("model") == model]

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stub is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> OpenAIStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = None
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(error(404, f"no route {self.path}"))
                if not isinstance(body, dict):
                    return self._send(error(400, "the request body is not a JSON object"))
                return self._send(stub._answer(body))

            def _send(self, reply: Reply) -> None:
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _answer(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            queue = self.by_model.get(body.get("model"), self.script)
            if not queue:
                return error(400, "the stub's script is exhausted")
            reply = queue[0] if queue[0].repeat else queue.pop(0)
            if reply.status != 200:
                return reply
            answer = json.loads(json.dumps(reply.body))  # a copy, with the model and call ids filled in
            answer["model"] = body.get("model", "")
            for tool_call in answer["choices"][0]["message"].get("tool_calls") or []:
                tool_call["id"] = tool_call["id"] or f"call_{next(self._ids)}"
            return Reply(200, answer)
