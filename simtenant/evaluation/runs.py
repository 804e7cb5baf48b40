"""Running an evaluation: the run folder, the job list, one episode played and graded in a worker,
and the local backend (worker processes). ``simtenant.evaluation.ray`` is the other backend."""

from __future__ import annotations

import fcntl
import fnmatch
import inspect
import json
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Conflict, InvalidArgument, NotFound, SimtenantError
from ..task import Task
from ..world import all_tasks

RESULTS = "results.jsonl"
CONFIG = "eval.json"
SUMMARY = "summary.json"
REPORT = "report.html"
EPISODES = "episodes"


# --- tasks and episode files ---------------------------------------------------------------------


def match_tasks(patterns: Iterable[str]) -> list[Task]:
    """The tasks whose ids match any of the glob patterns (fnmatch), in id order."""
    patterns = [p for p in patterns if p.strip()]
    if not patterns:
        raise InvalidArgument("give at least one --tasks pattern, e.g. 'itsm/*'", error="no_tasks")
    found = [t for t in all_tasks() if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]
    if not found:
        raise NotFound(
            f"no task matches {', '.join(repr(p) for p in patterns)}; task ids are world/name, e.g. 'commerce/*'",
            error="no_matching_tasks",
        )
    return sorted(found, key=lambda t: t.id)


def episode_name(task_id: str, trial: int) -> str:
    return f"{task_id.replace('/', '__')}__t{trial}.db"


def sidecars(episode: Path) -> list[Path]:
    """Where an agent may leave notes on an episode (usage, infrastructure status): ``X.agent.json``
    beside ``X.db``, or ``X.db.agent.json``."""
    return [episode.with_suffix(".agent.json"), episode.with_name(episode.name + ".agent.json")]


def _remove_episode(episode: Path) -> None:
    """Remove what an unfinished play left behind: the file, SQLite's side files, the agent's sidecar."""
    for path in [episode, *(episode.with_name(episode.name + s) for s in ("-journal", "-wal", "-shm"))]:
        path.unlink(missing_ok=True)
    for path in sidecars(episode):
        path.unlink(missing_ok=True)


def _read_sidecar(episode: Path) -> dict[str, Any]:
    for path in sidecars(episode):
        if path.is_file():
            try:
                data = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                return {"infra_ok": False, "error": {"code": 500, "error": "bad_sidecar", "message": str(path)}}
            return data if isinstance(data, dict) else {}
    return {}


# --- one episode, in a worker --------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    task: str
    trial: int
    episode: str
    agent: str
    actions: str | None = None
    reward: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


def check_options(agent: str, options: dict[str, Any], tasks: list[Task]) -> dict[str, Any]:
    """The agent options that were given, refused (before anything is written) when the agent does not
    name them, or when the agent's own check refuses them for a task."""
    from ..agents import AGENTS

    given = {k: v for k, v in options.items() if v is not None}
    named = {
        name
        for name, p in inspect.signature(AGENTS[agent]).parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    } | {"max_steps"}  # the episode's turn budget, for every agent
    unknown = sorted(set(given) - named)
    if unknown:
        flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
        raise InvalidArgument(f"the {agent} agent takes no {flags}", error="unsupported_option")
    if agent == "llm":
        from ..agents.llm import check

        for task in tasks:
            check(task, **given)
    return given


def play_and_grade(job: Job) -> dict[str, Any]:
    """Play one episode and grade it; every failure becomes a record (infra_ok false), never a raise."""
    from ..agents import run as run_agent
    from ..grader import grade
    from ..world import get_task

    start = time.perf_counter()
    episode = Path(job.episode)
    head: dict[str, Any] = {"task": job.task, "episode_db": job.episode}
    extra: dict[str, Any] = {"trial": job.trial, "seed": job.trial}
    try:
        task = get_task(job.task)
        _remove_episode(episode)
        actions = Path(job.actions) if job.actions else None
        run_agent(task, job.agent, episode, actions=actions, **job.options)
    except Exception as exc:  # the agent (or its provider) failed: an infrastructure failure, recorded
        return _failure(head, extra, "agent", exc, start, episode)
    sidecar = _read_sidecar(episode)
    try:
        graded = grade(episode, job.reward)
    except Exception as exc:
        return _failure(head, extra, "grade", exc, start, episode)
    result = graded.to_dict()
    record = {**result, "metrics": graded.metrics(), **extra}
    record["duration_s"] = round(time.perf_counter() - start, 4)
    record["tokens"] = sidecar.get("usage", sidecar.get("tokens"))
    record["user_tokens"] = sidecar.get("user_usage")  # a model-played operator's, when there is one
    record["infra_ok"] = bool(sidecar.get("infra_ok", True))
    record["episode_completed"] = bool(sidecar.get("episode_completed", result["completed"]))
    if sidecar.get("error") is not None:
        record["error"] = sidecar["error"]
    return record


def _failure(
    head: dict[str, Any], extra: dict[str, Any], stage: str, exc: Exception, start: float, episode: Path
) -> dict[str, Any]:
    error = exc.to_dict() if isinstance(exc, SimtenantError) else {"code": 500, "error": type(exc).__name__}
    if not isinstance(exc, SimtenantError):
        error["message"] = str(exc) or type(exc).__name__
    sidecar = _read_sidecar(episode) if episode.exists() else {}
    return {
        **head,
        "reward": None,
        "steps": None,
        "completed": False,
        **extra,
        "duration_s": round(time.perf_counter() - start, 4),
        "tokens": sidecar.get("usage", sidecar.get("tokens")),
        "infra_ok": False,
        "episode_completed": False,
        "error": {**error, "stage": stage},
    }


