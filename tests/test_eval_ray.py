"""`simtenant eval --backend ray`: every episode a Ray task on a local Ray instance (2 CPUs, started
once for this module and shut down after), graded into the same run folder as the local backend's.

The local backend's run is made first (its workers are forked before Ray starts any thread here).
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from simtenant import evaluation
from simtenant.cli import app
from simtenant.evaluation import ray as evaluation_ray
from simtenant.world import all_tasks

runner = CliRunner()
COMMERCE = ["commerce/billing-discrepancy", "commerce/order-status", "commerce/refund-damaged-item"]  # ServiceBench's
SERVICEBENCH = ("--tasks", COMMERCE[0], "--tasks", COMMERCE[1], "--tasks", COMMERCE[2])
REFUND = "commerce/refund-damaged-item"


def invoke(*args: Any) -> Any:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def eval_json(*args: Any) -> dict[str, Any]:
    result = invoke("eval", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def by_episode(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["task"], r["trial"]): r for r in evaluation.read_results(out)}


def assert_structured_failure(result: Any, code: int, error: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert f"error {code} {error}" in " ".join(result.output.split())


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("local") / "run"
    return out, eval_json(*SERVICEBENCH, "--trials", 2, "--workers", 2, "--out", out)


@pytest.fixture(scope="module")
def ray_instance(local_run: tuple[Path, dict[str, Any]]) -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_backend_matches_the_local_backend(tmp_path, local_run, ray_instance):
    local_out, local_summary = local_run
    out = tmp_path / "run"
    summary = eval_json(*SERVICEBENCH, "--trials", 2, "--workers", 2, "--out", out, "--backend", "ray")
    assert summary["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert summary["pass_at_k"] == {"1": 1.0, "2": 1.0}
    assert summary["episodes"] == 6 and summary["infra_failures"] == 0
    assert {k: summary[k] for k in ("pass_hat_k", "mean_reward", "mean_steps")} == {
        k: local_summary[k] for k in ("pass_hat_k", "mean_reward", "mean_steps")
    }
    ours, theirs = by_episode(out), by_episode(local_out)
    assert set(ours) == set(theirs) == {(t, n) for t in COMMERCE for n in (1, 2)}
    for key, record in ours.items():
        assert (record["reward"], record["db_match"], record["steps"], record["checks"]) == (
            theirs[key]["reward"],
            theirs[key]["db_match"],
            theirs[key]["steps"],
            theirs[key]["checks"],
        )
        assert record["infra_ok"] is True
        assert record["episode_db"] == str(out / "episodes" / evaluation.episode_name(*key))
        assert Path(record["episode_db"]).is_file()  # written on the node: the same filesystem
    # The Ray path shares the local one's resume: only the new trial is played.
    again = eval_json("--tasks", REFUND, "--trials", 3, "--out", out, "--backend", "ray", "--resume")
    assert again["episodes"] == 7 and again["infra_failures"] == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == 7


def test_snapshot_hash_mismatch_is_an_infra_failure(tmp_path, monkeypatch, ray_instance):
    right = evaluation_ray.expected_hash
    monkeypatch.setattr(evaluation_ray, "expected_hash", lambda task: "0" * 64 if task == REFUND else right(task))
    out = tmp_path / "run"
    summary = eval_json(*SERVICEBENCH, "--out", out, "--backend", "ray", "--workers", 2)
    assert summary["infra_failures"] == 1 and summary["valid_episodes"] == 2
    records = by_episode(out)
    failed = records[(REFUND, 1)]
    assert failed["infra_ok"] is False and failed["reward"] is None
    assert failed["error"]["error"] == "snapshot_mismatch" and failed["error"]["stage"] == "snapshot"
    assert "000000000000" in failed["error"]["message"]
    assert not (out / "episodes" / evaluation.episode_name(REFUND, 1)).exists()  # never played
    assert all(r["reward"] == 1.0 for k, r in records.items() if k[0] != REFUND)


def test_a_remote_node_ships_its_episode_file_back(tmp_path, ray_instance):
    tasks = [t for t in all_tasks() if t.id == REFUND]
    out = tmp_path / "run"
    jobs = evaluation.prepare(out, tasks, 2, "oracle", False)
    seen: list[dict[str, Any]] = []
    evaluation_ray.execute_ray(jobs, out, 2, on_result=seen.append, ship=True)
    assert [r["trial"] for r in sorted(seen, key=lambda r: r["trial"])] == [1, 2]
    for record in evaluation.read_results(out):
        assert record["reward"] == 1.0 and record["infra_ok"] is True
        assert record["episode_db"] == str(out / "episodes" / evaluation.episode_name(REFUND, record["trial"]))
    # The driver wrote the shipped files, and they grade as the originals did.
    summary, report = evaluation.write_report(out)
    assert summary["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert sorted(p.name for p in (out / "episodes").iterdir()) == [
        evaluation.episode_name(REFUND, 1),
        evaluation.episode_name(REFUND, 2),
    ]
    assert "transcript unavailable" not in report.read_text()
    # What such a task does: play in a folder of its own, and return the file instead of writing it.
    job = evaluation.prepare(tmp_path / "direct", tasks, 1, "oracle", False)[0]
    answer = evaluation_ray.run_episode(job, evaluation_ray.expected_hash(REFUND), None)
    assert not Path(job.episode).exists()
    assert list(answer["files"]) == [evaluation.episode_name(REFUND, 1)]
    assert answer["files"][evaluation.episode_name(REFUND, 1)].startswith(b"SQLite format 3")
    assert answer["record"]["reward"] == 1.0 and answer["record"]["episode_db"] == job.episode


def test_without_ray_the_backend_is_a_structured_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    out = tmp_path / "run"
    result = invoke("eval", "--tasks", REFUND, "--out", out, "--backend", "ray")
    assert_structured_failure(result, 400, "ray_not_installed")
    assert "simtenant[ray]" in " ".join(result.output.split())
    assert not out.exists()


def test_backend_and_address_are_checked(tmp_path):
    result = invoke("eval", "--tasks", REFUND, "--out", tmp_path / "a", "--backend", "dask")
    assert_structured_failure(result, 400, "invalid_backend")
    result = invoke("eval", "--tasks", REFUND, "--out", tmp_path / "b", "--address", "127.0.0.1:6379")
    assert_structured_failure(result, 400, "invalid_backend")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_an_address_nothing_answers_at_fails_at_once():
    with socket.socket() as probe:  # a port on 127.0.0.1 that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class NotConnected:
        def is_initialized(self) -> bool:
            return False

        def init(self, **_options: Any) -> None:
            raise AssertionError("ray.init should not be tried")

    with pytest.raises(evaluation_ray.RayUnavailable) as caught:
        evaluation_ray._connect(NotConnected(), f"127.0.0.1:{port}", 1)
    assert caught.value.to_dict()["code"] == 503 and f"127.0.0.1:{port}" in caught.value.message
