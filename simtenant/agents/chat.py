"""A chat model behind any OpenAI-compatible chat-completions endpoint: the client the LLM agent
and the operator model share, retries and all (429, 5xx and connection errors are retried with
exponential backoff, waiting at least what a Retry-After header asks, up to 120 s; anything else is
not; a model that keeps failing is an ``EndpointFailure``, an infrastructure failure)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import SimtenantError


class EndpointFailure(SimtenantError):
    """A model endpoint could not answer: an infrastructure failure, not the agent's."""

    code = 502
    error = "model_endpoint_failed"


@dataclass(frozen=True)
class Endpoint:
    """A chat model behind an OpenAI-compatible endpoint, and how hard to try it."""

    model: str
    base_url: str | None = None  # the SDK's default (OpenAI) when not given
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0  # seconds per request
    attempts: int = 4  # tries per request when the answer is 429, 5xx or no answer at all
    backoff: float = 1.0  # seconds before the first retry, doubled before each next one
    temperature: float | None = None  # the endpoint's default when not given


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, usage: Any) -> None:
        """Add a response's usage (absent on some endpoints: then nothing is added)."""
        if usage is None:
            return
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.total_tokens += int(getattr(usage, "total_tokens", 0) or 0) or prompt + completion


class ChatClient:
    """Chat completions with retries on 429, 5xx and connection errors; sums token usage."""

    def __init__(self, endpoint: Endpoint, sleep: Callable[[float], None] = time.sleep) -> None:
        from openai import OpenAI

        self.endpoint = endpoint
        self.usage = Usage()
        self.sleep = sleep
        self.client = OpenAI(
            base_url=endpoint.base_url,
            api_key=os.environ.get(endpoint.api_key_env) or "not-set",
            timeout=endpoint.timeout,
            max_retries=0,  # retries are ours, so that they are counted and their waits configurable
        )

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> Any:
        """The assistant message of one completion; raises ``EndpointFailure`` when there is none."""
        from openai import APIConnectionError, APIStatusError, OpenAIError

        request: dict[str, Any] = {"model": self.endpoint.model, "messages": messages}
        if tools:
            request["tools"] = tools
        if self.endpoint.temperature is not None:
            request["temperature"] = self.endpoint.temperature
        attempts = max(1, self.endpoint.attempts)
        for attempt in range(1, attempts + 1):
            asked = 0.0  # what the endpoint asked us to wait (Retry-After), if anything
            try:
                response = self.client.chat.completions.create(**request)
            except APIStatusError as exc:
                problem = f"HTTP {exc.status_code} from {self.endpoint.model}: {_status_message(exc)}"
                if exc.status_code != 429 and exc.status_code < 500:
                    raise EndpointFailure(problem) from None
                asked = _retry_after(exc)
            except APIConnectionError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            except OpenAIError as exc:  # an answer the SDK could not read
                raise EndpointFailure(f"{type(exc).__name__}: {exc}") from None
            else:
                self.usage.add(getattr(response, "usage", None))
                choices = getattr(response, "choices", None)
                if not choices or getattr(choices[0], "message", None) is None:
                    raise EndpointFailure(f"{self.endpoint.model} answered without a message: {response!r:.300}")
                return choices[0].message
            if attempt < attempts:
                self.sleep(max(self.endpoint.backoff * 2 ** (attempt - 1), asked))
        raise EndpointFailure(f"gave up after {attempts} attempt(s): {problem}")


MAX_RETRY_AFTER = 120.0  # seconds: a longer wait asked for is capped, so a run never hangs on one answer


def _retry_after(exc: Any) -> float:
    """The wait in seconds an error answer's Retry-After header asks for (delta-seconds; 0 if none or
    unreadable), at most ``MAX_RETRY_AFTER``."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER) if value is not None else 0.0
    except ValueError:
        return 0.0


def _status_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(getattr(exc, "message", exc))