def _worker_started(parent: int) -> None:
    """Workers leave Ctrl-C to the parent, which stops them, and end themselves if the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class Stopped(KeyboardInterrupt):
    """The run was told to stop (SIGTERM): handled as Ctrl-C is."""


def _stop_on_sigterm(signum: int, _frame: Any) -> None:
    raise Stopped(f"signal {signum}")


# --- the run -------------------------------------------------------------------------------------


def read_results(out: Path) -> list[dict[str, Any]]:
    """The finished episodes of a run (a half-written last line is skipped), the last record of each
    (task, trial) winning."""
    path = Path(out) / RESULTS
    if not path.is_file():
        return []
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
            records[(record["task"], int(record["trial"]))] = record
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
    return list(records.values())


def read_config(out: Path) -> dict[str, Any]:
    path = Path(out) / CONFIG
    try:
        return json.loads(path.read_text()) if path.is_file() else {}
    except json.JSONDecodeError:
        return {}


LOCK = ".lock"


@contextmanager
def locked(out: Path) -> Iterator[None]:
    """Hold the run folder ``out`` for one eval: a second eval on it (a second ``--resume`` in another
    terminal) is refused at once, not left to replay the same episodes and delete the other's files. The
    lock is the kernel's (``flock``), so a killed eval never leaves it behind."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise Conflict(f"{out} exists and is not a folder", error="run_exists")
    out.mkdir(parents=True, exist_ok=True)
    with (out / LOCK).open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Conflict(
                f"another simtenant eval is writing {out}; wait for it, or pick another --out", error="run_locked"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare(
    out: Path,
    tasks: list[Task],
    trials: int,
    agent: str,
    resume: bool,
    *,
    actions: Path | None = None,
    reward: str | None = None,
    options: dict[str, Any] | None = None,
    patterns: list[str] | None = None,
) -> list[Job]:
    """Check the run folder and list the episodes still to play (removing half-written ones)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise Conflict(f"{out} exists and is not a folder", error="run_exists")
    done = read_results(out)
    started = (out / RESULTS).is_file() and (out / RESULTS).stat().st_size > 0
    if not resume and (started or any((out / EPISODES).glob("*"))):
        raise Conflict(
            f"{out} already holds a run; add --resume to continue it, or pick another --out", error="run_exists"
        )
    config = {
        "agent": agent,
        "tasks": patterns or [t.id for t in tasks],
        "trials": trials,
        "reward": reward,
        "actions": str(actions) if actions else None,
        "options": options or {},
    }
    previous = read_config(out)
    if resume and previous:
        for key in ("agent", "reward", "actions", "options"):
            if previous.get(key) != config[key]:
                raise Conflict(
                    f"{out} was run with {key} {previous.get(key)!r}, not {config[key]!r}; resume it as it was run",
                    error="run_mismatch",
                )
        config["trials"] = max(trials, int(previous.get("trials", trials)))
        config["tasks"] = sorted(set(previous.get("tasks", [])) | set(config["tasks"]))
    (out / EPISODES).mkdir(parents=True, exist_ok=True)
    # Rewrite the results without a half-written last line, so appended lines stay whole.
    (out / RESULTS).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in done))
    (out / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    finished = {(r["task"], int(r["trial"])) for r in done}
    jobs = []
    for trial in range(1, trials + 1):  # trial-major: the trials of one task rarely run at once
        for task in tasks:
            if (task.id, trial) in finished:
                continue
            episode = out / EPISODES / episode_name(task.id, trial)
            _remove_episode(episode)
            jobs.append(
                Job(task.id, trial, str(episode), agent, str(actions) if actions else None, reward, options or {})
            )
    return jobs


class WorkerDied(SimtenantError):
    code = 500
    error = "worker_died"


def process_context() -> multiprocessing.context.BaseContext:
    """Worker processes forked where the platform can (they share the parent's imports), else spawned."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def execute_local(
    jobs: list[Job],
    out: Path,
    workers: int,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    display: AbstractContextManager[Any] | None = None,
) -> None:
    """Play the jobs in ``workers`` processes, appending each record to results.jsonl as it finishes.

    ``display`` (a progress bar) is entered once the workers exist: they are forked from a process
    with no other thread running."""
    if not jobs:
        return
    executor = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=process_context(),
        initializer=_worker_started,
        initargs=(os.getpid(),),
    )
    # Every job is submitted (so every worker is forked) before the caller's progress thread runs.
    pending: set[Future[dict[str, Any]]] = {executor.submit(play_and_grade, job) for job in jobs}

    def finished_records() -> Iterator[dict[str, Any]]:
        nonlocal pending
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    yield future.result()
                except BrokenProcessPool:
                    raise WorkerDied(
                        "a worker process died; the episodes recorded so far are kept: run again with --resume"
                    ) from None

    collect(finished_records(), out, on_result, display, stop=lambda: _stop(executor))
    executor.shutdown(wait=True)


def collect(
    records: Iterable[dict[str, Any]],
    out: Path,
    on_result: Callable[[dict[str, Any]], None] | None,
    display: AbstractContextManager[Any] | None,
    stop: Callable[[], None],
) -> None:
    """Append every record to results.jsonl as it comes (one whole line each, flushed), telling
    ``on_result``; SIGTERM is handled as Ctrl-C, and on any interruption ``stop`` ends the workers."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        with display or nullcontext(), (Path(out) / RESULTS).open("a") as results:
            for record in records:
                results.write(json.dumps(record, ensure_ascii=False) + "\n")
                results.flush()
                if on_result is not None:
                    on_result(record)
    except BaseException:
        stop()
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _stop(executor: ProcessPoolExecutor) -> None:
    """Stop at once: cancel what has not started and end this pool's own worker processes."""
    processes = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
