"""Agents that play an episode: the oracle (gold calls), noop, replay of a file, and a chat model
behind any OpenAI-compatible endpoint (``llm``, see ``simtenant.agents.llm``).

Every agent drives the same Episode object, call by call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..episode import Episode
from ..errors import InvalidArgument
from ..task import Call
from ..tools.engine.dispatch import Outcome
from . import llm as llm_agent


def play(episode: Episode, calls: Iterable[Call]) -> list[Outcome]:
    """Play calls in order until the list ends or the episode finishes."""
    outcomes = []
    for call in calls:
        if episode.done:
            break
        outcomes.append(episode.call(call.tool, call.args))
    return outcomes


def oracle(episode: Episode, **_: Any) -> list[Outcome]:
    """Plays the task's gold calls."""
    return play(episode, episode.task.gold)


def noop(episode: Episode, **_: Any) -> list[Outcome]:
    """Does nothing and finishes at once."""
    world = episode.world
    return play(episode, [Call(tool=world.finish_tool, args={world.finish_answer: ""})])


def replay(episode: Episode, actions: Path | None = None, **_: Any) -> list[Outcome]:
    """Plays the calls of a replay file."""
    calls = check_agent("replay", actions)
    return play(episode, calls or [])


AGENTS: dict[str, Callable[..., list[Outcome]]] = {
    "oracle": oracle,
    "noop": noop,
    "replay": replay,
    "llm": llm_agent.llm,
}


def read_actions(path: Path) -> list[Call]:
    """A replay file: a JSON list of {"tool", "args"} items, or one such object per line (JSONL)."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InvalidArgument(f"cannot read {path}: {exc.strerror}", error="invalid_replay_file") from None
    try:
        stripped = text.lstrip()
        if stripped.startswith("["):
            items = json.loads(text)
        else:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise InvalidArgument(f"{path}: not JSON or JSONL: {exc}", error="invalid_replay_file") from None
    calls = []
    for number, item in enumerate(items, start=1):
        try:
            calls.append(Call.model_validate(item))
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "item"
            raise InvalidArgument(
                f'{path}: item {number}: {where}: {problem["msg"]} (expected {{"tool": NAME, "args": {{...}}}})',
                error="invalid_replay_file",
            ) from None
    return calls


def check_agent(agent: str, actions: Path | None = None) -> list[Call] | None:
    """Refuse an unknown agent or a bad replay file before anything is written; the replay's calls."""
    if agent not in AGENTS:
        raise InvalidArgument(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}", error="unknown_agent")
    if agent != "replay":
        return None
    if actions is None:
        raise InvalidArgument("the replay agent needs --actions FILE", error="missing_argument")
    return read_actions(actions)


def run(task: Any, agent: str, path: Path, actions: Path | None = None, scale: int = 1, **options: Any) -> Path:
    """Play ``task`` with the named agent into a new episode file at ``path``; ``options`` go to the
    agent (the llm agent's: model, base_url, api_key_env, max_steps, user_model, ...)."""
    calls = check_agent(agent, actions)
    if agent == "llm":
        llm_agent.check(task, **options)
    with Episode.start(task, path, scale=scale) as episode:
        if calls is not None:
            play(episode, calls)
        else:
            AGENTS[agent](episode, **options)
    return path
