"""One HTTP server, many clients, some of them hostile: each client's episodes are its own, a request that
could mean two episodes is refused, a web page cannot drive the server, and resources are bounded (open
episodes, idle ones, bodies) with ``/health`` telling the truth. Errors never show the server's files."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from simtenant.errors import InvalidArgument
from simtenant.live import LiveEpisode
from simtenant.serve import running
from simtenant.serve.http import MAX_BODY_BYTES, create_app

ORDER = "commerce/order-status"
LOOKUP = {"tool": "orders_lookup", "args": {"order_id": "ORD-1005"}}
SIMTENANT = str(Path(sys.executable).with_name("simtenant"))


def error_of(response: httpx.Response, status: int, error: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["error"] == error, body
    return body["message"]


def test_each_client_sees_only_its_own_episodes(tmp_path: Path) -> None:
    with running(create_app(tmp_path, token=["alice-token", "bob-token"])) as url:
        alice = httpx.Client(base_url=url, headers={"Authorization": "Bearer alice-token"})
        bob = httpx.Client(base_url=url, headers={"Authorization": "Bearer bob-token"})
        mine = alice.post("/reset", json={"task_id": ORDER}).json()["episode_id"]
        error_of(bob.post("/step", json=LOOKUP), 404, "no_episode")  # no episode of bob's to fall back on
        error_of(bob.post("/step", json={"episode_id": mine, **LOOKUP}), 404, "unknown_episode")  # the id is not enough
        error_of(bob.get("/state", params={"episode_id": mine}), 404, "unknown_episode")
        error_of(bob.get("/schema", params={"episode_id": mine}), 404, "unknown_episode")
        assert alice.post("/step", json=LOOKUP).json()["observation"]["success"] is True
        assert alice.get("/state").json()["step_count"] == 1


def test_a_request_naming_no_episode_is_refused_when_it_could_mean_two(tmp_path: Path) -> None:
    with running(create_app(tmp_path)) as url, httpx.Client(base_url=url) as http:
        first = http.post("/reset", json={"task_id": ORDER}).json()["episode_id"]
        assert http.post("/step", json=LOOKUP).json()["observation"]["success"] is True  # one open: no doubt
        second = http.post("/reset", json={"task_id": ORDER}).json()["episode_id"]
        error_of(http.post("/step", json=LOOKUP), 409, "ambiguous_episode")
        error_of(http.get("/state"), 409, "ambiguous_episode")
        http.post("/step", json={"episode_id": first, "tool": "finish", "args": {"answer": "delivered"}})
        assert http.get("/state").json()["episode_id"] == second  # the one still open


def test_a_web_page_cannot_drive_the_server(tmp_path: Path) -> None:
    with running(create_app(tmp_path)) as url, httpx.Client(base_url=url) as http:
        # a cross-site form or fetch without a preflight can only send text/plain (or form) bodies
        error_of(
            http.post("/reset", content=f'{{"task_id": "{ORDER}"}}', headers={"content-type": "text/plain"}),
            415,
            "unsupported_media_type",
        )
        error_of(
            http.post("/reset", json={"task_id": ORDER}, headers={"origin": "https://evil.example"}),
            403,
            "cross_origin",
        )
        # DNS rebinding: the page's own name resolving to 127.0.0.1
        error_of(http.post("/reset", json={"task_id": ORDER}, headers={"host": "evil.example"}), 421, "wrong_host")
        assert http.get("/health", headers={"host": "localhost"}).status_code == 200
        assert http.post("/reset", json={"task_id": ORDER}, headers={"origin": url}).status_code == 200
        assert len(list(tmp_path.glob("*.db"))) == 1  # only the allowed reset started an episode


def test_open_episodes_are_bounded_and_health_says_so(tmp_path: Path) -> None:
    with running(create_app(tmp_path, max_episodes=2)) as url, httpx.Client(base_url=url) as http:
        ids = [http.post("/reset", json={"task_id": ORDER}).json()["episode_id"] for _ in range(2)]
        error_of(http.post("/reset", json={"task_id": ORDER}), 503, "too_many_episodes")
        health = http.get("/health")
        assert health.status_code == 503 and health.json() == {"status": "full", "episodes_open": 2, "max_episodes": 2}
        http.post("/step", json={"episode_id": ids[0], "tool": "finish", "args": {"answer": "x"}})
        assert http.get("/health").json()["status"] == "healthy"
        assert http.post("/reset", json={"task_id": ORDER}).status_code == 200


def test_idle_episodes_are_closed_and_graded(tmp_path: Path) -> None:
    with running(create_app(tmp_path, max_episodes=1, idle_seconds=0.3)) as url, httpx.Client(base_url=url) as http:
        idle = http.post("/reset", json={"task_id": ORDER, "episode_id": "idle"}).json()["episode_id"]
        time.sleep(0.5)
        assert http.post("/reset", json={"task_id": ORDER}).status_code == 200  # the idle one made room
        assert http.get("/state", params={"episode_id": idle}).json()["done"] is True
        assert len(list(tmp_path.glob(f"*-{idle}.grade.json"))) == 1


def test_bodies_are_bounded(tmp_path: Path) -> None:
    with running(create_app(tmp_path)) as url, httpx.Client(base_url=url) as http:
        big = b'{"task_id": "' + b"x" * MAX_BODY_BYTES + b'"}'
        error_of(http.post("/reset", content=big, headers={"content-type": "application/json"}), 413, "body_too_large")


def test_an_unexpected_failure_names_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: LiveEpisode, tool: str, args: object) -> None:
        raise RuntimeError(f"cannot open {self.path}")

    monkeypatch.setattr(LiveEpisode, "call", broken)
    with running(create_app(tmp_path)) as url, httpx.Client(base_url=url) as http:
        http.post("/reset", json={"task_id": ORDER})
        message = error_of(http.post("/step", json=LOOKUP), 500, "internal_error")
        assert str(tmp_path) not in message and "log" in message


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_token_is_refused_not_read_as_none(tmp_path: Path, empty: str) -> None:
    with pytest.raises(InvalidArgument, match="may not be empty"):
        create_app(tmp_path, token=empty)
    for command in (["serve", "http", "--port", "0", "--token", empty], ["serve", "mcp", ORDER, "--token", empty]):
        result = subprocess.run([SIMTENANT, *command], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert result.returncode == 1 and "invalid_token" in result.stderr and "Traceback" not in result.stderr
    env_token = subprocess.run(
        [SIMTENANT, "serve", "http", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"SIMTENANT_TOKEN": empty, "PATH": ""},
    )
    assert env_token.returncode == 1 and "invalid_token" in env_token.stderr


def test_serving_is_said_once_connections_are_taken(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [SIMTENANT, "serve", "http", "--port", "0"], stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        line = process.stderr.readline()
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # refused if not yet listening
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_mcp_episode_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [SIMTENANT, "serve", "mcp", ORDER, "--out", "/proc/no/e.db"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr and "error" in result.stderr, result.stderr


def test_a_client_that_stalls_mid_request_is_disconnected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("simtenant.serve.HEAD_SECONDS", 0.5)
    with running(create_app(tmp_path)) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the head never ends
        assert slow.recv(100) == b""  # closed by the server (our own 10 s timeout would raise instead)
        slow.close()
        assert httpx.get(f"{url}/health").status_code == 200  # others are served all along


def test_the_servers_sockets_say_they_are_tcp_so_nagle_is_off() -> None:
    # asyncio sets TCP_NODELAY only on sockets whose protocol is IPPROTO_TCP; with Nagle on, every small
    # response waited ~40 ms for the client's delayed ACK (measured by `simtenant bench`, not asserted here)
    from simtenant.serve import listen

    sock = listen("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
