"""Isolation under load: many episodes of different tasks at once — in worker processes, in
threads, and through the HTTP server with concurrent clients — each end byte-identical to the same
episode played alone, so none saw another's writes.

A sample of every world's tasks of each difficulty (``support.task_sample``) is played alone first
(the reference: the SHA-256 of its episode file and its grade). Then each of them twice in 2 worker
processes (``simtenant eval``), twice in 8 threads, and once through one HTTP server by 8 clients
stepping at the same time.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from support import task_sample

from simtenant.agents import run
from simtenant.evaluation import EPISODES, episode_name
from simtenant.grader import grade
from simtenant.serve import running
from simtenant.serve.http import create_app
from simtenant.world import get_task

pytestmark = pytest.mark.slow  # a stress run: CI runs it; -m "not slow" skips it while developing

TASKS = sorted(t.id for t in task_sample())


def sha256(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, float]]:
    """Each task played alone by the oracle: its episode file's SHA-256 and its reward."""
    folder = tmp_path_factory.mktemp("alone")
    reference = {}
    for task_id in TASKS:
        path = run(get_task(task_id), "oracle", folder / f"{task_id.replace('/', '__')}.db")
        reference[task_id] = (sha256(path), grade(path).reward)
    return reference


def test_episodes_in_worker_processes_equal_their_sequential_run(tmp_path, alone):
    out = tmp_path / "eval"
    cli = str(Path(sys.executable).with_name("simtenant"))  # the installed command, beside this interpreter
    command = [cli, "eval", "--agent", "oracle", *(f"--tasks={t}" for t in TASKS), "--trials", "2"]
    done = subprocess.run([*command, "--workers", "2", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2 * len(TASKS)
    for record in records:
        path = out / EPISODES / episode_name(record["task"], int(record["trial"]))
        assert (sha256(path), record["reward"]) == alone[record["task"]], record["task"]


def test_episodes_in_threads_equal_their_sequential_run(tmp_path, alone):
    jobs = [(task_id, tmp_path / f"{task_id.replace('/', '__')}-{n}.db") for n in range(2) for task_id in TASKS]

    def play(job: tuple[str, Path]) -> tuple[str, str, float]:
        task_id, path = job
        run(get_task(task_id), "oracle", path)
        return task_id, sha256(path), grade(path).reward

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(play, jobs))
    assert len(results) == 2 * len(TASKS)
    for task_id, digest, reward in results:
        assert (digest, reward) == alone[task_id], task_id


def test_concurrent_http_clients_equal_their_sequential_run(tmp_path, alone):
    with running(create_app(tmp_path / "runs")) as url:

        def play(task_id: str) -> tuple[str, float]:
            with httpx.Client(base_url=url, timeout=60) as http:
                episode = http.post("/reset", json={"task_id": task_id}).json()["episode_id"]
                for call in get_task(task_id).gold:
                    body = http.post("/step", json={"episode_id": episode, "tool": call.tool, "args": call.args})
                    assert body.status_code == 200, body.text
                state = http.get("/state", params={"episode_id": episode}).json()
                assert state["done"], (task_id, state["calls"][-1])
                (path,) = (tmp_path / "runs").glob(f"*-{episode}.db")  # the server names no path to the agent
                return sha256(path), state["grade"]["reward"]

        with ThreadPoolExecutor(max_workers=8) as pool:
            concurrent = dict(zip(TASKS, pool.map(play, TASKS), strict=True))
    assert concurrent == alone  # the same bytes and reward as the oracle's episode played alone
