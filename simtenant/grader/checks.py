"""Task checks on a finished episode: SQL on the final database, facts in the
final answer, and rules over the trajectory."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..db import open_readonly
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


def run_check(
    check: Check,
    database: Path,
    answer: str | None,
    calls: list[RecordedCall],
    judge: JudgeConfig | None = None,
    judgments: list[Judgment] | None = None,
) -> CheckResult:
    """One check's result; a judge check asks ``judge`` and adds its verdict to ``judgments``."""
    if isinstance(check, JudgeCheck):
        return _judge(check, database, answer or "", judge, judgments)
    passed, detail = _RUNNERS[type(check)](check, database, answer or "", calls)
    return CheckResult(check.name, check.kind, passed, detail)


def _conversation(database: Path) -> list[tuple[str, str]]:
    connection = open_readonly(database)
    try:
        return list(connection.execute("SELECT role, content FROM _messages ORDER BY seq"))
    finally:
        connection.close()


def _judge(
    check: JudgeCheck, database: Path, answer: str, judge: JudgeConfig | None, judgments: list[Judgment] | None
) -> CheckResult:
    def result(passed: bool | None, detail: str) -> CheckResult:
        return CheckResult(check.name, check.kind, passed, detail)

    if judge is None:
        return result(None, "skipped: no judge configured")
    speakers = {"agent": "AGENT", "user": "OPERATOR"}
    lines = [f"{speakers[role]}: {content}" for role, content in _conversation(database)]
    material = "\n".join([*lines, f"FINAL ANSWER: {answer}"])
    try:
        verdict, reasoning = ask(judge, ASSERTION.format(assertion=check.assertion), material)
    except JudgeError as exc:
        return result(None, f"skipped: the judge failed ({exc})")
    if judgments is not None:
        judgments.append(Judgment(check.name, "assertion", verdict, VERDICTS[verdict], reasoning))
    return result(verdict == "good", f"judge {judge.model}: {verdict}: {reasoning}")


def _sql(check: SqlCheck, database: Path, _answer: str, _calls: list[RecordedCall]) -> tuple[bool, str]:
    connection = open_readonly(database)
    try:
        rows = [list(r) for r in connection.execute(check.query)]
    except sqlite3.Error as exc:
        return False, f"query failed: {exc}"
    finally:
        connection.close()
    return rows == check.expect, f"rows {rows}, expected {check.expect}"


def _answer(check: AnswerCheck, _database: Path, answer: str, _calls: list[RecordedCall]) -> tuple[bool, str]:
    return _stated(check.facts, answer)


def _told_user(check: ToldUserCheck, database: Path, _answer: str, _calls: list[RecordedCall]) -> tuple[bool, str]:
    said = [content for role, content in _conversation(database) if role == "agent"]
    return _stated(check.facts, "\n".join(said))


def _stated(facts: list[Fact], text: str) -> tuple[bool, str]:
    missing = missing_facts(text, facts)
    return not missing, f"missing: {', '.join(missing)}" if missing else "all facts stated"


def _matching(calls: list[RecordedCall], matcher: Any) -> list[RecordedCall]:
    return [c for c in calls if call_matches(matcher, c.tool, c.args, c.ok, c.result)]


def _before(check: BeforeCheck, _database: Path, _answer: str, calls: list[RecordedCall]) -> tuple[bool, str]:
    then = _matching(calls, check.then)
    if not then:
        return True, "no call it constrains"
    first = [c for c in _matching(calls, check.first) if c.seq < then[0].seq]
    return bool(first), f"call {then[0].seq} ({then[0].tool}) " + (
        "was preceded as required" if first else "came first"
    )


def _forbid(check: ForbidCheck, _database: Path, _answer: str, calls: list[RecordedCall]) -> tuple[bool, str]:
    found = _matching(calls, check.call)
    return not found, f"forbidden call at {', '.join(str(c.seq) for c in found)}" if found else "none made"


def _no_duplicates(
    _check: NoDuplicatesCheck, _database: Path, _answer: str, calls: list[RecordedCall]
) -> tuple[bool, str]:
    seen: set[tuple[str, str]] = set()
    repeated = []
    for call in calls:
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
