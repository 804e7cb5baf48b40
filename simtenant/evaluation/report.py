"""The HTML report of a run: its summary (completion, tokens, the means of the grade's numbers), pass^k
and pass@k, a bar per task, the tasks with their reward modes and links to their episode files, every
failed episode with its diff and transcript, and the transcripts of the passed ones, collapsed, in one
self-contained file."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ..errors import SimtenantError
from .runs import EPISODES, REPORT, episode_name, read_results
from .scores import succeeded, write_summary

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
    from ..grader import EpisodeFile

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
    name = episode_name(record["task"], int(record["trial"]))
    parts.append(f'<p>episode: <a href="{EPISODES}/{html.escape(name, quote=True)}">{_e(name)}</a></p>')
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


def _passed_episode(out: Path, record: dict[str, Any]) -> str:
    path = out / EPISODES / episode_name(record["task"], int(record["trial"]))
    return (
        f"<details><summary>{_e(record['task'])} trial {_e(str(record['trial']))} — "
        f'<span class="ok">passed</span>, {_e(str(record.get("steps")))} steps</summary>'
        f'<p>episode: <a href="{EPISODES}/{html.escape(path.name, quote=True)}">{_e(path.name)}</a></p>'
        f"{_transcript(path)}</details>"
    )


def _tokens(tokens: dict[str, int] | None) -> str:
    if not tokens or not tokens.get("total_tokens"):
        return "–"
    return f"{tokens['total_tokens']} ({tokens['prompt_tokens']} + {tokens['completion_tokens']})"


def _means(means: dict[str, float | None]) -> str:
    """The means of the grade's numbers (db_match, checks passed, rubric components, assertion share, ...)."""
    if not means:
        return ""
    rows = "".join(f"<tr><td>{_e(key)}</td><td>{_num(value)}</td></tr>" for key, value in means.items())
    return f"<h2>Means of the grade's numbers</h2><table><tr><th>number</th><th>mean</th></tr>{rows}</table>"


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
        f"<tr><th>mean completion (the episode ended)</th><td>{_num(summary.get('mean_completion'))}</td></tr>",
        f"<tr><th>tokens (prompt + completion)</th><td>{_tokens(summary.get('tokens'))}</td></tr>",
        "</table>",
        _means(summary.get("metric_means") or {}),
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
        f"<table><tr><th>task</th><th>reward</th><th>valid trials</th><th>successes</th><th>pass rate</th>"
        f"<th>mean reward</th><th>completed</th><th>mean partial credit</th><th>mean db credit</th>{header}</tr>"
    )
    for task in summary["tasks"]:
        cells = {r["trial"]: r for r in task["results"]}
        trial_cells = []
        for t in range(1, top + 1):
            r = cells.get(t)
            if r is None:
                trial_cells.append("<td></td>")
                continue
            link = f"{EPISODES}/{html.escape(episode_name(task['task'], t), quote=True)}"
            if not r["infra_ok"]:
                trial_cells.append(f'<td class="infra"><a href="{link}">!</a></td>')
            else:
                ok = r["reward"] is not None and r["reward"] >= 1 - 1e-9
                trial_cells.append(f'<td class="{"ok" if ok else "bad"}"><a href="{link}">{_num(r["reward"])}</a></td>')
        rate = task["successes"] / task["trials"] if task["trials"] else None
        lines.append(
            f"<tr><td>{_e(task['task'])}</td><td>{_e(task.get('reward_mode')) or '–'}</td><td>{task['trials']}</td>"
            f"<td>{task['successes']}</td><td>{_num(rate)}</td><td>{_num(task['mean_reward'])}</td>"
            f"<td>{_num(task.get('mean_completion'))}</td><td>{_num(task.get('mean_partial_credit'))}</td>"
            f"<td>{_num(task.get('mean_db_credit'))}</td>{''.join(trial_cells)}</tr>"
        )
    lines.append("</table>")
    failed = [r for r in sorted(records, key=lambda r: (r["task"], int(r["trial"]))) if not succeeded(r)]
    lines.append(f"<h2>Failed episodes ({len(failed)})</h2>")
    lines += [_failed_episode(out, r) for r in failed] or ["<p>none</p>"]
    passed = [r for r in sorted(records, key=lambda r: (r["task"], int(r["trial"]))) if succeeded(r)]
    lines.append(f"<h2>Passed episodes ({len(passed)})</h2>")
    lines += [_passed_episode(out, r) for r in passed] or ["<p>none</p>"]
    lines.append("</body></html>")
    return "\n".join(lines) + "\n"


def write_report(out: Path) -> tuple[dict[str, Any], Path]:
    """Summarise a run folder again and write its report.html."""
    out = Path(out)
    summary = write_summary(out)
    path = out / REPORT
    path.write_text(render_report(out, summary, read_results(out)))
    return summary, path
