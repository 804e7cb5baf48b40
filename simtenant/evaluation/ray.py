"""The Ray backend of batch evaluation: every episode of ``simtenant eval --backend ray`` is a Ray task.

Only the way an episode is executed changes: the run folder, the job list, ``play_and_grade`` and the
way records are appended to results.jsonl (``evaluation.collect``) are the local backend's.

Each task builds the snapshot its episode starts from with simtenant's own builder (cached on its
node by content hash, as everywhere else) and checks that the hash it built is the one the driver
expects for that task; a node whose simtenant or seed files differ gives an infrastructure failure
(``snapshot_mismatch``), never an episode graded against another world. A task on the driver's own
node writes its episode file into the run folder; a task on another node plays in a temporary folder
and ships the file (and the agent's sidecar) back, and the driver writes it into the run folder.

Ray is optional (``pip install 'simtenant[ray]'``); without it, ``--backend ray`` is a structured error.
"""

from __future__ import annotations

import logging
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import seeds
from ..errors import InvalidArgument, SimtenantError
from .runs import Job, _failure, _remove_episode, collect, play_and_grade, sidecars

BACKENDS = ("local", "ray")


class RayUnavailable(SimtenantError):
    code = 503
    error = "ray_unavailable"


class SnapshotMismatch(SimtenantError):
    code = 500
    error = "snapshot_mismatch"


