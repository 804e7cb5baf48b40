"""Task checks on a finished episode: SQL on the final database, facts in the
final answer, and rules over the trajectory."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ..facts import Fact, missing_facts
from ..task import (
    AnswerCheck,
    BeforeCheck,
    Check,
    ForbidCheck,
    JudgeCheck,
    NoDuplicatesCheck,
    SqlCheck,
    ToldUserCheck,
)
from ..task.matching import call_matches
from .judge import VERDICTS, JudgeConfig, JudgeError, Judgment, ask

ASSERTION = (
    "Below is an episode of an AI agent working for an operator: their conversation, then the agent's final "
    "answer. Judge this assertion about the agent's conduct: {assertion}\n"
    "Answer good if the episode shows that the assertion holds, poor if it does not, acceptable if it holds "
    "only in part."
)


@dataclass(frozen=True)
class RecordedCall:
    seq: int
    tool: str
    args: dict[str, Any]
    args_json: str
    ok: bool
    result: Any
    error: Any
    reward: float | None


@dataclass(frozen=True)
class CheckResult:
    name: str
    kind: str
    passed: bool | None  # None: skipped (a judge check with no judge configured), not counted
    detail: str

    @property
    def skipped(self) -> bool:
        return self.passed is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "passed": self.passed,
            "skipped": self.skipped,
            "detail": self.detail,
        }


@dataclass
class Played:
    """What checks read of an episode: its final database (an open read-only connection), its answer,
    calls and conversation (role, content)."""

    database: sqlite3.Connection
    answer: str | None
    calls: list[RecordedCall]
    messages: list[tuple[str, str]] = field(default_factory=list)


def run_check(
    check: Check, played: Played, judge: JudgeConfig | None = None, judgments: list[Judgment] | None = None
) -> CheckResult:
    """One check's result; a judge check asks ``judge`` and adds its verdict to ``judgments``."""
    if isinstance(check, JudgeCheck):
        return _judge(check, played, judge, judgments)
    passed, detail = _RUNNERS[type(check)](check, played)
    return CheckResult(check.name, check.kind, passed, detail)


def _judge(
    check: JudgeCheck, played: Played, judge: JudgeConfig | None, judgments: list[Judgment] | None
) -> CheckResult:
    def result(passed: bool | None, detail: str) -> CheckResult:
        return CheckResult(check.name, check.kind, passed, detail)

    if judge is None:
        return result(None, "skipped: no judge configured")
    speakers = {"agent": "AGENT", "user": "OPERATOR"}
    lines = [f"{speakers[role]}: {content}" for role, content in played.messages]
    material = "\n".join([*lines, f"FINAL ANSWER: {played.answer or ''}"])
    try:
        verdict, reasoning = ask(judge, ASSERTION.format(assertion=check.assertion), material)
    except JudgeError as exc:
        return result(None, f"skipped: the judge failed ({exc})")
    if judgments is not None:
        judgments.append(Judgment(check.name, "assertion", verdict, VERDICTS[verdict], reasoning))
    return result(verdict == "good", f"judge {judge.model}: {verdict}: {reasoning}")


def _sql(check: SqlCheck, played: Played) -> tuple[bool, str]:
    try:
        rows = [list(r) for r in played.database.execute(check.query)]
    except sqlite3.Error as exc:
        return False, f"query failed: {exc}"
    return rows == check.expect, f"rows {rows}, expected {check.expect}"


def _answer(check: AnswerCheck, played: Played) -> tuple[bool, str]:
    return _stated(check.facts, played.answer or "")


def _told_user(check: ToldUserCheck, played: Played) -> tuple[bool, str]:
    said = [content for role, content in played.messages if role == "agent"]
    return _stated(check.facts, "\n".join(said))


def _stated(facts: list[Fact], text: str) -> tuple[bool, str]:
    missing = missing_facts(text, facts)
    return not missing, f"missing: {', '.join(missing)}" if missing else "all facts stated"


def _matching(calls: list[RecordedCall], matcher: Any) -> list[RecordedCall]:
    return [c for c in calls if call_matches(matcher, c.tool, c.args, c.ok, c.result)]


def _before(check: BeforeCheck, played: Played) -> tuple[bool, str]:
    calls = played.calls
    then = _matching(calls, check.then)
    if not then:
        return True, "no call it constrains"
    first = [c for c in _matching(calls, check.first) if c.seq < then[0].seq]
    return bool(first), f"call {then[0].seq} ({then[0].tool}) " + (
        "was preceded as required" if first else "came first"
    )


def _forbid(check: ForbidCheck, played: Played) -> tuple[bool, str]:
    found = _matching(played.calls, check.call)
    return not found, f"forbidden call at {', '.join(str(c.seq) for c in found)}" if found else "none made"


def _no_duplicates(_check: NoDuplicatesCheck, played: Played) -> tuple[bool, str]:
    seen: set[tuple[str, str]] = set()
    repeated = []
    for call in played.calls:
        if (call.tool, call.args_json) in seen:
            repeated.append(call.seq)
        seen.add((call.tool, call.args_json))
    return not repeated, f"repeated calls: {repeated}" if repeated else "no repeated call"


_RUNNERS: dict[type, Any] = {
    SqlCheck: _sql,
    AnswerCheck: _answer,
    BeforeCheck: _before,
    ForbidCheck: _forbid,
    NoDuplicatesCheck: _no_duplicates,
    ToldUserCheck: _told_user,
}
