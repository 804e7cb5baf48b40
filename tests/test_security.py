"""The agent cannot reach the answers, and odd input cannot reach the file system or the SQL.

Over HTTP and MCP an agent plays tasks of every world, right and wrong, and every byte it gets back
— routes, observations, tool results, errors, schemas, instructions — is searched for what only the
grader knows: the task's notes, its checks and their queries, rubric settings, the gold calls that
were not made, the snapshot and cache paths, and other episodes. Task ids and episode paths with
``..``, absolute paths or odd characters are refused by the CLI and the servers; the servers bind
127.0.0.1 unless told otherwise and, with a token, refuse requests without it; and no tool builds SQL
from its arguments.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from simtenant import seeds
from simtenant.cli import app
from simtenant.grader.grade import rubric_of
from simtenant.serve import LiveEpisode, running
from simtenant.serve.http import create_app
from simtenant.serve.mcp import http_app
from simtenant.task import Task
from simtenant.world import get_task, get_world

SIMTENANT = str(Path(sys.executable).with_name("simtenant"))
TASKS = [
    "commerce/billing-discrepancy",
    "homeservices/towing-raleigh",
    "itsm/unlock-after-verification",
    "itsm-msp/scope-meridian-cancel-refuse-partner-ticket",
    "automation/sales-harborview-po-won",
]
ODD_IDS = [
    "../commerce/refund-damaged-item",
    "commerce/../../etc/passwd",
    "/etc/passwd",
    "commerce/refund-damaged-item/..",
    "commerce\\refund-damaged-item",
    "commerce/refund damaged",
    "commerce/refund;rm -rf x",
    "COMMERCE/REFUND-DAMAGED-ITEM",
    "commerce/%2e%2e",
    "commerce/refund\x00",
    "",
]


def secrets(task: Task) -> list[str]:
    """What only the grader knows of ``task``: none of it may reach the agent."""
    found = [task.notes.strip()[:80], task.hash, str(seeds.cache_dir()), "snapshots", "gold"]
    for check in task.checks:
        found.append(check.name)
        found += [getattr(check, "query", None) or "", getattr(check, "assertion", None) or ""]
    found += [a.name for a in task.assertions]
    for component in rubric_of(task):
        found += [component.query or "", component.prompt or ""]
    return [s for s in found if len(s) >= 6]


def leaked(texts: list[str], task: Task, others: list[str]) -> list[str]:
    everything = "\n".join(texts)
    return [s for s in [*secrets(task), *others] if s in everything]


# --- HTTP ----------------------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running(create_app(tmp_path / "runs")) as url:
        yield url


@pytest.mark.parametrize("task_id", TASKS)
def test_nothing_the_grader_knows_reaches_an_http_agent(server, task_id):
    task = get_task(task_id)
    texts: list[str] = []
    with httpx.Client(base_url=server) as http:

        def get(response: httpx.Response) -> dict:
            texts.append(response.text)
            texts.extend(f"{k}: {v}" for k, v in response.headers.items())
            return response.json()

        other = get(http.post("/reset", json={"task_id": "commerce/order-status"}))["episode_id"]
        texts.clear()  # the other episode's own reset is the only place its id belongs
        episode = get(http.post("/reset", json={"task_id": task_id}))["episode_id"]
        get(http.get("/health"))
        get(http.get("/schema", params={"episode_id": episode}))
        get(http.get("/schema", params={"task_id": task_id}))
        get(http.post("/step", json={"episode_id": episode, "tool": "no_such_tool", "args": {}}))
        get(http.post("/step", json={"episode_id": episode, "tool": task.gold[0].tool, "args": {"x": 1}}))
        get(http.post("/step", json={"episode_id": episode, "action": "not an action"}))
        get(http.post("/step", json={"episode_id": "no-such-episode", "tool": "finish", "args": {}}))
        get(http.get("/nowhere"))
        for call in task.gold[: len(task.gold) // 2]:  # half the work: the rest of the gold stays unknown
            get(http.post("/step", json={"episode_id": episode, "tool": call.tool, "args": call.args}))
        get(http.get("/state", params={"episode_id": episode}))
        world = get_world(task.world)
        finish = {"tool": world.finish_tool, "args": {world.finish_answer: "done"}}
        get(http.post("/step", json={"episode_id": episode, **finish}))
        final = get(http.get("/state", params={"episode_id": episode}))
    assert set(final["grade"]) <= {"reward", "reward_mode"}  # the reward, never the diff or the checks
    unmade = [json.dumps(c.args, sort_keys=True) for c in task.gold[len(task.gold) // 2 :] if len(c.args) > 1]
    assert not leaked(texts, task, [other, *unmade])


@pytest.mark.parametrize("task_id", ODD_IDS)
def test_odd_task_ids_are_refused_by_the_http_server_and_write_nothing(tmp_path, task_id):
    with running(create_app(tmp_path / "runs")) as url, httpx.Client(base_url=url) as http:
        response = http.post("/reset", json={"task_id": task_id})
    assert response.status_code == 404 and response.json()["error"]["error"] == "unknown_task", response.text
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("episode_id", ["../escape", "/tmp/x", "a/b", "..", "x" * 65, "é", "a b"])
def test_odd_episode_ids_are_refused_and_write_nothing(tmp_path, episode_id):
    with running(create_app(tmp_path / "runs")) as url, httpx.Client(base_url=url) as http:
        response = http.post("/reset", json={"task_id": "commerce/order-status", "episode_id": episode_id})
    assert response.status_code == 400 and response.json()["error"]["error"] == "invalid_episode_id"
    assert not list(tmp_path.rglob("*.db"))


# --- MCP -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", TASKS)
def test_nothing_the_grader_knows_reaches_an_mcp_agent(tmp_path, task_id):
    task = get_task(task_id)
    live = LiveEpisode(task, tmp_path / "episode.db")
    texts: list[str] = []

    async def session(url: str) -> None:
        async with Client(f"{url}/mcp") as mcp:
            texts.append(mcp.instructions or "")
            for tool in (await mcp.list_tools()).tools:
                texts.append(tool.model_dump_json())
            for name, args in [("no_such_tool", {}), (task.gold[0].tool, {"x": 1})]:
                texts.append((await mcp.call_tool(name, args)).model_dump_json())
            for call in task.gold[: len(task.gold) // 2]:
                texts.append((await mcp.call_tool(call.tool, call.args)).model_dump_json())

    try:
        with running(http_app(live)) as url:
            anyio.run(session, url)
    finally:
        live.close()
    unmade = [json.dumps(c.args, sort_keys=True) for c in task.gold[len(task.gold) // 2 :] if len(c.args) > 1]
    assert not leaked(texts, task, unmade)


def test_the_mcp_server_refuses_requests_without_its_token(tmp_path):
    live = LiveEpisode(get_task("commerce/order-status"), tmp_path / "episode.db")
    try:
        with running(http_app(live, token="s3cret")) as url, httpx.Client(base_url=url) as http:
            refused = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert refused.status_code == 401 and refused.json()["error"]["error"] == "unauthorized"
            wrong = http.post("/mcp", json={}, headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            allowed = http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"Authorization": "Bearer s3cret", "Accept": "application/json, text/event-stream"},
            )
            assert allowed.status_code != 401
    finally:
        live.close()


# --- the command line ----------------------------------------------------------------------------


def cli(*args: str, cwd: Path) -> Any:
    """The command run in this process (typer's runner), from ``cwd``."""
    here = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    finally:
        os.chdir(here)


@pytest.mark.parametrize("task_id", [i for i in ODD_IDS if i and "\x00" not in i])
def test_odd_task_ids_are_refused_by_the_cli_and_write_nothing(tmp_path, task_id):
    done = cli("run", task_id, "--agent", "oracle", "--json", cwd=tmp_path)
    assert (done.exit_code != 0 and done.exception is None) or isinstance(done.exception, SystemExit), done
    assert "Traceback" not in done.output and "unknown_task" in done.output, done.output
    assert not list(tmp_path.rglob("*.db"))


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "/", "no/such/episode.db", "..", "x\ty.db"])
def test_paths_that_are_not_episodes_are_refused(tmp_path, path):
    for command in (["grade", path], ["transcript", path]):
        done = cli(*command, cwd=tmp_path)
        assert done.exit_code != 0 and isinstance(done.exception, SystemExit | None), done
        assert "Traceback" not in done.output and "not_an_episode" in done.output, (command, done.output)


