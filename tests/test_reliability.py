"""What a hostile or unlucky user does to files: odd names, cache folders, damaged caches, tampered
episode files. Each test states what a user relies on, and fails on the code that broke it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from support import task_sample

from simtenant.episode import Episode
from simtenant.errors import SimtenantError, TaskError
from simtenant.grader import EpisodeFile, grade
from simtenant.serve import running
from simtenant.serve.http import create_app
from simtenant.task import load_task
from simtenant.world import get_task

REFUND = "commerce/refund-damaged-item"
SIMTENANT = str(Path(sys.executable).with_name("simtenant"))
# each odd name, and the name an unescaped URI would read it as (where the oracle's episode waits)
ODD_NAMES = [
    ("x%41.db", "xA.db"),
    ("what?.db", "what"),
    ("no#1.db", "no"),
    ("with space.db", "with%20space.db"),
    ("é ü 中.db", "decoy.db"),
    ("%2e%2e.db", "...db"),
]


def cli(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SIMTENANT, *map(str, args)], capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}
    )


@pytest.mark.parametrize(("name", "misread"), ODD_NAMES)
def test_an_episode_file_of_any_name_is_graded_itself(tmp_path: Path, name: str, misread: str) -> None:
    # An oracle episode sits at the name an unescaped URI would read: the noop episode must be graded
    # from its own file, and nothing else be written.
    decoy = tmp_path / misread
    assert cli("run", REFUND, "--agent", "oracle", "--out", decoy).returncode == 0
    noop = tmp_path / name
    played = cli("run", REFUND, "--agent", "noop", "--out", noop, "--json")
    assert played.returncode == 0, played.stdout + played.stderr
    assert json.loads(played.stdout)["reward"] == 0.0
    assert grade(noop).reward == 0.0 and grade(decoy).reward == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({decoy.name, noop.name})


def test_a_cache_folder_of_any_name_builds_and_grades(tmp_path: Path) -> None:
    cache = tmp_path / "ca?ch#e %41 é"
    played = cli(
        "run", REFUND, "--agent", "oracle", "--out", tmp_path / "e.db", "--json", env={"SIMTENANT_CACHE": str(cache)}
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert json.loads(played.stdout)["reward"] == 1.0
    assert any(cache.glob("snapshots/commerce-*.db")) and not (tmp_path / "ca").exists()


def test_a_checksum_that_is_a_folder_is_rebuilt_not_a_permanent_failure(tmp_path: Path) -> None:
    env = {"SIMTENANT_CACHE": str(tmp_path / "cache")}
    assert cli("run", REFUND, "--agent", "noop", "--out", tmp_path / "a.db", env=env).returncode == 0
    for checksum in (tmp_path / "cache" / "snapshots").glob("commerce-*.sha256"):
        checksum.unlink()
        checksum.mkdir()
    again = cli("run", REFUND, "--agent", "oracle", "--out", tmp_path / "b.db", "--json", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["reward"] == 1.0


def test_a_task_id_changed_in_the_file_is_refused_unless_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    assert cli("run", REFUND, "--agent", "noop", "--out", path).returncode == 0
    tampered(path, "UPDATE _episode SET task = 'commerce/order-status'")
    with pytest.raises(SimtenantError) as refused:
        grade(path)
    assert refused.value.error == "task_mismatch" and REFUND in refused.value.message
    assert grade(path, task=get_task(REFUND)).reward == 0.0  # asked for: graded as the task it was played on


def tampered(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


def test_a_write_hidden_from_the_change_log_is_still_graded(tmp_path: Path) -> None:
    # An extra refund, its log entry deleted: the log no longer names every row, and the grader scans.
    path = tmp_path / "e.db"
    assert cli("run", REFUND, "--agent", "oracle", "--out", path).returncode == 0
    extra = "INSERT INTO refunds (id, order_id, amount, reason, created_at) "
    extra += "SELECT 'RF-9999', order_id, 5, reason, created_at FROM refunds LIMIT 1"
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        tampered(path, extra, "DELETE FROM _changes WHERE pk = '[\"RF-9999\"]'")
    tampered(path, 'DROP TRIGGER "_guard_changes_delete"', extra, "DELETE FROM _changes WHERE pk = '[\"RF-9999\"]'")
    result = grade(path)
    assert result.reward < 1.0 and any(d.key == "RF-9999" for d in result.diff.differences)
    assert "change log was tampered with" in " ".join(result.warnings)
    assert grade(path, full=True).reward == result.reward


ODD_VALUES = [
    ("an integer beyond any float", 10**309, "beyond 64 bits"),
    ("a lone surrogate", "\ud800", "not valid Unicode"),
    ("nesting a thousand deep", json.loads("[" * 900 + "]" * 900), "nested deeper"),
]


@pytest.mark.parametrize(("what", "value", "said"), ODD_VALUES, ids=[v[0] for v in ODD_VALUES])
def test_values_no_json_store_can_hold_are_refused_and_recorded(tmp_path: Path, what: str, value: object, said: str):
    # the refund task's shaped reward matches the amount with $approx: it must not be reached by such a value
    with Episode.start(get_task(REFUND), tmp_path / "e.db") as episode:
        outcome = episode.act("orders_process_refund", {"order_id": "ORD-1005", "amount": value, "reason": "x"})
        assert not outcome.ok and outcome.error["error"] == "invalid_arguments" and said in outcome.error["message"]
        assert episode.act("orders_lookup", {"order_id": "ORD-1005"}).ok  # the episode goes on
    recorded = EpisodeFile.read(tmp_path / "e.db").calls
    assert [c.ok for c in recorded] == [False, True] and recorded[0].args == {
        "__unstorable__": outcome.error["message"].split("hold ")[1]
    }


def test_bodies_json_cannot_read_are_a_400_not_a_500(tmp_path: Path) -> None:
    with running(create_app(tmp_path / "runs")) as url, httpx.Client(base_url=url) as http:
        http.post("/reset", json={"task_id": REFUND})
        for body in [
            '{"tool": "orders_lookup", "args": {"n": ' + "9" * 5000 + "}}",
            "[" * 5000 + "]" * 5000,
            b'{"tool": "orders_lookup", "args": {"order_id": "\xff"}}',
            '{"tool": "orders_lookup", "args": {"order_id": "\\ud800"}}',
        ]:
            answer = http.post("/step", content=body, headers={"Content-Type": "application/json"})
            assert answer.status_code in (200, 400), answer.text
            error = answer.json().get("error") or answer.json()["observation"]["api_response"]
            assert error["error"] in ("invalid_json", "invalid_body", "invalid_arguments"), error


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", "no calls"),
        (b"[]", "no calls"),
        (b"\xff\xfe[", "not UTF-8"),
        (b"[" * 5000, "not JSON"),
        (b'[{"tool": "orders_lookup", "args": {"n": ' + b"9" * 5000 + b"}}]", "not JSON"),
    ],
)
def test_replay_files_that_cannot_be_replayed_are_refused_before_anything_is_written(
    tmp_path: Path, content: bytes, said: str
):
    replay = tmp_path / "r.json"
    replay.write_bytes(content)
    played = cli("run", REFUND, "--agent", "replay", "--actions", replay, "--out", tmp_path / "e.db")
    assert (
        played.returncode == 1
        and "invalid_replay_file" in played.stdout + played.stderr
        and said in played.stdout + played.stderr
    )
    assert not (tmp_path / "e.db").exists()


@pytest.mark.parametrize(
    "content",
    [b"instruction: [unclosed", b"instruction: \xff\xfe not UTF-8", b"instruction: \x07 a bell", b"a: b\n c: d:"],
)
def test_a_task_file_that_is_not_yaml_is_refused_by_name(tmp_path: Path, content: bytes) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_bytes(content)
    with pytest.raises(TaskError, match=r"^commerce/broken\.yaml: not valid YAML"):
        load_task("commerce", broken)


def test_a_replay_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    replay = tmp_path / "r.json"
    replay.write_bytes(
        b"\xef\xbb\xbf" + json.dumps([{"tool": "orders_lookup", "args": {"order_id": "ORD-1005"}}]).encode()
    )
    assert cli("run", REFUND, "--agent", "replay", "--actions", replay, "--out", tmp_path / "e.db").returncode == 0


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE _calls SET args = 'not json'",
        "UPDATE _calls SET args = '[1]'",
        "UPDATE _episode SET answer = x'00ff'",
        "UPDATE _calls SET result = '{'",
    ],
)
def test_a_damaged_record_is_refused_as_such(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "e.db"
    assert cli("run", REFUND, "--agent", "oracle", "--out", path).returncode == 0
    tampered(path, damage)
    for command in (("grade", path), ("transcript", path)):
        answer = cli(*command)
        assert answer.returncode == 1 and "not_an_episode" in answer.stdout + answer.stderr, (
            answer.stdout + answer.stderr
        )
        assert "Traceback" not in answer.stdout + answer.stderr


def test_a_run_folder_is_held_by_the_eval_writing_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    tasks = sorted(t.id for t in task_sample())
    command = [SIMTENANT, "eval", "--agent", "oracle", *(f"--tasks={t}" for t in tasks), "--workers", "1"]
    command += ["--out", str(out)]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "results.jsonl").is_file() or not (out / "results.jsonl").read_text():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.01)
        # held where it is, lock and all (the whole run may otherwise end before the second starts)
        os.killpg(first.pid, signal.SIGSTOP)
        assert first.poll() is None, "the first eval ended before it could be held"
        second = cli(*command[1:], "--resume")
        assert second.returncode == 1 and "run_locked" in second.stdout + second.stderr, second.stdout + second.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the lock dies with its holder
        first.wait(timeout=60)
    resumed = cli(*command[1:], "--resume")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in lines) == tasks  # each once
    assert all(r["reward"] == 1.0 for r in lines)


def test_a_lone_surrogate_over_raw_mcp_stdio_is_answered(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [SIMTENANT, "serve", "mcp", REFUND, "--out", str(tmp_path / "e.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
        '"params": {"name": "orders_lookup", "arguments": {"order_id": "\\ud800"}}}',
    ]
    watchdog = threading.Timer(120, server.kill)  # a server that never answers fails the test, not hangs it
    watchdog.start()
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(("\n".join(lines) + "\n").encode())
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline() or "null") for _ in range(2)]
    finally:
        watchdog.cancel()
        server.kill()
        server.wait(timeout=30)
    called = next(a for a in answers if a and a.get("id") == 2)
    assert called["result"]["isError"] is True
    # read as U+FFFD, as the SDK reads invalid UTF-8 bytes: an id no order has
    assert json.loads(called["result"]["content"][0]["text"])["error"] == "not_found"