def require_ray() -> Any:
    """The ray module, or a structured error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise InvalidArgument(
            "the ray backend needs Ray: pip install 'simtenant[ray]' (or pip install 'ray>=2.9')",
            error="ray_not_installed",
        ) from None
    return ray


def check_backend(backend: str, address: str | None) -> None:
    """Refuse an unknown backend, an address without Ray, and Ray when it is not installed."""
    if backend not in BACKENDS:
        raise InvalidArgument(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}", error="invalid_backend")
    if address is not None and backend != "ray":
        raise InvalidArgument("--address is for --backend ray", error="invalid_backend")
    if backend == "ray":
        require_ray()


# --- on every node -------------------------------------------------------------------------------


def built_hash(task_id: str) -> str:
    """The content hash of the snapshot an episode of the task starts from, built (or found in this
    node's cache) by simtenant's own snapshot builder."""
    from ..world import get_task, get_world

    task = get_task(task_id)
    world = get_world(task.world)
    return seeds.hash_of(world, seeds.task_snapshot(world, task.seed_changes))


def expected_hash(task_id: str) -> str:
    """The hash the driver expects every node to build for the task."""
    return built_hash(task_id)


def run_episode(job: Job, expected: str, home: str | None, actions: bytes | None = None) -> dict[str, Any]:
    """The Ray task: check the snapshot, play and grade one episode. On the driver's node (``home``)
    the episode file is written where the job says; elsewhere (or with no ``home``) it is played in a
    temporary folder and its files are returned for the driver to write."""
    import ray

    start = time.perf_counter()
    node = ray.get_runtime_context().get_node_id()
    ship = home is None or node != home
    head = {"task": job.task, "episode_db": job.episode}
    extra = {"trial": job.trial, "seed": job.trial}
    try:
        built = built_hash(job.task)
    except Exception as exc:
        return {"record": _failure(head, extra, "snapshot", exc, start, Path(job.episode)), "files": {}}
    if built != expected:
        exc = SnapshotMismatch(
            f"node {node[:12]} built snapshot {built[:12]} for {job.task}, but the driver expects {expected[:12]}: "
            "install the same simtenant (and seed files) on every node"
        )
        return {"record": _failure(head, extra, "snapshot", exc, start, Path(job.episode)), "files": {}}
    if not ship:
        return {"record": play_and_grade(job), "files": {}}
    folder = Path(tempfile.mkdtemp(prefix="simtenant-ray-"))
    try:
        episode = folder / Path(job.episode).name
        local = replace(job, episode=str(episode))
        if actions is not None:
            (folder / "actions").write_bytes(actions)
            local = replace(local, actions=str(folder / "actions"))
        record = play_and_grade(local)
        record["episode_db"] = job.episode
        files = {p.name: p.read_bytes() for p in [episode, *sidecars(episode)] if p.is_file()}
        return {"record": record, "files": files}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --- on the driver -------------------------------------------------------------------------------


def _connect(ray: Any, address: str | None, cpus: int) -> bool:
    """Connect to the cluster at ``address``, or start a local instance (unless this process is
    already connected). True when this call connected, so it should shut down."""
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    if address is None:  # "local": a new instance even when RAY_ADDRESS is set
        options |= {"address": "local", "num_cpus": cpus, "include_dashboard": False}
    else:
        _check_reachable(address)
        options["address"] = address
    try:
        ray.init(**options)
    except Exception as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise RayUnavailable(f"could not start or reach {where}: {type(exc).__name__}: {exc}") from None
    return True


def _check_reachable(address: str) -> None:
    """Fail at once on a host:port nothing listens on (Ray itself retries for minutes)."""
    host, sep, port = address.rpartition(":")
    if "://" in address or not sep or not port.isdigit():
        return  # "auto", or Ray Client's ray://: left to Ray
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise RayUnavailable(f"nothing answers at {address} (the Ray cluster's address): {exc}") from None


def _is_client(ray: Any) -> bool:
    try:
        return bool(ray.util.client.ray.is_connected())
    except Exception:
        return False


def _error_record(job: Job, exc: Exception, start: float) -> dict[str, Any]:
    """A task Ray could not finish (its worker or node died, or it raised) as an infra failure."""
    cause = getattr(exc, "cause", None) or exc
    message = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    error = RayTaskFailed(f"{type(cause).__name__}: {message}")
    head = {"task": job.task, "episode_db": job.episode}
    return _failure(head, {"trial": job.trial, "seed": job.trial}, "ray", error, start, Path(job.episode))


class RayTaskFailed(SimtenantError):
    code = 500
    error = "ray_task_failed"


def _write_files(job: Job, files: dict[str, bytes]) -> None:
    """Write an episode's shipped files into the run folder, beside where the job put it."""
    folder = Path(job.episode).parent
    for name, data in files.items():
        target = folder / Path(name).name
        tmp = target.with_name(target.name + ".part")
        tmp.write_bytes(data)
        tmp.replace(target)


def execute_ray(
    jobs: list[Job],
    out: Path,
    workers: int,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    display: AbstractContextManager[Any] | None = None,
    address: str | None = None,
    ship: bool = False,
) -> None:
    """Play the jobs as Ray tasks, at most ``workers`` at once, appending each record to
    results.jsonl as it finishes. A task on another node than the driver's (any task through Ray
    Client, or with ``ship``) sends its episode files back and the driver writes them."""
    if not jobs:
        return
    ray = require_ray()
    expected = {task: expected_hash(task) for task in dict.fromkeys(job.task for job in jobs)}
    previous = signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() else None
    started = _connect(ray, address, max(1, min(workers, len(jobs))))
    try:
        remote = ray.remote(num_cpus=1, max_retries=1)(run_episode)
        home = None if ship or _is_client(ray) else ray.get_runtime_context().get_node_id()
        waiting = list(jobs)
        running: dict[Any, tuple[Job, float]] = {}

        def submit() -> None:
            while waiting and len(running) < max(1, workers):
                job = waiting.pop(0)
                actions = Path(job.actions).read_bytes() if job.actions else None
                ref = remote.remote(_absolute(job), expected[job.task], home, actions)
                running[ref] = (job, time.perf_counter())

        def finished_records() -> Iterator[dict[str, Any]]:
            submit()
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    job, start = running.pop(ref)
                    try:
                        answer = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        _remove_episode(Path(job.episode))
                        answer = {"record": _error_record(job, exc, start), "files": {}}
                    _write_files(job, answer["files"])
                    record = answer["record"]
                    record["episode_db"] = job.episode
                    submit()
                    yield record

        def stop() -> None:
            for ref in list(running):
                with suppress(Exception):
                    ray.cancel(ref, force=True)

        collect(finished_records(), out, on_result, display, stop=stop)
    finally:
        if started:
            ray.shutdown()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _absolute(job: Job) -> Job:
    """The job with absolute paths: a worker's working folder need not be the driver's."""
    return replace(
        job,
        episode=str(Path(job.episode).resolve()),
        actions=str(Path(job.actions).resolve()) if job.actions else None,
    )
