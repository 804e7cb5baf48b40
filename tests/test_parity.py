"""One episode behind every door. The briefing an agent is given is the same text on every door (the LLM
agent's prompt, verifiers' rows, the HTTP reset, MCP's instructions, prompt and tool, `play`), and one
trajectory with plain-text turns, played through the Python API, the CLI's replay, the HTTP server, the
MCP server, the LLM agent, verifiers and `play`, leaves the same episode file, byte for byte, and the same
reward."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from openai_stub import OpenAIStub, call, message, tool_calls
from typer.testing import CliRunner

from simtenant.agents import run
from simtenant.cli import app
from simtenant.grader import grade
from simtenant.integrations import verifiers as st
from simtenant.serve import LiveEpisode, grade_path, running
from simtenant.serve.http import create_app
from simtenant.serve.mcp import build_server
from simtenant.world import USER_TOOL, get_task, get_world

TASKS = ["commerce/refund-damaged-item", "itsm/unlock-after-verification", "homeservices/towing-raleigh"]
ASIDE = "Let me check the order first."  # a text turn: to the operator where there is one, else to nobody


def trajectory(task_id: str) -> list[dict[str, Any]]:
    """The gold as an agent might play it: messages to the operator written as plain text, and, in a task
    without an operator, one text turn that nobody reads."""
    task = get_task(task_id)
    turns = [
        {"message": c.args["message"]} if c.tool == USER_TOOL else {"tool": c.tool, "args": c.args} for c in task.gold
    ]
    return turns if task.user is not None else [{"message": ASIDE}, *turns]


def through_api(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    actions, out = tmp_path / "actions.json", tmp_path / "api.db"
    actions.write_text(json.dumps(turns))
    run(get_task(task_id), "replay", out, actions=actions)
    return grade(out).reward, out


def through_cli(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    actions, out = tmp_path / "cli-actions.jsonl", tmp_path / "cli.db"
    actions.write_text("".join(json.dumps(t) + "\n" for t in turns))
    args = ["run", task_id, "--agent", "replay", "--actions", str(actions), "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["reward"], out


def through_http(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    runs = tmp_path / "http"
    with running(create_app(runs)) as url, httpx.Client(base_url=url) as http:
        http.post("/reset", json={"task_id": task_id}).raise_for_status()
        for turn in turns:
            step = http.post("/step", json={"action": turn}).json()
            assert step["observation"]["success"] or "message" in turn, step
        assert step["done"]
        reward = step["observation"]["grade"]["reward"]
    (path,) = runs.glob("*.db")
    return reward, path


def through_mcp(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    """MCP has no text turns (a host's text never reaches the server): a message is send_message_to_user,
    and text nobody reads is not sent at all."""
    out = tmp_path / "mcp.db"
    live = LiveEpisode(get_task(task_id), out)
    operator = live.task.user is not None

    async def session() -> None:
        async with Client(build_server(live)) as mcp:
            for turn in turns:
                if "message" in turn and not operator:
                    continue
                name, args = (USER_TOOL, turn) if "message" in turn else (turn["tool"], turn["args"])
                result = await mcp.call_tool(name, args)
                assert not result.is_error, result

    try:
        anyio.run(session)
    finally:
        live.close()
    return json.loads(grade_path(out).read_text())["reward"], out


def scripted(turns: list[dict]) -> list[Any]:
    return [message(t["message"]) if "message" in t else tool_calls(call(t["tool"], t["args"])) for t in turns]


def through_llm(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    out = tmp_path / "llm.db"
    with OpenAIStub(scripted(turns)) as stub:
        run(get_task(task_id), "llm", out, model="scripted", base_url=stub.base_url, backoff=0)
        first = stub.requests[0]["messages"]
    briefing = get_world(get_task(task_id).world).briefing(get_task(task_id))
    assert first == [{"role": "system", "content": briefing.system}, {"role": "user", "content": briefing.opening}]
    return grade(out).reward, out


def through_verifiers(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    import verifiers.v1 as vf

    task = get_task(task_id)
    env = st.load_environment(world=task.world, task_ids=[task_id], episodes_dir=str(tmp_path / "vf"))
    try:
        with OpenAIStub(scripted(turns)) as stub:
            client = vf.EvalClientConfig(base_url=stub.base_url, api_key_var="SIMTENANT_TEST_SCRIPTED_KEY")

            async def episode() -> Any:
                async with env.serving():
                    return await env.run_episode(
                        next(iter(env.taskset)), vf.ModelContext(model="scripted", client=client)
                    )

            [trace] = asyncio.run(episode()).traces
    finally:
        env.taskset.rollouts.close()
    assert trace.ok, trace.errors
    (path,) = (tmp_path / "vf").glob("*.db")
    return trace.reward, path


def through_play(task_id: str, turns: list[dict], tmp_path: Path) -> tuple[float, Path]:
    out = tmp_path / "play.db"
    lines = [f"say {t['message']}" if "message" in t else f"call {t['tool']} {json.dumps(t['args'])}" for t in turns]
    result = CliRunner().invoke(app, ["play", task_id, "--out", str(out)], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    return grade(out).reward, out


DOORS = [through_api, through_cli, through_http, through_mcp, through_llm, through_verifiers, through_play]


def digests(path: Path, world: str) -> dict[str, str]:
    """sha256 of the whole file, and of the rows of each world table and of ``_calls`` and ``_messages``."""
    found = {"file": hashlib.sha256(path.read_bytes()).hexdigest()}
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for table in [*(t.name for t in get_world(world).tables), "_calls", "_messages"]:
            rows = connection.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall()
            found[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
    finally:
        connection.close()
    return found


@pytest.mark.parametrize("task_id", TASKS)
def test_one_trajectory_with_text_turns_leaves_the_same_episode_through_every_door(
    task_id: str, tmp_path: Path
) -> None:
    pytest.importorskip("verifiers.v1")
    task = get_task(task_id)
    turns = trajectory(task_id)
    played = {door.__name__.removeprefix("through_"): door(task_id, turns, tmp_path) for door in DOORS}
    rewards = {door: reward for door, (reward, _) in played.items()}
    assert set(rewards.values()) == {1.0}, rewards
    found = {door: digests(path, task.world) for door, (_, path) in played.items()}
    assert all(d == found["api"] for d in found.values()), found
    assert len(found["api"]) == 3 + len(get_world(task.world).tables)


@pytest.mark.parametrize("task_id", TASKS)
def test_the_briefing_is_the_same_text_on_every_door(task_id: str, tmp_path: Path) -> None:
    task = get_task(task_id)
    briefing = get_world(task.world).briefing(task)
    text = briefing.text()
    assert task.instruction.strip() in briefing.system and task.time_text in briefing.system
    assert get_world(task.world).policy.strip() in briefing.system

    [row] = st.dataset_rows(task.world, [task_id])
    assert row["prompt"] == [
        {"role": "system", "content": briefing.system},
        {"role": "user", "content": briefing.opening},
    ]

    with running(create_app(tmp_path / "http")) as url, httpx.Client(base_url=url) as http:
        assert http.post("/reset", json={"task_id": task_id}).json()["observation"]["briefing"] == text

    live = LiveEpisode(task, tmp_path / "mcp.db")

    async def mcp_briefing() -> list[str]:
        async with Client(build_server(live)) as mcp:
            prompt = await mcp.get_prompt("briefing")
            read = await mcp.call_tool("read_briefing", {})
            return [mcp.instructions, prompt.messages[0].content.text, read.content[0].text]

    try:
        assert anyio.run(mcp_briefing) == [text, text, text]
    finally:
        live.close()

    result = CliRunner().invoke(app, ["play", task_id, "--out", str(tmp_path / "play.db")], input="quit\n")
    assert text in result.output.replace("\r", "")
