"""What the HTTP door adds to a call, for ``simtenant bench``: the same read call played directly and
through the server on a keep-alive connection (Python's own ``http.client``, as trainers and OpenEnv's
HTTP clients talk), measured alternately in one run; and the steps per second one server answers to 8
clients in processes of their own."""

from __future__ import annotations

import http.client
import json
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ..episode import Episode
from ..task import Call
from ..world import get_task
from . import running
from .http import create_app

CLIENTS = 8


class _Client:
    """One keep-alive connection to the server, JSON in and out."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port))

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        return json.loads(self.connection.getresponse().read())


def _step(client: _Client, episode_id: str, call: Call) -> None:
    answer = client.post("/step", {"episode_id": episode_id, "tool": call.tool, "args": call.args})
    if not answer["observation"]["success"]:
        raise RuntimeError(f"bench step failed: {answer['observation']['error_message']}")


def _steps_for(args: tuple[str, str, str, dict[str, Any], float]) -> int:
    url, task_id, tool, call_args, seconds = args
    client = _Client(url)
    episode_id = client.post("/reset", {"task_id": task_id})["episode_id"]
    call, done, end = Call(tool=tool, args=call_args), 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        _step(client, episode_id, call)
        done += 1
    return done


def door_figures(task_id: str, call: Call, work: Path, budget: float) -> dict[str, Any]:
    """Medians (ms) of ``call`` played directly and through the HTTP server, alternately, and the steps per
    second one server answers to ``CLIENTS`` client processes (each its own episode, no turn budget)."""
    task = get_task(task_id)
    with running(create_app(work / "http", max_steps=10**9, max_episodes=CLIENTS + 1)) as url:
        client = _Client(url)
        episode_id = client.post("/reset", {"task_id": task_id})["episode_id"]
        direct, door = [], []
        with Episode.start(task, work / "direct.db", max_steps=10**9) as episode:
            for i in range(max(50, int(budget * 400))):
                start = time.perf_counter()
                episode.call(call.tool, call.args)
                middle = time.perf_counter()
                _step(client, episode_id, call)
                if i >= 20:  # after the warm-up
                    direct.append(middle - start)
                    door.append(time.perf_counter() - middle)
        jobs = [(url, task_id, call.tool, call.args, max(1.0, budget * 2))] * CLIENTS
        with multiprocessing.get_context("spawn").Pool(CLIENTS) as pool:
            steps = sum(pool.map(_steps_for, jobs))
    direct_ms, door_ms = statistics.median(direct) * 1000, statistics.median(door) * 1000
    return {
        "call_direct_ms": direct_ms,
        "call_http_ms": door_ms,
        "added_ms": door_ms - direct_ms,
        "steps_per_second_8_clients": steps / max(1.0, budget * 2),
    }


def measure(task_id: str, call: Call, budget: float) -> dict[str, Any]:
    """``door_figures`` in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="simtenant-door-") as tmp:
        return door_figures(task_id, call, Path(tmp), budget)
