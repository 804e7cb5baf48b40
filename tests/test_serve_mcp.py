"""The MCP server, through the official SDK's own clients: `simtenant serve mcp` launched over stdio, and the
streamable-HTTP app on 127.0.0.1."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from simtenant.grader import EpisodeFile
from simtenant.serve import LiveEpisode, running
from simtenant.serve.mcp import http_app
from simtenant.world import get_task, get_world

REFUND = "commerce/refund-damaged-item"
SIMTENANT = str(Path(sys.executable).with_name("simtenant"))


def stdio_server(task: str, out: Path) -> StdioServerParameters:
    """`simtenant serve mcp TASK` as a subprocess, sharing the tests' private snapshot cache."""
    return StdioServerParameters(
        command=SIMTENANT,
        args=["serve", "mcp", task, "--out", str(out)],
        env={"SIMTENANT_CACHE": os.environ["SIMTENANT_CACHE"]},
    )


def test_stdio_lists_tools_plays_the_gold_and_grades(tmp_path: Path) -> None:
    task = get_task(REFUND)
    out = tmp_path / "episode.db"

    async def session() -> None:
        async with stdio_client(stdio_server(REFUND, out)) as (read, write), ClientSession(read, write) as mcp:
            init = await mcp.initialize()
            briefing = get_world(task.world).briefing(task).text()
            assert init.instructions == briefing  # the briefing every door gives, three ways
            prompts = (await mcp.list_prompts()).prompts
            assert [p.name for p in prompts] == ["briefing"]
            prompt = await mcp.get_prompt("briefing")
            assert [(m.role, m.content.text) for m in prompt.messages] == [("user", briefing)]
            read = await mcp.call_tool("read_briefing", {})
            assert not read.is_error and read.content[0].text == briefing
            listed = {t.name: t for t in (await mcp.list_tools()).tools}
            tools = get_world(task.world).all_tools(with_user=False)
            assert list(listed) == [*(t.name for t in tools), "read_briefing"]
            for name, tool in listed.items():
                expected = next((t for t in tools if t.name == name), None)
                if expected is not None:
                    assert tool.input_schema == expected.json_schema() and tool.description == expected.description

            refused = await mcp.call_tool("orders_lookup", {"order_id": "ORD-9999"})
            assert refused.is_error
            error = json.loads(refused.content[0].text)
            assert error["code"] == 404 and error["error"] and error["message"]
            assert refused.structured_content == error

            for call in task.gold:
                result = await mcp.call_tool(call.tool, call.args)
                assert not result.is_error, result
            assert json.loads(result.content[0].text) == {"finished": True}
            after = await mcp.call_tool("finish", {"answer": "again"})
            assert after.is_error and json.loads(after.content[0].text)["error"] == "episode_finished"

    anyio.run(session)
    episode = EpisodeFile.read(out)
    assert episode.status == "finished" and len(episode.calls) == 1 + len(task.gold)
    assert [c.tool for c in episode.calls[1:]] == [c.tool for c in task.gold]
    graded = json.loads(out.with_name("episode.grade.json").read_text())
    assert graded["reward"] == 1.0 and graded["db_match"] == 1 and graded["completed"] is True


def test_stdio_episode_is_graded_when_the_client_hangs_up(tmp_path: Path) -> None:
    out = tmp_path / "episode.db"

    async def session() -> None:
        async with stdio_client(stdio_server(REFUND, out)) as (read, write), ClientSession(read, write) as mcp:
            await mcp.initialize()
            assert not (await mcp.call_tool("users_lookup", {"email": "jane.doe@example.com"})).is_error

    anyio.run(session)
    graded = json.loads(out.with_name("episode.grade.json").read_text())
    assert graded["completed"] is False and graded["steps"] == 1 and graded["reward"] == 0.0


def test_unknown_task_is_a_structured_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from simtenant.cli import app

    result = CliRunner().invoke(app, ["serve", "mcp", "commerce/nope", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 1 and "unknown_task" in result.output and "Traceback" not in result.output
    assert not list(tmp_path.rglob("*.db"))


def test_streamable_http_operator_task(tmp_path: Path) -> None:
    task = get_task("itsm/unlock-after-verification")
    live = LiveEpisode(task, tmp_path / "episode.db")

    async def session(url: str) -> None:
        async with Client(f"{url}/mcp") as mcp:
            assert task.user.opening.strip() in (mcp.instructions or "")
            names = {t.name for t in (await mcp.list_tools()).tools}
            assert {"send_message_to_user", "finish", "unlock_user"} <= names
            reply = await mcp.call_tool("send_message_to_user", {"message": "Which user is locked out?"})
            assert not reply.is_error and "reply" in json.loads(reply.content[0].text)

    try:
        with running(http_app(live)) as url:
            anyio.run(session, url)
    finally:
        live.close()
    assert [c.tool for c in EpisodeFile.read(live.path).calls] == ["send_message_to_user"]
    assert json.loads((tmp_path / "episode.grade.json").read_text())["completed"] is False