def test_the_servers_listen_on_this_machine_only_by_default(tmp_path):
    for command, needle in (
        (["serve", "http", "--port", "0", "--runs-dir", str(tmp_path / "runs")], "serving http://"),
        (["serve", "mcp", "commerce/order-status", "--http", "--port", "0", "--runs-dir", str(tmp_path)], "/mcp"),
    ):
        process = subprocess.Popen([SIMTENANT, *command], stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        try:
            line = process.stderr.readline()
        finally:
            process.terminate()
            process.wait(timeout=30)
        assert needle in line and re.search(r"http://127\.0\.0\.1:\d+", line), line


# --- SQL -----------------------------------------------------------------------------------------

SQL_CALLS = {"text", "exec_driver_sql", "execute", "executemany", "executescript", "literal_column"}


def _is_built_text(node: ast.AST) -> bool:
    """An f-string, a concatenation, a %-format or a .format()/.join() call: text made at run time."""
    if isinstance(node, ast.JoinedStr | ast.BinOp):
        return True
    return isinstance(node, ast.Call) and getattr(node.func, "attr", "") in {"format", "join"}


def sql_built_at_call_time() -> Iterator[str]:
    """Calls in the tools' code that hand the database text made while a tool runs: built right in
    the call, or bound to a name inside a function (module constants are made once, from no input)."""
    for path in sorted(Path("simtenant/tools").rglob("*.py")):
        tree = ast.parse(path.read_text())
        local: dict[str, list[ast.AST]] = {}
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                for node in ast.walk(function):
                    if isinstance(node, ast.Assign):
                        for target in node.targets:
                            if isinstance(target, ast.Name):
                                local.setdefault(target.id, []).append(node.value)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            if getattr(node.func, "attr", getattr(node.func, "id", "")) not in SQL_CALLS:
                continue
            first = node.args[0]
            built = _is_built_text(first) or (
                isinstance(first, ast.Name) and any(_is_built_text(v) for v in local.get(first.id, []))
            )
            if built:
                yield f"{path}:{node.lineno}"


def test_no_tool_builds_sql_from_its_arguments():
    os.chdir(Path(__file__).resolve().parents[1])
    assert list(sql_built_at_call_time()) == []


INJECTIONS = ["' OR '1'='1", "%", "_", "'; DROP TABLE sys_users; --", '" OR ""="']


@pytest.mark.parametrize("payload", INJECTIONS)
def test_sql_in_arguments_is_only_ever_data(start_episode, payload):
    """An injection finds nothing (or only names that hold it literally), and every table is still there."""
    episode = start_episode("itsm/unlock-after-verification")
    for tool, args, field in (
        ("find_users_by_name", {"name": payload}, "name"),
        ("list_configuration_items", {"name": payload}, "name"),
        ("search_knowledge", {"query": payload}, "title"),
        ("get_user_by_email", {"email": payload}, None),
        ("get_incident_by_number", {"incident_number": payload}, None),
        ("get_group_by_name", {"name": payload}, None),
    ):
        outcome = episode.call(tool, args)
        if not outcome.ok:
            assert outcome.error["code"] in (400, 404), (tool, outcome.error)
            continue
        assert field is not None, (tool, outcome.result)  # a look-up by key never matches an injection
        rows = outcome.result["rows"] if isinstance(outcome.result, dict) else outcome.result
        if tool != "search_knowledge":
            assert all(payload.lower() in row[field].lower() for row in rows), (tool, rows)
        else:
            assert rows == [], (tool, rows)
    for table in ("list_users", "list_incidents", "list_groups"):
        assert episode.call(table, {"per_page": 50}).result["total"] > 0
