"""Batch evaluation: many tasks × trials played in worker processes, graded, summarised and reported.

A run is a folder: ``eval.json`` (what was asked), ``episodes/<task>__t<trial>.db`` (one episode file
each), ``results.jsonl`` (one graded line per finished episode, appended as it finishes, so a run that
stops can be resumed), ``summary.json`` and ``report.html``. Every episode is played by
``agents.run`` and graded by ``grader.grade``: the same episode object and dispatcher as ``simtenant run``.

pass^k (every one of k trials succeeds) and pass@k (at least one does) are estimated per task from its
n valid trials with c successes, unbiasedly, as C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k), then averaged
over the tasks that have at least k valid trials. Episodes whose infrastructure failed (the agent or
its provider raised, or the agent said so in its sidecar) are counted but left out of every score.
"""

from __future__ import annotations

import fnmatch
import html
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
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

from .errors import Conflict, InvalidArgument, NotFound, SimtenantError
from .task import Task
from .world import all_tasks

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
    from .agents import AGENTS

    given = {k: v for k, v in options.items() if v is not None}
    named = {
        name
        for name, p in inspect.signature(AGENTS[agent]).parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    unknown = sorted(set(given) - named)
    if unknown:
        flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
        raise InvalidArgument(f"the {agent} agent takes no {flags}", error="unsupported_option")
    if agent == "llm":
        from .agents.llm import check

        for task in tasks:
            check(task, **given)
    return given


def play_and_grade(job: Job) -> dict[str, Any]:
    """Play one episode and grade it; every failure becomes a record (infra_ok false), never a raise."""
    from .agents import run as run_agent
    from .grader import grade
    from .world import get_task

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
        result = grade(episode, job.reward).to_dict()
    except Exception as exc:
        return _failure(head, extra, "grade", exc, start, episode)
    record = {**result, **extra}
    record["duration_s"] = round(time.perf_counter() - start, 4)
    record["tokens"] = sidecar.get("usage", sidecar.get("tokens"))
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


def execute(
    jobs: list[Job],
    out: Path,
    workers: int,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    display: AbstractContextManager[Any] | None = None,
    *,
    backend: str = "local",
    address: str | None = None,
) -> None:
    """Play the jobs in ``workers`` processes, appending each record to results.jsonl as it finishes.

    ``display`` (a progress bar) is entered once the workers exist: they are forked from a process
    with no other thread running. With ``backend`` "ray" every episode is a Ray task instead (on a
    local Ray instance, or on the cluster at ``address``); the records are handled the same way."""
    if not jobs:
        return
    if backend == "ray":
        from .evaluation_ray import execute_ray

        execute_ray(jobs, out, workers, on_result=on_result, display=display, address=address)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    executor = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=context,
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


# --- scores --------------------------------------------------------------------------------------


def is_valid(record: dict[str, Any]) -> bool:
    """Graded, with its infrastructure sound: an episode that counts."""
    return bool(record.get("infra_ok", True)) and record.get("reward") is not None


def succeeded(record: dict[str, Any]) -> bool:
    """A valid episode with reward 1."""
    return is_valid(record) and float(record["reward"]) >= 1.0 - 1e-9


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that k trials drawn from n, c of them successes, all succeed: C(c,k)/C(n,k)."""
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k trials drawn from n succeeds: 1 − C(n−c,k)/C(n,k)."""
    return 1.0 - comb(n - c, k) / comb(n, k)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def _mean_of(records: list[dict[str, Any]], key: str) -> float | None:
    """The mean of a grade field over records that have it (older records may not)."""
    return _mean([float(r[key]) for r in records if r.get(key) is not None])


def summarize(records: list[dict[str, Any]], trials: int | None = None) -> dict[str, Any]:
    """Episodes, infra failures, mean reward and steps, pass^k and pass@k for k = 1..trials, per task."""
    per_task: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(records, key=lambda r: (r["task"], int(r["trial"]))):
        per_task.setdefault(record["task"], []).append(record)
    valid = [r for r in records if is_valid(r)]
    most = max((len(rs) for rs in per_task.values()), default=0)
    top = max(trials or 0, most)
    counts = {
        task: (len(ok), sum(succeeded(r) for r in ok))
        for task, rs in per_task.items()
        for ok in [[r for r in rs if is_valid(r)]]
    }
    pass_hat: dict[str, float | None] = {}
    pass_at: dict[str, float | None] = {}
    tasks_at: dict[str, int] = {}
    for k in range(1, top + 1):
        eligible = [(n, c) for n, c in counts.values() if n >= k]
        tasks_at[str(k)] = len(eligible)
        pass_hat[str(k)] = _mean([pass_hat_k(n, c, k) for n, c in eligible])
        pass_at[str(k)] = _mean([pass_at_k(n, c, k) for n, c in eligible])
    return {
        "episodes": len(records),
        "valid_episodes": len(valid),
        "infra_failures": len(records) - len(valid),
        "mean_reward": _mean([float(r["reward"]) for r in valid]),
        "mean_partial_credit": _mean_of(valid, "partial_credit"),
        "mean_db_credit": _mean_of(valid, "db_credit"),
        "mean_steps": _mean([float(r["steps"]) for r in valid if r.get("steps") is not None]),
        "trials": top,
        "pass_hat_k": pass_hat,
        "pass_at_k": pass_at,
        "tasks_at_k": tasks_at,
        "tasks": [
            {
                "task": task,
                "trials": counts[task][0],
                "successes": counts[task][1],
                "mean_reward": _mean([float(r["reward"]) for r in rs if is_valid(r)]),
                "mean_partial_credit": _mean_of([r for r in rs if is_valid(r)], "partial_credit"),
                "mean_db_credit": _mean_of([r for r in rs if is_valid(r)], "db_credit"),
                "infra_failures": len(rs) - counts[task][0],
                "results": [{"trial": int(r["trial"]), "reward": r.get("reward"), "infra_ok": is_valid(r)} for r in rs],
            }
            for task, rs in per_task.items()
        ],
    }


def write_summary(out: Path) -> dict[str, Any]:
    """Summarise a run folder from its results.jsonl and store it as summary.json."""
    out = Path(out)
    if not (out / RESULTS).is_file():
        raise NotFound(f"{out}: not an eval run (no {RESULTS})", error="not_a_run")
    config = read_config(out)
    summary = {"run": str(out), "agent": config.get("agent"), **summarize(read_results(out), config.get("trials"))}
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


# --- the HTML report -----------------------------------------------------------------------------

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f4f4f4}.ok{color:#18794e;font-weight:600}.bad{color:#c62828;font-weight:600}
.infra{color:#b26a00;font-weight:600}code,pre{font:12px ui-monospace,monospace}pre{white-space:pre-wrap;
word-break:break-word;margin:0}details{margin:.6em 0;border:1px solid #ddd;border-radius:4px;padding:.4em .8em}
summary{cursor:pointer;font-weight:600}.call td{font:12px ui-monospace,monospace}.err{background:#fff3f3}
"""


def _e(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return html.escape(text)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _clip(value: Any, width: int = 1500) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _bar_chart(tasks: list[dict[str, Any]]) -> str:
    """An inline SVG: one horizontal bar per task, its mean reward over valid trials."""
    label, width, row = 330, 420, 22
    height = row * len(tasks) + 30
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label + width + 70}" height="{height}" '
        'role="img" aria-label="mean reward by task">'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = label + tick * width
        parts.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 20}" stroke="#e3e3e3"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 5}" font-size="11" text-anchor="middle">{tick:g}</text>')
    for i, task in enumerate(tasks):
        y = i * row + 2
        reward = task["mean_reward"]
        colour = "#9e9e9e" if reward is None else "#2e7d32" if reward >= 1 else "#ef6c00" if reward > 0 else "#c62828"
        parts.append(
            f'<text x="{label - 6}" y="{y + 14}" font-size="12" text-anchor="end">{html.escape(task["task"])}</text>'
        )
        bar = 0 if reward is None else max(reward * width, 1.5)
        parts.append(f'<rect x="{label}" y="{y + 3}" width="{bar:.1f}" height="{row - 8}" fill="{colour}"/>')
        parts.append(f'<text x="{label + bar + 5:.1f}" y="{y + 14}" font-size="11">{_num(reward)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _transcript(path: Path) -> str:
    from .grader import EpisodeFile

    try:
        episode = EpisodeFile.read(path)
    except SimtenantError as exc:
        return f"<p class=bad>transcript unavailable: {_e(exc.message)}</p>"
    rows = []
    if episode.messages and episode.messages[0][0] == "user":
        rows.append(f"<p><b>operator</b>: {_e(episode.messages[0][1])}</p>")
    rows.append(f"<p>status {_e(episode.status)}; answer: {_e(episode.answer) or '–'}</p>")
    rows.append("<table><tr><th>#</th><th>tool</th><th>args</th><th>result / error</th></tr>")
    for call in episode.calls:
        outcome = call.result if call.ok else call.error
        rows.append(
            f'<tr class="call{"" if call.ok else " err"}"><td>{call.seq}</td><td>{_e(call.tool)}</td>'
            f"<td><pre>{_e(_clip(call.args))}</pre></td><td><pre>{_e(_clip(outcome))}</pre></td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _diff_table(diff: list[dict[str, Any]]) -> str:
    if not diff:
        return "<p>no row differences</p>"
    rows = ["<table><tr><th>table</th><th>key</th><th>column</th><th>expected</th><th>actual</th><th>kind</th></tr>"]
    for d in diff:
        cells = [d.get(c) for c in ("table", "key", "column", "expected", "actual", "kind")]
        rows.append("<tr>" + "".join(f"<td><pre>{_e(_clip(c, 400))}</pre></td>" for c in cells) + "</tr>")
    rows.append("</table>")
    return "".join(rows)


def _failed_episode(out: Path, record: dict[str, Any]) -> str:
    infra = not record.get("infra_ok", True) or record.get("reward") is None
    tag = '<span class="infra">infra failure</span>' if infra else '<span class="bad">failed</span>'
    parts = [
        f"<details><summary>{_e(record['task'])} trial {_e(str(record['trial']))} — {tag}, "
        f"reward {_e(_num(record.get('reward')))}</summary>"
    ]
    if record.get("error"):
        parts.append(f"<p class=bad>error: <code>{_e(record['error'])}</code></p>")
    failed_checks = [c for c in record.get("checks", []) if c.get("passed") is False]
    if failed_checks:
        parts.append("<p>failed checks:</p><ul>")
        parts += [
            f"<li><b>{_e(c.get('name'))}</b> ({_e(c.get('kind'))}): {_e(c.get('detail'))}</li>" for c in failed_checks
        ]
        parts.append("</ul>")
    for component in record.get("rubric", []):
        parts.append(
            f"<p>rubric {_e(component.get('name'))}: {_e(_num(component.get('score')))} — "
            f"{_e(component.get('detail'))}</p>"
        )
    if not infra:
        parts.append("<h4>diff against gold</h4>" + _diff_table(record.get("diff", [])))
    parts.append(
        "<h4>transcript</h4>" + _transcript(out / EPISODES / episode_name(record["task"], int(record["trial"])))
    )
    parts.append("</details>")
    return "".join(parts)


def render_report(out: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """The report of a run as one self-contained HTML page (inline CSS and SVG, no scripts)."""
    top = summary["trials"]
    lines = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>simtenant eval {_e(str(out))}</title><style>{CSS}</style></head><body>",
        f"<h1>simtenant eval — {_e(str(out))}</h1>",
        "<table>",
        f"<tr><th>agent</th><td>{_e(summary.get('agent')) or '–'}</td></tr>",
        f"<tr><th>episodes</th><td>{summary['episodes']}</td></tr>",
        f"<tr><th>infra failures (excluded)</th><td>{summary['infra_failures']}</td></tr>",
        f"<tr><th>mean reward</th><td>{_num(summary['mean_reward'])}</td></tr>",
        f"<tr><th>mean partial credit (its reward mode's)</th><td>{_num(summary.get('mean_partial_credit'))}</td></tr>",
        f"<tr><th>mean db credit (the row diff's)</th><td>{_num(summary.get('mean_db_credit'))}</td></tr>",
        f"<tr><th>mean steps</th><td>{_num(summary['mean_steps'])}</td></tr>",
        "</table>",
        "<h2>pass^k and pass@k</h2><table><tr><th>k</th><th>pass^k</th><th>pass@k</th><th>tasks</th></tr>",
    ]
    for k in range(1, top + 1):
        key = str(k)
        lines.append(
            f"<tr><td>{k}</td><td>{_num(summary['pass_hat_k'][key])}</td><td>{_num(summary['pass_at_k'][key])}</td>"
            f"<td>{summary['tasks_at_k'][key]}</td></tr>"
        )
    lines += ["</table>", "<h2>Mean reward by task</h2>", _bar_chart(summary["tasks"]), "<h2>Tasks</h2>"]
    header = "".join(f"<th>t{t}</th>" for t in range(1, top + 1))
    lines.append(
        f"<table><tr><th>task</th><th>valid trials</th><th>successes</th><th>pass rate</th>"
        f"<th>mean reward</th><th>mean partial credit</th><th>mean db credit</th>{header}</tr>"
    )
    for task in summary["tasks"]:
        cells = {r["trial"]: r for r in task["results"]}
        trial_cells = []
        for t in range(1, top + 1):
            r = cells.get(t)
            if r is None:
                trial_cells.append("<td></td>")
            elif not r["infra_ok"]:
                trial_cells.append('<td class="infra">!</td>')
            else:
                ok = r["reward"] is not None and r["reward"] >= 1 - 1e-9
                trial_cells.append(f'<td class="{"ok" if ok else "bad"}">{_num(r["reward"])}</td>')
        rate = task["successes"] / task["trials"] if task["trials"] else None
        lines.append(
            f"<tr><td>{_e(task['task'])}</td><td>{task['trials']}</td><td>{task['successes']}</td>"
            f"<td>{_num(rate)}</td><td>{_num(task['mean_reward'])}</td><td>{_num(task.get('mean_partial_credit'))}</td>"
            f"<td>{_num(task.get('mean_db_credit'))}</td>{''.join(trial_cells)}</tr>"
        )
    lines.append("</table>")
    failed = [r for r in sorted(records, key=lambda r: (r["task"], int(r["trial"]))) if not succeeded(r)]
    lines.append(f"<h2>Failed episodes ({len(failed)})</h2>")
    lines += [_failed_episode(out, r) for r in failed] or ["<p>none</p>"]
    lines.append("</body></html>")
    return "\n".join(lines) + "\n"


def write_report(out: Path) -> tuple[dict[str, Any], Path]:
    """Summarise a run folder again and write its report.html."""
    out = Path(out)
    summary = write_summary(out)
    path = out / REPORT
    path.write_text(render_report(out, summary, read_results(out)))
    return summary, path


def iter_k(summary: dict[str, Any]) -> Iterator[tuple[int, float | None, float | None, int]]:
    for k in range(1, summary["trials"] + 1):
        key = str(k)
        yield k, summary["pass_hat_k"][key], summary["pass_at_k"][key], summary["tasks_at_k"][key]
