"""The LLM agent: a chat model behind any OpenAI-compatible chat-completions endpoint plays an
episode with native tool calling.

The system prompt is the world's policy, the task's instruction and the episode's clock; the
tools are the episode's tools as OpenAI function specs (``Tool.openai()``). Nothing else of the
task reaches the model: not its description or notes, its gold calls, its checks or the
operator's private facts. For a task with an operator, the operator's opening is the first user
message, and assistant text without tool calls is sent to them with ``send_message_to_user``
(recorded and answered, like any call); without an operator, text ends nothing, and after three
text-only turns in a row the episode is finished with that text.

Every tool call goes through ``episode.call`` — the one dispatcher — and its result or structured
error goes back to the model as the tool message (JSON). Arguments that are not JSON are passed on
as they are, so the dispatcher records the call and refuses it with a 400.

Tool calls and text turns each spend a step; at ``max_steps`` the episode is left unfinished and
is graded as it is. An endpoint that keeps failing (429, 5xx and connection errors are retried
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

from ..errors import InvalidArgument
from ..tools.engine.dispatch import Outcome
from .chat import ChatClient, Endpoint, EndpointFailure, Usage

if TYPE_CHECKING:
    from ..episode import Episode
    from ..task import Task
    from .operator_model import OperatorModel

DEFAULT_MAX_STEPS = 30
TEXT_TURNS_TO_FINISH = 3  # consecutive text-only turns (no operator) that finish the episode
USER_TOOL = "send_message_to_user"
START = "Begin. Work with the tools; when you are done, call {finish} with your final answer."
NUDGE = "No tool was called. Carry on with the tools, and call {finish} with your final answer when you are done."
NUDGE_EMPTY = "(Your last turn was empty.) Carry on with the tools, or write to me."


@dataclass
class AgentReport:
    """How an LLM run went; written to ``<episode>.agent.json``."""

    model: str
    infra_ok: bool = True
    error: dict[str, Any] | None = None  # a structured error {code, error, message} when infra_ok is false
    steps: int = 0
    ended: str = "running"  # finished, operator_stop, text_only, max_steps or infra_error
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


def system_prompt(task: Task, policy: str, finish_tool: str) -> str:
    parts = [policy.strip()] if policy.strip() else []
    parts.append(f"## Your task\n\n{task.briefing}")
    parts.append(f"The current time is {task.time_text}.")
    if task.user is not None:
        parts.append(
            "The person you work for (the operator) writes to you first; their message follows. "
            f"Reach them with {USER_TOOL}: a reply you write without calling a tool is sent to them too."
        )
    parts.append(f"Act only through the tools. When the work is done, call {finish_tool}.")
    return "\n\n".join(parts)


def check(task: Task, model: str | None = None, max_steps: int = DEFAULT_MAX_STEPS, **options: Any) -> None:
    """Refuse options the LLM agent cannot play with, before anything is written."""
    if not model:
        raise InvalidArgument("the llm agent needs --model NAME", error="missing_argument")
    if max_steps < 1:
        raise InvalidArgument("--max-steps must be at least 1", error="invalid_argument")
    if options.get("user_model") and task.user is None:
        raise InvalidArgument(f"{task.id} has no operator for --user-model to play", error="no_user")


def llm(
    episode: Episode,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    max_steps: int = DEFAULT_MAX_STEPS,
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

    check(episode.task, model=model, max_steps=max_steps, user_model=user_model)
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
    outcomes = play_llm(episode, ChatClient(agent), max_steps, operator, report)
    report_path(episode.path).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    return outcomes


def play_llm(
    episode: Episode,
    client: ChatClient,
    max_steps: int = DEFAULT_MAX_STEPS,
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
        _loop(episode, client, max_steps, operator, report, outcomes)
    except EndpointFailure as exc:
        report.infra_ok, report.error, report.ended = False, exc.to_dict(), "infra_error"
    finally:
        if operator is not None:
            episode.operator_model = None
    if report.ended == "running":
        if episode.done:
            stopped_by_operator = outcomes and outcomes[-1].tool == USER_TOOL and outcomes[-1].ok
            report.ended = "operator_stop" if stopped_by_operator else "finished"
        else:
            report.ended = "max_steps"
    return outcomes


def _loop(
    episode: Episode,
    client: ChatClient,
    max_steps: int,
    operator: OperatorModel | None,
    report: AgentReport,
    outcomes: list[Outcome],
) -> None:
    task, world = episode.task, episode.world
    finish = world.finish_tool
    tools = [t.openai() for t in episode.offered]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(task, world.policy, finish)},
        {"role": "user", "content": task.user.opening if task.user else START.format(finish=finish)},
    ]

    def call(name: str, args: Any) -> Outcome:
        outcome = episode.call(name, args)
        outcomes.append(outcome)
        if operator is not None and operator.failure:
            raise EndpointFailure(f"the operator model failed: {operator.failure}", error="operator_model_failed")
        return outcome

    text_turns = 0
    while not episode.done and report.steps < max_steps:
        reply = client.complete(messages, tools)
        requested = [c for c in (getattr(reply, "tool_calls", None) or []) if getattr(c, "function", None)]
        text = (getattr(reply, "content", None) or "").strip()
        if requested:
            text_turns = 0
            ids = [c.id or f"call_{report.steps}_{n}" for n, c in enumerate(requested)]
            messages.append(_assistant(reply.content, requested, ids))
            for tool_call, call_id in zip(requested, ids, strict=True):
                if episode.done or report.steps >= max_steps:
                    break
                report.steps += 1
                outcome = call(tool_call.function.name, _arguments(tool_call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call_id, "content": _tool_content(outcome)})
            continue
        report.steps += 1
        messages.append({"role": "assistant", "content": reply.content or ""})
        if task.user is not None:
            if not text:
                messages.append({"role": "user", "content": NUDGE_EMPTY})
                continue
            outcome = call(USER_TOOL, {"message": text})
            answer = outcome.result.get("reply") if outcome.ok else None
            messages.append({"role": "user", "content": answer or _tool_content(outcome)})
            continue
        text_turns += 1
        if text_turns >= TEXT_TURNS_TO_FINISH:
            call(finish, {world.finish_answer: text})
            report.ended = "text_only"
            return
        messages.append({"role": "user", "content": NUDGE.format(finish=finish)})


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


def _tool_content(outcome: Outcome) -> str:
    body = outcome.result if outcome.ok else {"error": outcome.error}
    return json.dumps(body, ensure_ascii=False)
