"""The LLM agent: a chat model behind any OpenAI-compatible chat-completions endpoint plays an
episode with native tool calling.

The system prompt and the first user message are the episode's briefing (``Episode.briefing``, the
same on every door); the tools are the offered tools as OpenAI function specs (``Tool.openai()``).
Nothing else of the task reaches the model: not its description or notes, its gold calls, its checks
or the operator's private facts.

The model plays by the rules of every door: each tool call is ``Episode.act`` (the one dispatcher;
its result or structured error goes back as the tool message, JSON; arguments that are not JSON are
passed on as they are, so the dispatcher records the call and refuses it with a 400), and text
without a tool call is ``Episode.say``: to the operator where the task has one (their reply comes
back as the next user message), elsewhere a step spent, answered with the briefing's reminder that
nobody reads it. The episode ends on ``finish``, the operator's ``###STOP###`` or the last step of
its turn budget, and is graded as it is. An endpoint that keeps failing (429, 5xx and connection errors are retried
with exponential backoff, waiting at least what a Retry-After header asks, up to 120 s; anything
else is not) ends the run with ``infra_ok`` false: an
infrastructure failure, never the agent's. How the run went — ``infra_ok``, the error, summed
token usage, the model, the steps, how it ended — is written beside the episode file in
``<episode>.agent.json`` (the episode file's own schema is unchanged).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..episode import reply_text
from ..errors import InvalidArgument
from ..tools.engine.dispatch import Outcome
from .chat import ChatClient, Endpoint, EndpointFailure, Usage

if TYPE_CHECKING:
    from ..episode import Episode
    from ..task import Task
    from .operator_model import OperatorModel


@dataclass
class AgentReport:
    """How an LLM run went; written to ``<episode>.agent.json``."""

    model: str
    infra_ok: bool = True
    error: dict[str, Any] | None = None  # a structured error {code, error, message} when infra_ok is false
    steps: int = 0
    ended: str = "running"  # finished, operator_stop, max_steps or infra_error
    usage: Usage = field(default_factory=Usage)
    user_model: str | None = None
    user_usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        body = asdict(self)
        if self.user_model is None:
            del body["user_model"], body["user_usage"]
        return body


def report_path(episode_path: Path | str) -> Path:
    """Where the report of an episode file is written: ``<episode>.agent.json`` beside it."""
    return Path(episode_path).with_suffix(".agent.json")


def read_report(episode_path: Path | str) -> dict[str, Any] | None:
    """The LLM run report of an episode file, if it has one."""
    path = report_path(episode_path)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def check(task: Task, model: str | None = None, **options: Any) -> None:
    """Refuse options the LLM agent cannot play with, before anything is written."""
    if not model:
        raise InvalidArgument("the llm agent needs --model NAME", error="missing_argument")
    if options.get("user_model") and task.user is None:
        raise InvalidArgument(f"{task.id} has no operator for --user-model to play", error="no_user")


def llm(
    episode: Episode,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    user_model: str | None = None,
    user_base_url: str | None = None,
    user_api_key_env: str | None = None,
    attempts: int = 4,
    backoff: float = 1.0,
    timeout: float = 60.0,
    temperature: float | None = None,
    **_: Any,
) -> list[Outcome]:
    """Plays the episode with a chat model (``model`` at ``base_url``); the operator, if the task has
    one, is played by ``user_model`` when given (its endpoint defaults to the agent's), else scripted.
    Writes ``<episode>.agent.json``."""
    from .operator_model import OperatorModel

    check(episode.task, model=model, user_model=user_model)
    model = str(model)
    retry = {"attempts": attempts, "backoff": backoff, "timeout": timeout, "temperature": temperature}
    agent = Endpoint(model=model, base_url=base_url, api_key_env=api_key_env, **retry)
    operator = None
    if user_model:
        operator = OperatorModel(
            Endpoint(
                model=user_model,
                base_url=user_base_url or base_url,
                api_key_env=user_api_key_env or api_key_env,
                **retry,
            )
        )
    report = AgentReport(model=model)
    report_path(episode.path).unlink(missing_ok=True)  # never leave an older run's report beside this one
    outcomes = play_llm(episode, ChatClient(agent), operator, report)
    report_path(episode.path).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    return outcomes


def play_llm(
    episode: Episode,
    client: ChatClient,
    operator: OperatorModel | None = None,
    report: AgentReport | None = None,
) -> list[Outcome]:
    """Run the model's loop on ``episode``; fills ``report`` (infra failures end up there, not raised)."""
    report = report or AgentReport(model=client.endpoint.model)
    if operator is not None:
        episode.operator_model = operator  # send_message_to_user asks it instead of the scripted responder
        report.user_model = operator.client.endpoint.model
        report.user_usage = operator.client.usage
    report.usage = client.usage
    outcomes: list[Outcome] = []
    try:
        _loop(episode, client, operator, outcomes)
    except EndpointFailure as exc:
        report.infra_ok, report.error, report.ended = False, exc.to_dict(), "infra_error"
    finally:
        if operator is not None:
            episode.operator_model = None
        report.steps = episode.steps
    if report.ended == "running":
        report.ended = episode.ended or "max_steps"
    return outcomes


def _loop(episode: Episode, client: ChatClient, operator: OperatorModel | None, outcomes: list[Outcome]) -> None:
    briefing = episode.briefing()
    tools = [t.openai() for t in briefing.tools]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": briefing.system},
        {"role": "user", "content": briefing.opening},
    ]

    def kept(outcome: Outcome | None) -> Outcome | None:
        if outcome is not None:
            outcomes.append(outcome)
        if operator is not None and operator.failure:
            raise EndpointFailure(f"the operator model failed: {operator.failure}", error="operator_model_failed")
        return outcome

    while not episode.over:
        reply = client.complete(messages, tools)
        requested = [c for c in (getattr(reply, "tool_calls", None) or []) if getattr(c, "function", None)]
        if requested:
            ids = [c.id or f"call_{episode.steps}_{n}" for n, c in enumerate(requested)]
            messages.append(_assistant(reply.content, requested, ids))
            for tool_call, call_id in zip(requested, ids, strict=True):
                if episode.over:
                    break
                outcome = kept(episode.act(tool_call.function.name, _arguments(tool_call.function.arguments)))
                messages.append({"role": "tool", "tool_call_id": call_id, "content": outcome.content()})
            continue
        text = reply.content or ""
        messages.append({"role": "assistant", "content": text})
        outcome = kept(episode.say(text.strip()))
        messages.append({"role": "user", "content": reply_text(outcome, briefing.nobody)})


def _arguments(raw: str | None) -> Any:
    """The call's arguments: parsed JSON, or the raw text (which the dispatcher refuses with a 400)."""
    if raw is None or not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _assistant(content: str | None, calls: list[Any], ids: list[str]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments or "{}"},
            }
            for c, call_id in zip(calls, ids, strict=True)
        ],
    }
