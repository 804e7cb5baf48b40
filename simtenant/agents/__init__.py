"""Agents that play an episode: the oracle (gold calls), noop, replay of a file, and a chat model
behind any OpenAI-compatible endpoint (``llm``, see ``simtenant.agents.llm``).

Every agent drives the same Episode object, turn by turn, by the rules of every door (``Episode.act``
for a call, ``Episode.say`` for text written without a tool).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..episode import Episode
from ..errors import InvalidArgument
from ..task import Call
from ..tools.engine.dispatch import Outcome
from . import llm as llm_agent


class Said(BaseModel):
    """A turn of text written without a tool, in a replay file: ``{"message": TEXT}`` (as the HTTP server's
    message action): to the operator where the task has one, elsewhere a step spent."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    message: str


Turn = Call | Said


def play(episode: Episode, turns: Iterable[Turn]) -> list[Outcome]:
    """Play turns in order, by the rules every door keeps (``Episode.act``, ``Episode.say``), until the list
    ends, the episode finishes or its turn budget is spent."""
    outcomes = []
    for turn in turns:
        if episode.over:
            break
        outcome = episode.say(turn.message) if isinstance(turn, Said) else episode.act(turn.tool, turn.args)
        if outcome is not None:
            outcomes.append(outcome)
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


MAX_REPLAY_BYTES = 16 * 1024 * 1024


def read_actions(path: Path) -> list[Turn]:
    """A replay file: a JSON list of {"tool", "args"} items (or {"message"}: text without a tool), or one
    such object per line (JSONL)."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_REPLAY_BYTES:
            raise InvalidArgument(
                f"{path}: {size} bytes; a replay file holds at most {MAX_REPLAY_BYTES}", error="invalid_replay_file"
            )
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark, as some editors write, is fine
    except OSError as exc:
        raise InvalidArgument(f"cannot read {path}: {exc.strerror}", error="invalid_replay_file") from None
    except UnicodeDecodeError as exc:
        raise InvalidArgument(f"{path}: not UTF-8 text (byte {exc.start})", error="invalid_replay_file") from None
    try:
        stripped = text.lstrip()
        if stripped.startswith("["):
            items = json.loads(text)
        else:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, RecursionError) as exc:  # ValueError: bad JSON, or an integer of thousands of digits
        raise InvalidArgument(f"{path}: not JSON or JSONL: {exc}", error="invalid_replay_file") from None
    if not isinstance(items, list) or not items:
        raise InvalidArgument(f"{path}: no calls (a replay file lists at least one)", error="invalid_replay_file")
    turns: list[Turn] = []
    for number, item in enumerate(items, start=1):
        kind = Said if isinstance(item, dict) and "message" in item and "tool" not in item else Call
        try:
            turns.append(kind.model_validate(item))
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "item"
            raise InvalidArgument(
                f'{path}: item {number}: {where}: {problem["msg"]} (expected {{"tool": NAME, "args": {{...}}}} '
                'or {"message": TEXT})',
                error="invalid_replay_file",
            ) from None
    return turns


def check_agent(agent: str, actions: Path | None = None) -> list[Turn] | None:
    """Refuse an unknown agent or a bad replay file before anything is written; the replay's calls."""
    if agent not in AGENTS:
        raise InvalidArgument(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}", error="unknown_agent")
    if agent != "replay":
        return None
    if actions is None:
        raise InvalidArgument("the replay agent needs --actions FILE", error="missing_argument")
    return read_actions(actions)


def run(
    task: Any,
    agent: str,
    path: Path,
    actions: Path | None = None,
    scale: int = 1,
    max_steps: int | None = None,
    **options: Any,
) -> Path:
    """Play ``task`` with the named agent into a new episode file at ``path``, with a turn budget of
    ``max_steps`` (the task's, else the default); ``options`` go to the agent (the llm agent's: model,
    base_url, api_key_env, user_model, ...)."""
    calls = check_agent(agent, actions)
    if max_steps is not None and max_steps < 1:
        raise InvalidArgument("--max-steps must be at least 1", error="invalid_argument")
    if agent == "llm":
        llm_agent.check(task, **options)
    with Episode.start(task, path, scale=scale, max_steps=max_steps) as episode:
        if calls is not None:
            play(episode, calls)
        else:
            AGENTS[agent](episode, **options)
    return path
