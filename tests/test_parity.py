"""One trajectory, every door: the Python API, the CLI's replay, the HTTP server and the MCP server leave the
same episode file, byte for byte, and the same reward."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from simtenant.agents import run
from simtenant.cli import app
from simtenant.grader import grade
from simtenant.serve import LiveEpisode, grade_path, running
from simtenant.serve.http import create_app
from simtenant.serve.mcp import build_server
from simtenant.world import get_task, get_world

TASKS = ["commerce/refund-damaged-item", "homeservices/towing-raleigh"]


def through_api(task_id: str, actions: Path, out: Path) -> float:
    run(get_task(task_id), "replay", out, actions=actions)
    return grade(out).reward


def through_cli(task_id: str, actions: Path, out: Path) -> float:
    args = ["run", task_id, "--agent", "replay", "--actions", str(actions), "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["reward"]


def through_http(task_id: str, calls: list[dict], runs_dir: Path) -> tuple[float, Path]:
    with running(create_app(runs_dir)) as url, httpx.Client(base_url=url) as http:
        http.post("/reset", json={"task_id": task_id}).raise_for_status()
        for call in calls:
            step = http.post("/step", json={"action": call}).json()
            assert step["observation"]["success"], step
        assert step["done"]
        return step["observation"]["grade"]["reward"], Path(http.get("/state").json()["episode_db"])


def through_mcp(task_id: str, calls: list[dict], out: Path) -> float:
    live = LiveEpisode(get_task(task_id), out)

    async def session() -> None:
        async with Client(build_server(live)) as mcp:
            for call in calls:
                result = await mcp.call_tool(call["tool"], call["args"])
                assert not result.is_error, result

    try:
        anyio.run(session)
    finally:
        live.close()
    return json.loads(grade_path(out).read_text())["reward"]


def digests(path: Path, world: str) -> dict[str, str]:
    """sha256 of the whole file, and of the rows of each world table and of ``_calls``."""
    found = {"file": hashlib.sha256(path.read_bytes()).hexdigest()}
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for table in [*(t.name for t in get_world(world).tables), "_calls"]:
            rows = connection.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall()
            found[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
    finally:
        connection.close()
    return found


@pytest.mark.parametrize("task_id", TASKS)
def test_every_door_leaves_the_same_episode(task_id: str, tmp_path: Path) -> None:
    task = get_task(task_id)
    calls = [{"tool": c.tool, "args": c.args} for c in task.gold]
    actions = tmp_path / "actions.json"
    actions.write_text(json.dumps(calls))

    rewards = {
        "api": through_api(task_id, actions, tmp_path / "api.db"),
        "cli": through_cli(task_id, actions, tmp_path / "cli.db"),
        "mcp": through_mcp(task_id, calls, tmp_path / "mcp.db"),
    }
    rewards["http"], http_file = through_http(task_id, calls, tmp_path / "http")
    files = {"api": tmp_path / "api.db", "cli": tmp_path / "cli.db", "mcp": tmp_path / "mcp.db", "http": http_file}

    assert set(rewards.values()) == {1.0}, rewards
    found = {door: digests(path, task.world) for door, path in files.items()}
    assert all(d == found["api"] for d in found.values()), found
    assert len(found["api"]) == 2 + len(get_world(task.world).tables)
